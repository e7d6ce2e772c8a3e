// metric_series_json: training series stored one metric at a time in a JSON object -> one record per step.
//   Megatron-LM golden values: {"lm loss": {"start_step": 1, "end_step": 50, "step_interval": 5,
//                               "values": {"1": 10.8, "5": 10.7, ...}}, "iteration-time": {...}, ...}
//   MindSpeed-LLM baselines:   {"lm loss": [1.49, 1.51, ...], "time info": [...], "memo info": [{...}, ...]}
#include "metric_series_json.hpp"

#include <cmath>
#include <map>

#include <fmt/format.h>

#include "cann_debug/reader/claimed_files.hpp"
#include "cann_debug/reader/json_document.hpp"
#include "cann_debug/reader/numbers.hpp"
#include "cann_debug/reader/reader_component.hpp"
#include "cann_debug/reader/reader_options.hpp"
#include "cann_debug/reader/text.hpp"

namespace cann_debug::plugins {
namespace {

int metric_series_json_sniff(const SniffInput& in);

using readers::JsonDocument;
using readers::JsonPath;
using readers::OrderedJson;

// Metric names as the frameworks write them -> record fields (the training features' names).
std::string field_name(const std::string& metric) {
  static const std::map<std::string, std::string> kNames{
      {"lm loss", "loss"},
      {"lm-loss", "loss"},
      {"num-zeros", "num_zeros"},
      {"iteration-time", "iteration_time_s"},  // Megatron's golden values: seconds
      {"time info", "iteration_time_ms"},      // MindSpeed-LLM baselines: ms per iteration
      {"grad norm", "grad_norm"},
      {"grad-norm", "grad_norm"},
      {"learning-rate", "lr"},
      {"loss-scale", "loss_scale"},
  };
  if (auto it = kNames.find(metric); it != kNames.end()) return it->second;
  return readers::snake_case(metric);
}

class MetricSeriesSource final : public readers::QueuedSource {
 public:
  explicit MetricSeriesSource(const readers::ReaderContext& ctx)
      : files_(readers::claimed_files(ctx.path, metric_series_json_sniff)),
        max_file_bytes_(static_cast<std::size_t>(ctx.config.bytes("max_file_bytes"))),
        rank_(static_cast<std::int32_t>(ctx.config.integer("rank"))),
        node_(ctx.config.str("node")) {}

 private:
  void fill() override {
    for (const std::string& path : files_) fill_from(path);
  }

  void fill_from(const std::string& path) {
    const JsonDocument doc = readers::load_json(path, max_file_bytes_);
    if (doc.empty) return;
    if (!doc.root.is_object())
      readers::fail_at(
          doc, {}, fmt::format("expected an object of metric series, got {}", readers::json_kind(doc.root)));
    std::map<std::int64_t, nlohmann::json> steps;  // step -> fields
    bool ordinal = false;
    for (const auto& [metric, series] : doc.root.items()) {
      const std::string name = field_name(metric);
      if (name.empty()) readers::fail_at(doc, {metric}, "expected a metric name with a letter or digit");
      if (series.is_object()) {
        golden_series(doc, metric, name, series, steps);
      } else if (series.is_array()) {
        ordinal = baseline_series(doc, metric, name, series, steps) || ordinal;
      } else {
        readers::fail_at(doc, {metric},
                         fmt::format("expected a series (an object with \"values\", or an array), got {}",
                                     readers::json_kind(series)));
      }
    }
    for (auto& [step, fields] : steps) {
      Record r;
      r.key.step_id = step;
      keys(r);
      fields["log_kind"] = "train";
      fields["step"] = step;
      if (ordinal) fields["step_is_ordinal"] = true;
      r.fields = std::move(fields);
      records_.push_back(std::move(r));
    }
  }

  // {"start_step", "end_step", "step_interval", "values": {"<step>": number or "nan"}}. Megatron writes
  // "nan" for the steps a shorter run did not reach: those are absent, not a NaN loss.
  void golden_series(const JsonDocument& doc, const std::string& metric, const std::string& name,
                     const OrderedJson& series, std::map<std::int64_t, nlohmann::json>& steps) const {
    std::optional<std::int64_t> bounds[2];
    const char* bound_keys[2] = {"start_step", "end_step"};
    for (const char* k : {"start_step", "end_step", "step_interval"}) {
      auto it = series.find(k);
      if (it == series.end()) continue;
      if (!it->is_number_integer() || it->get<std::int64_t>() < 0)
        readers::fail_at(doc, {metric, k},
                         fmt::format("expected an integer >= 0, got {}", readers::json_kind(*it)));
      for (int b = 0; b < 2; ++b)
        if (std::string_view(k) == bound_keys[b]) bounds[b] = it->get<std::int64_t>();
    }
    if (bounds[0] && bounds[1] && *bounds[0] > *bounds[1])
      readers::fail_at(doc, {metric, "end_step"},
                       fmt::format("expected end_step >= start_step ({}), got {}", *bounds[0], *bounds[1]));
    const auto values = series.find("values");
    if (values == series.end())
      readers::fail_at(doc, {metric}, "expected a \"values\" object of step -> value, got none");
    if (!values->is_object())
      readers::fail_at(
          doc, {metric, "values"},
          fmt::format("expected an object of step -> value, got {}", readers::json_kind(*values)));
    for (const auto& [key, v] : values->items()) {
      const auto step = readers::parse_int(key);
      if (!step || *step < 0)
        readers::fail_at(
            doc, {metric, "values", key},
            fmt::format("expected a step number >= 0 as the key, got '{}'", readers::printable(key)));
      if (v.is_number()) {
        steps[*step][name] = v.get<double>();
      } else if (const auto d = v.is_string() ? readers::parse_double(v.get<std::string>()) : std::nullopt;
                 d && !std::isfinite(*d)) {
        continue;  // "nan": not reached by this run
      } else if (!v.is_null()) {
        readers::fail_at(doc, {metric, "values", key},
                         fmt::format("expected a number or \"nan\", got {}", readers::json_kind(v)));
      }
    }
  }

