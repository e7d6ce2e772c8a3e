// Linux RDMA port counters: <root>/sys/class/infiniband/<nic>/ports/<n>/counters/* (IB PMA counters,
// kernel Documentation/ABI/stable/sysfs-class-infiniband) and .../hw_counters/* (driver counters, e.g.
// mlx5's congestion and retransmission counters), by file name -> our metric.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cann_debug::plugins::roce {

struct RdmaCounterName {
  std::string name;  // e.g. "roce.port.tx_bytes"
  std::string unit;  // "bytes" or "count" (of the cumulative counter; rates add "/s")
  double scale = 1;  // port_xmit_data / port_rcv_data count octets divided by 4
  bool slow = true;  // read at most once per slow_interval (errors); false: every sample (traffic)
};

/// Our metric for a counter file; nullopt-like (empty name) for files that are not counters (lifespan).
RdmaCounterName rdma_counter_name(std::string_view file);

struct RdmaCounterFile {
  std::string nic;   // "mlx5_0"
  std::string port;  // "1"
  std::string file;  // "port_xmit_data"
  std::string path;  // full path
};

/// Every counter file of every port of every RDMA device under `root`.
std::vector<RdmaCounterFile> rdma_counter_files(const std::string& root);

/// <root>/sys/class/infiniband
std::string rdma_class_dir(const std::string& root);

}  // namespace cann_debug::plugins::roce
