#include "stats_reading.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <thread>

namespace cann_debug::cli::stats {

void TimeSpan::add(TimestampNs start_ns, std::int64_t duration_ns) {
  if (start_ns == kNoTimestamp) return;
  const TimestampNs end_ns = start_ns + std::max<std::int64_t>(duration_ns, 0);
  if (timestamped == 0) {
    first_ns = start_ns;
    last_ns = end_ns;
  } else {
    first_ns = std::min(first_ns, start_ns);
    last_ns = std::max(last_ns, end_ns);
  }
  ++timestamped;
}

void KeySummary::add(const CorrelationKey& key, TimestampNs start_ns, std::int64_t duration_ns) {
  if (key.has_rank()) ranks.insert(key.rank);
  if (key.has_device()) devices.insert(key.device);
  if (key.has_step()) steps.insert(key.step_id);
  if (!key.request_id.empty()) requests.insert(key.request_id);
  if (!key.node_id.empty()) nodes.insert(key.node_id);
  span.add(start_ns, duration_ns);
}

namespace {

// The chrome_trace reader's first event describes the file; it is not an event of the trace.
bool is_trace_info(const Event& e) {
  return e.category == "cann_debug.metadata" && e.name == "trace_info";
}

void count_events(const EventBatch& batch, FileStats& s) {
  for (const auto& e : batch.events) {
    if (is_trace_info(e)) {
      s.trace_info = e.args;
      continue;
    }
    ++s.events;
    ++s.events_by_category[e.category];
    ++s.events_by_name[e.name];
    ++s.events_by_phase[std::string(1, e.phase)];
    s.keys.add(e.key, e.start_ns != kNoTimestamp ? e.start_ns : e.key.timestamp_ns, e.duration_ns);
  }
}

void count_records(const RecordBatch& batch, FileStats& s) {
  for (const auto& r : batch.records) {
    ++s.records;
    if (r.fields.is_object()) {
      for (const auto& [name, value] : r.fields.items()) ++s.records_by_field[name];
      if (r.fields.contains("recording") && r.fields["recording"].is_object())
        s.recording = r.fields["recording"];
    }
    s.keys.add(r.key, r.key.timestamp_ns, 0);
  }
}

void count_metrics(const MetricBatch& batch, FileStats& s) {
  for (const auto& p : batch.points) {
    ++s.metric_points;
    auto& series = s.metrics_by_name[p.name];
    if (series.points++ == 0) series.unit = p.unit;
    s.keys.add(p.key, p.key.timestamp_ns, 0);
  }
}

class FunctionEmitter : public Emitter {
 public:
  explicit FunctionEmitter(std::function<void(std::size_t, Envelope)> f) : f_(std::move(f)) {}
  void emit(std::size_t port, Envelope envelope) override { f_(port, std::move(envelope)); }

