#include "anomaly_windows.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "cann_debug/messages.hpp"
#include "recording/anomaly_windows.hpp"

namespace cann_debug::plugins {
namespace {

using nlohmann::json;
using recording::AnomalyWindow;
using recording::AnomalyWindows;

Manifest make_manifest() {
  Manifest m;
  m.type = "anomaly_windows";
  m.kind = ComponentKind::kExtractor;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description =
      "Marks anomaly windows online across sampled series (robust z-score, CUSUM); a row per window as it "
      "closes";
  m.inputs = {{"metrics", {std::string(MetricBatch::type_id)}, true, "sampled series, in time order"}};
  m.outputs = {{"windows", std::string(RecordBatch::type_id),
                "one row per closed window (schema cann-debug.anomaly-window/1), emitted when it closes"}};
  m.options = {
      {.name = "z_threshold",
       .type = OptionType::kDouble,
       .description = "|robust z| that makes a value anomalous",
       .default_value = 6.0,
       .min = 1.0},
      {.name = "warmup",
       .type = OptionType::kInt,
       .description = "values of a series that only train its baseline",
       .default_value = 20,
       .min = 2,
       .max = 1000000},
      {.name = "context",
       .type = OptionType::kInt,
       .description =
           "a second anomalous value on the same side within this many values makes an anomaly sustained "
           "(a change point always is); an isolated one opens no window",
       .default_value = 5,
       .min = 1,
       .max = 100000},
      {.name = "min_duration",
       .type = OptionType::kDuration,
       .description = "a sustained anomaly opens a window once its series stayed away from its old level "
                      "this long (a blip back cancels it)",
       .default_value = "200ms"},
      {.name = "away_z",
       .type = OptionType::kDouble,
       .description = "away from the old level: beyond this many of its scales",
       .default_value = 6.0,
       .min = 0.0},
      {.name = "quiet",
       .type = OptionType::kDuration,
       .description = "a series in a window is quiet again this long after its last anomalous value",
       .default_value = "500ms"},
      {.name = "quiet_values",
       .type = OptionType::kInt,
       .description = "... and after at least this many normal values",
       .default_value = 3,
       .min = 1,
       .max = 100000},
      {.name = "max_duration",
       .type = OptionType::kDuration,
       .description = "a window open this long closes and the series still anomalous go on in a new one, "
                      "so a long incident is diagnosed while it lasts (0 = no limit)",
       .default_value = "30s"},
      {.name = "exclude",
       .type = OptionType::kStringList,
       .description = "metric-name prefixes that never open a window (e.g. process. when the workload's "
                      "own start-up is not news)",
       .default_value = json::array()},
      {.name = "max_series",
       .type = OptionType::kInt,
       .description = "series a window lists, the first to move first",
       .default_value = 8,
       .min = 1,
       .max = 10000},
  };
  m.concurrency = Concurrency::serial();
  m.sample_yaml =
      "# Anomaly windows of a recording that is still being written.\n"
      "recording/live: { path: \"${input}/recording.cdr\", follow: true }\n"
      "anomaly_windows/detect: { quiet: 500ms }\n"
      "# links: recording/live.metrics -> anomaly_windows/detect.metrics\n";
  return m;
}

class AnomalyWindowsComponent final : public Component {
 public:
  AnomalyWindowsComponent(const CreateContext&, const Config& config) {
    recording::WindowOptions o;
    o.detector.z_threshold = config.number("z_threshold");
    o.detector.warmup = static_cast<std::size_t>(config.integer("warmup"));
    o.context = static_cast<std::size_t>(config.integer("context"));
    o.quiet_ns = config.duration_ns("quiet");
    o.min_duration_ns = config.duration_ns("min_duration");
    o.away_z = config.number("away_z");
    o.quiet_values = static_cast<std::size_t>(config.integer("quiet_values"));
    o.max_series_listed = static_cast<std::size_t>(config.integer("max_series"));
    o.max_duration_ns = config.duration_ns("max_duration");
    exclude_ = config.strings("exclude");
    windows_.emplace(o);
  }

  void process(const Envelope& message, std::size_t, Emitter& out) override {
    closed_.clear();
    for (const auto& p : message.as<MetricBatch>().points) {
      const TimestampNs ts = p.key.has_timestamp() ? p.key.timestamp_ns : message.key().timestamp_ns;
      if (ts == kNoTimestamp) continue;
      last_ns_ = std::max(last_ns_, ts);
      const std::uint64_t id = series_of(p);
      if (id == kExcluded) continue;
      windows_->feed(id, ts, p.value, closed_);
    }
    emit(out);
  }

  void flush(Emitter& out) override {
    closed_.clear();
    windows_->finish(last_ns_, closed_);
    emit(out);
  }

 private:
  static constexpr std::uint64_t kExcluded = ~std::uint64_t{0};
  /// |z| reported at most: a series that sat exactly still has no scale, and its first move is "infinite".
  static constexpr double kMaxZ = 1000.0;

  std::uint64_t series_of(const MetricPoint& p) {
    std::string key = p.name;
    key += '\x1f';
    key += std::to_string(p.key.device);
    for (const auto& [k, v] : p.labels) {
      key += '\x1f';
      key += k;
      key += '=';
      key += v;
    }
    auto [it, added] = ids_.try_emplace(std::move(key), series_.size());
    if (added) {
      bool excluded = false;
      for (const auto& prefix : exclude_) excluded = excluded || p.name.starts_with(prefix);
      it->second = excluded ? kExcluded : series_.size();
      if (!excluded) series_.push_back({p.name, p.unit, p.labels, p.key.device});
    }
    return it->second;
  }

  void emit(Emitter& out) {
    if (closed_.empty()) return;
    RecordBatch batch;
    batch.schema = kAnomalyWindowSchema;
    for (const AnomalyWindow& w : closed_) {
      Record r;
      r.key.timestamp_ns = w.start_ns;
      json series = json::array();
      for (const auto& s : w.series) {
        const MetricSeries& info = series_[s.series];
        json j = {{"name", info.name},          {"unit", info.unit},
                  {"labels", info.labels},      {"first_ns", s.first_ns},
                  {"last_ns", s.last_ns},       {"baseline", s.baseline},
                  {"peak_value", s.peak_value}, {"peak_z", std::clamp(s.peak_z, -kMaxZ, kMaxZ)},
                  {"anomalies", s.anomalies},   {"change_point", s.change_point}};
        if (info.device >= 0) j["device"] = info.device;
        series.push_back(std::move(j));
      }
      r.fields = {{"window", w.id},
                  {"start_ns", w.start_ns},
                  {"end_ns", w.end_ns},
                  {"closed_ns", w.closed_ns},
                  {"closed_by", w.closed_by},
                  {"series_total", w.series_total},
                  {"series", std::move(series)}};
      batch.records.push_back(std::move(r));
    }
    CorrelationKey key = batch.records.front().key;
    out.emit(0, std::move(key), std::move(batch));
  }

  std::optional<AnomalyWindows> windows_;
  std::vector<std::string> exclude_;
  std::unordered_map<std::string, std::uint64_t> ids_;
  std::vector<MetricSeries> series_;
  std::vector<AnomalyWindow> closed_;
  TimestampNs last_ns_ = kNoTimestamp;
};

}  // namespace

const ComponentFactory& anomaly_windows_factory() {
  static const SimpleFactory<AnomalyWindowsComponent> f(make_manifest());
  return f;
}

}  // namespace cann_debug::plugins
