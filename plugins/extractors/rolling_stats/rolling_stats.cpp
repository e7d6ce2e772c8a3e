// rolling_stats extractor: per numeric series of records and metrics, rolling statistics -> feature.set/1.
#include "rolling_stats.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>

#include <fmt/format.h>

#include "cann_debug/messages.hpp"
#include "series_window.hpp"

namespace cann_debug::plugins {
namespace {

using nlohmann::json;
using rolling_detail::SeriesWindow;

// Record fields that identify a row rather than measure something.
const std::set<std::string, std::less<>> kKeyFields = {"time",       "timestamp", "timestamp_ns", "step",
                                                       "step_id",    "epoch",     "rank",         "device",
                                                       "request_id", "node",      "node_id",      "host"};

Manifest make_manifest() {
  Manifest m;
  m.type = "rolling_stats";
  m.kind = ComponentKind::kExtractor;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description =
      "Rolling mean, std, median, MAD and robust z-score of every numeric record field and metric series.";
  m.inputs = {
      {"records", {std::string(RecordBatch::type_id)}, false, "rows of a log (e.g. from jsonl)"},
      {"metrics", {std::string(MetricBatch::type_id)}, false, "metric samples (e.g. from procfs)"},
  };
  m.outputs = {{"features", std::string(FeatureSet::type_id), "statistics of every series"}};
  m.options = {
      {.name = "window",
       .type = OptionType::kInt,
       .description = "number of latest finite values the statistics are computed over",
       .default_value = 100,
       .required = false,
       .min = 2,
       .max = 100000,
       .enum_values = {}},
      {.name = "fields",
       .type = OptionType::kStringList,
       .description = "series to keep: record field names or metric names (empty = all numeric series)",
       .default_value = json::array(),
       .required = false,
       .min = {},
       .max = {},
       .enum_values = {}},
      {.name = "emit",
       .type = OptionType::kEnum,
       .description = "on_flush: one feature set at end of stream; every_batch: also one after each batch",
       .default_value = "on_flush",
       .required = false,
       .min = {},
       .max = {},
       .enum_values = {"on_flush", "every_batch"}},
  };
  m.concurrency = Concurrency::serial();
  m.sample_yaml =
      "# Robust statistics of loss and grad_norm over the last 100 steps.\n"
      "rolling_stats/train:\n"
      "  window: 100\n"
      "  fields: [loss, grad_norm]   # empty = every numeric series\n"
      "  emit: on_flush             # or every_batch\n";
  return m;
}

std::optional<double> nonfinite_from_string(const std::string& s) {
  if (s.size() > 9) return std::nullopt;
  std::string t;
  for (char c : s) t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (t == "nan" || t == "-nan" || t == "+nan") return std::numeric_limits<double>::quiet_NaN();
  if (t == "inf" || t == "+inf" || t == "infinity" || t == "+infinity")
    return std::numeric_limits<double>::infinity();
  if (t == "-inf" || t == "-infinity") return -std::numeric_limits<double>::infinity();
  return std::nullopt;
}

// A numeric value of a record field: a number, or a non-finite number written as a string.
std::optional<double> numeric_value(const json& v) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) return nonfinite_from_string(v.get_ref<const std::string&>());
  return std::nullopt;
}

class RollingStats final : public Component {
 public:
  RollingStats(const CreateContext& /*ctx*/, const Config& config)
      : window_(static_cast<std::size_t>(config.integer("window"))),
        every_batch_(config.str("emit") == "every_batch") {
    for (auto& f : config.strings("fields")) keep_.insert(std::move(f));
  }

  void process(const Envelope& message, std::size_t port, Emitter& out) override {
    touched_.clear();
    if (message.is<RecordBatch>()) {
      for (const Record& r : message.as<RecordBatch>().records) add_record(r);
    } else if (message.is<MetricBatch>()) {
      for (const MetricPoint& p : message.as<MetricBatch>().points) add_metric(p);
    } else {
      throw std::runtime_error(
          fmt::format("rolling_stats: cannot read a '{}' message (port {}); expected {} or {}",
                      message.type_id(), port, RecordBatch::type_id, MetricBatch::type_id));
    }
    if (every_batch_ && !touched_.empty()) {
      FeatureSet set{"batch", {}};
      for (const auto& key : touched_) series_.at(key).features(set.features);
      out.emit(0, CorrelationKey{}, std::move(set));
    }
  }

  void flush(Emitter& out) override {
    FeatureSet set{"run", {}};
    for (const auto& [key, series] : series_) series.features(set.features);
    out.emit(0, CorrelationKey{}, std::move(set));
  }

 private:
  // (source: 'm' metric or 'r' record, name, labels)
  using SeriesKey = std::tuple<char, std::string, Labels>;

  bool wanted(const std::string& name) const { return keep_.empty() || keep_.count(name) > 0; }

  void add_record(const Record& record) {
    if (!record.fields.is_object()) return;
    Labels labels;
    if (record.key.has_rank()) labels["rank"] = std::to_string(record.key.rank);
    for (const auto& [name, value] : record.fields.items()) {
      if (kKeyFields.count(name) > 0 || !wanted(name)) continue;
      if (auto v = numeric_value(value)) series({'r', name, labels}, "").add(*v, record.key);
    }
  }

  void add_metric(const MetricPoint& point) {
    if (!wanted(point.name)) return;
    series({'m', point.name, point.labels}, point.unit).add(point.value, point.key);
  }

  SeriesWindow& series(SeriesKey key, const std::string& unit) {
    auto it = series_.find(key);
    if (it == series_.end()) {
      SeriesWindow fresh(std::get<1>(key), unit, std::get<2>(key), window_);
      it = series_.emplace(key, std::move(fresh)).first;
    }
    if (every_batch_) touched_.insert(std::move(key));
    return it->second;
  }

  std::size_t window_;
  bool every_batch_;
  std::set<std::string> keep_;
  std::map<SeriesKey, SeriesWindow> series_;
  std::set<SeriesKey> touched_;
};

class RollingStatsFactory final : public SimpleFactory<RollingStats> {
 public:
  using SimpleFactory::SimpleFactory;
  std::vector<ConfigProblem> validate(const Config& config) const override {
    for (const auto& f : config.strings("fields"))
      if (f.empty()) return {{"fields", "an empty series name matches nothing"}};
    return {};
  }
};

}  // namespace

const ComponentFactory& rolling_stats_factory() {
  static const RollingStatsFactory factory(make_manifest());
  return factory;
}

}  // namespace cann_debug::plugins
