// Parsers of the /proc files the procfs sampler reads: stat, meminfo, loadavg, and a process's stat,
// statm and status. Pure functions of a stream or a line, so they can be tested and fuzzed without a /proc.
#pragma once

#include <cstdint>
#include <istream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cann_debug::plugins::procfs_detail {

/// One "cpu" line of /proc/stat, in USER_HZ ticks. Fields a kernel does not print stay 0.
struct CpuTimes {
  std::uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0,
                guest = 0, guest_nice = 0;
  /// All time spent; guest and guest_nice are already counted in user and nice, so they are left out.
  std::uint64_t total() const { return user + nice + system + idle + iowait + irq + softirq + steal; }
};

struct StatSnapshot {
  std::vector<std::pair<std::string, CpuTimes>> cpus;  // "all" first, then "0", "1", ... in file order
  std::optional<std::uint64_t> ctxt;
  std::optional<std::int64_t> procs_running;
  std::optional<std::int64_t> procs_blocked;
};

struct MemInfo {
  std::optional<std::uint64_t> total_kb, available_kb, free_kb, buffers_kb, cached_kb;
  /// MemAvailable, or on kernels before 3.14 the estimate MemFree + Buffers + Cached.
  std::optional<std::uint64_t> available_or_estimate_kb() const {
    if (available_kb) return available_kb;
    if (free_kb && buffers_kb && cached_kb) return *free_kb + *buffers_kb + *cached_kb;
    return std::nullopt;
  }
};

/// Parses /proc/stat. Returns false when no aggregate "cpu" line was found.
inline bool parse_stat(std::istream& in, StatSnapshot& out) {
  out = {};
  std::string line;
  bool have_all = false;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string name;
    fields >> name;
    if (name.rfind("cpu", 0) == 0) {
      std::string label = name == "cpu" ? "all" : name.substr(3);
      if (label != "all" && label.find_first_not_of("0123456789") != std::string::npos) continue;
      if (label.empty()) continue;
      CpuTimes t;
      for (std::uint64_t* f : {&t.user, &t.nice, &t.system, &t.idle, &t.iowait, &t.irq, &t.softirq, &t.steal,
                               &t.guest, &t.guest_nice}) {
        if (!(fields >> *f)) {
          *f = 0;
          break;
        }
      }
      have_all = have_all || label == "all";
      out.cpus.emplace_back(std::move(label), t);
    } else if (name == "ctxt") {
      std::uint64_t v = 0;
      if (fields >> v) out.ctxt = v;
    } else if (name == "procs_running") {
      std::int64_t v = 0;
      if (fields >> v) out.procs_running = v;
    } else if (name == "procs_blocked") {
      std::int64_t v = 0;
      if (fields >> v) out.procs_blocked = v;
    }
  }
  return have_all;
}

/// Parses /proc/meminfo ("MemTotal:       24684084 kB").
inline MemInfo parse_meminfo(std::istream& in) {
  MemInfo m;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string name;
    std::uint64_t kb = 0;
    if (!(fields >> name >> kb)) continue;
    if (name == "MemTotal:")
      m.total_kb = kb;
    else if (name == "MemAvailable:")
      m.available_kb = kb;
    else if (name == "MemFree:")
      m.free_kb = kb;
    else if (name == "Buffers:")
      m.buffers_kb = kb;
    else if (name == "Cached:")
      m.cached_kb = kb;
  }
  return m;
}

/// The runnable count of /proc/loadavg: the numerator of its 4th field ("0.02 0.12 0.07 2/81 3146" -> 2).
inline std::optional<std::int64_t> parse_loadavg_runnable(std::istream& in) {
  std::string one, five, fifteen, entities;
  if (!(in >> one >> five >> fifteen >> entities)) return std::nullopt;
  const auto slash = entities.find('/');
  if (slash == std::string::npos || slash == 0) return std::nullopt;
  try {
    std::size_t used = 0;
    const long long v = std::stoll(entities.substr(0, slash), &used);
    if (used != slash || v < 0) return std::nullopt;
    return v;
  } catch (...) {
    return std::nullopt;
  }
}

/// The fields of /proc/<pid>/stat the sampler uses (proc(5): pid (comm) state ppid ... utime(14) stime(15)
/// ... num_threads(20) ... starttime(22) ...). comm may hold blanks and parentheses, so the fields after it
/// are found from the last ')'.
struct PidStat {
  std::int64_t pid = 0;
  std::string comm;
  std::uint64_t utime = 0, stime = 0;  // clock ticks (USER_HZ)
  std::int64_t num_threads = 0;
  std::uint64_t starttime = 0;  // ticks after boot: tells a reused pid from the process seen before
};

inline std::optional<PidStat> parse_pid_stat(std::string_view line) {
  const auto open = line.find('(');
  const auto close = line.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return std::nullopt;
  PidStat s;
  {
    std::istringstream head{std::string(line.substr(0, open))};
    if (!(head >> s.pid)) return std::nullopt;
  }
  s.comm = std::string(line.substr(open + 1, close - open - 1));
  // Fields from 3 (state) on; index 0 here is field 3.
  std::istringstream rest{std::string(line.substr(close + 1))};
  std::vector<std::string> f;
  for (std::string w; rest >> w;) f.push_back(std::move(w));
  if (f.size() < 20) return std::nullopt;  // up to starttime (field 22)
  try {
    s.utime = std::stoull(f[14 - 3]);
    s.stime = std::stoull(f[15 - 3]);
    s.num_threads = std::stoll(f[20 - 3]);
    s.starttime = std::stoull(f[22 - 3]);
  } catch (...) {
    return std::nullopt;
  }
  return s;
}

/// A "Key:   value kB" line of /proc/<pid>/status (VmRSS, Threads, ...): the number, without the unit.
inline std::optional<std::uint64_t> parse_status_field(std::istream& in, std::string_view key) {
  std::string line;
  while (std::getline(in, line)) {
    if (line.size() <= key.size() || line.compare(0, key.size(), key) != 0 || line[key.size()] != ':')
      continue;
    std::istringstream fields(line.substr(key.size() + 1));
    std::uint64_t v = 0;
    if (fields >> v) return v;
    return std::nullopt;
  }
  return std::nullopt;
}

/// The resident-set pages of /proc/<pid>/statm (its 2nd field: "size resident shared text lib data dt").
inline std::optional<std::uint64_t> parse_statm_resident_pages(std::istream& in) {
  std::uint64_t size = 0, resident = 0;
  if (!(in >> size >> resident)) return std::nullopt;
  return resident;
}

}  // namespace cann_debug::plugins::procfs_detail
