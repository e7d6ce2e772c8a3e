// Which of two copies of the same figures a feature reads: msprof-analyze's cluster files
// (cluster_step_trace_time.csv, cluster_communication.json) hold every rank's rows, and a run folder often
// holds the ranks' own step_trace_time.csv and communication.json beside them. Both are read; the cluster
// file wins and the ranks' own files only count when the run has none.
#pragma once

#include <filesystem>
#include <string>

namespace cann_debug::plugins::distributed {

inline bool from_cluster_file(const std::string& source) {
  return std::filesystem::path(source).filename().string().starts_with("cluster_");
}

/// Says whether a record from `source` counts, and when the first cluster record arrives after records of
/// the ranks' own files, that those must be dropped (`restart`).
class ClusterPreference {
 public:
  struct Verdict {
    bool counts = true;
    bool restart = false;
  };
  Verdict see(const std::string& source) {
    const bool cluster = from_cluster_file(source);
    if (cluster == cluster_) return {};
    if (!cluster) return {.counts = false};
    cluster_ = true;
    return {.counts = true, .restart = true};
  }

 private:
  bool cluster_ = false;
};

}  // namespace cann_debug::plugins::distributed
