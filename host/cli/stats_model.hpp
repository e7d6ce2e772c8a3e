// What `cann-debug stats` learns about its inputs: per file the reader used and counts of what it read,
// per input argument the HTA-parity metrics of its traces. Filled by stats_reading, printed by stats_render.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cann_debug/messages.hpp"

namespace cann_debug::cli::stats {

/// The first and last instant covered by timestamped items (an event's end counts).
struct TimeSpan {
  TimestampNs first_ns = kNoTimestamp;
  TimestampNs last_ns = kNoTimestamp;
  std::uint64_t timestamped = 0;  // items that carried a timestamp
  void add(TimestampNs start_ns, std::int64_t duration_ns = 0);
  bool empty() const { return timestamped == 0; }
};

/// The correlation keys seen on what a reader emitted.
struct KeySummary {
  std::set<std::int32_t> ranks;
  std::set<std::int32_t> devices;
  std::set<std::int64_t> steps;
  std::set<std::string> requests;
  std::set<std::string> nodes;
  TimeSpan span;
  void add(const CorrelationKey& key, TimestampNs start_ns, std::int64_t duration_ns);
};

struct MetricSeriesCount {
  std::string unit;
  std::uint64_t points = 0;
};

enum class ReadStatus {
  kOk,       // the reader finished the file
  kPartial,  // the reader failed after delivering something: the counts cover what was read
  kFailed,   // the reader failed before delivering anything
};

/// One file (or folder a reader claims as a whole) read with one reader.
struct FileStats {
  std::string path;
  std::string reader;                        // the component type that read it
  int sniff_score = 0;                       // what its sniff() said (0..100)
  std::vector<std::string> also_claimed_by;  // other readers that claimed it, best first
  ReadStatus status = ReadStatus::kOk;
  std::string error;  // the reader's message when status != kOk
  double seconds = 0;

  std::uint64_t events = 0;
  std::map<std::string, std::uint64_t> events_by_category;
  std::map<std::string, std::uint64_t> events_by_name;
  std::map<std::string, std::uint64_t> events_by_phase;
  nlohmann::json trace_info;  // the chrome_trace reader's trace_info metadata event (args), or null

  std::uint64_t records = 0;
  std::map<std::string, std::uint64_t> records_by_field;  // field name -> records that have it
  /// The record a reader emits to describe a recording as a whole (field "recording" of the `recording`
  /// reader: chunks, series, samples kept and summarised, retained share, clean close), or null.
  nlohmann::json recording;

  std::uint64_t metric_points = 0;
  std::map<std::string, MetricSeriesCount> metrics_by_name;

  std::map<std::string, std::uint64_t> other_messages;  // message type -> count (e.g. json/1 documents)

  KeySummary keys;
};

/// A file or folder of an input argument that no reader claims.
struct SkippedFile {
  std::string path;
  std::string reason;
};

/// The hta_metrics extractor's output for the traces of one input argument.
struct HtaResult {
  std::vector<FeatureSet> sets;  // one per rank (scope "rank <r>"), then "job" with two or more ranks
  bool partial = false;          // a trace reader failed: the figures cover the events read before
  std::string error;             // hta_metrics itself failed (then `sets` is empty)
};

/// One PATH argument of the command line.
struct InputStats {
  std::string argument;
  bool is_directory = false;
  std::string error;  // the argument itself could not be used (missing, no reader claims it)
  std::vector<FileStats> files;
  std::vector<SkippedFile> skipped;  // in a folder: entries no reader claims
  std::optional<HtaResult> hta;      // present when some file was read as a trace and hta_metrics exists
};

}  // namespace cann_debug::cli::stats