  // An array per metric, one element per logged iteration (numbers), or per rank (objects, e.g. MindSpeed's
  // "memo info"). Returns whether it gave step records (numbered from 1 in order).
  bool baseline_series(const JsonDocument& doc, const std::string& metric, const std::string& name,
                       const OrderedJson& series, std::map<std::int64_t, nlohmann::json>& steps) {
    bool numbers = false;
    std::size_t i = 0;
    for (const auto& v : series) {
      const JsonPath where{metric, std::to_string(i)};
      if (v.is_number()) {
        steps[static_cast<std::int64_t>(i) + 1][name] = v.get<double>();
        numbers = true;
      } else if (v.is_string() && readers::parse_double(v.get<std::string>())) {
        steps[static_cast<std::int64_t>(i) + 1][name] = v.get<std::string>();  // "nan"/"inf" as written
        numbers = true;
      } else if (v.is_object()) {
        Record r;
        r.fields = readers::to_plain(v);
        r.fields["log_kind"] = name;
        if (auto rank = v.find("rank"); rank != v.end()) {
          if (!rank->is_number_integer() || rank->get<std::int64_t>() < 0 ||
              rank->get<std::int64_t>() > INT32_MAX)
            readers::fail_at(doc, {metric, std::to_string(i), "rank"},
                             fmt::format("expected a rank >= 0, got {}", readers::json_kind(*rank)));
          r.key.rank = static_cast<std::int32_t>(rank->get<std::int64_t>());
        }
        keys(r);
        records_.push_back(std::move(r));
      } else {
        readers::fail_at(doc, where,
                         fmt::format("expected a number or an object, got {}", readers::json_kind(v)));
      }
      ++i;
    }
    return numbers;
  }

  void keys(Record& r) const {
    if (rank_ >= 0 && !r.key.has_rank()) r.key.rank = rank_;
    if (!node_.empty()) r.key.node_id = node_;
  }

  std::vector<std::string> files_;
  std::size_t max_file_bytes_;
  std::int32_t rank_;
  std::string node_;
};

// An object whose first member is a metric series: {"...": {"start_step" ... "values"}} or {"...": [numbers.
int metric_series_json_sniff(const SniffInput& in) {
  if (in.is_directory) return 0;
  std::string_view h = in.head;
  const auto first = h.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || h[first] != '{') return 0;
  const auto key = h.find('"', first);
  if (key == std::string_view::npos) return 0;
  const auto key_end = h.find('"', key + 1);
  if (key_end == std::string_view::npos) return 0;
  const auto colon = h.find_first_not_of(" \t\r\n", key_end + 1);
  if (colon == std::string_view::npos || h[colon] != ':') return 0;
  const auto value = h.find_first_not_of(" \t\r\n", colon + 1);
  if (value == std::string_view::npos) return 0;
  if (h[value] == '{') {
    const auto values = h.find("\"values\"", value);
    const auto start = h.find("\"start_step\"", value);
    return values != std::string_view::npos && start != std::string_view::npos ? 90 : 0;
  }
  if (h[value] == '[') {
    const auto element = h.find_first_not_of(" \t\r\n", value + 1);
    if (element == std::string_view::npos) return 0;
    const bool number = (h[element] >= '0' && h[element] <= '9') || h[element] == '-';
    const bool loss = h.substr(key, key_end - key).find("loss") != std::string_view::npos;
    return number && loss ? 85 : 0;
  }
  return 0;
}

readers::ReaderSpec metric_series_json_spec() {
  Manifest m;
  m.type = "metric_series_json";
  m.kind = ComponentKind::kReader;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description = "Reads per-metric training series in JSON (Megatron golden values, MindSpeed baselines)";
  m.outputs = {{"records", std::string(RecordBatch::type_id), "one record per step, in step order"}};
  m.options = {readers::path_option("the JSON file, or a folder whose series files are read in name order"),
               readers::batch_size_option(), readers::max_file_bytes_option(), readers::rank_option(),
               readers::node_option()};
  m.concurrency = Concurrency::serial();
  m.sample_yaml = "metric_series_json/golden:\n  path: \"${input}/golden_values_dev_dgx_h100.json\"\n";
  readers::ReaderSpec spec;
  spec.manifest = std::move(m);
  spec.open = [](const readers::ReaderContext& ctx) -> std::unique_ptr<readers::ItemSource> {
    return std::make_unique<MetricSeriesSource>(ctx);
  };
  spec.sniff = metric_series_json_sniff;
  spec.also_reads_directory = true;
  return spec;
}

}  // namespace

const ComponentFactory& metric_series_json_factory() {
  static const readers::ReaderFactory factory(metric_series_json_spec());
  return factory;
}

}  // namespace cann_debug::plugins
