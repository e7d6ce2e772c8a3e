#include "ascend_files/communication.hpp"

#include <cmath>

#include <fmt/format.h>

#include "ascend_files/csv_record_source.hpp"
#include "ascend_files/json_walk.hpp"
#include "cann_debug/reader/numbers.hpp"
#include "cann_debug/reader/text.hpp"

namespace cann_debug::plugins::ascend {
namespace {

using readers::JsonDocument;
using readers::JsonPath;
using readers::OrderedJson;

constexpr const char* kTimeInfo = "Communication Time Info";
constexpr const char* kBandwidthInfo = "Communication Bandwidth Info";

class CommunicationSource final : public readers::QueuedSource {
 public:
  CommunicationSource(std::string path, AscendFileOptions options)
      : path_(std::move(path)), options_(std::move(options)) {}

 private:
  void fill() override {
    const JsonDocument doc = readers::load_json(path_, options_.max_file_bytes);
    if (doc.empty) return;
    walk_leaves(
        doc, [](const OrderedJson& o) { return o.contains(kTimeInfo) || o.contains(kBandwidthInfo); },
        [&](const OrderedJson& leaf, const JsonPath& where, const CommContext& above) {
          CommContext ctx = above;
          classify_key(where.back(), ctx);
          visit(doc, leaf, where, ctx);
        });
  }

  MetricPoint point(const Record& r, const CommContext& ctx, std::string name, std::string unit, double value,
                    const std::string& source_name) const {
    MetricPoint p;
    p.name = std::move(name);
    p.unit = std::move(unit);
    p.value = value;
    p.key = r.key;
    if (!ctx.op.empty()) p.labels["op"] = ctx.op;
    if (!ctx.group.empty()) p.labels["group"] = ctx.group;
    if (!ctx.comm_kind.empty()) p.labels["comm_kind"] = ctx.comm_kind;
    if (!ctx.step.empty()) p.labels["step"] = ctx.step;
    p.labels["source_name"] = source_name;
    add_common_labels(p, options_);
    return p;
  }

  void visit(const JsonDocument& doc, const OrderedJson& leaf, const JsonPath& where,
             const CommContext& ctx) {
    Record r;
    auto& f = r.fields;
    f = nlohmann::json::object();
    if (!ctx.step.empty()) f["step"] = ctx.step;
    if (!ctx.comm_kind.empty()) f["comm_kind"] = ctx.comm_kind;
    f["op"] = ctx.op;
    if (!ctx.group.empty()) f["group"] = ctx.group;
    if (!ctx.group_ranks_text.empty()) f["group_ranks"] = ctx.group_ranks;
    if (ctx.aggregate) f["aggregate"] = true;
    if (!ctx.other_keys.empty()) f["other_keys"] = ctx.other_keys;
    r.key.step_id = ctx.step_id;
    r.key.rank = ctx.rank >= 0 ? ctx.rank : options_.rank;
    if (r.key.rank >= 0) f["rank"] = r.key.rank;
    if (!options_.node.empty()) r.key.node_id = options_.node;

    std::vector<MetricPoint> points;
    JsonPath at = where;
    if (auto it = leaf.find(kTimeInfo); it != leaf.end() && !it->is_null()) {
      at.push_back(kTimeInfo);
      if (!it->is_object())
        readers::fail_at(doc, at, fmt::format("expected an object, got {}", readers::json_kind(*it)));
      std::vector<std::pair<Converted, std::string>> times;
      for (const auto& [key, value] : it->items()) {
        at.push_back(key);
        Converted c = convert_field(doc, at, key, value);
        at.pop_back();
        f[c.name] = c.value;
        if (c.name == "start_timestamp_ns" && c.value.is_number_integer())
          r.key.timestamp_ns = c.value.get<std::int64_t>();
        times.emplace_back(std::move(c), key);
      }
      at.pop_back();
      for (const auto& [c, key] : times) {
        if (c.name == "start_timestamp_ns" || std::isnan(c.number) || (c.unit != "ns" && c.unit != "ratio"))
          continue;
        std::string base = c.unit == "ns" ? c.name.substr(0, c.name.size() - 3) : c.name;  // drop "_ns"
        points.push_back(point(r, ctx, fmt::format("comm.op.{}", base), c.unit, c.number, key));
      }
    }
    if (auto it = leaf.find(kBandwidthInfo); it != leaf.end() && !it->is_null()) {
      at.push_back(kBandwidthInfo);
      if (!it->is_object())
        readers::fail_at(doc, at,
                         fmt::format("expected an object of transports, got {}", readers::json_kind(*it)));
      nlohmann::json bandwidth = nlohmann::json::object();
      for (const auto& [transport, info] : it->items()) {
        at.push_back(transport);
        bandwidth[transport] = convert_transport(doc, at, info, r, ctx, transport, points);
        at.pop_back();
      }
      f["bandwidth"] = std::move(bandwidth);
    }
    records_.push_back(std::move(r));
    for (auto& p : points) metrics_.push_back(std::move(p));
  }

