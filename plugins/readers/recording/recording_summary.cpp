#include "recording_summary.hpp"

namespace cann_debug::plugins::recording {

nlohmann::json recording_summary(const RecordingReader& reader, const ReadTotals& t) {
  const std::uint64_t total = t.samples + t.represented;
  nlohmann::json r = {
      {"format_version", reader.header().version},
      {"closed_cleanly", reader.closed_cleanly()},
      {"retention", (reader.header().flags & kFlagRetention) != 0},
      {"meta", reader.header().meta},
      {"chunks", t.chunks},
      {"series", reader.series().size()},
      {"samples_kept", t.samples},
      {"samples_summarised", t.represented},
      {"samples_total", total},
      {"retained_share", total ? static_cast<double>(t.samples) / static_cast<double>(total) : 1.0},
      {"summaries", t.summaries},
      {"file_bytes", reader.file_size()},
      {"bytes_per_sample",
       total ? static_cast<double>(reader.file_size()) / static_cast<double>(total) : 0.0},
      {"first_ns", t.first_ns},
      {"last_ns", t.last_ns},
  };
  if (!reader.closed_cleanly()) r["recovery_note"] = reader.recovery_note();
  if (reader.closed_cleanly() && reader.index().contains("closing")) r["closing"] = reader.index()["closing"];
  return {{"recording", std::move(r)}};
}

}  // namespace cann_debug::plugins::recording
