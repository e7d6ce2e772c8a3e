#include "scan_buffer.hpp"

#include <algorithm>
#include <cstring>

namespace cann_debug::plugins::chrome_trace {

ScanBuffer::ScanBuffer(ByteSource& source, std::size_t chunk_bytes)
    : source_(source), chunk_(std::max<std::size_t>(chunk_bytes, 4096)), buf_(chunk_ + kPadding, '\0') {}

bool ScanBuffer::more() {
  if (eof_) return false;
  if (pos_ > 0) {  // keep only what is still needed
    std::memmove(buf_.data(), buf_.data() + pos_, end_ - pos_);
    base_ += pos_;
    end_ -= pos_;
    pos_ = 0;
  }
  // Read at least one chunk; double the buffer when the value being scanned fills it.
  std::size_t room = buf_.size() - kPadding - end_;
  if (room < chunk_ / 2) {
    buf_.resize(std::max(buf_.size() * 2, end_ + chunk_ + kPadding), '\0');
    room = buf_.size() - kPadding - end_;
  }
  const std::size_t got = source_.read(buf_.data() + end_, room);  // 0 only at the end of the stream
  if (got == 0) {
    eof_ = true;
    std::memset(buf_.data() + end_, 0, buf_.size() - end_);
    return false;
  }
  end_ += got;
  std::memset(buf_.data() + end_, 0, std::min(kPadding, buf_.size() - end_));
  return true;
}

}  // namespace cann_debug::plugins::chrome_trace
