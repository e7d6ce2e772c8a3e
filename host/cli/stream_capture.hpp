// One of the child's output streams in `collect -- COMMAND`: read to EOF on a thread of its own, copied
// to the terminal and to RUN_DIR/stdout.log (stderr.log). A stream larger than `max_file_bytes` keeps its
// first and last halves in the file with one line between them that says how much was left out. Lines
// that carry their own time (a JSON "time"/"timestamp" field, a leading date) are compared with the
// moment they arrived: the measured offset between the workload's clock and collect's.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace cann_debug::cli {

struct CaptureOptions {
  std::string name;                  // "stdout" or "stderr"
  std::string path;                  // the file it is written to
  int echo_fd = -1;                  // the terminal (collect's own stdout or stderr); -1 = none
  std::uint64_t max_file_bytes = 0;  // 0 = no limit
};

/// What was measured of a stream: sizes, lines, and the clock offset of lines with a time of their own.
struct CaptureTotals {
  std::uint64_t bytes = 0;
  std::uint64_t lines = 0;
  std::uint64_t bytes_left_out = 0;  // not in the file (over max_file_bytes)
  std::uint64_t stamped_lines = 0;   // lines whose own time was compared with their arrival
  std::vector<double> lags_s;        // arrival - own time, per compared line (a sample of them)
  std::int64_t first_arrival_ns = 0, last_arrival_ns = 0;
  bool eof = false;          // every writer closed the stream (false: still open when finished)
  bool echo_failed = false;  // the terminal went away: the file still has everything
  std::string error;         // a read or write error that stopped the capture
  nlohmann::json to_json() const;
};

class StreamCapture {
 public:
  /// Opens the file and starts reading `fd` (which it then owns and closes).
  StreamCapture(int fd, CaptureOptions options);
  ~StreamCapture();
  StreamCapture(const StreamCapture&) = delete;
  StreamCapture& operator=(const StreamCapture&) = delete;

  /// Waits for EOF at most `grace_ms` (a grandchild may hold the pipe open after the child exited), then
  /// stops reading, writes the kept tail and closes the file. Returns the totals.
  const CaptureTotals& finish(int grace_ms);

 private:
  void loop();
  void handle(const char* data, std::size_t size);
  void measure_line(std::string_view line, std::int64_t arrival_ns);
  void write_file(const char* data, std::size_t size);

  int fd_;
  CaptureOptions options_;
  int file_fd_ = -1;
  std::uint64_t written_ = 0;
  std::string tail_;  // ring of the last max_file_bytes/2 bytes once the head is full
  std::size_t tail_start_ = 0;
  std::string partial_line_;  // the end of the last read that was not a whole line (capped)
  std::int64_t last_measure_ns_ = 0;
  std::atomic<bool> done_{false};
  std::atomic<bool> stop_{false};
  int stop_pipe_[2] = {-1, -1};
  CaptureTotals totals_;
  std::thread thread_;
  bool finished_ = false;
};

/// The epoch time a log line says it was written at, in ns: a JSON object's "time", "timestamp", "ts" or
/// "wall_time" (seconds, ms, µs or ns since the epoch, told apart by magnitude) or a leading
/// "YYYY-MM-DD[ T]HH:MM:SS[.fff]" (in brackets or not; local time unless it ends in Z). 0 when none.
std::int64_t line_time_ns(std::string_view line);

}  // namespace cann_debug::cli