 private:
  std::function<void(std::size_t, Envelope)> f_;
};

// Applies the component's option schema to `raw`; throws with every problem when it does not fit.
Config configure(const host::ComponentEntry& entry, const nlohmann::json& raw) {
  std::vector<OptionIssue> issues;
  Config config = resolve_config(entry.manifest().options, raw, issues);
  for (const auto& p : entry.factory->validate(config))
    issues.push_back({OptionIssue::Kind::kRange, p.option, p.message});
  if (!issues.empty()) {
    std::string text;
    for (const auto& i : issues)
      text += fmt::format("{}{}{}", text.empty() ? "" : "; ", i.key.empty() ? "" : i.key + ": ", i.message);
    throw std::runtime_error(fmt::format("options of '{}': {}", entry.manifest().type, text));
  }
  return config;
}

bool delivered_anything(const FileStats& s) {
  std::uint64_t others = 0;
  for (const auto& [type, n] : s.other_messages) others += n;
  return s.events + s.records + s.metric_points + others > 0 || !s.trace_info.is_null();
}

}  // namespace

FileStats read_with(const host::ComponentEntry& reader, const std::string& path, DriverContext& ctx,
                    const EventBatchHandler& on_events, const nlohmann::json& options) {
  FileStats s;
  s.path = path;
  s.reader = reader.manifest().type;
  const auto t0 = std::chrono::steady_clock::now();
  const std::string id = s.reader + "/stats";
  host::ComponentServices services(id, ctx.clock, ctx.cancelled);
  FunctionEmitter out([&](std::size_t, Envelope e) {
    if (e.is<EventBatch>()) {
      count_events(e.as<EventBatch>(), s);
      if (on_events) on_events(e);
    } else if (e.is<RecordBatch>()) {
      count_records(e.as<RecordBatch>(), s);
    } else if (e.is<MetricBatch>()) {
      count_metrics(e.as<MetricBatch>(), s);
    } else {
      ++s.other_messages[std::string(e.type_id())];
    }
  });
  std::unique_ptr<Component> component;
  try {
    nlohmann::json raw = options.is_object() ? options : nlohmann::json::object();
    raw["path"] = path;
    component = reader.factory->create(CreateContext{id, services}, configure(reader, raw));
    if (!component) throw std::runtime_error("the factory of '" + s.reader + "' returned no component");
    component->start();
    while (true) {
      const PollResult r = component->poll(out);
      if (r == PollResult::kDone) break;
      if (r == PollResult::kIdle) {
        const std::int64_t wait_ns =
            component->idle_interval_ns() > 0 ? component->idle_interval_ns() : 10'000'000;  // 10 ms
        std::this_thread::sleep_for(std::chrono::nanoseconds(wait_ns));
      }
    }
  } catch (const std::exception& e) {
    s.error = e.what();
    s.status = delivered_anything(s) ? ReadStatus::kPartial : ReadStatus::kFailed;
  }
  if (component) {
    try {
      component->stop();
    } catch (const std::exception& e) {
      if (s.error.empty()) {
        s.error = fmt::format("stop(): {}", e.what());
        s.status = ReadStatus::kPartial;
      }
    }
  }
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return s;
}

HtaAccumulator::HtaAccumulator(const host::ComponentEntry& entry, bool include_last_profiler_step,
                               DriverContext& ctx) {
  const std::string id = entry.manifest().type + "/stats";
  services_ = std::make_unique<host::ComponentServices>(id, ctx.clock, ctx.cancelled);
  const auto& inputs = entry.manifest().inputs;
  const auto port =
      std::find_if(inputs.begin(), inputs.end(), [](const auto& p) { return p.name == "events"; });
  try {
    if (port == inputs.end()) throw std::runtime_error("it has no input port 'events'");
    events_port_ = static_cast<std::size_t>(port - inputs.begin());
    component_ =
        entry.factory->create(CreateContext{id, *services_},
                              configure(entry, {{"include_last_profiler_step", include_last_profiler_step}}));
    if (!component_) throw std::runtime_error("the factory returned no component");
    component_->start();
  } catch (const std::exception& e) {
    component_.reset();
    fail("create", e.what());
  }
}

HtaAccumulator::~HtaAccumulator() {
  if (!component_) return;
  try {
    component_->stop();
  } catch (const std::exception&) {
    // Nothing is read from the component after finish(); a failing stop() changes no result.
  }
}

void HtaAccumulator::fail(const std::string& phase, const std::string& message) {
  if (result_.error.empty()) result_.error = fmt::format("hta_metrics {}: {}", phase, message);
}

void HtaAccumulator::feed(const Envelope& events) {
  fed_ = true;
  if (!component_ || !result_.error.empty()) return;
  FunctionEmitter none([](std::size_t, Envelope) {});
  try {
    component_->process(events, events_port_, none);
  } catch (const std::exception& e) {
    fail("process", e.what());
  }
}

HtaResult HtaAccumulator::finish() {
  if (component_ && result_.error.empty()) {
    FunctionEmitter out([this](std::size_t, Envelope e) {
      if (e.is<FeatureSet>()) result_.sets.push_back(e.as<FeatureSet>());
    });
    try {
      component_->flush(out);
    } catch (const std::exception& e) {
      fail("flush", e.what());
    }
  }
  if (!result_.error.empty()) result_.sets.clear();
  return std::move(result_);
}

}  // namespace cann_debug::cli::stats
