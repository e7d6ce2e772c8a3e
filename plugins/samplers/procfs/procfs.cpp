// procfs sampler: host CPU, memory, load and context switches from <root>/proc, one process's CPU, RSS and
// threads, and network interface rates from <root>/sys/class/net -> metric.frame/1.
#include "procfs.hpp"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "cann_debug/messages.hpp"
#include "cann_debug/sampler/option_specs.hpp"
#include "cann_debug/sampler/slow_readings.hpp"
#include "cann_debug/sampler/sysfs_files.hpp"
#include "net_stats.hpp"
#include "pid_stats.hpp"
#include "proc_files.hpp"

namespace cann_debug::plugins {
namespace {

using procfs_detail::CpuTimes;
using procfs_detail::MemInfo;
using procfs_detail::StatSnapshot;

Manifest make_manifest() {
  Manifest m;
  m.type = "procfs";
  m.kind = ComponentKind::kSampler;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description =
      "Host CPU, memory, load, context switches, one process and network interfaces from /proc and /sys";
  m.outputs = {{"metrics", std::string(MetricFrame::type_id), "one frame of readings per sample"}};
  m.options = {
      {.name = "root",
       .type = OptionType::kString,
       .description = "directory holding the proc tree to read (tests point it at a fixture)",
       .default_value = "/",
       .required = false,
       .min = {},
       .max = {},
       .enum_values = {}},
      {.name = "interval",
       .type = OptionType::kDuration,
       .description = "time between samples",
       .default_value = "1s",
       .required = false,
       .min = 1e6,
       .max = {},
       .enum_values = {}},
      {.name = "samples",
       .type = OptionType::kInt,
       .description = "number of samples to take, then stop (0 = until stopped); the first only primes CPU",
       .default_value = 0,
       .required = false,
       .min = 0,
       .max = {},
       .enum_values = {}},
      {.name = "per_cpu",
       .type = OptionType::kBool,
       .description = "also emit CPU ratios per logical cpu, not only cpu=\"all\"",
       .default_value = true,
       .required = false,
       .min = {},
       .max = {},
       .enum_values = {}},
      {.name = "pid",
       .type = OptionType::kString,
       .description = "a process to follow: its id, \"self\" (the process running the sampler) or 0 (none)",
       .default_value = "0",
       .required = false,
       .min = {},
       .max = {},
       .enum_values = {}},
      {.name = "network",
       .type = OptionType::kBool,
       .description = "emit network interface rates from <root>/sys/class/net/<if>/statistics",
       .default_value = true,
       .required = false,
       .min = {},
       .max = {},
       .enum_values = {}},
      {.name = "interfaces",
       .type = OptionType::kStringList,
       .description = "network interfaces to read (empty = all but lo)",
       .default_value = nlohmann::json::array(),
       .required = false,
       .min = {},
       .max = {},
       .enum_values = {}},
      sampler_support::slow_interval_option("the network interfaces' dropped and error counters"),
  };
  m.concurrency = Concurrency::serial();
  m.sample_yaml =
      "# Host CPU, memory and load once per second until the run stops.\n"
      "procfs/host:\n"
      "  interval: 1s\n"
      "  samples: 0        # 0 = until stopped\n"
      "  per_cpu: true\n"
      "  pid: self         # or a process id; 0 = none\n"
      "  interfaces: []    # [] = all but lo\n"
      "  root: /           # read <root>/proc and <root>/sys/class/net\n";
  return m;
}

using sampler_support::join_path;

class ProcfsSampler final : public Component {
 public:
  ProcfsSampler(const CreateContext& ctx, const Config& config)
      : host_(&ctx.host),
        stat_path_(join_path(config.str("root"), "proc/stat")),
        meminfo_path_(join_path(config.str("root"), "proc/meminfo")),
        loadavg_path_(join_path(config.str("root"), "proc/loadavg")),
        hostname_path_(join_path(config.str("root"), "proc/sys/kernel/hostname")),
        interval_ns_(config.duration_ns("interval")),
        limit_(config.integer("samples")),
        per_cpu_(config.boolean("per_cpu")),
        pid_(config.str("root"), config.str("pid")),
        slow_(config.duration_ns("slow_interval"), interval_ns_) {
    if (config.boolean("network")) net_.emplace(config.str("root"), config.strings("interfaces"));
  }

  void start() override {
    for (auto* f : {&stat_file_, &meminfo_file_, &loadavg_file_}) f->close();
    for (auto* f : {&stat_file_, &meminfo_file_}) read_or_throw(*f);  // fail at start, naming the file
    node_.clear();
    std::ifstream hostname(hostname_path_);
    std::getline(hostname, node_);
    taken_ = 0;
    prev_.reset();
    spare_.reset();
    pid_missing_noted_ = false;
    noted_interfaces_.clear();
    slow_.restart();
    frame_.clear();
    frame_.label_node(false);  // the node is in the key only, as it always was for procfs
  }

