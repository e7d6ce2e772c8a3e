#include "recording/recording_writer.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iterator>
#include <stdexcept>

#include <fmt/format.h>

#include "recording/byte_codec.hpp"

namespace cann_debug::plugins::recording {
namespace {

/// Compresses `raw` into `out` and returns the compressed bytes, a view of `out` (reused: one compression
/// context and one output buffer for the life of the writer, so a long collection allocates nothing per
/// chunk and its memory stays flat; the buffer only grows, so it is not cleared again for every chunk).
std::string_view zstd_compress(ZSTD_CCtx* cctx, std::string_view raw, std::string& out) {
  if (const std::size_t bound = ZSTD_compressBound(raw.size()); out.size() < bound) out.resize(bound);
  const std::size_t n = ZSTD_compress2(cctx, out.data(), out.size(), raw.data(), raw.size());
  if (ZSTD_isError(n))
    throw std::runtime_error(std::string("zstd compression failed: ") + ZSTD_getErrorName(n));
  return std::string_view(out.data(), n);
}

nlohmann::json key_without_time(const CorrelationKey& key) {
  CorrelationKey k = key;
  k.timestamp_ns = kNoTimestamp;
  k.step_id = -1;
  k.request_id.clear();
  return k;
}

}  // namespace

RecordingWriter::RecordingWriter(std::string path, WriterOptions options)
    : path_(std::move(path)), options_(std::move(options)) {
  cctx_.reset(ZSTD_createCCtx());
  if (!cctx_) throw std::runtime_error(fmt::format("{}: cannot create a zstd compression context", path_));
  ZSTD_CCtx_setParameter(cctx_.get(), ZSTD_c_compressionLevel, options_.zstd_level);
  ZSTD_CCtx_setParameter(cctx_.get(), ZSTD_c_checksumFlag, 1);
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw std::runtime_error(fmt::format("{}: cannot create the recording: {}", path_, std::strerror(errno)));
  std::string header;
  ByteWriter w(header);
  w.bytes(kFileMagic);
  w.u32(kVersion);
  w.u32(options_.flags);
  w.i64(options_.meta.value("created_ns", std::int64_t{0}));
  const std::string meta = options_.meta.dump();
  w.u32(static_cast<std::uint32_t>(meta.size()));
  w.bytes(meta);
  write_all(header);
}

void RecordingWriter::CCtxFree::operator()(ZSTD_CCtx_s* c) const {
  ZSTD_freeCCtx(c);
}

RecordingWriter::~RecordingWriter() {
  try {
    close();
  } catch (...) {
    // A destructor must not throw; close() was the caller's chance to hear about a full disk.
  }
}

std::uint64_t RecordingWriter::series_of(const MetricPoint& point) {
  key_scratch_.clear();
  key_scratch_.append(point.name).push_back('\0');
  key_scratch_.append(point.unit).push_back('\0');
  for (const auto& [k, v] : point.labels) key_scratch_.append(k).append("=").append(v).push_back('\0');
  key_scratch_.push_back('\x01');
  key_scratch_.append(point.key.node_id);
  fmt::format_to(std::back_inserter(key_scratch_), "/{}/{}", point.key.rank, point.key.device);
  if (auto it = ids_.find(key_scratch_); it != ids_.end()) return it->second;

  SeriesInfo info;
  info.id = series_.size();
  info.name = point.name;
  info.unit = point.unit;
  info.labels = point.labels;
  info.key = point.key;
  info.key.timestamp_ns = kNoTimestamp;
  info.key.step_id = -1;
  info.key.request_id.clear();
  opened();
  ByteWriter w(chunk_);
  w.u8(static_cast<std::uint8_t>(RecordKind::kSeries));
  w.varint(info.id);
  w.str(info.name);
  w.str(info.unit);
  w.str(nlohmann::json(info.labels).dump());
  w.str(key_without_time(info.key).dump());
  ids_.emplace(key_scratch_, info.id);
  series_.push_back(std::move(info));
  ++totals_.series;
  return series_.back().id;
}

void RecordingWriter::touch_time(TimestampNs ts) {
  if (chunk_first_ == kNoTimestamp) {
    chunk_first_ = ts;
    chunk_prev_ = ts;
  }
  chunk_last_ = chunk_last_ == kNoTimestamp ? ts : std::max(chunk_last_, ts);
  if (totals_.first_ns == kNoTimestamp || ts < totals_.first_ns) totals_.first_ns = ts;
  if (totals_.last_ns == kNoTimestamp || ts > totals_.last_ns) totals_.last_ns = ts;
}

void RecordingWriter::add_sample(TimestampNs ts,
                                 const std::vector<std::pair<std::uint64_t, double>>& values) {
  if (values.empty()) return;
  if (fd_ < 0) throw std::logic_error("recording already closed");
  // Values arriving one by one at the same instant (retention keeps them series by series) share one record.
  if (!pending_.empty() && ts != pending_ts_) write_pending();
  opened();
  if (pending_.empty()) {
    pending_ts_ = ts;
    touch_time(ts);
  }
  pending_.insert(pending_.end(), values.begin(), values.end());
  totals_.samples += values.size();
  maybe_flush();
}

void RecordingWriter::write_pending() {
  if (pending_.empty()) return;
  // Encoded through a pointer into a buffer sized for the worst case, then appended at its real size:
  // this runs for every value the collector records. Packed: ids as steps from the previous one (a
  // frame's series are mostly consecutive: one byte), values XOR'd with the series' previous value in
  // this chunk (unchanged: one byte).
  const std::size_t worst =
      1 + 2 * kMaxVarintBytes + pending_.size() * (kMaxVarintBytes + kMaxXorDoubleBytes);
  if (record_.size() < worst) record_.resize(std::max(worst, 2 * record_.size()));
  char* const begin = record_.data();
  char* p = begin;
  *p++ = static_cast<char>(RecordKind::kPackedSample);
  p = put_varint(p, zigzag(pending_ts_ - chunk_prev_));
  chunk_prev_ = pending_ts_;
  p = put_varint(p, pending_.size());
  std::uint64_t expected = 0;
  for (const auto& [id, value] : pending_) {
    p = put_varint(p, zigzag(static_cast<std::int64_t>(id - expected)));
    expected = id + 1;
    if (id >= last_bits_.size()) last_bits_.resize(std::max<std::size_t>(id + 1, series_.size()), 0);
    std::uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    p = put_xor_f64(p, bits, last_bits_[id]);
    last_bits_[id] = bits;
  }
  chunk_.append(begin, static_cast<std::size_t>(p - begin));
  chunk_samples_ += pending_.size();
  pending_.clear();
}

void RecordingWriter::add_summary(const Summary& s) {
  if (fd_ < 0) throw std::logic_error("recording already closed");
  opened();
  touch_time(s.start_ns);
  touch_time(s.end_ns);
  ByteWriter w(chunk_);
  w.u8(static_cast<std::uint8_t>(RecordKind::kSummary));
  w.varint(s.series);
  w.svarint(s.start_ns - chunk_prev_);
  chunk_prev_ = s.start_ns;
  w.varint(static_cast<std::uint64_t>(s.end_ns - s.start_ns));
  w.varint(s.count);
  w.f64(s.mean);
  w.f64(s.min);
  w.f64(s.max);
  ++chunk_summaries_;
  ++totals_.summaries;
  totals_.represented += s.count;
  maybe_flush();
}

void RecordingWriter::opened() {
  if (chunk_.empty() && pending_.empty()) chunk_opened_ = std::chrono::steady_clock::now();
}

void RecordingWriter::maybe_flush() {
  if (chunk_.empty() && pending_.empty()) return;
  if (chunk_.size() + 9 * pending_.size() >= options_.chunk_bytes ||
      std::chrono::steady_clock::now() - chunk_opened_ >=
          std::chrono::nanoseconds(options_.flush_interval_ns))
    flush();
}

void RecordingWriter::flush() {
  write_pending();
  if (chunk_.empty() || fd_ < 0) return;
  const std::string_view frame = zstd_compress(cctx_.get(), chunk_, frame_);
  std::string block;
  block.reserve(kChunkHeaderSize + frame.size());
  ByteWriter w(block);
  w.u32(kChunkMagic);
  w.u32(static_cast<std::uint32_t>(frame.size()));
  w.u32(static_cast<std::uint32_t>(chunk_.size()));
  w.u32(static_cast<std::uint32_t>(chunk_samples_));
  w.u32(static_cast<std::uint32_t>(chunk_summaries_));
  w.u32(0);
  w.i64(chunk_first_ == kNoTimestamp ? 0 : chunk_first_);
  w.i64(chunk_last_ == kNoTimestamp ? 0 : chunk_last_);
  w.bytes(frame);
  ChunkIndex entry{totals_.file_bytes,
                   block.size(),
                   chunk_samples_,
                   chunk_summaries_,
                   chunk_first_ == kNoTimestamp ? 0 : chunk_first_,
                   chunk_last_ == kNoTimestamp ? 0 : chunk_last_};
  write_all(block);
  index_.push_back(entry);
  totals_.raw_bytes += chunk_.size();
  ++totals_.chunks;
  chunk_.clear();
  std::fill(last_bits_.begin(), last_bits_.end(), 0);  // the next chunk decodes on its own
  chunk_samples_ = chunk_summaries_ = 0;
  chunk_first_ = chunk_last_ = kNoTimestamp;
  chunk_prev_ = 0;
}

void RecordingWriter::close(const nlohmann::json& closing_meta) {
  if (fd_ < 0) return;
  flush();
  nlohmann::json index = {{"chunks", nlohmann::json::array()},
                          {"series", nlohmann::json::array()},
                          {"totals",
                           {{"chunks", totals_.chunks},
                            {"samples", totals_.samples},
                            {"summaries", totals_.summaries},
                            {"represented", totals_.represented},
                            {"raw_bytes", totals_.raw_bytes},
                            {"first_ns", totals_.first_ns},
                            {"last_ns", totals_.last_ns}}},
                          {"closing", closing_meta}};
  for (const auto& c : index_)
    index["chunks"].push_back({c.offset, c.size, c.samples, c.summaries, c.first_ns, c.last_ns});
  for (const auto& s : series_)
    index["series"].push_back({{"id", s.id},
                               {"name", s.name},
                               {"unit", s.unit},
                               {"labels", s.labels},
                               {"key", key_without_time(s.key)}});
  const std::string raw = index.dump();
  const std::string_view frame = zstd_compress(cctx_.get(), raw, frame_);
  std::string block;
  ByteWriter w(block);
  const std::uint64_t index_offset = totals_.file_bytes;
  w.u32(kIndexMagic);
  w.u32(static_cast<std::uint32_t>(frame.size()));
  w.u32(static_cast<std::uint32_t>(raw.size()));
  w.bytes(frame);
  w.u64(index_offset);
  w.u64(12 + frame.size());
  w.bytes(kFooterMagic);
  write_all(block);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0)
    throw std::runtime_error(
        fmt::format("{}: closing the recording failed: {}", path_, std::strerror(errno)));
}

void RecordingWriter::write_all(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(fmt::format("{}: writing the recording failed at byte {}: {}", path_,
                                           totals_.file_bytes, std::strerror(errno)));
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
    totals_.file_bytes += static_cast<std::uint64_t>(n);
  }
}

}  // namespace cann_debug::plugins::recording
