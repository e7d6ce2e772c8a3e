// One target process's CPU, resident memory and threads from <root>/proc/<pid>/{stat,status,statm}.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cann_debug/messages.hpp"
#include "cann_debug/sampler/frame_builder.hpp"
#include "cann_debug/sampler/sysfs_files.hpp"

namespace cann_debug::plugins::procfs_detail {

class PidStats {
 public:
  /// `pid`: "" or "0" (no process), "self" (<root>/proc/self) or a decimal process id. Ticks per second and
  /// page size default to this machine's (sysconf).
  PidStats(const std::string& root, const std::string& pid, long ticks_per_second = 0, long page_size = 0);

  bool enabled() const { return !dir_.empty(); }
  /// <root>/proc/<pid> ("" when disabled).
  const std::string& dir() const { return dir_; }

  /// Puts process.cpu.utilization (cores; from the second sample on), process.memory.rss (bytes) and
  /// process.threads (count), labelled pid and process (its comm). Returns false, putting nothing, when
  /// the process cannot be read (it exited, or never existed).
  bool sample(std::int64_t now_ns, sampler_support::FrameBuilder& frame);

  /// Whether `pid` is a valid value of the option ("", "0", "self" or a positive decimal).
  static bool valid_option(const std::string& pid);

 private:
  std::string dir_;
  // Kept open between samples (a dead process's files fail to read, and are opened again then).
  std::optional<sampler_support::KeptOpenFile> stat_, status_;
  double ticks_per_second_;
  double page_size_;
  std::optional<std::uint64_t> starttime_;  // of the process the CPU counter belongs to
};

}  // namespace cann_debug::plugins::procfs_detail
