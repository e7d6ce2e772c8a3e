#include "rdma_sysfs.hpp"

#include <map>

#include "cann_debug/sampler/sysfs_files.hpp"

namespace cann_debug::plugins::roce {

namespace ss = sampler_support;

RdmaCounterName rdma_counter_name(std::string_view file) {
  // Names shared with the Ascend counters where they mean the same (see docs/samplers.md). Traffic and
  // congestion counters are read every sample; errors, discards and retransmissions (rare events, whose
  // rate over a second says as much) at most once per slow_interval.
  static const std::map<std::string_view, RdmaCounterName, std::less<>> known = {
      {"port_xmit_data", {"roce.port.tx_bytes", "bytes", 4, false}},
      {"port_rcv_data", {"roce.port.rx_bytes", "bytes", 4, false}},
      {"port_xmit_packets", {"roce.port.tx_packets", "count", 1, false}},
      {"port_rcv_packets", {"roce.port.rx_packets", "count", 1, false}},
      {"port_rcv_errors", {"roce.port.rx_errors", "count", 1, true}},
      {"port_xmit_discards", {"roce.port.tx_discards", "count", 1, true}},
      {"port_xmit_wait", {"roce.port.tx_wait", "count", 1, false}},
      {"symbol_error", {"roce.port.symbol_errors", "count", 1, true}},
      {"link_downed", {"roce.port.link_downed", "count", 1, true}},
      {"link_error_recovery", {"roce.port.link_error_recovery", "count", 1, true}},
      {"np_cnp_sent", {"roce.port.cnp_sent", "count", 1, false}},
      {"rp_cnp_handled", {"roce.port.cnp_received", "count", 1, false}},
      {"np_ecn_marked_roce_packets", {"roce.port.ecn_marked", "count", 1, false}},
      {"out_of_sequence", {"roce.port.out_of_order", "count", 1, true}},
      {"packet_seq_err", {"roce.port.err_psn", "count", 1, true}},
      {"local_ack_timeout_err", {"roce.port.ack_timeouts", "count", 1, true}},
      {"roce_adp_retrans", {"roce.port.retransmissions", "count", 1, true}},
      {"rnr_nak_retry_err", {"roce.port.rnr_nak_retry_errors", "count", 1, true}},
      {"duplicate_request", {"roce.port.duplicate_requests", "count", 1, true}},
      {"implied_nak_seq_err", {"roce.port.implied_nak_seq_errors", "count", 1, true}},
      {"out_of_buffer", {"roce.port.out_of_buffer", "count", 1, true}},
  };
  if (file == "lifespan") return {};  // mlx5: the counters' refresh period (ms), not a counter
  if (auto it = known.find(file); it != known.end()) return it->second;
  return {"roce.port." + std::string(file), "count", 1, true};
}

std::string rdma_class_dir(const std::string& root) {
  return ss::join_path(root, "sys/class/infiniband");
}

std::vector<RdmaCounterFile> rdma_counter_files(const std::string& root) {
  std::vector<RdmaCounterFile> files;
  const std::string base = rdma_class_dir(root);
  for (const auto& nic : ss::list_directory(base)) {
    const std::string ports = ss::join_path(base, nic + "/ports");
    for (const auto& port : ss::list_directory(ports))
      for (const char* dir : {"counters", "hw_counters"}) {
        const std::string counters = ss::join_path(ports, port + "/" + dir);
        for (const auto& file : ss::list_directory(counters))
          files.push_back({nic, port, file, ss::join_path(counters, file)});
      }
  }
  return files;
}

}  // namespace cann_debug::plugins::roce
