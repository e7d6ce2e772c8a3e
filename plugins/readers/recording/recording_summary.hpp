// What the recording reader says about a recording as a whole (one record on port "records", after the
// samples): the header metadata, totals, retained share and, for a file that was not closed cleanly,
// where reading stopped. `cann-debug stats` prints it.
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

#include "recording/recording_reader.hpp"

namespace cann_debug::plugins::recording {

struct ReadTotals {
  std::uint64_t chunks = 0;
  std::uint64_t samples = 0;      // full-resolution values read
  std::uint64_t summaries = 0;    // summary records read
  std::uint64_t represented = 0;  // values the summaries stand for
  TimestampNs first_ns = kNoTimestamp, last_ns = kNoTimestamp;
};

/// {"recording": {format_version, closed_cleanly, recovery_note, meta, chunks, series, samples_kept,
///  samples_summarised, samples_total, retained_share, summaries, file_bytes, bytes_per_sample, first_ns,
///  last_ns}}
nlohmann::json recording_summary(const RecordingReader& reader, const ReadTotals& totals);

}  // namespace cann_debug::plugins::recording
