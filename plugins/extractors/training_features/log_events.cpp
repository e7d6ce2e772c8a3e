// Events and restarts of training console logs -> log.* features (see log_events.hpp).
#include "log_events.hpp"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <utility>

namespace cann_debug::plugins::training_detail {
namespace {

EvidenceRef event_ref(const LogEvent& e) {
  EvidenceRef ref{"step", e.event, kNoTimestamp, kNoTimestamp, e.step, e.step};
  if (e.step < 0) ref.kind = "line", ref.first_step = ref.last_step = e.line;
  return ref;
}

}  // namespace

bool is_step_record(const Record& record) {
  if (!record.fields.is_object()) return true;
  const auto it = record.fields.find("log_kind");
  return it == record.fields.end() || !it->is_string() || it->get_ref<const std::string&>() == "train";
}

std::optional<LogEvent> event_from_record(const Record& record) {
  const nlohmann::json& f = record.fields;
  if (!f.is_object() || f.value("log_kind", "") != "event") return std::nullopt;
  LogEvent e;
  e.step = record.key.step_id;
  e.line = record.line;
  e.time_ns = record.key.timestamp_ns;
  e.event = f.value("event", "");
  e.component = f.value("component", "");
  e.severity = f.value("severity", "error");
  e.hardware = f.value("hardware", false);
  return e;
}

void place_events_on_steps(std::vector<LogEvent>& events, const std::vector<LogRow>& rows) {
  std::vector<std::pair<TimestampNs, std::int64_t>> times;  // (time, step) of the timed rows
  for (const LogRow& r : rows)
    if (r.time_ns != kNoTimestamp) times.emplace_back(r.time_ns, step_of(r));
  if (times.empty()) return;
  std::sort(times.begin(), times.end());
  for (LogEvent& e : events) {
    if (e.step >= 0 || e.time_ns == kNoTimestamp) continue;
    auto it = std::upper_bound(times.begin(), times.end(), std::make_pair(e.time_ns, INT64_MAX));
    if (it != times.begin()) e.step = std::prev(it)->second;
  }
}

std::vector<LogRow> latest_segment_rows(std::vector<LogRow> rows) {
  std::vector<LogRow> kept;
  kept.reserve(rows.size());
  for (LogRow& r : rows) {
    if (!kept.empty() && r.segment > kept.back().segment && r.step >= 0)
      while (!kept.empty() && kept.back().step >= r.step) kept.pop_back();
    kept.push_back(std::move(r));
  }
  return kept;
}

void add_log_event_features(const std::vector<LogEvent>& events, const std::vector<LogRow>& rows,
                            FeatureList& out) {
  std::vector<EvidenceRef> restarts, errors, hardware, hardware_errors, overflows;
  for (const LogEvent& e : events) {
    if (e.event == "restart")
      restarts.push_back(event_ref(e));
    else if (e.event == "overflow_skip")
      overflows.push_back(event_ref(e));
    if (e.severity == "error") errors.push_back(event_ref(e));
    if (e.hardware) hardware.push_back(event_ref(e));
    if (e.hardware && e.severity == "error") hardware_errors.push_back(event_ref(e));
  }
  const bool from_console_log = !events.empty() || std::any_of(rows.begin(), rows.end(), [](const LogRow& r) {
    return r.skipped_iterations || r.nan_iterations;
  });
  if (!from_console_log) return;  // a plain step log says nothing about these: absent, not zero
  auto capped = [](std::vector<EvidenceRef> refs) {
    if (refs.size() > 8) refs.resize(8);
    return refs;
  };
  out.add("log.restarts", static_cast<double>(restarts.size()), "restarts", capped(restarts));
  out.add("log.error_events", static_cast<double>(errors.size()), "events", capped(errors));
  out.add("log.hardware_events", static_cast<double>(hardware.size()), "events", capped(hardware));
  out.add("log.hardware_errors", static_cast<double>(hardware_errors.size()), "events",
          capped(hardware_errors));
  for (const LogEvent& e : events)
    if (e.hardware && e.severity == "error" && e.step >= 0) {
      out.add("log.first_hardware_error_step", static_cast<double>(e.step), "step", {event_ref(e)});
      break;
    }
  out.add("log.overflow_skips", static_cast<double>(overflows.size()), "steps", capped(overflows));
  double skipped = 0, nan = 0;
  std::vector<EvidenceRef> skipped_at, nan_at;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].skipped_iterations && *rows[i].skipped_iterations > 0) {
      skipped += *rows[i].skipped_iterations;
      skipped_at.push_back(row_ref(rows, i, "skipped_iterations"));
    }
    if (rows[i].nan_iterations && *rows[i].nan_iterations > 0) {
      nan += *rows[i].nan_iterations;
      nan_at.push_back(row_ref(rows, i, "nan_iterations"));
    }
  }
  out.add("log.skipped_iterations", skipped, "steps", capped(skipped_at));
  out.add("log.nan_iterations", nan, "steps", capped(nan_at));
}

}  // namespace cann_debug::plugins::training_detail
