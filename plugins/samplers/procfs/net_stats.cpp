#include "net_stats.hpp"

#include "sampler_support/sysfs_files.hpp"

namespace cann_debug::plugins::procfs_detail {

namespace ss = sampler_support;

namespace {

struct Counter {
  const char* file;  // under statistics/
  const char* metric;
  const char* unit;
};

constexpr Counter kCounters[] = {
    {"rx_bytes", "host.network.rx_bandwidth", "bytes/s"},
    {"tx_bytes", "host.network.tx_bandwidth", "bytes/s"},
    {"rx_packets", "host.network.rx_packets", "count/s"},
    {"tx_packets", "host.network.tx_packets", "count/s"},
    {"rx_dropped", "host.network.rx_dropped", "count/s"},
    {"tx_dropped", "host.network.tx_dropped", "count/s"},
    {"rx_errors", "host.network.rx_errors", "count/s"},
    {"tx_errors", "host.network.tx_errors", "count/s"},
};

}  // namespace

NetStats::NetStats(const std::string& root, std::vector<std::string> interfaces)
    : class_dir_(ss::join_path(root, "sys/class/net")), wanted_(std::move(interfaces)) {}

std::vector<std::string> NetStats::sample(std::int64_t now_ns, const CorrelationKey& key,
                                          std::vector<MetricPoint>& out) {
  std::vector<std::string> missing;
  std::vector<std::string> names = wanted_;
  if (names.empty()) {
    for (auto& name : ss::list_directory(class_dir_))
      if (name != "lo") names.push_back(std::move(name));
  }
  for (const auto& name : names) {
    const std::string stats = class_dir_ + "/" + name + "/statistics/";
    if (!ss::is_directory(stats)) {
      if (!wanted_.empty()) missing.push_back(name);
      // Forget its counters: when it comes back (a re-created interface) it starts from zero.
      for (const auto& c : kCounters) counters_.forget(name + "/" + c.file);
      continue;
    }
    for (const auto& c : kCounters) {
      const auto value = ss::read_u64_file(stats + c.file);
      if (!value) continue;
      const auto d = counters_.update(name + "/" + c.file, *value, now_ns);
      if (!d.has_delta() || d.seconds <= 0) continue;
      out.push_back(
          {c.metric, c.unit, d.rate_per_second(), key, {{"interface", name}, {"source_name", c.file}}});
    }
  }
  return missing;
}

}  // namespace cann_debug::plugins::procfs_detail
