#include "ascend_files/communication_matrix.hpp"

#include <cmath>

#include <fmt/format.h>

#include "ascend_files/csv_record_source.hpp"
#include "ascend_files/json_walk.hpp"
#include "cann_debug/reader/text.hpp"

namespace cann_debug::plugins::ascend {
namespace {

using readers::JsonDocument;
using readers::JsonPath;
using readers::OrderedJson;

bool digits(std::string_view s) {
  if (s.empty() || s.size() > 9) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// "0-1", "0->1", " 0 -> 1 " -> 0, 1.
bool parse_link(std::string_view link, std::int32_t& src, std::int32_t& dst) {
  link = readers::trim(link);
  auto arrow = link.find("->");
  std::size_t skip = 2;
  if (arrow == std::string_view::npos) {
    arrow = link.find('-');
    skip = 1;
  }
  if (arrow == std::string_view::npos) return false;
  const auto a = readers::trim(link.substr(0, arrow));
  const auto b = readers::trim(link.substr(arrow + skip));
  if (!digits(a) || !digits(b)) return false;
  src = static_cast<std::int32_t>(std::stol(std::string(a)));
  dst = static_cast<std::int32_t>(std::stol(std::string(b)));
  return true;
}

// The parser's link selections: top1, middle, bottom1..3, total.
bool is_selection(std::string_view tail) {
  if (tail == "middle" || tail == "total") return true;
  for (std::string_view p : {"top", "bottom"})
    if (tail.starts_with(p) && tail.size() <= p.size() + 3 && digits(tail.substr(p.size()))) return true;
  return tail == "top" || tail == "bottom";
}

bool is_link_leaf(const OrderedJson& o) {
  return o.contains("Transport Type") || o.contains("Transit Size(MB)") || o.contains("Bandwidth(GB/s)");
}

class MatrixSource final : public readers::QueuedSource {
 public:
  MatrixSource(std::string path, AscendFileOptions options)
      : path_(std::move(path)), options_(std::move(options)) {}

 private:
  void fill() override {
    const JsonDocument doc = readers::load_json(path_, options_.max_file_bytes);
    if (doc.empty) return;
    walk_leaves(doc, is_link_leaf,
                [&](const OrderedJson& leaf, const JsonPath& where, const CommContext& ctx) {
                  visit(doc, leaf, where, ctx);
                });
  }

  void visit(const JsonDocument& doc, const OrderedJson& leaf, const JsonPath& where,
             const CommContext& ctx) {
    const std::string& link = where.back();
    std::int32_t src = -1, dst = -1;
    if (!parse_link(link, src, dst))
      readers::fail_at(
          doc, where,
          fmt::format("expected a link key like '0-1' or '0->1', got '{}'", readers::printable(link, 40)));

    Record r;
    auto& f = r.fields;
    f = nlohmann::json::object();
    if (!ctx.step.empty()) f["step"] = ctx.step;
    if (!ctx.comm_kind.empty()) f["comm_kind"] = ctx.comm_kind;
    f["op"] = ctx.op;
    std::string selection;
    if (auto dash = ctx.op.rfind('-'); dash != std::string::npos) {
      const std::string tail = ctx.op.substr(dash + 1);
      if (is_selection(tail)) {
        selection = tail;
        f["op_type"] = ctx.op.substr(0, dash);
        f["selection"] = selection;
      }
    }
    if (!ctx.group.empty()) f["group"] = ctx.group;
    if (!ctx.group_ranks_text.empty()) f["group_ranks"] = ctx.group_ranks;
    if (!ctx.other_keys.empty()) f["other_keys"] = ctx.other_keys;
    f["link"] = fmt::format("{}-{}", src, dst);
    f["src_rank"] = src;
    f["dst_rank"] = dst;
    r.key.step_id = ctx.step_id;
    r.key.rank = src;
    if (!options_.node.empty()) r.key.node_id = options_.node;

    std::string transport;
    std::vector<std::pair<Converted, std::string>> values;
    JsonPath at = where;
    for (const auto& [key, value] : leaf.items()) {
      at.push_back(key);
      if (key == "Transport Type") {
        if (!value.is_string())
          readers::fail_at(
              doc, at,
              fmt::format("expected a transport name (LOCAL, HCCS, PCIE, RDMA, SIO, SDMA), got {}",
                          readers::json_kind(value)));
        transport = value.get<std::string>();
        f["transport_type"] = transport;
      } else {
        Converted c = convert_field(doc, at, key, value);
        f[c.name] = c.value;
        values.emplace_back(std::move(c), key);
      }
      at.pop_back();
    }
    static constexpr std::pair<std::string_view, std::string_view> kPoints[] = {
        {"bandwidth_bytes_per_s", "comm.link.bandwidth"},
        {"transit_size_bytes", "comm.link.transit_size"},
        {"transit_time_ns", "comm.link.transit_time"}};
    for (const auto& [c, key] : values) {
      for (const auto& [field, metric] : kPoints) {
        if (c.name != field || std::isnan(c.number)) continue;
        MetricPoint p;
        p.name = std::string(metric);
        p.unit = c.unit;
        p.value = c.number;
        p.key = r.key;
        p.labels = {{"src_rank", std::to_string(src)},
                    {"dst_rank", std::to_string(dst)},
                    {"link", f["link"].get<std::string>()},
                    {"op", ctx.op},
                    {"source_name", key}};
        if (!transport.empty()) p.labels["transport"] = transport;
        if (!selection.empty()) p.labels["selection"] = selection;
        if (!ctx.group.empty()) p.labels["group"] = ctx.group;
        if (!ctx.step.empty()) p.labels["step"] = ctx.step;
        add_common_labels(p, options_);
        metrics_.push_back(std::move(p));
      }
    }
    records_.push_back(std::move(r));
  }

  std::string path_;
  AscendFileOptions options_;
};

}  // namespace

std::unique_ptr<readers::ItemSource> open_communication_matrix(const std::string& path,
                                                               const AscendFileOptions& options) {
  return std::make_unique<MatrixSource>(path, options);
}

}  // namespace cann_debug::plugins::ascend
