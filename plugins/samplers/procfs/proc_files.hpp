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

#include "cann_debug/sampler/text_fields.hpp"

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

/// The whole stream as text (the stream forms of the parsers below read through it).
inline std::string read_all(std::istream& in) {
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Parses /proc/stat. Returns false when no aggregate "cpu" line was found.
inline bool parse_stat(std::string_view text, StatSnapshot& out) {
  namespace ss = sampler_support;
  out.cpus.clear();
  out.ctxt.reset();
  out.procs_running.reset();
  out.procs_blocked.reset();
  bool have_all = false;
  while (!text.empty()) {
    std::string_view line = ss::next_line(text);
    const std::string_view name = ss::next_field(line);
    if (name.substr(0, 3) == "cpu") {
      std::string_view label = name == "cpu" ? std::string_view("all") : name.substr(3);
      if (label.empty()) continue;
      if (label != "all" && label.find_first_not_of("0123456789") != std::string_view::npos) continue;
      CpuTimes t;
      for (std::uint64_t* f : {&t.user, &t.nice, &t.system, &t.idle, &t.iowait, &t.irq, &t.softirq, &t.steal,
                               &t.guest, &t.guest_nice}) {
        const auto v = ss::to_number<std::uint64_t>(ss::next_field(line));
        if (!v) break;
        *f = *v;
      }
      have_all = have_all || label == "all";
      out.cpus.emplace_back(std::string(label), t);
    } else if (name == "ctxt") {
      if (auto v = ss::to_number<std::uint64_t>(ss::next_field(line))) out.ctxt = *v;
    } else if (name == "procs_running") {
      if (auto v = ss::to_number<std::int64_t>(ss::next_field(line))) out.procs_running = *v;
    } else if (name == "procs_blocked") {
      if (auto v = ss::to_number<std::int64_t>(ss::next_field(line))) out.procs_blocked = *v;
    }
  }
  return have_all;
}
inline bool parse_stat(std::istream& in, StatSnapshot& out) {
  return parse_stat(read_all(in), out);
}

/// Parses /proc/meminfo ("MemTotal:       24684084 kB").
inline MemInfo parse_meminfo(std::string_view text) {
  MemInfo m;
  sampler_support::for_each_meminfo_line(text, [&](std::string_view key, std::uint64_t bytes) {
    const std::uint64_t kb = bytes / 1024;
    if (key == "MemTotal")
      m.total_kb = kb;
    else if (key == "MemAvailable")
      m.available_kb = kb;
    else if (key == "MemFree")
      m.free_kb = kb;
    else if (key == "Buffers")
      m.buffers_kb = kb;
    else if (key == "Cached")
      m.cached_kb = kb;
    // The kernel prints these five first (of some 50 lines); older kernels lack MemAvailable.
    return !(m.total_kb && m.available_kb && m.free_kb && m.buffers_kb && m.cached_kb);
  });
  return m;
}
inline MemInfo parse_meminfo(std::istream& in) {
  return parse_meminfo(read_all(in));
}

/// The runnable count of /proc/loadavg: the numerator of its 4th field ("0.02 0.12 0.07 2/81 3146" -> 2).
inline std::optional<std::int64_t> parse_loadavg_runnable(std::string_view text) {
  namespace ss = sampler_support;
  std::string_view entities;
  for (int i = 0; i < 4; ++i) entities = ss::next_field(text);
  if (entities.empty()) return std::nullopt;
  const auto slash = entities.find('/');
  if (slash == std::string_view::npos || slash == 0) return std::nullopt;
  const auto v = ss::to_number<std::int64_t>(entities.substr(0, slash));
  if (!v || *v < 0) return std::nullopt;
  return v;
}
inline std::optional<std::int64_t> parse_loadavg_runnable(std::istream& in) {
  return parse_loadavg_runnable(read_all(in));
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
  namespace ss = sampler_support;
  const auto open = line.find('(');
  const auto close = line.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return std::nullopt;
  PidStat s;
  std::string_view head = line.substr(0, open);
  const auto pid = ss::to_number<std::int64_t>(ss::next_field(head));
  if (!pid) return std::nullopt;
  s.pid = *pid;
  s.comm = std::string(line.substr(open + 1, close - open - 1));
  // Fields from 3 (state) on; index 0 here is field 3.
  std::string_view rest = line.substr(close + 1);
  std::string_view f[20];
  for (auto& field : f)
    if ((field = ss::next_field(rest)).empty()) return std::nullopt;  // up to starttime (field 22)
  const auto utime = ss::to_number<std::uint64_t>(f[14 - 3]);
  const auto stime = ss::to_number<std::uint64_t>(f[15 - 3]);
  const auto threads = ss::to_number<std::int64_t>(f[20 - 3]);
  const auto start = ss::to_number<std::uint64_t>(f[22 - 3]);
  if (!utime || !stime || !threads || !start) return std::nullopt;
  s.utime = *utime;
  s.stime = *stime;
  s.num_threads = *threads;
  s.starttime = *start;
  return s;
}

/// A "Key:   value kB" line of /proc/<pid>/status (VmRSS, Threads, ...): the number, without the unit.
inline std::optional<std::uint64_t> parse_status_field(std::string_view text, std::string_view key) {
  namespace ss = sampler_support;
  while (!text.empty()) {
    std::string_view line = ss::next_line(text);
    if (line.size() <= key.size() || line.substr(0, key.size()) != key || line[key.size()] != ':') continue;
    line.remove_prefix(key.size() + 1);
    return ss::to_number<std::uint64_t>(ss::next_field(line));
  }
  return std::nullopt;
}
inline std::optional<std::uint64_t> parse_status_field(std::istream& in, std::string_view key) {
  return parse_status_field(read_all(in), key);
}

/// The resident-set pages of /proc/<pid>/statm (its 2nd field: "size resident shared text lib data dt").
inline std::optional<std::uint64_t> parse_statm_resident_pages(std::string_view text) {
  namespace ss = sampler_support;
  if (!ss::to_number<std::uint64_t>(ss::next_field(text))) return std::nullopt;
  return ss::to_number<std::uint64_t>(ss::next_field(text));
}
inline std::optional<std::uint64_t> parse_statm_resident_pages(std::istream& in) {
  return parse_statm_resident_pages(read_all(in));
}

}  // namespace cann_debug::plugins::procfs_detail
