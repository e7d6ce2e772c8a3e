// Memory bandwidth from the Intel uncore memory controller (IMC) PMUs through perf_event_open(2): the CAS
// counts cas_count_read / cas_count_write of every <root>/sys/bus/event_source/devices/uncore_imc*, with the
// event encoding, scale and unit the kernel publishes beside them, summed per socket, as bytes/s.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backend.hpp"
#include "cann_debug/sampler/counter_delta.hpp"

namespace cann_debug::plugins::ddr_detail {

struct ImcEvent {
  std::string name;  // "cas_count_read"
  std::uint64_t config = 0;
  double bytes_per_count = 0;  // .scale x .unit ("6.103515625e-5" x MiB = 64)
};

struct ImcPmu {
  std::string name;  // "uncore_imc_0"
  std::uint32_t type = 0;
  std::vector<int> cpus;  // cpumask: one cpu per socket that counts for it
  std::optional<ImcEvent> read, write;
};

/// "event=0x04,umask=0x03" with format files {"event": "config:0-7", "umask": "config:8-15"} -> 0x0304.
/// nullopt for a term without a format or a field other than config.
std::optional<std::uint64_t> encode_event(std::string_view terms,
                                          const std::map<std::string, std::string>& formats);
/// "0,28" or "0-3,8" -> cpus.
std::vector<int> parse_cpu_list(std::string_view text);
/// Bytes in one perf unit ("MiB" -> 1048576, "Bytes" -> 1); 0 for an unknown unit.
double unit_bytes(std::string_view unit);

/// The uncore_imc* PMUs under <root> with at least one of the two events, in name order.
std::vector<ImcPmu> discover_imc(const std::string& root);

/// "" when counting can start here, else why not: a fixture root, no IMC PMU, perf_event_open refused.
std::string perf_imc_unavailable_reason(const std::string& root);

class PerfImc final : public DdrBackend {
 public:
  explicit PerfImc(std::string root);
  ~PerfImc() override;
  const char* name() const override { return "perf_imc"; }
  void start() override;
  void stop() override;
  /// ddr.bandwidth.read and ddr.bandwidth.write (bytes/s) per socket (label socket).
  void sample(std::int64_t now_ns, sampler_support::FrameBuilder& frame, Logger* log) override;

 private:
  struct Open {
    int fd = -1;
    std::string socket;
    bool write = false;
    double bytes_per_count = 0;
  };
  std::string root_;
  std::vector<Open> fds_;
  sampler_support::CounterTracker counters_;
};

}  // namespace cann_debug::plugins::ddr_detail
