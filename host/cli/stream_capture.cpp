#include "stream_capture.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <stdexcept>

#include <fmt/format.h>

namespace cann_debug::cli {
namespace {

constexpr std::size_t kReadBytes = 64 * 1024;
constexpr std::size_t kMaxMeasuredLine = 64 * 1024;
constexpr std::size_t kMaxLags = 100000;
constexpr std::int64_t kMeasureEveryNs = 1'000'000;  // at most one line a millisecond is parsed

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Writes all of it; false on an error other than EINTR.
bool write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

// An integer time exactly (a double holds ms since the epoch only to about 0.1 µs).
std::int64_t epoch_integer_ns(std::int64_t v) {
  if (v >= 100'000'000 && v < 100'000'000'000) return v * 1'000'000'000;          // s
  if (v >= 100'000'000'000 && v < 100'000'000'000'000) return v * 1'000'000;      // ms
  if (v >= 100'000'000'000'000 && v < 100'000'000'000'000'000) return v * 1'000;  // µs
  if (v >= 100'000'000'000'000'000) return v;                                     // ns
  return 0;
}

std::int64_t epoch_number_ns(double v) {
  if (!std::isfinite(v) || v <= 0) return 0;
  if (v >= 1e8 && v < 1e11) return static_cast<std::int64_t>(std::llround(v * 1e9));   // s
  if (v >= 1e11 && v < 1e14) return static_cast<std::int64_t>(std::llround(v * 1e6));  // ms
  if (v >= 1e14 && v < 1e17) return static_cast<std::int64_t>(std::llround(v * 1e3));  // µs
  if (v >= 1e17 && v < 1e20) return static_cast<std::int64_t>(v);                      // ns
  return 0;
}

// Digits at s[i..i+n) as a number, or -1.
int digits(std::string_view s, std::size_t i, std::size_t n) {
  if (i + n > s.size()) return -1;
  int v = 0;
  for (std::size_t k = i; k < i + n; ++k) {
    if (s[k] < '0' || s[k] > '9') return -1;
    v = v * 10 + (s[k] - '0');
  }
  return v;
}

std::int64_t leading_date_ns(std::string_view s) {
  if (!s.empty() && s.front() == '[') s.remove_prefix(1);
  // YYYY-MM-DD?HH:MM:SS
  if (s.size() < 19 || s[4] != '-' || s[7] != '-' || (s[10] != ' ' && s[10] != 'T') || s[13] != ':' ||
      s[16] != ':')
    return 0;
  std::tm tm{};
  const int year = digits(s, 0, 4), mon = digits(s, 5, 2), day = digits(s, 8, 2);
  const int hour = digits(s, 11, 2), min = digits(s, 14, 2), sec = digits(s, 17, 2);
  if (year < 1970 || mon < 1 || mon > 12 || day < 1 || day > 31 || hour < 0 || hour > 23 || min < 0 ||
      min > 59 || sec < 0 || sec > 60)
    return 0;
  tm.tm_year = year - 1900;
  tm.tm_mon = mon - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = min;
  tm.tm_sec = sec;
  std::size_t i = 19;
  std::int64_t fraction_ns = 0;
  if (i < s.size() && (s[i] == '.' || s[i] == ',')) {  // Python's logging writes ",123"
    std::int64_t scale = 100'000'000;
    for (++i; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
      fraction_ns += (s[i] - '0') * scale;
      scale /= 10;
    }
  }
  const bool utc = i < s.size() && s[i] == 'Z';
  tm.tm_isdst = -1;
  const std::time_t t = utc ? ::timegm(&tm) : std::mktime(&tm);
  if (t < 0) return 0;
  return static_cast<std::int64_t>(t) * 1'000'000'000 + fraction_ns;
}

}  // namespace

std::int64_t line_time_ns(std::string_view line) {
  const auto first = line.find_first_not_of(" \t");
  if (first == std::string_view::npos) return 0;
  line.remove_prefix(first);
  if (line.front() == '{') {
    const auto doc = nlohmann::json::parse(line.begin(), line.end(), nullptr, false);
    if (!doc.is_object()) return 0;
    for (const char* key : {"time", "timestamp", "ts", "wall_time"}) {
      auto it = doc.find(key);
      if (it != doc.end() && it->is_number_integer()) return epoch_integer_ns(it->get<std::int64_t>());
      if (it != doc.end() && it->is_number()) return epoch_number_ns(it->get<double>());
    }
    return 0;
  }
  return leading_date_ns(line);
}

nlohmann::json CaptureTotals::to_json() const {
  nlohmann::json j = {{"bytes", bytes}, {"lines", lines}, {"bytes_left_out", bytes_left_out}};
  if (echo_failed) j["echo_failed"] = true;
  if (!eof) j["still_open_at_end"] = true;
  if (!error.empty()) j["error"] = error;
  return j;
}

StreamCapture::StreamCapture(int fd, CaptureOptions options) : fd_(fd), options_(std::move(options)) {
  file_fd_ = ::open(options_.path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (file_fd_ < 0) {
    ::close(fd_);
    throw std::runtime_error(fmt::format("{}: cannot create: {}", options_.path, std::strerror(errno)));
  }
  if (::pipe2(stop_pipe_, O_CLOEXEC) != 0) stop_pipe_[0] = stop_pipe_[1] = -1;
  thread_ = std::thread([this] { loop(); });
}

StreamCapture::~StreamCapture() {
  finish(0);
}

void StreamCapture::loop() {
  std::string buffer(kReadBytes, '\0');
  for (;;) {
    pollfd fds[2] = {{fd_, POLLIN, 0}, {stop_pipe_[0], POLLIN, 0}};
    const int n = ::poll(fds, stop_pipe_[0] >= 0 ? 2 : 1, stop_pipe_[0] >= 0 ? -1 : 100);
    if (n < 0 && errno != EINTR) {
      totals_.error = fmt::format("poll: {}", std::strerror(errno));
      break;
    }
    if (stop_.load()) break;
    if (n <= 0 || !(fds[0].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    const ssize_t got = ::read(fd_, buffer.data(), buffer.size());
    if (got < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      totals_.error = fmt::format("read: {}", std::strerror(errno));
      break;
    }
    if (got == 0) {  // EOF: every writer closed it
      totals_.eof = true;
      break;
    }
    handle(buffer.data(), static_cast<std::size_t>(got));
  }
  done_.store(true);
}

void StreamCapture::handle(const char* data, std::size_t size) {
  const std::int64_t arrival = now_ns();
  if (totals_.bytes == 0) totals_.first_arrival_ns = arrival;
  totals_.last_arrival_ns = arrival;
  totals_.bytes += size;
  if (options_.echo_fd >= 0 && !totals_.echo_failed && !write_all(options_.echo_fd, data, size))
    totals_.echo_failed = true;
  write_file(data, size);
  // Lines: count them all; measure the clock of (at most one a millisecond of) them.
  std::string_view rest(data, size);
  for (;;) {
    const auto nl = rest.find('\n');
    if (nl == std::string_view::npos) break;
    ++totals_.lines;
    const std::string_view piece = rest.substr(0, nl);
    if (arrival - last_measure_ns_ >= kMeasureEveryNs && totals_.lags_s.size() < kMaxLags) {
      std::string_view line = piece;
      if (!partial_line_.empty()) {
        partial_line_.append(piece);
        line = partial_line_;
      }
      measure_line(line, arrival);
    }
    partial_line_.clear();
    rest.remove_prefix(nl + 1);
  }
  if (partial_line_.size() + rest.size() <= kMaxMeasuredLine) partial_line_.append(rest);
}

void StreamCapture::measure_line(std::string_view line, std::int64_t arrival_ns) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.size() > kMaxMeasuredLine) return;
  const std::int64_t own = line_time_ns(line);
  last_measure_ns_ = arrival_ns;
  if (own == 0) return;
  ++totals_.stamped_lines;
  totals_.lags_s.push_back(static_cast<double>(arrival_ns - own) * 1e-9);
}

void StreamCapture::write_file(const char* data, std::size_t size) {
  if (!totals_.error.empty()) return;
  const std::uint64_t limit = options_.max_file_bytes;
  const std::uint64_t head = limit == 0 ? UINT64_MAX : limit / 2;
  std::size_t to_head = 0;
  if (written_ < head && tail_.empty()) {
    to_head = static_cast<std::size_t>(std::min<std::uint64_t>(size, head - written_));
    if (to_head < size) {  // the head ends at a line's end where there is one
      const std::string_view part(data, to_head);
      const auto nl = part.rfind('\n');
      if (nl != std::string_view::npos) to_head = nl + 1;
    }
    if (!write_all(file_fd_, data, to_head)) {
      totals_.error = fmt::format("{}: write: {}", options_.path, std::strerror(errno));
      return;
    }
    written_ += to_head;
  }
  if (to_head == size) return;
  // Over the head: keep the last limit/2 bytes in memory, written at the end.
  tail_.append(data + to_head, size - to_head);
  const std::size_t keep = static_cast<std::size_t>(limit - head);
  if (tail_.size() > 2 * keep) {
    totals_.bytes_left_out += tail_.size() - keep;
    tail_.erase(0, tail_.size() - keep);
  }
}

const CaptureTotals& StreamCapture::finish(int grace_ms) {
  if (finished_) return totals_;
  finished_ = true;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(grace_ms);
  while (!done_.load() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  stop_.store(true);
  if (stop_pipe_[1] >= 0) {
    const char byte = 1;
    [[maybe_unused]] const ssize_t n = ::write(stop_pipe_[1], &byte, 1);
  }
  if (thread_.joinable()) thread_.join();
  const std::size_t keep =
      options_.max_file_bytes == 0
          ? 0
          : static_cast<std::size_t>(options_.max_file_bytes - options_.max_file_bytes / 2);
  if (tail_.size() > keep) {
    totals_.bytes_left_out += tail_.size() - keep;
    tail_.erase(0, tail_.size() - keep);
  }
  if (!tail_.empty() && totals_.error.empty()) {
    std::string_view tail(tail_);
    if (totals_.bytes_left_out > 0) {  // the kept tail starts at a line's start
      const auto nl = tail.find('\n');
      if (nl != std::string_view::npos && nl + 1 < tail.size()) {
        totals_.bytes_left_out += nl + 1;
        tail.remove_prefix(nl + 1);
      }
      const std::string marker = fmt::format(
          "[cann-debug collect: {} bytes of {} left out here (over --max-log-size); the terminal showed "
          "them]\n",
          totals_.bytes_left_out, options_.name);
      write_all(file_fd_, marker.data(), marker.size());
    }
    write_all(file_fd_, tail.data(), tail.size());
  }
  ::close(file_fd_);
  ::close(fd_);
  for (int& fd : stop_pipe_)
    if (fd >= 0) ::close(std::exchange(fd, -1));
  return totals_;
}

}  // namespace cann_debug::cli
