#include "net_stats.hpp"

#include "cann_debug/sampler/sysfs_files.hpp"

namespace cann_debug::plugins::procfs_detail {

namespace ss = sampler_support;

namespace {

struct Counter {
  const char* file;  // under statistics/
  const char* metric;
  const char* unit;
  bool slow;  // read at most once per slow_interval
};

constexpr Counter kCounters[] = {
    {"rx_bytes", "host.network.rx_bandwidth", "bytes/s", false},
    {"tx_bytes", "host.network.tx_bandwidth", "bytes/s", false},
    {"rx_packets", "host.network.rx_packets", "count/s", false},
    {"tx_packets", "host.network.tx_packets", "count/s", false},
    {"rx_dropped", "host.network.rx_dropped", "count/s", true},
    {"tx_dropped", "host.network.tx_dropped", "count/s", true},
    {"rx_errors", "host.network.rx_errors", "count/s", true},
    {"tx_errors", "host.network.tx_errors", "count/s", true},
};

// The first part of the series keys in the procfs sampler's frame (host series are below it).
constexpr std::uint32_t kNetworkWhat = 0x100;

}  // namespace

NetStats::NetStats(const std::string& root, std::vector<std::string> interfaces)
    : class_dir_(ss::join_path(root, "sys/class/net")), wanted_(std::move(interfaces)) {}

std::vector<std::string> NetStats::sample(std::int64_t now_ns, ss::FrameBuilder& frame, bool slow) {
  std::vector<std::string> missing;
  // Every few seconds: list the interfaces again and check that each one read is still there. Between
  // those, a kept-open statistics file of an interface that went away fails to read (sysfs), and that
  // is checked at once.
  const bool recheck = now_ns >= next_list_ns_;
  if (recheck) {
    if (wanted_.empty()) {
      listed_.clear();
      for (auto& name : ss::list_directory(class_dir_))
        if (name != "lo") listed_.push_back(std::move(name));
    }
    next_list_ns_ = now_ns + ss::kRelistIntervalNs;
  }
  const auto& names = wanted_.empty() ? listed_ : wanted_;
  std::string dir;
  for (const auto& name : names) {
    auto it = interfaces_.find(name);
    if (it == interfaces_.end())
      it = interfaces_.emplace(name, Interface{static_cast<std::uint32_t>(interfaces_.size()), {}}).first;
    Interface& iface = it->second;
    auto gone = [&] {
      dir.assign(class_dir_).append("/").append(name).append("/statistics/");
      if (ss::is_directory(dir)) return false;
      if (!wanted_.empty()) missing.push_back(name);
      // Forget its counters: when it comes back (a re-created interface) it starts from zero.
      for (std::uint32_t c = 0; c < std::size(kCounters); ++c)
        frame.reset_counter({kNetworkWhat, iface.ordinal, c});
      iface.files.clear();
      return true;
    };
    if ((iface.files.empty() || recheck) && gone()) continue;
    if (iface.files.empty())
      for (const auto& c : kCounters) iface.files.emplace_back(dir + c.file);
    std::optional<std::uint64_t> values[std::size(kCounters)];
    bool failed = false;
    for (std::uint32_t c = 0; c < std::size(kCounters); ++c)
      if (slow || !kCounters[c].slow) failed |= !(values[c] = iface.files[c].read_u64());
    if (failed && gone()) continue;
    for (std::uint32_t c = 0; c < std::size(kCounters); ++c) {
      if (!values[c]) continue;
      const Counter& counter = kCounters[c];
      frame.rate({kNetworkWhat, iface.ordinal, c}, *values[c], 64, now_ns, [&] {
        return MetricSeries{
            counter.metric, counter.unit, {{"interface", name}, {"source_name", counter.file}}, -1};
      });
    }
  }
  return missing;
}

}  // namespace cann_debug::plugins::procfs_detail
