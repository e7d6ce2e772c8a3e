// Per-rank step split of an Ascend cluster profile, from the records of the ascend_step_trace reader
// (cluster_step_trace_time.csv / step_trace_time.csv: per rank and step, Computing, Communication (Not
// Overlapped) and Free in µs). It answers what a rank's trace would: who was slow outside the model (Free:
// the device idle, waiting for the host), whose compute was heavier, and whom the others waited for inside
// the collectives (the rank with the least non-overlapped communication arrived last).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cann_debug/messages.hpp"

namespace cann_debug::plugins::distributed {

class AscendStepTrace {
 public:
  /// Rows of Type "rank" only (a "stage" row is a maximum over ranks, not a rank).
  void add(const Record& record, const std::string& source);
  bool empty() const { return ranks_.empty(); }
  /// With two or more ranks: per-rank sets (rank.step_time, rank.collective_time, rank.free_time_share)
  /// and the run features step.time, rank.outside_model_skew, rank.compute_imbalance,
  /// rank.forward_imbalance (the compute ratio: Ascend's step split has no separate forward),
  /// rank.collective_wait_skew, and, when `with_late_rank`, rank.late_rank and
  /// rank.late_rank_collective_share.
  void features(std::vector<FeatureSet>& rank_sets, std::vector<Feature>& run, bool with_late_rank) const;

 private:
  struct Rank {
    double computing_us = 0, communication_us = 0, free_us = 0;
    int rows = 0;
    double step_ms() const { return (computing_us + communication_us + free_us) / 1000.0 / rows; }
  };
  std::map<std::int64_t, Rank> ranks_;
  std::string source_;
};

}  // namespace cann_debug::plugins::distributed