  PollResult poll(Emitter& out) override {
    if (limit_ > 0 && taken_ >= limit_) return PollResult::kDone;
    const TimestampNs now = host_ ? host_->now_ns() : wall_clock_ns();
    StatSnapshot stat = read_stat();  // into a snapshot reused from two samples ago
    MemInfo mem = read_meminfo();

    CorrelationKey key;
    key.timestamp_ns = now;
    key.node_id = node_;
    frame_.begin(key);
    // The host series, numbered for the frame (the cpu series follow, keyed by cpu).
    enum What : std::uint32_t {
      kMemoryTotal = 1,
      kMemoryAvailable,
      kMemoryUsed,
      kRunnable,
      kBlocked,
      kContextSwitches,
      kCpuCount,
      kCpu,  // + 0..2, index = cpu number + 1 (0 = all)
    };
    auto add = [&](std::uint32_t what, const char* name, const char* unit, double value) {
      frame_.gauge({what}, value, [&] { return MetricSeries{name, unit, {}, -1}; });
    };

    if (prev_) add_cpu_ratios(stat, kCpu);
    // The cpu lines other than the "all" one: how many CPUs the run queue and the utilisation are over.
    if (stat.cpus.size() > 1)
      add(kCpuCount, "host.cpu.count", "count", static_cast<double>(stat.cpus.size() - 1));
    if (mem.total_kb) {
      add(kMemoryTotal, "host.memory.total", "bytes", static_cast<double>(*mem.total_kb) * 1024.0);
      if (auto avail = mem.available_or_estimate_kb()) {
        add(kMemoryAvailable, "host.memory.available", "bytes", static_cast<double>(*avail) * 1024.0);
        add(kMemoryUsed, "host.memory.used", "bytes",
            (static_cast<double>(*mem.total_kb) - static_cast<double>(*avail)) * 1024.0);
      }
    }
    if (auto runnable = read_runnable(stat))
      add(kRunnable, "host.load.runnable", "count", static_cast<double>(*runnable));
    if (stat.procs_blocked)
      add(kBlocked, "host.load.blocked", "count", static_cast<double>(*stat.procs_blocked));
    if (prev_ && prev_->stat.ctxt && stat.ctxt && *stat.ctxt >= *prev_->stat.ctxt && now > prev_->time_ns) {
      const double seconds = static_cast<double>(now - prev_->time_ns) / 1e9;
      add(kContextSwitches, "host.context_switches", "count/s",
          static_cast<double>(*stat.ctxt - *prev_->stat.ctxt) / seconds);
    }

    if (pid_.enabled()) {
      if (pid_.sample(now, frame_)) {
        pid_missing_noted_ = false;
      } else if (!pid_missing_noted_) {
        pid_missing_noted_ = true;
        if (host_) host_->logger().warn("procfs: cannot read {}/stat: no process points", pid_.dir());
      }
    }
    if (net_)
      for (const auto& name : net_->sample(now, frame_, slow_.due(now)))
        if (noted_interfaces_.insert(name).second && host_)
          host_->logger().warn("procfs: network interface '{}' not found under {}", name, net_->class_dir());

    if (prev_) spare_ = std::move(prev_->stat);
    prev_ = Previous{std::move(stat), now};
    ++taken_;
    if (!frame_.empty()) out.emit(0, key, frame_.finish());
    return limit_ > 0 && taken_ >= limit_ ? PollResult::kDone : PollResult::kIdle;
  }

  std::int64_t idle_interval_ns() const override { return interval_ns_; }

 private:
  /// "all" -> 0, "7" -> 8; anything else gets a number of its own after those.
  std::uint32_t cpu_index(const std::string& label) {
    if (label == "all") return 0;
    std::uint32_t n = 0;
    const auto [end, ec] = std::from_chars(label.data(), label.data() + label.size(), n);
    if (ec == std::errc() && end == label.data() + label.size() && n < 1'000'000) return n + 1;
    return 1'000'000 +
           other_cpus_.try_emplace(label, static_cast<std::uint32_t>(other_cpus_.size())).first->second;
  }

  struct Previous {
    StatSnapshot stat;
    TimestampNs time_ns = 0;
  };

  static std::string_view read_or_throw(sampler_support::KeptOpenFile& file) {
    errno = 0;
    if (auto text = file.read()) return *text;
    const int err = errno;
    throw std::runtime_error(
        fmt::format("{}: cannot open: {}", file.path(), err ? std::strerror(err) : "unknown error"));
  }

  StatSnapshot read_stat() {
    StatSnapshot stat;
    if (spare_) stat = std::move(*spare_);  // its vector keeps its capacity
    if (!procfs_detail::parse_stat(read_or_throw(stat_file_), stat))
      throw std::runtime_error(
          fmt::format("{}: expected a 'cpu' line as in Linux /proc/stat, found none", stat_path_));
    return stat;
  }

  MemInfo read_meminfo() {
    MemInfo mem = procfs_detail::parse_meminfo(read_or_throw(meminfo_file_));
    if (!mem.total_kb)
      throw std::runtime_error(
          fmt::format("{}: expected a 'MemTotal:' line as in Linux /proc/meminfo", meminfo_path_));
    return mem;
  }

