// Chunked plain-file and gzip byte sources, over a file or over bytes in memory (fmemopen).
#include "cann_debug/reader/byte_source.hpp"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

namespace cann_debug::plugins::readers {
namespace {

constexpr std::size_t kCompressedChunk = 256 * 1024;

struct FileCloser {
  void operator()(std::FILE* f) const {
    if (f) std::fclose(f);
  }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

FilePtr open_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw std::runtime_error(fmt::format("{}: cannot open: {}", path, std::strerror(EISDIR)));
  errno = 0;
  FilePtr f(std::fopen(path.c_str(), "rb"));
  if (!f) {
    const int err = errno;
    throw std::runtime_error(
        fmt::format("{}: cannot open: {}", path, err ? std::strerror(err) : "unknown error"));
  }
  return f;
}

std::size_t read_file(std::FILE* f, const std::string& path, char* dst, std::size_t n) {
  const std::size_t got = std::fread(dst, 1, n, f);
  if (got < n && std::ferror(f))
    throw std::runtime_error(fmt::format("{}: read error: {}", path, std::strerror(errno)));
  return got;
}

class FileSource final : public ByteSource {
 public:
  FileSource(FilePtr f, std::string path) : file_(std::move(f)), path_(std::move(path)) {}
  std::size_t read(char* dst, std::size_t n) override { return read_file(file_.get(), path_, dst, n); }
  bool compressed() const override { return false; }

 private:
  FilePtr file_;
  std::string path_;
};

// Inflates gzip data (also several concatenated gzip members, as `cat a.gz b.gz` writes) chunk by chunk.
class GzipSource final : public ByteSource {
 public:
  GzipSource(FilePtr f, std::string path)
      : file_(std::move(f)), path_(std::move(path)), in_(kCompressedChunk) {
    std::memset(&zs_, 0, sizeof(zs_));
    if (inflateInit2(&zs_, 16 + MAX_WBITS) != Z_OK)
      throw std::runtime_error(fmt::format("{}: cannot initialise gzip decompression", path_));
  }
  ~GzipSource() override { inflateEnd(&zs_); }
  GzipSource(const GzipSource&) = delete;
  GzipSource& operator=(const GzipSource&) = delete;

  bool compressed() const override { return true; }

  std::size_t read(char* dst, std::size_t n) override {
    std::size_t produced = 0;
    while (produced < n && !finished_) {
      if (zs_.avail_in == 0) {
        const std::size_t got = read_file(file_.get(), path_, in_.data(), in_.size());
        consumed_ += got;
        if (got == 0) {
          if (member_started_)
            throw std::runtime_error(fmt::format(
                "{}: byte {}: expected more gzip data, got the end of the compressed file at compressed "
                "byte {} (truncated .gz?)",
                path_, produced_total_ + produced, consumed_));
          finished_ = true;
          break;
        }
        zs_.next_in = reinterpret_cast<Bytef*>(in_.data());
        zs_.avail_in = static_cast<uInt>(got);
      }
      // Anything but another gzip member after the last one is ignored, as gzip does.
      if (!member_started_ && members_done_ > 0 && static_cast<unsigned char>(*zs_.next_in) != 0x1f) {
        finished_ = true;
        break;
      }
      zs_.next_out = reinterpret_cast<Bytef*>(dst + produced);
      zs_.avail_out = static_cast<uInt>(n - produced);
      member_started_ = true;
      const int rc = inflate(&zs_, Z_NO_FLUSH);
      produced = n - zs_.avail_out;
      if (rc == Z_STREAM_END) {
        member_started_ = false;
        ++members_done_;
        if (inflateReset(&zs_) != Z_OK)
          throw std::runtime_error(fmt::format("{}: cannot reset gzip decompression", path_));
      } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        throw std::runtime_error(fmt::format(
            "{}: byte {}: expected valid gzip data, got corrupt data at compressed "
            "byte {} ({})",
            path_, produced_total_ + produced, consumed_ - zs_.avail_in, zs_.msg ? zs_.msg : zError(rc)));
      }
    }
    produced_total_ += produced;
    return produced;
  }

 private:
  FilePtr file_;
  std::string path_;
  std::vector<char> in_;
  z_stream zs_;
  std::uint64_t consumed_ = 0;        // compressed bytes read
  std::uint64_t produced_total_ = 0;  // decompressed bytes returned
  bool member_started_ = false;
  int members_done_ = 0;
  bool finished_ = false;
};

}  // namespace

bool has_gzip_magic(std::string_view head) {
  return head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f &&
         static_cast<unsigned char>(head[1]) == 0x8b;
}

std::unique_ptr<ByteSource> open_byte_source(const std::string& path) {
  FilePtr f = open_file(path);
  char magic[2] = {0, 0};
  const std::size_t got = read_file(f.get(), path, magic, 2);
  std::rewind(f.get());
  if (has_gzip_magic(std::string_view(magic, got))) return std::make_unique<GzipSource>(std::move(f), path);
  return std::make_unique<FileSource>(std::move(f), path);
}

namespace {

// Keeps the bytes alive for the FILE* fmemopen() made over them.
class MemorySource final : public ByteSource {
 public:
  MemorySource(std::shared_ptr<const std::string> bytes, std::unique_ptr<ByteSource> inner)
      : bytes_(std::move(bytes)), inner_(std::move(inner)) {}
  ~MemorySource() override { inner_.reset(); }  // closes the FILE* before the bytes go
  std::size_t read(char* dst, std::size_t n) override { return inner_->read(dst, n); }
  bool compressed() const override { return inner_->compressed(); }

 private:
  std::shared_ptr<const std::string> bytes_;
  std::unique_ptr<ByteSource> inner_;
};

}  // namespace

std::unique_ptr<ByteSource> memory_byte_source(std::string bytes, const std::string& name) {
  auto held = std::make_shared<const std::string>(std::move(bytes));
  // fmemopen() refuses a size of 0 on some C libraries: an empty buffer reads as an empty file anyway.
  static const char kEmpty[1] = {0};
  void* data = held->empty() ? const_cast<char*>(kEmpty) : const_cast<char*>(held->data());
  FilePtr f(::fmemopen(data, held->empty() ? 1 : held->size(), "rb"));
  if (!f) throw std::runtime_error(fmt::format("{}: cannot open: {}", name, std::strerror(errno)));
  std::unique_ptr<ByteSource> inner;
  if (held->empty()) {
    std::fseek(f.get(), 0, SEEK_END);  // nothing to read
    inner = std::make_unique<FileSource>(std::move(f), name);
  } else if (has_gzip_magic(*held)) {
    inner = std::make_unique<GzipSource>(std::move(f), name);
  } else {
    inner = std::make_unique<FileSource>(std::move(f), name);
  }
  return std::make_unique<MemorySource>(std::move(held), std::move(inner));
}

std::string inflate_head(std::string_view gz, std::size_t max_out) {
  std::string out(max_out, '\0');
  z_stream zs;
  std::memset(&zs, 0, sizeof(zs));
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) return {};
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  zs.avail_in = static_cast<uInt>(gz.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  inflate(&zs, Z_SYNC_FLUSH);  // a truncated head ends in Z_BUF_ERROR: what was produced is still good
  // erase, not resize: never grows the string (GCC 12 cannot tell resize() here only shrinks it).
  out.erase(out.size() - std::min<std::size_t>(zs.avail_out, out.size()));
  inflateEnd(&zs);
  return out;
}

}  // namespace cann_debug::plugins::readers
