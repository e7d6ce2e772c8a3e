// The cann-debug recording format (.cdr): metric samples in zstd-compressed chunks, an index at the end.
// docs/recording-format.md is the specification; this header holds its constants and the decoded forms.
//
//   file    := header chunk* [index footer]
//   header  := magic "\x89CDR\r\n\x1a\n" | u32 version (2; 1 is read too) | u32 flags | i64 created_ns |
//              u32 meta_len | meta (JSON: command, sources, interval, host, retention settings)
//   chunk   := u32 'CDCK' | u32 compressed_size | u32 raw_size | u32 samples | u32 summaries | u32 reserved |
//              i64 first_ns | i64 last_ns | zstd frame (with content checksum) of `raw_size` bytes of records
//   records := (0x01 series | 0x02 sample | 0x03 summary | 0x04 packed sample)*
//   index   := u32 'CDIX' | u32 compressed_size | u32 raw_size | zstd frame of the index JSON
//   footer  := u64 index_offset | u64 index_size | magic "CDRINDEX"
//
// All integers little-endian. A chunk is complete or absent: a reader that finds no footer (the writer
// was killed) reads chunk by chunk and stops at the first truncated or damaged one.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "cann_debug/messages.hpp"

namespace cann_debug::plugins::recording {

inline constexpr std::string_view kFileMagic{
    "\x89"
    "CDR\r\n\x1a\n",
    8};
inline constexpr std::string_view kFooterMagic{"CDRINDEX", 8};
/// Written: 2 (packed samples). Read: 1 and 2.
inline constexpr std::uint32_t kVersion = 2;
inline constexpr std::uint32_t kOldestReadableVersion = 1;
inline constexpr std::uint32_t kChunkMagic = 0x4b434443;  // "CDCK" little-endian
inline constexpr std::uint32_t kIndexMagic = 0x58494443;  // "CDIX"
inline constexpr std::size_t kHeaderFixedSize = 28;       // magic .. meta_len
inline constexpr std::size_t kChunkHeaderSize = 40;
inline constexpr std::size_t kFooterSize = 24;
/// A length field larger than this is damage, not data.
inline constexpr std::uint32_t kMaxBlockSize = 256u << 20;

/// Header flags.
inline constexpr std::uint32_t kFlagRetention = 1;  // written with anomaly-window retention (--compress)

enum class RecordKind : std::uint8_t { kSeries = 1, kSample = 2, kSummary = 3, kPackedSample = 4 };

/// A series: one metric name with one set of labels and correlation keys. Defined once, before its
/// first sample, by a series record:
///   0x01 | varint id | str name | str unit | str labels (JSON object) | str key (JSON, no timestamp)
struct SeriesInfo {
  std::uint64_t id = 0;
  std::string name;
  std::string unit;
  Labels labels;
  CorrelationKey key;  // without timestamp
};

/// A value of series `s` taken at `ts`, as a metric point (what readers of a recording give out).
inline MetricPoint point_of(const SeriesInfo& s, TimestampNs ts, double value) {
  MetricPoint p;
  p.name = s.name;
  p.unit = s.unit;
  p.labels = s.labels;
  p.key = s.key;
  p.key.timestamp_ns = ts;
  p.value = value;
  return p;
}

/// Full-resolution values taken at one instant (version 1; still read):
///   0x02 | svarint (ts - previous ts in this chunk; the chunk's first_ns for the first) | varint n |
///   n x (varint series id | f64 value)
/// The same, packed (version 2, what the writer writes):
///   0x04 | svarint (ts - previous ts) | varint n |
///   n x (svarint (id - (previous id in this record + 1); the first against id 0) |
///        value XOR'd with the series' previous value in this chunk (0 before its first): see put_xor_f64)
/// A chunk never depends on another: every series starts from 0 in each chunk.
/// Downsampled stretch of one series, written with retention where nothing stood out:
///   0x03 | varint series id | svarint (start - previous ts) | varint (end - start) | varint count |
///   f64 mean | f64 min | f64 max
struct Summary {
  std::uint64_t series = 0;
  TimestampNs start_ns = 0;
  TimestampNs end_ns = 0;
  std::uint64_t count = 0;
  double mean = 0, min = 0, max = 0;
};

}  // namespace cann_debug::plugins::recording
