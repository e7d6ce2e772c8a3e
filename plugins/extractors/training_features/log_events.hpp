// What a training console log says beside its step lines (the train_log reader's event records): errors,
// hardware faults, restarts, overflow skips, and the skipped/NaN iteration counters of Megatron's lines.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cann_debug/messages.hpp"
#include "feature_list.hpp"
#include "training_log.hpp"

namespace cann_debug::plugins::training_detail {

struct LogEvent {
  std::int64_t step = -1;  // the last step logged before it; -1 before any
  std::int64_t line = 0;
  TimestampNs time_ns = kNoTimestamp;  // when the log line says it happened (kernel logs), if it does
  std::string event;                   // collective_timeout, device_error, xid, restart, overflow_skip, ...
  std::string component;               // network, device, memory, data, numerics, software
  std::string severity;                // error or warning
  bool hardware = false;
};

/// Whether a record is a row of the step log (no log_kind, or log_kind "train").
bool is_step_record(const Record& record);

/// The event of a record with log_kind "event"; nullopt for other records.
std::optional<LogEvent> event_from_record(const Record& record);

/// Gives each event without a step the step of the last row logged at or before its time (rows and
/// events with timestamps only): a kernel's Xid line is placed at the iteration it hit.
void place_events_on_steps(std::vector<LogEvent>& events, const std::vector<LogRow>& rows);

/// The rows a run really went through: where a segment (a restart from a checkpoint) repeats steps, the
/// rows the restart undid (the earlier segment's steps at and after the resumed one) are dropped.
std::vector<LogRow> latest_segment_rows(std::vector<LogRow> rows);

/// log.* features: restarts, error and hardware events, overflow skips, skipped and NaN iterations.
void add_log_event_features(const std::vector<LogEvent>& events, const std::vector<LogRow>& rows,
                            FeatureList& out);

}  // namespace cann_debug::plugins::training_detail
