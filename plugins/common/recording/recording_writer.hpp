// Writes a recording: series definitions, samples and summaries are encoded into an in-memory chunk that
// goes to disk, zstd-compressed, when it is large enough or old enough; close() appends the index and the
// footer. Each chunk is one write(2), so after a crash (kill -9) the file holds every chunk written
// before it, and readers stop cleanly at the first incomplete one.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

struct ZSTD_CCtx_s;

#include "recording/recording_format.hpp"

namespace cann_debug::plugins::recording {

struct WriterOptions {
  std::size_t chunk_bytes = 256 * 1024;  // raw bytes that close a chunk
  std::int64_t flush_interval_ns =
      1'000'000'000;  // a chunk open this long (wall time) is written at the next add
  int zstd_level = 1;
  std::uint32_t flags = 0;
  nlohmann::json meta = nlohmann::json::object();  // stored in the header
};

struct WriterTotals {
  std::uint64_t chunks = 0;
  std::uint64_t samples = 0;      // full-resolution values written
  std::uint64_t summaries = 0;    // summary records written
  std::uint64_t represented = 0;  // values the summaries stand for
  std::uint64_t series = 0;
  std::uint64_t raw_bytes = 0;   // encoded records before compression
  std::uint64_t file_bytes = 0;  // bytes in the file so far
  TimestampNs first_ns = kNoTimestamp, last_ns = kNoTimestamp;
};

class RecordingWriter {
 public:
  /// Creates (truncates) `path` and writes the header. Throws std::runtime_error naming the path.
  RecordingWriter(std::string path, WriterOptions options);
  ~RecordingWriter();
  RecordingWriter(const RecordingWriter&) = delete;
  RecordingWriter& operator=(const RecordingWriter&) = delete;

  /// The id of the series of `point` (name, unit, labels, key without timestamp), defining it if new.
  std::uint64_t series_of(const MetricPoint& point);
  const SeriesInfo& series(std::uint64_t id) const { return series_[id]; }

  /// Values of several series taken at one instant.
  void add_sample(TimestampNs ts, const std::vector<std::pair<std::uint64_t, double>>& values);
  void add_summary(const Summary& summary);

  /// Writes the current chunk if it is large enough, or was opened flush_interval ago or more (by the
  /// steady clock: data times say nothing about how long data has waited). Called by add_*; call it when
  /// idle too.
  void maybe_flush();
  /// Writes the current chunk now (if it holds anything).
  void flush();
  /// Writes the last chunk, the index and the footer, and closes the file. Idempotent.
  void close(const nlohmann::json& closing_meta = nlohmann::json::object());

  const WriterTotals& totals() const { return totals_; }
  const std::string& path() const { return path_; }

 private:
  struct ChunkIndex {
    std::uint64_t offset = 0, size = 0, samples = 0, summaries = 0;
    TimestampNs first_ns = 0, last_ns = 0;
  };
  void write_all(std::string_view bytes);
  void touch_time(TimestampNs ts);
  void opened();
  void write_pending();

  struct CCtxFree {
    void operator()(ZSTD_CCtx_s* c) const;
  };

  std::string path_;
  WriterOptions options_;
  std::unique_ptr<ZSTD_CCtx_s, CCtxFree> cctx_;
  std::string frame_;  // compressed chunk, reused
  int fd_ = -1;
  std::unordered_map<std::string, std::uint64_t> ids_;  // series key (name, unit, labels, key) -> id
  std::vector<SeriesInfo> series_;
  std::string chunk_;  // encoded records of the chunk being filled
  // One instant's sample record is encoded here and appended to chunk_ at its real size: resizing chunk_
  // for the worst case would zero those bytes every time. Only grows (as the zstd output buffer does).
  std::string record_;
  std::string key_scratch_;
  TimestampNs pending_ts_ = 0;
  std::vector<std::pair<std::uint64_t, double>> pending_;  // values of one instant not yet encoded
  std::vector<std::uint64_t> last_bits_;  // per series id: its last value's bits in this chunk (0 at start)
  std::uint64_t chunk_samples_ = 0, chunk_summaries_ = 0;
  TimestampNs chunk_first_ = kNoTimestamp, chunk_last_ = kNoTimestamp, chunk_prev_ = 0;
  std::chrono::steady_clock::time_point chunk_opened_{};
  std::vector<ChunkIndex> index_;
  WriterTotals totals_;
};

}  // namespace cann_debug::plugins::recording
