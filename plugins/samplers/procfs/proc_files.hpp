// Parsers of the /proc files the procfs sampler reads: stat, meminfo, loadavg. Pure functions of a stream,
// so they can be tested and fuzzed without a /proc.
#pragma once

#include <cstdint>
#include <istream>
#include <optional>
#include <sstream>
#include <string>
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

}  // namespace cann_debug::plugins::procfs_detail
