#include "pid_stats.hpp"

#include <unistd.h>

#include <fstream>
#include <sstream>

#include "cann_debug/sampler/sysfs_files.hpp"
#include "proc_files.hpp"

namespace cann_debug::plugins::procfs_detail {

namespace ss = sampler_support;

bool PidStats::valid_option(const std::string& pid) {
  if (pid.empty() || pid == "self") return true;
  return pid.size() <= 10 && pid.find_first_not_of("0123456789") == std::string::npos;
}

PidStats::PidStats(const std::string& root, const std::string& pid, long ticks_per_second, long page_size)
    : ticks_per_second_(
          static_cast<double>(ticks_per_second > 0 ? ticks_per_second : ::sysconf(_SC_CLK_TCK))),
      page_size_(static_cast<double>(page_size > 0 ? page_size : ::sysconf(_SC_PAGESIZE))) {
  const bool none = pid.empty() || pid.find_first_not_of('0') == std::string::npos;
  if (none) return;
  dir_ = ss::join_path(root, "proc/" + pid);
  stat_.emplace(dir_ + "/stat", true);
  status_.emplace(dir_ + "/status", true);
}

bool PidStats::sample(std::int64_t now_ns, ss::FrameBuilder& frame) {
  if (!enabled()) return false;
  const auto stat_text = stat_->read();
  if (!stat_text) return false;
  const auto stat = parse_pid_stat(*stat_text);  // one line; its newline is a blank to the parser
  if (!stat) return false;

  // RSS: VmRSS of status (kB, exact), else statm's resident pages.
  std::optional<double> rss_bytes;
  const char* rss_source = "VmRSS";
  if (auto status = status_->read())
    if (auto kb = parse_status_field(*status, "VmRSS")) rss_bytes = static_cast<double>(*kb) * 1024.0;
  if (!rss_bytes) {
    if (auto statm = ss::read_text_file(dir_ + "/statm"))
      if (auto pages = parse_statm_resident_pages(std::string_view(*statm))) {
        rss_bytes = static_cast<double>(*pages) * page_size_;
        rss_source = "statm.resident";
      }
  }

  // The process is part of the series key: a pid reused by another process (another start time) is
  // another series, and its CPU counter starts afresh.
  const auto pid = static_cast<std::uint32_t>(stat->pid);
  const auto start = static_cast<std::uint32_t>(stat->starttime);
  auto series = [&](const char* name, const char* unit, const char* source) {
    return MetricSeries{
        name,
        unit,
        {{"pid", std::to_string(stat->pid)}, {"process", stat->comm}, {"source_name", source}},
        -1};
  };
  // Series keys of their own in the procfs sampler's frame (host series are below 0x100, network 0x100).
  enum What : std::uint32_t { kCpu = 0x200, kRss, kThreads };
  if (starttime_ && *starttime_ != stat->starttime)
    frame.reset_counter({kCpu, pid, static_cast<std::uint32_t>(*starttime_)});
  starttime_ = stat->starttime;
  frame.rate(
      {kCpu, pid, start}, stat->utime + stat->stime, 64, now_ns,
      [&] { return series("process.cpu.utilization", "cores", "utime+stime"); }, 1.0 / ticks_per_second_);
  if (rss_bytes)
    frame.gauge({kRss, pid, start, rss_source[0] == 'V' ? 0u : 1u}, *rss_bytes,
                [&] { return series("process.memory.rss", "bytes", rss_source); });
  frame.gauge({kThreads, pid, start}, static_cast<double>(stat->num_threads),
              [&] { return series("process.threads", "count", "num_threads"); });
  return true;
}

}  // namespace cann_debug::plugins::procfs_detail