  std::optional<std::int64_t> read_runnable(const StatSnapshot& stat) {
    if (auto text = loadavg_file_.read())
      if (auto v = procfs_detail::parse_loadavg_runnable(*text)) return v;
    return stat.procs_running;
  }

  void add_cpu_ratios(const StatSnapshot& stat, std::uint32_t what) {
    const auto& before = prev_->stat.cpus;
    for (std::size_t k = 0; k < stat.cpus.size(); ++k) {
      const std::string& label = stat.cpus[k].first;
      const CpuTimes& now = stat.cpus[k].second;
      if (label != "all" && !per_cpu_) continue;
      // Usually the same cpus in the same order as last time; else look the cpu up.
      const CpuTimes* previous = k < before.size() && before[k].first == label ? &before[k].second : nullptr;
      if (!previous)
        for (const auto& [l, t] : before)
          if (l == label) previous = &t;
      if (!previous) continue;  // a cpu that just appeared: primed now
      const CpuTimes& was = *previous;
      const std::uint64_t* a[] = {&was.user,   &was.nice, &was.system,  &was.idle,
                                  &was.iowait, &was.irq,  &was.softirq, &was.steal};
      const std::uint64_t* b[] = {&now.user,   &now.nice, &now.system,  &now.idle,
                                  &now.iowait, &now.irq,  &now.softirq, &now.steal};
      bool went_back = false;
      for (std::size_t i = 0; i < std::size(a); ++i) went_back = went_back || *b[i] < *a[i];
      if (went_back) continue;  // counter reset: skip this cpu for this sample
      const double total = static_cast<double>(now.total() - was.total());
      if (total <= 0) continue;
      const double idle = static_cast<double>(now.idle - was.idle);
      const double iowait = static_cast<double>(now.iowait - was.iowait);
      const double steal = static_cast<double>(now.steal - was.steal);
      const std::uint32_t cpu = cpu_index(label);
      const double values[] = {1.0 - (idle + iowait) / total, iowait / total, steal / total};
      static constexpr const char* kNames[] = {"host.cpu.utilization", "host.cpu.iowait", "host.cpu.steal"};
      for (std::uint32_t i = 0; i < 3; ++i)
        frame_.gauge({what + i, cpu}, values[i], [&] {
          return MetricSeries{kNames[i], "ratio", {{"cpu", label}}, -1};
        });
    }
  }

  HostServices* host_;
  std::string stat_path_, meminfo_path_, loadavg_path_, hostname_path_;
  sampler_support::KeptOpenFile stat_file_{stat_path_}, meminfo_file_{meminfo_path_},
      loadavg_file_{loadavg_path_};
  std::optional<StatSnapshot> spare_;  // the snapshot before the previous one, reused
  std::int64_t interval_ns_;
  std::int64_t limit_;
  bool per_cpu_;
  std::string node_;
  std::int64_t taken_ = 0;
  std::optional<Previous> prev_;
  procfs_detail::PidStats pid_;
  std::optional<procfs_detail::NetStats> net_;
  sampler_support::SlowReadings slow_;
  bool pid_missing_noted_ = false;
  std::set<std::string> noted_interfaces_;
  sampler_support::FrameBuilder frame_;
  std::map<std::string, std::uint32_t> other_cpus_;
};

class ProcfsFactory final : public SimpleFactory<ProcfsSampler> {
 public:
  using SimpleFactory::SimpleFactory;
  Availability probe(const Config& config) const override {
    return probe_root(config.has("root") ? config.str("root") : "/",
                      config.has("pid") ? config.str("pid") : "0");
  }
  std::vector<ConfigProblem> validate(const Config& config) const override {
    std::vector<ConfigProblem> problems;
    if (config.has("root") && config.str("root").empty())
      problems.push_back({"root", "must name a directory, got ''"});
    if (config.has("pid") && !procfs_detail::PidStats::valid_option(config.str("pid")))
      problems.push_back(
          {"pid", fmt::format("expected a process id, \"self\" or 0, got '{}'", config.str("pid"))});
    return problems;
  }

 private:
  static Availability probe_root(const std::string& root, const std::string& pid) {
    const std::string stat_path = join_path(root, "proc/stat");
    errno = 0;
    std::ifstream in(stat_path);
    std::string first;
    if (!(in.is_open() && std::getline(in, first) && first.rfind("cpu", 0) == 0)) {
      const int err = errno;
      return Availability::no(fmt::format("cannot read {} ({}): the procfs sampler needs Linux procfs",
                                          stat_path, err ? std::strerror(err) : "no 'cpu' line"));
    }
    procfs_detail::PidStats process(root, pid);
    if (process.enabled() && !sampler_support::read_first_line(process.dir() + "/stat"))
      return Availability::yes(fmt::format(
          "no process at {} (not running?): no process.* points while it is absent", process.dir()));
    return Availability::yes();
  }
};

}  // namespace

const ComponentFactory& procfs_factory() {
  static const ProcfsFactory factory(make_manifest());
  return factory;
}

}  // namespace cann_debug::plugins
