#include "pid_stats.hpp"

#include <unistd.h>

#include <fstream>

#include "proc_files.hpp"
#include "sampler_support/sysfs_files.hpp"

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
  if (!none) dir_ = ss::join_path(root, "proc/" + pid);
}

bool PidStats::sample(std::int64_t now_ns, const CorrelationKey& key, std::vector<MetricPoint>& out) {
  if (!enabled()) return false;
  const auto stat_line = ss::read_first_line(dir_ + "/stat");
  if (!stat_line) return false;
  const auto stat = parse_pid_stat(*stat_line);
  if (!stat) return false;

  // RSS: VmRSS of status (kB, exact), else statm's resident pages.
  std::optional<double> rss_bytes;
  const char* rss_source = "VmRSS";
  {
    std::ifstream status(dir_ + "/status");
    if (status.is_open())
      if (auto kb = parse_status_field(status, "VmRSS")) rss_bytes = static_cast<double>(*kb) * 1024.0;
  }
  if (!rss_bytes) {
    std::ifstream statm(dir_ + "/statm");
    if (statm.is_open())
      if (auto pages = parse_statm_resident_pages(statm)) {
        rss_bytes = static_cast<double>(*pages) * page_size_;
        rss_source = "statm.resident";
      }
  }

  const Labels labels{{"pid", std::to_string(stat->pid)}, {"process", stat->comm}};
  auto add = [&](const char* name, const char* unit, double value, const char* source) {
    Labels l = labels;
    l["source_name"] = source;
    out.push_back({name, unit, value, key, std::move(l)});
  };

  // A different starttime is another process that reused the pid: start its CPU counter afresh.
  if (starttime_ != stat->starttime) cpu_ticks_.clear();
  starttime_ = stat->starttime;
  const auto d = cpu_ticks_.update("utime+stime", stat->utime + stat->stime, now_ns);
  if (d.has_delta() && d.seconds > 0)
    add("process.cpu.utilization", "cores", static_cast<double>(d.delta) / ticks_per_second_ / d.seconds,
        "utime+stime");
  if (rss_bytes) add("process.memory.rss", "bytes", *rss_bytes, rss_source);
  add("process.threads", "count", static_cast<double>(stat->num_threads), "num_threads");
  return true;
}

}  // namespace cann_debug::plugins::procfs_detail
