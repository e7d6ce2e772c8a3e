// Finding the profiler outputs of a run in a folder:
//
//   <root>/.../{host}_{pid}_{ts}_ascend_pt/           one per rank (MindSpore: *_ascend_ms)
//       profiler_info_{rank}.json                     the rank (also "rank_id" inside, or rank<N> in a name)
//       ASCEND_PROFILER_OUTPUT/{kernel_details.csv, op_statistic.csv, step_trace_time.csv,
//                               communication.json, communication_matrix.json, memory_record.csv,
//                               operator_memory.csv, npu_module_mem.csv}
//   <root>/.../cluster_analysis_output/{cluster_step_trace_time.csv, cluster_communication.json,
//                                       cluster_communication_matrix.json}
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ascend_files/file_kinds.hpp"

namespace cann_debug::plugins::ascend {

struct ProfilerFile {
  std::string path;
  AscendFileKind kind;
  std::int32_t rank = -1;  // -1 for cluster files (their rows name their ranks) or when unknown
  bool cluster = false;
  std::string worker;  // the *_ascend_pt folder ("" for cluster files)
};

/// Every profiler file under `root` (at most `max_depth` folders deep; `root` may also be one profiler file,
/// by its name: kernel_details.csv, cluster_step_trace_time.csv, ...), per-rank files sorted by rank then
/// folder then kind, cluster files last. Throws ParseError when two folders claim the same rank, or when
/// nothing is found (unless `none_is_fine`: a pipeline that reads whatever a run's folder holds).
std::vector<ProfilerFile> find_profiler_files(const std::string& root, int max_depth = 6,
                                              bool none_is_fine = false);

/// The rank of a worker folder: profiler_info_{rank}.json, then "rank_id" in profiler_info*.json, then
/// "rank<N>" / "rank_<N>" in the folder name; -1 when none says it.
std::int32_t worker_rank(const std::string& worker_dir);

/// Cheap check for sniff(): does `dir` hold (or is it) a profiler tree, looking at most two levels down?
/// 0 when not, else a score.
int sniff_profiler_dir(const std::string& dir);

}  // namespace cann_debug::plugins::ascend
