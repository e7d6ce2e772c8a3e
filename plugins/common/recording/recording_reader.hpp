// Reads a recording chunk by chunk. With a footer (the writer closed the file) the index gives the totals
// and every chunk; without one (the writer was killed) the chunks are read in file order up to the first
// truncated or damaged one, and `recovery_note()` says where reading stopped and why.
#pragma once

#include <cstdint>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "recording/recording_format.hpp"

namespace cann_debug::plugins::recording {

struct RecordingHeader {
  std::uint32_t version = 0;
  std::uint32_t flags = 0;
  TimestampNs created_ns = 0;
  nlohmann::json meta;
  std::uint64_t data_offset = 0;  // first chunk
};

/// One decoded chunk: full-resolution points and the summaries of downsampled stretches.
struct DecodedChunk {
  std::uint64_t offset = 0;  // byte offset of the chunk in the file
  TimestampNs first_ns = 0, last_ns = 0;
  std::vector<MetricPoint> points;
  std::vector<Summary> summaries;
};

class RecordingReader {
 public:
  /// Opens the file and reads its header and (when present) its index. Throws std::runtime_error naming
  /// the file and byte offset when the header is not a recording's.
  explicit RecordingReader(std::string path);

  const RecordingHeader& header() const { return header_; }
  /// The index JSON written at close (chunks, series, totals, closing), or null when the file was not
  /// closed cleanly.
  const nlohmann::json& index() const { return index_; }
  bool closed_cleanly() const { return !index_.is_null(); }

  /// The next chunk, or nullopt at the end (or, for an unclosed file, at the first incomplete chunk).
  /// Throws std::runtime_error naming the byte offset when a chunk listed in the index is damaged.
  std::optional<DecodedChunk> next();
  /// Following a recording that is still being written: after next() returned nullopt on a file without
  /// a footer, looks at the file again. True when it grew (next() then reads the chunks completed since;
  /// once the writer closed the file, its index is read too); false when nothing new arrived, the file was
  /// closed cleanly, or reading stopped at damage rather than at the end of what was written.
  bool refresh();
  /// After next() returned nullopt on a file without a footer: whether it stopped at damage (a chunk that is
  /// complete but unreadable) rather than at the end of what was written.
  bool stopped_at_damage() const { return stopped_ && !incomplete_; }
  /// After next() returned nullopt on a file without a footer: where reading stopped and why.
  const std::string& recovery_note() const { return recovery_note_; }

  /// The series defined so far (all of them once the file was read, or from the index).
  const std::vector<SeriesInfo>& series() const { return series_; }
  std::uint64_t file_size() const { return file_size_; }
  const std::string& path() const { return path_; }

 private:
  DecodedChunk decode(std::uint64_t offset, std::string_view raw, TimestampNs first_ns, TimestampNs last_ns);
  void define_series(SeriesInfo info);
  std::optional<std::string> read_at(std::uint64_t offset, std::size_t n);
  void read_footer();

  std::string path_;
  std::ifstream in_;
  std::uint64_t file_size_ = 0;
  RecordingHeader header_;
  nlohmann::json index_;
  std::uint64_t data_end_ = 0;  // index offset, or file size without one
  std::uint64_t cursor_ = 0;
  bool stopped_ = false;
  bool incomplete_ = false;  // stopped at the end of what was written (not at damage)
  std::string recovery_note_;
  std::vector<SeriesInfo> series_;
};

}  // namespace cann_debug::plugins::recording
