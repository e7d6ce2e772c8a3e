#include "perf_imc.hpp"

#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <stdexcept>

#include "cann_debug/sampler/sysfs_files.hpp"

namespace cann_debug::plugins::ddr_detail {

namespace ss = sampler_support;

namespace {

std::optional<std::uint64_t> parse_number(std::string_view s) {
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    base = 16;
  }
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  while (true) {
    const auto at = s.find(sep);
    out.push_back(s.substr(0, at));
    if (at == std::string_view::npos) break;
    s.remove_prefix(at + 1);
  }
  return out;
}

int perf_event_open(perf_event_attr* attr, int cpu) {
  return static_cast<int>(::syscall(SYS_perf_event_open, attr, -1, cpu, -1, 0));
}

// Opens `config` of PMU `type` on `cpu`; -1 with errno on failure.
int open_counter(std::uint32_t type, std::uint64_t config, int cpu) {
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.type = type;
  attr.size = sizeof attr;
  attr.config = config;
  return perf_event_open(&attr, cpu);
}

std::optional<ImcEvent> read_event(const std::string& dir, const std::string& event,
                                   const std::map<std::string, std::string>& formats) {
  const auto terms = ss::read_first_line(dir + "/events/" + event);
  if (!terms) return std::nullopt;
  const auto config = encode_event(*terms, formats);
  if (!config) return std::nullopt;
  double scale = 1.0;
  if (const auto s = ss::read_first_line(dir + "/events/" + event + ".scale")) {
    try {
      scale = std::stod(*s);
    } catch (...) {
      return std::nullopt;
    }
  }
  // Without a unit file the count is of 64-byte cache lines (one CAS transfers one line).
  double per_unit = 1.0;
  if (const auto u = ss::read_first_line(dir + "/events/" + event + ".unit"))
    per_unit = unit_bytes(*u);
  else
    scale = 64.0;
  if (per_unit <= 0) return std::nullopt;
  return ImcEvent{event, *config, scale * per_unit};
}

std::string socket_of(const std::string& root, int cpu) {
  const auto id = ss::read_first_line(
      ss::join_path(root, fmt::format("sys/devices/system/cpu/cpu{}/topology/physical_package_id", cpu)));
  return id && !id->empty() ? *id : fmt::format("cpu{}", cpu);
}

}  // namespace

std::optional<std::uint64_t> encode_event(std::string_view terms,
                                          const std::map<std::string, std::string>& formats) {
  std::uint64_t config = 0;
  for (auto term : split(terms, ',')) {
    if (term.empty()) continue;
    const auto eq = term.find('=');
    const std::string name(term.substr(0, eq));
    std::uint64_t value = 1;
    if (eq != std::string_view::npos) {
      auto v = parse_number(term.substr(eq + 1));
      if (!v) return std::nullopt;
      value = *v;
    }
    auto f = formats.find(name);
    if (f == formats.end()) return std::nullopt;
    std::string_view spec = f->second;
    if (spec.rfind("config:", 0) != 0) return std::nullopt;  // config1/config2 not used by these events
    spec.remove_prefix(7);
    unsigned shift = 0;  // bits of `value` already placed
    for (auto range : split(spec, ',')) {
      const auto dash = range.find('-');
      const auto lo = parse_number(range.substr(0, dash));
      const auto hi = dash == std::string_view::npos ? lo : parse_number(range.substr(dash + 1));
      if (!lo || !hi || *hi < *lo || *hi > 63) return std::nullopt;
      const unsigned width = static_cast<unsigned>(*hi - *lo + 1);
      const std::uint64_t mask = width >= 64 ? ~0ull : (1ull << width) - 1;
      config |= ((value >> shift) & mask) << *lo;
      shift += width;
    }
  }
  return config;
}

std::vector<int> parse_cpu_list(std::string_view text) {
  std::vector<int> cpus;
  for (auto part : split(text, ',')) {
    if (part.empty()) continue;
    const auto dash = part.find('-');
    const auto lo = parse_number(part.substr(0, dash));
    const auto hi = dash == std::string_view::npos ? lo : parse_number(part.substr(dash + 1));
    if (!lo || !hi || *hi < *lo) return {};
    for (auto c = *lo; c <= *hi; ++c) cpus.push_back(static_cast<int>(c));
  }
  return cpus;
}

double unit_bytes(std::string_view unit) {
  if (unit == "Bytes" || unit == "B" || unit == "bytes") return 1.0;
  if (unit == "KiB" || unit == "KB") return 1024.0;
  if (unit == "MiB" || unit == "MB") return 1048576.0;
  if (unit == "GiB" || unit == "GB") return 1073741824.0;
  return 0.0;
}