  nlohmann::json convert_transport(const JsonDocument& doc, JsonPath& at, const OrderedJson& info,
                                   const Record& r, const CommContext& ctx, const std::string& transport,
                                   std::vector<MetricPoint>& points) const {
    if (!info.is_object())
      readers::fail_at(doc, at,
                       fmt::format("expected an object for transport '{}', got {}",
                                   readers::printable(transport), readers::json_kind(info)));
    nlohmann::json out = nlohmann::json::object();
    std::vector<std::pair<Converted, std::string>> values;
    for (const auto& [key, value] : info.items()) {
      at.push_back(key);
      if (key == "Size Distribution") {
        out["size_distribution"] = size_distribution(doc, at, value);
      } else {
        Converted c = convert_field(doc, at, key, value);
        out[c.name] = c.value;
        values.emplace_back(std::move(c), key);
      }
      at.pop_back();
    }
    const auto number = [&](std::string_view name) {
      const auto it = out.find(name);
      return it != out.end() && it->is_number() ? it->get<double>() : 0.0;
    };
    if (number("transit_size_bytes") == 0.0 && number("transit_time_ns") == 0.0) return out;
    static constexpr std::pair<std::string_view, std::string_view> kPoints[] = {
        {"transit_size_bytes", "comm.transport.transit_size"},
        {"transit_time_ns", "comm.transport.transit_time"},
        {"bandwidth_bytes_per_s", "comm.transport.bandwidth"},
        {"large_packet_ratio", "comm.transport.large_packet_ratio"}};
    for (const auto& [c, key] : values) {
      for (const auto& [field, metric] : kPoints) {
        if (c.name != field || std::isnan(c.number)) continue;
        MetricPoint p = point(r, ctx, std::string(metric), c.unit.empty() ? "ratio" : c.unit, c.number, key);
        p.labels["transport"] = transport;
        points.push_back(std::move(p));
      }
    }
    return out;
  }

  // {"0.003072": [18, 0.0202498125], ...} -> [{size_bytes, count, total_time_ns}, ...]
  nlohmann::json size_distribution(const JsonDocument& doc, JsonPath& at, const OrderedJson& value) const {
    if (!value.is_object())
      readers::fail_at(doc, at,
                       fmt::format("expected an object {{size MB: [count, total ms]}}, got {}",
                                   readers::json_kind(value)));
    nlohmann::json out = nlohmann::json::array();
    for (const auto& [size, entry] : value.items()) {
      at.push_back(size);
      auto bytes = readers::decimal_scaled(size, 6);
      if (!bytes)
        readers::fail_at(
            doc, at,
            fmt::format("expected a packet size in MB as the key, got '{}'", readers::printable(size, 40)));
      if (!entry.is_array() || entry.size() != 2)
        readers::fail_at(
            doc, at, fmt::format("expected [count, total time in ms], got {}", readers::json_kind(entry)));
      at.push_back("0");
      const double count = number_at(doc, at, entry[0], "count");
      at.pop_back();
      at.emplace_back(1, '1');
      const double total_ms = number_at(doc, at, entry[1], "total time (ms)");
      at.pop_back();
      auto total_ns = readers::double_scaled(total_ms, 6);
      out.push_back({{"size_bytes", *bytes},
                     {"count", count},
                     {"total_time_ns", total_ns ? nlohmann::json(*total_ns) : nlohmann::json(nullptr)}});
      at.pop_back();
    }
    return out;
  }

  std::string path_;
  AscendFileOptions options_;
};

}  // namespace

std::unique_ptr<readers::ItemSource> open_communication(const std::string& path,
                                                        const AscendFileOptions& options) {
  return std::make_unique<CommunicationSource>(path, options);
}

}  // namespace cann_debug::plugins::ascend
