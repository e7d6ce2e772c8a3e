#include "recording/recording_reader.hpp"

#include <zstd.h>

#include <bit>
#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>

#include "recording/byte_codec.hpp"

namespace cann_debug::plugins::recording {
namespace {

/// Decompresses one zstd frame of exactly `raw_size` bytes; nullopt when damaged (checksum, truncation).
std::optional<std::string> zstd_decompress(std::string_view frame, std::size_t raw_size, std::string& why) {
  std::string out(raw_size, '\0');
  const std::size_t n = ZSTD_decompress(out.data(), out.size(), frame.data(), frame.size());
  if (ZSTD_isError(n)) {
    why = ZSTD_getErrorName(n);
    return std::nullopt;
  }
  if (n != raw_size) {
    why = fmt::format("{} bytes after decompression, the chunk header says {}", n, raw_size);
    return std::nullopt;
  }
  return out;
}

}  // namespace

RecordingReader::RecordingReader(std::string path) : path_(std::move(path)), in_(path_, std::ios::binary) {
  if (!in_.is_open()) throw std::runtime_error(fmt::format("{}: cannot open the recording", path_));
  std::error_code ec;
  file_size_ = std::filesystem::file_size(path_, ec);
  auto fixed = read_at(0, kHeaderFixedSize);
  if (!fixed || fixed->substr(0, kFileMagic.size()) != kFileMagic)
    throw std::runtime_error(fmt::format(
        "{}: byte 0: expected the cann-debug recording magic \\x89CDR\\r\\n\\x1a\\n (a .cdr file made by "
        "`cann-debug collect`)",
        path_));
  ByteReader r(*fixed);
  r.take(kFileMagic.size());
  header_.version = r.u32();
  header_.flags = r.u32();
  header_.created_ns = r.i64();
  const std::uint32_t meta_len = r.u32();
  if (header_.version < kOldestReadableVersion || header_.version > kVersion)
    throw std::runtime_error(
        fmt::format("{}: byte 8: recording format version {}, this build reads versions {} to {}", path_,
                    header_.version, kOldestReadableVersion, kVersion));
  auto meta = meta_len <= kMaxBlockSize ? read_at(kHeaderFixedSize, meta_len) : std::nullopt;
  if (!meta)
    throw std::runtime_error(fmt::format(
        "{}: byte 24: header metadata of {} bytes runs past the end of the file", path_, meta_len));
  header_.meta = nlohmann::json::parse(*meta, nullptr, false);
  if (header_.meta.is_discarded())
    throw std::runtime_error(
        fmt::format("{}: byte {}: header metadata is not JSON", path_, kHeaderFixedSize));
  header_.data_offset = kHeaderFixedSize + meta_len;
  cursor_ = header_.data_offset;
  data_end_ = file_size_;

  read_footer();
}

// The footer, when the writer closed the file: the index gives every series and where the chunks end.
void RecordingReader::read_footer() {
  if (file_size_ >= header_.data_offset + kFooterSize) {
    if (auto footer = read_at(file_size_ - kFooterSize, kFooterSize);
        footer && footer->substr(16) == kFooterMagic) {
      ByteReader f(*footer);
      const std::uint64_t offset = f.u64();
      const std::uint64_t size = f.u64();
      auto block =
          size >= 12 && offset + size + kFooterSize == file_size_ ? read_at(offset, size) : std::nullopt;
      if (!block)
        throw std::runtime_error(
            fmt::format("{}: byte {}: the footer points at no index", path_, file_size_ - kFooterSize));
      ByteReader b(*block);
      const std::uint32_t magic = b.u32();
      const std::uint32_t csize = b.u32();
      const std::uint32_t rsize = b.u32();
      std::string why;
      auto raw = magic == kIndexMagic && csize + 12 == size && rsize <= kMaxBlockSize
                     ? zstd_decompress(b.take(csize), rsize, why)
                     : std::nullopt;
      if (!raw) throw std::runtime_error(fmt::format("{}: byte {}: damaged index {}", path_, offset, why));
      index_ = nlohmann::json::parse(*raw, nullptr, false);
      if (index_.is_discarded() || !index_.is_object())
        throw std::runtime_error(fmt::format("{}: byte {}: the index is not JSON", path_, offset));
      data_end_ = offset;
      for (const auto& s : index_.value("series", nlohmann::json::array())) {
        SeriesInfo info;
        info.id = s.at("id").get<std::uint64_t>();
        info.name = s.at("name").get<std::string>();
        info.unit = s.at("unit").get<std::string>();
        info.labels = s.at("labels").get<Labels>();
        info.key = s.at("key").get<CorrelationKey>();
        define_series(std::move(info));
      }
    }
  }
}

bool RecordingReader::refresh() {
  if (closed_cleanly() || stopped_at_damage()) return false;
  std::error_code ec;
  const std::uint64_t size = std::filesystem::file_size(path_, ec);
  if (ec || size <= file_size_) return false;
  file_size_ = size;
  data_end_ = size;
  read_footer();
  stopped_ = false;
  incomplete_ = false;
  recovery_note_.clear();
  return true;
}

std::optional<std::string> RecordingReader::read_at(std::uint64_t offset, std::size_t n) {
  if (offset > file_size_ || n > file_size_ - offset) return std::nullopt;
  std::string buf(n, '\0');
  in_.clear();
  in_.seekg(static_cast<std::streamoff>(offset));
  if (!in_.read(buf.data(), static_cast<std::streamsize>(n))) return std::nullopt;
  return buf;
}

void RecordingReader::define_series(SeriesInfo info) {
  if (info.id > series_.size() + 1'000'000)
    throw DecodeError(fmt::format("series id {} out of range", info.id));
  if (info.id >= series_.size()) series_.resize(info.id + 1);
  series_[info.id] = std::move(info);
}

std::optional<DecodedChunk> RecordingReader::next() {
  if (stopped_) return std::nullopt;
  const bool indexed = closed_cleanly();
  if (cursor_ >= data_end_) {
    if (!indexed) {
      stopped_ = true;
      incomplete_ = true;
      recovery_note_ = fmt::format(
          "the recording was not closed cleanly (no index); all {} bytes read: its last chunk is complete",
          file_size_);
    }
    return std::nullopt;
  }
  auto stop = [&](std::string why, bool incomplete = false) -> std::optional<DecodedChunk> {
    if (indexed) throw std::runtime_error(fmt::format("{}: byte {}: {}", path_, cursor_, why));
    stopped_ = true;
    incomplete_ = incomplete;
    recovery_note_ =
        fmt::format("the recording was not closed cleanly (no index); read up to byte {} of {}: {}", cursor_,
                    file_size_, why);
    return std::nullopt;
  };
  auto head = read_at(cursor_, kChunkHeaderSize);
  if (!head) return stop("the last chunk is incomplete (its header is cut off)", true);
  ByteReader h(*head);
  const std::uint32_t magic = h.u32();
  const std::uint32_t csize = h.u32();
  const std::uint32_t rsize = h.u32();
  h.u32();  // samples
  h.u32();  // summaries
  h.u32();  // reserved
  const TimestampNs first = h.i64();
  const TimestampNs last = h.i64();
  // The index after the last chunk of a file whose footer is not written yet: the writer is closing it.
  if (magic == kIndexMagic)
    return stop("the writer is writing its index (the footer is not there yet)", true);
  if (magic != kChunkMagic) return stop("expected a chunk ('CDCK')");
  if (csize > kMaxBlockSize || rsize > kMaxBlockSize) return stop("chunk sizes out of range");
  auto frame = read_at(cursor_ + kChunkHeaderSize, csize);
  if (!frame) return stop("the last chunk is incomplete (cut off inside its data)", true);
  std::string why;
  auto raw = zstd_decompress(*frame, rsize, why);
  if (!raw) return stop("damaged chunk: " + why);
  DecodedChunk chunk;
  try {
    chunk = decode(cursor_, *raw, first, last);
  } catch (const DecodeError& e) {
    return stop(fmt::format("damaged chunk: {}", e.what()));
  }
  cursor_ += kChunkHeaderSize + csize;
  return chunk;
}

DecodedChunk RecordingReader::decode(std::uint64_t offset, std::string_view raw, TimestampNs first_ns,
                                     TimestampNs last_ns) {
  DecodedChunk out;
  out.offset = offset;
  out.first_ns = first_ns;
  out.last_ns = last_ns;
  ByteReader r(raw);
  TimestampNs prev = first_ns;
  std::vector<std::uint64_t> last_bits;  // packed samples: each series' last value in this chunk
  auto series_at = [&](std::uint64_t id) -> const SeriesInfo& {
    if (id >= series_.size() || series_[id].name.empty())
      throw DecodeError(
          fmt::format("offset {} in the chunk: series {} used before it was defined", r.offset(), id));
    return series_[id];
  };
  while (!r.done()) {
    const auto kind = static_cast<RecordKind>(r.u8());
    switch (kind) {
      case RecordKind::kSeries: {
        SeriesInfo info;
        info.id = r.varint();
        info.name = std::string(r.str());
        info.unit = std::string(r.str());
        auto labels = nlohmann::json::parse(r.str(), nullptr, false);
        auto key = nlohmann::json::parse(r.str(), nullptr, false);
        if (labels.is_discarded() || key.is_discarded() || info.name.empty())
          throw DecodeError(fmt::format("offset {} in the chunk: bad series record", r.offset()));
        info.labels = labels.get<Labels>();
        info.key = key.get<CorrelationKey>();
        define_series(std::move(info));
        break;
      }
      case RecordKind::kSample: {
        prev += r.svarint();
        const std::uint64_t n = r.varint();
        for (std::uint64_t i = 0; i < n; ++i) {
          const SeriesInfo& s = series_at(r.varint());
          out.points.push_back(point_of(s, prev, r.f64()));
        }
        break;
      }
      case RecordKind::kPackedSample: {
        prev += r.svarint();
        const std::uint64_t n = r.varint();
        std::uint64_t expected = 0;
        for (std::uint64_t i = 0; i < n; ++i) {
          const std::uint64_t id = expected + static_cast<std::uint64_t>(r.svarint());
          const SeriesInfo& s = series_at(id);
          expected = id + 1;
          if (id >= last_bits.size()) last_bits.resize(id + 1, 0);
          last_bits[id] = r.xor_f64_bits(last_bits[id]);
          out.points.push_back(point_of(s, prev, std::bit_cast<double>(last_bits[id])));
        }
        break;
      }
      case RecordKind::kSummary: {
        Summary s;
        s.series = r.varint();
        series_at(s.series);
        prev += r.svarint();
        s.start_ns = prev;
        s.end_ns = s.start_ns + static_cast<std::int64_t>(r.varint());
        s.count = r.varint();
        s.mean = r.f64();
        s.min = r.f64();
        s.max = r.f64();
        out.summaries.push_back(s);
        break;
      }
      default:
        throw DecodeError(fmt::format("offset {} in the chunk: unknown record kind {}", r.offset() - 1,
                                      static_cast<int>(kind)));
    }
  }
  return out;
}

}  // namespace cann_debug::plugins::recording
