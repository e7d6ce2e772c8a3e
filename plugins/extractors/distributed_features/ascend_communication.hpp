// Per-rank communication figures of an Ascend cluster profile, from the records of the ascend_communication
// reader (communication.json / cluster_communication.json: one record per step, op and rank with the op's
// wait time and per-transport bytes, time and large-packet ratio). See docs/readers.md.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cann_debug/messages.hpp"
#include "cluster_source.hpp"

namespace cann_debug::plugins::distributed {

class AscendCommunication {
 public:
  void add(const Record& record, const std::string& source);
  bool empty() const { return ranks_.empty(); }
  /// comm.link_bandwidth_ratio, comm.large_packet_ratio, comm.wait_time_ratio_spread and (when
  /// `with_late_rank`) rank.late_rank; each only when its inputs are there.
  void features(std::vector<Feature>& out, bool with_late_rank) const;

 private:
  struct Transport {
    double bytes = 0, time_ns = 0, large_packet_bytes = 0;
  };
  struct Rank {
    double wait_ns = 0, elapse_ns = 0;
    std::map<std::string, Transport> transports;
  };
  std::map<std::int64_t, Rank> ranks_;
  std::string source_;
  std::int64_t first_step_ = -1, last_step_ = -1;
  ClusterPreference preference_;
};

}  // namespace cann_debug::plugins::distributed
