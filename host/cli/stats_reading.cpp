#include "stats_reading.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "graph_runner.hpp"
#include "pipeline_builder.hpp"
#include "pipeline_plan.hpp"

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

bool delivered_anything(const FileStats& s) {
  std::uint64_t others = 0;
  for (const auto& [type, n] : s.other_messages) others += n;
  return s.events + s.records + s.metric_points + others > 0 || !s.trace_info.is_null();
}

void count(const Envelope& e, FileStats& s) {
  if (e.is<EventBatch>())
    count_events(e.as<EventBatch>(), s);
  else if (e.is<RecordBatch>())
    count_records(e.as<RecordBatch>(), s);
  else if (e.is<MetricBatch>())
    count_metrics(e.as<MetricBatch>(), s);
  else
    ++s.other_messages[std::string(e.type_id())];
}

std::optional<std::string> port_producing(const Manifest& m, std::string_view type) {
  for (const auto& p : m.outputs)
    if (p.produces == type) return p.name;
  return std::nullopt;
}

constexpr const char* kHtaId = "hta_metrics/stats";

}  // namespace

ReadResult read_files(const host::PluginRegistry& registry, const std::vector<FileToRead>& files,
                      const ReadOptions& options) {
  ReadResult result;
  result.files.resize(files.size());
  if (files.empty()) return result;
  std::map<std::string, std::size_t> file_of;  // component id -> index
  host::PipelineBuilder builder("stats");
  // One thread polls every reader in turn: a folder of a thousand files is not a thousand threads.
  builder.shared_source_thread();
  const auto* hta_entry = options.hta ? registry.find("hta_metrics") : nullptr;
  bool any_events_port = false;
  host::RunOptions run;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const FileToRead& f = files[i];
    FileStats& s = result.files[i];
    s.path = f.path;
    s.reader = f.reader->manifest().type;
    s.sniff_score = f.sniff_score;
    s.also_claimed_by = f.also_claimed_by;
    const std::string id = fmt::format("{}/file{}", s.reader, i);
    file_of[id] = i;
    nlohmann::json o = f.options.is_object() ? f.options : nlohmann::json::object();
    o["path"] = f.path;
    o[std::string(host::kOnErrorKey)] = "drain";
    builder.add(id, o);
    for (const auto& port : f.reader->manifest().outputs) run.taps.push_back({id, port.name});
    if (auto events = port_producing(f.reader->manifest(), EventBatch::type_id); events && hta_entry) {
      any_events_port = true;
      builder.link(id + "." + *events, std::string(kHtaId) + ".events");
    }
  }
  if (any_events_port) {
    builder.add(kHtaId, {{"include_last_profiler_step", options.include_last_profiler_step},
                         {std::string(host::kOnErrorKey), "drain"}});
    if (auto features = port_producing(hta_entry->manifest(), FeatureSet::type_id))
      run.taps.push_back({kHtaId, *features});
  }
  bool got_events = false;
  HtaResult hta;
  const auto fail_all = [&](const std::string& message) {
    for (auto& s : result.files) {
      s.error = message;
      s.status = ReadStatus::kFailed;
    }
  };
  host::Diagnostics diags;
  auto doc = builder.build(diags);
  std::optional<host::PipelinePlan> plan;
  if (doc) {
    host::PlanOptions plan_options;
    plan_options.probe = false;  // a reader that cannot open its file says so when it runs
    plan = host::plan_pipeline(*doc, registry, diags, plan_options);
  }
  if (!plan) {
    std::string text;
    for (const auto& d : diags.items()) text += (text.empty() ? "" : "; ") + d.message;
    fail_all(text.empty() ? std::string("the readers could not be set up") : text);
    return result;
  }
  const auto taps = run.taps;  // the runner keeps its own copy; the callback reads this one
  run.on_tap = [&, taps](std::size_t tap, const Envelope& e) {
    const std::string& component = taps[tap].component;
    if (component == kHtaId) {
      if (e.is<FeatureSet>()) hta.sets.push_back(e.as<FeatureSet>());
      return;
    }
    if (e.is<EventBatch>()) got_events = true;
    count(e, result.files[file_of.at(component)]);
  };
  host::GraphRunner runner(*plan, run);
  const host::RunReport report = runner.run();
  for (const auto& node : report.nodes)
    if (auto it = file_of.find(node.id); it != file_of.end())
      result.files[it->second].seconds = node.busy_seconds;
  bool reader_failed = false;
  for (const auto& e : report.errors) {
    if (e.component == kHtaId) {
      if (hta.error.empty()) hta.error = fmt::format("hta_metrics {}: {}", e.phase, e.message);
      continue;
    }
    auto it = file_of.find(e.component);
    if (it == file_of.end()) {
      fail_all(e.message);  // the run itself failed
      continue;
    }
    FileStats& s = result.files[it->second];
    if (!s.error.empty()) continue;
    s.error = e.phase == "poll" || e.phase == "create" || e.phase == "start"
                  ? e.message
                  : fmt::format("{}(): {}", e.phase, e.message);
    s.status = delivered_anything(s) ? ReadStatus::kPartial : ReadStatus::kFailed;
    reader_failed = true;
  }
  if (got_events) {
    if (!hta_entry) {
      hta.error = "the hta_metrics plugin is not loaded: no HTA figures (check --plugin-path)";
    } else {
      hta.partial = reader_failed;
      if (!hta.error.empty()) hta.sets.clear();
    }
    result.hta = std::move(hta);
  }
  return result;
}

}  // namespace cann_debug::cli::stats
