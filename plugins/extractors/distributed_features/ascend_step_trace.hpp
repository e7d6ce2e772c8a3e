// Per-rank step split of an Ascend cluster profile, from the records of the ascend_step_trace reader
// (cluster_step_trace_time.csv / step_trace_time.csv: per rank and step, Computing, Communication (Not
// Overlapped), Free, Bubble and Communication (Not Overlapped and Exclude Receive) in µs). It answers what a
// rank's trace would: who was slow outside the model (Free: the device idle, waiting for the host), whose
// compute was heavier, whom the others waited for inside the collectives (the rank with the least
// non-overlapped communication arrived last), and how much of a step each pipeline stage spends waiting
// for the stage before it (Bubble: the receive ops). Ranks are compared with the ranks of their own pipeline
// stage only (the cluster file's `stage` rows or its PP Index column): stages run different layers and the
// later ones wait in receives, so across stages the split differs without any rank being slow.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cann_debug/messages.hpp"
#include "cluster_source.hpp"

namespace cann_debug::plugins::distributed {

class AscendStepTrace {
 public:
  /// Rows of Type "rank" are ranks; a "stage" row (a maximum over the ranks of a pipeline stage) only
  /// names the ranks of its stage.
  void add(const Record& record, const std::string& source);
  bool empty() const { return ranks_.empty(); }
  /// With two or more ranks: per-rank sets (rank.step_time, rank.compute_time, rank.collective_time,
  /// rank.outside_model_time, rank.bubble_time, rank.free_time_share) and the run features step.time,
  /// rank.traced_count, rank.idle_skew (the most idle rank's Free over the others', not the
  /// graph's rank.outside_model_skew: the gap already reads Free), rank.compute_imbalance,
  /// rank.forward_imbalance (the compute ratio: Ascend's step split has no separate forward),
  /// rank.step_split_gap (msprof-analyze's slow-rank gap), rank.compute_gap (its Computing dimension alone),
  /// pipeline.stages and, with a Bubble column, pipeline.bubble_share and pipeline.bubble_time; when
  /// `with_late_rank`, rank.late_rank (the rank the gap points at). Every cross-rank figure is taken within
  /// each pipeline stage and the largest over stages is kept.
  void features(std::vector<FeatureSet>& rank_sets, std::vector<Feature>& run, bool with_late_rank) const;

 private:
  struct Rank {
    double computing_us = 0, communication_us = 0, exclude_receive_us = 0, free_us = 0, bubble_us = 0;
    bool has_bubble = false;
    int rows = 0;
    std::int64_t stage = -1;  // the pipeline stage (PP Index), when the file says
    double step_ms() const { return (computing_us + communication_us + free_us) / 1000.0 / rows; }
  };
  std::map<std::int64_t, Rank> ranks_;
  std::map<std::int64_t, std::int64_t> stage_of_rank_;  // from the stage rows' rank tuples
  std::int64_t stage_rows_ = 0;
  std::string source_;
  ClusterPreference preference_;
};

}  // namespace cann_debug::plugins::distributed