std::vector<ImcPmu> discover_imc(const std::string& root) {
  std::vector<ImcPmu> out;
  const std::string devices = ss::join_path(root, "sys/bus/event_source/devices");
  for (const auto& name : ss::list_directory(devices)) {
    if (name.rfind("uncore_imc", 0) != 0 || name.find("free_running") != std::string::npos) continue;
    const std::string dir = devices + "/" + name;
    const auto type = ss::read_u64_file(dir + "/type");
    if (!type) continue;
    std::map<std::string, std::string> formats;
    for (const auto& f : ss::list_directory(dir + "/format"))
      if (auto line = ss::read_first_line(dir + "/format/" + f)) formats[f] = *line;
    ImcPmu pmu;
    pmu.name = name;
    pmu.type = static_cast<std::uint32_t>(*type);
    if (const auto mask = ss::read_first_line(dir + "/cpumask")) pmu.cpus = parse_cpu_list(*mask);
    if (pmu.cpus.empty()) pmu.cpus = {0};
    pmu.read = read_event(dir, "cas_count_read", formats);
    pmu.write = read_event(dir, "cas_count_write", formats);
    if (pmu.read || pmu.write) out.push_back(std::move(pmu));
  }
  return out;
}

std::string perf_imc_unavailable_reason(const std::string& root) {
  const auto pmus = discover_imc(root);
  const std::string devices = ss::join_path(root, "sys/bus/event_source/devices");
  if (pmus.empty())
    return fmt::format(
        "no uncore_imc* PMU with cas_count_read/cas_count_write under {} (not an Intel server "
        "CPU, or a virtual machine)",
        devices);
  if (root != "/")
    return fmt::format("found {} uncore_imc PMU{} under {}, but counting needs the live machine (root '/')",
                       pmus.size(), pmus.size() == 1 ? "" : "s", devices);
  const auto& p = pmus.front();
  const auto& e = p.read ? *p.read : *p.write;
  const int fd = open_counter(p.type, e.config, p.cpus.front());
  if (fd >= 0) {
    ::close(fd);
    return {};
  }
  const int err = errno;
  const auto paranoid = ss::read_first_line("/proc/sys/kernel/perf_event_paranoid");
  return fmt::format(
      "perf_event_open({} {} on cpu {}) failed: {}{}", p.name, e.name, p.cpus.front(), std::strerror(err),
      err == EACCES || err == EPERM
          ? fmt::format(" (kernel.perf_event_paranoid is {}; uncore events need -1/0 or CAP_PERFMON)",
                        paranoid.value_or("?"))
          : "");
}

PerfImc::PerfImc(std::string root) : root_(std::move(root)) {}

PerfImc::~PerfImc() {
  stop();
}

void PerfImc::start() {
  stop();
  if (root_ != "/") throw std::runtime_error("ddr: perf_imc counts the live machine only (root '/')");
  for (const auto& pmu : discover_imc(root_)) {
    for (int cpu : pmu.cpus) {
      for (const auto* e : {&pmu.read, &pmu.write}) {
        if (!*e) continue;
        const int fd = open_counter(pmu.type, (*e)->config, cpu);
        if (fd < 0) {
          const int err = errno;
          stop();
          throw std::runtime_error(fmt::format("ddr: perf_event_open({} {} on cpu {}) failed: {}", pmu.name,
                                               (*e)->name, cpu, std::strerror(err)));
        }
        fds_.push_back({fd, socket_of(root_, cpu), e == &pmu.write, (*e)->bytes_per_count});
      }
    }
  }
  if (fds_.empty()) throw std::runtime_error("ddr: no uncore_imc counter to open");
}

void PerfImc::stop() {
  for (auto& o : fds_)
    if (o.fd >= 0) ::close(o.fd);
  fds_.clear();
  counters_.clear();
}

void PerfImc::sample(std::int64_t now_ns, ss::FrameBuilder& frame, Logger*) {
  // Bytes per second per (socket, direction), summed over the socket's IMC channels.
  std::map<std::pair<std::string, bool>, double> rates;
  for (std::size_t i = 0; i < fds_.size(); ++i) {
    std::uint64_t count = 0;
    if (::read(fds_[i].fd, &count, sizeof count) != static_cast<ssize_t>(sizeof count)) continue;
    const auto d = counters_.update(std::to_string(i), count, now_ns);
    if (!d.has_delta() || d.seconds <= 0) continue;
    rates[{fds_[i].socket, fds_[i].write}] += d.rate_per_second() * fds_[i].bytes_per_count;
  }
  for (const auto& [where, rate] : rates) {
    const auto& [socket, write] = where;
    std::uint32_t socket_id = 0;
    const auto [end, ec] = std::from_chars(socket.data(), socket.data() + socket.size(), socket_id);
    (void)end;
    (void)ec;
    frame.gauge({kWhatPerfImc, socket_id, write ? 1u : 0u}, rate, [&socket = socket, write = write] {
      return MetricSeries{write ? "ddr.bandwidth.write" : "ddr.bandwidth.read",
                          "bytes/s",
                          {{"socket", socket}, {"source_name", write ? "cas_count_write" : "cas_count_read"}},
                          -1};
    });
  }
}

}  // namespace cann_debug::plugins::ddr_detail
