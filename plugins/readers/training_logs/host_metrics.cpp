// host_metrics: host-metrics JSON lines ({"time", "metric", "value", "labels"}) -> metric.batch/1.
#include "host_metrics.hpp"

#include <cmath>
#include <fstream>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "cann_debug/reader/json_document.hpp"
#include "cann_debug/reader/line_reader.hpp"
#include "cann_debug/reader/numbers.hpp"
#include "cann_debug/reader/parse_error.hpp"
#include "cann_debug/reader/reader_component.hpp"
#include "cann_debug/reader/reader_options.hpp"
#include "cann_debug/reader/sniff_helpers.hpp"
#include "cann_debug/reader/text.hpp"
#include "host_metric_names.hpp"

namespace cann_debug::plugins {
namespace {

using readers::OrderedJson;

class HostMetricsSource final : public readers::ItemSource {
 public:
  explicit HostMetricsSource(const readers::ReaderContext& ctx)
      : path_(ctx.path), node_(ctx.config.str("node")) {
    readers::open_input(path_, file_);
    lines_.emplace(file_, static_cast<std::size_t>(ctx.config.bytes("max_line_bytes")));
  }

  bool next(readers::Items& out, std::size_t max_items) override {
    std::string line;
    while (out.metrics.size() < max_items * 8) {
      const auto status = lines_->next(line);
      if (status == readers::LineReader::Status::kEnd) {
        if (lines_->read_error()) fail("read error after this line");
        return false;
      }
      if (status == readers::LineReader::Status::kTooLong)
        fail(fmt::format(
            "expected a line of at most max_line_bytes = {} bytes, got a longer one (binary data or "
            "a missing newline?)",
            lines_->max_line_bytes()));
      if (readers::trim(line).empty()) continue;
      OrderedJson object;
      if (auto why = readers::parse_json_line(std::move(line), object); !why.empty()) fail(why);
      out.metrics.push_back(point(object));
    }
    return true;
  }

 private:
  [[noreturn]] void fail(std::string_view what) const {
    readers::fail_line(path_, lines_->line_number(), lines_->line_offset(), what);
  }

  MetricPoint point(const OrderedJson& o) const {
    if (!o.is_object()) fail(fmt::format("expected a JSON object, got {}", readers::json_kind(o)));
    const auto metric = o.find("metric");
    if (metric == o.end() || !metric->is_string())
      fail(fmt::format("expected a \"metric\" name (a string), got {}",
                       metric == o.end() ? "none" : std::string(readers::json_kind(*metric))));
    const auto time = o.find("time");
    if (time == o.end() || !time->is_number())
      fail(fmt::format("expected \"time\" in Unix seconds (a number), got {}",
                       time == o.end() ? "none" : std::string(readers::json_kind(*time))));
    const auto value = o.find("value");
    if (value == o.end()) fail("expected a \"value\", got none");
    MetricPoint p;
    const std::string& source = metric->get_ref<const std::string&>();
    const auto name = training_logs::host_metric_name(source);
    p.name = name.name;
    p.unit = name.unit;
    p.value = number(*value);
    auto ns = readers::double_scaled(time->get<double>(), 9);
    if (!ns) fail("expected \"time\" in Unix seconds, got a value out of range");
    p.key.timestamp_ns = *ns;
    if (auto labels = o.find("labels"); labels != o.end() && !labels->is_null()) {
      if (!labels->is_object())
        fail(fmt::format("expected \"labels\" to be an object, got {}", readers::json_kind(*labels)));
      for (const auto& [k, v] : labels->items()) p.labels[k] = label_text(k, v);
    }
    if (auto it = p.labels.find("rank"); it != p.labels.end())
      if (auto r = readers::parse_int(it->second); r && *r >= 0 && *r <= INT32_MAX)
        p.key.rank = static_cast<std::int32_t>(*r);
    if (!node_.empty()) {
      p.labels["node"] = node_;
      p.key.node_id = node_;
    }
    p.labels["source_name"] = source;
    return p;
  }

  double number(const OrderedJson& v) const {
    if (v.is_number()) return v.get<double>();
    if (v.is_string()) {
      const auto& s = v.get_ref<const std::string&>();
      if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
      if (s == "inf") return std::numeric_limits<double>::infinity();
      if (s == "-inf") return -std::numeric_limits<double>::infinity();
      fail(fmt::format(
          "expected \"value\" to be a number (or \"nan\", \"inf\", \"-inf\"), got the string \"{}\"",
          readers::printable(s, 40)));
    }
    fail(fmt::format("expected \"value\" to be a number, got {}", readers::json_kind(v)));
  }

  std::string label_text(const std::string& key, const OrderedJson& v) const {
    if (v.is_string()) return v.get<std::string>();
    if (v.is_number_integer() || v.is_number_unsigned() || v.is_boolean()) return v.dump();
    if (v.is_number_float()) return readers::shortest_decimal(v.get<double>());
    fail(fmt::format("expected label \"{}\" to be a string or a number, got {}", readers::printable(key, 40),
                     readers::json_kind(v)));
  }

  std::string path_;
  std::string node_;
  std::ifstream file_;
  std::optional<readers::LineReader> lines_;
};

int host_metrics_sniff(const SniffInput& in) {
  const auto line = readers::first_line(in.head);
  if (line.empty() || line.front() != '{' || in.head.find('\n') == std::string_view::npos) return 0;
  OrderedJson o;
  if (!readers::parse_json_line(std::string(line), o).empty() || !o.is_object()) return 0;
  if (!o.contains("metric") || !o.contains("value")) return 0;
  return readers::base_name(in.path).starts_with("host_metrics") ? 92 : 85;
}

readers::ReaderSpec host_metrics_spec() {
  Manifest m;
  m.type = "host_metrics";
  m.kind = ComponentKind::kReader;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description =
      "Reads host-metrics JSON lines ({time, metric, value, labels}) as metric points in our names and units";
  m.outputs = {{"metrics", std::string(MetricBatch::type_id), "points in file order"}};
  m.options = {readers::path_option("the host-metrics JSON-lines file to read"), readers::batch_size_option(),
               readers::max_line_bytes_option(), readers::node_option()};
  m.concurrency = Concurrency::serial();
  m.sample_yaml = "host_metrics/run:\n  path: \"${input}/host_metrics.jsonl\"\n";
  readers::ReaderSpec spec;
  spec.manifest = std::move(m);
  spec.open = [](const readers::ReaderContext& ctx) -> std::unique_ptr<readers::ItemSource> {
    return std::make_unique<HostMetricsSource>(ctx);
  };
  spec.sniff = host_metrics_sniff;
  return spec;
}

}  // namespace

const ComponentFactory& host_metrics_factory() {
  static const readers::ReaderFactory factory(host_metrics_spec());
  return factory;
}

}  // namespace cann_debug::plugins
