#include "cann_debug/reader/line_reader.hpp"

#include <cstring>

namespace cann_debug::plugins::readers {

LineReader::LineReader(std::istream& in, std::size_t max_line_bytes, std::size_t chunk_bytes)
    : in_(in), max_(max_line_bytes), buf_(chunk_bytes) {}

LineReader::Status LineReader::next(std::string& line) {
  line.clear();
  if (pos_ == len_ && !fill()) return Status::kEnd;
  ++line_;
  offset_ = consumed_ + pos_;
  for (;;) {
    if (pos_ == len_ && !fill()) break;  // the last line has no '\n'
    const char* begin = buf_.data() + pos_;
    const auto* nl = static_cast<const char*>(std::memchr(begin, '\n', len_ - pos_));
    const std::size_t n = nl ? static_cast<std::size_t>(nl - begin) : len_ - pos_;
    if (line.size() + n > max_) return Status::kTooLong;
    line.append(begin, n);
    pos_ += n;
    if (nl) {
      ++pos_;
      break;
    }
  }
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return Status::kLine;
}

bool LineReader::fill() {
  consumed_ += len_;
  pos_ = len_ = 0;
  if (!in_.good()) return false;
  in_.read(buf_.data(), static_cast<std::streamsize>(buf_.size()));
  len_ = static_cast<std::size_t>(in_.gcount());
  return len_ > 0;
}

}  // namespace cann_debug::plugins::readers
