// Online diagnosis of a run folder that is still being written (`diagnose --follow RUN_DIR`,
// `collect --diagnose`): pipelines/follow.yaml follows the folder's recording and marks anomaly windows as
// they close; each closed window is answered with a diagnosis of the folder as it stands then, printed and
// appended to RUN_DIR/diagnoses.jsonl, with the time from the window's close to the printed line.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_common.hpp"

namespace cann_debug::cli {

struct FollowRequest {
  std::string run_dir;
  std::string scenario = "auto";
  std::string kb_outcomes;       // "" = priors only
  bool diagnose = true;          // false: mark the windows only (collect without --diagnose)
  std::FILE* print_to = stdout;  // one line per window (null: nothing printed)
  bool json_lines = false;       // print the diagnoses.jsonl rows instead of text lines
  std::int64_t idle_timeout_ns = 60'000'000'000LL;  // stop when the recording stops growing this long
  std::int64_t poll_interval_ns = 50'000'000;
  /// Stops following (1: finish what was read; the open window closes "end of input"). May be null.
  const std::atomic<int>* interrupt = nullptr;
  int interrupt_fd = -1;
};

struct FollowResult {
  int rc = 0;
  std::string error;
  std::vector<nlohmann::json> windows;  // the diagnoses.jsonl rows
  /// windows, diagnosed, latency_ms {p50, max} from close to print, cpu_s of this process meanwhile.
  nlohmann::json summary;
};

FollowResult follow_run(const GlobalOptions& g, const FollowRequest& request);

/// The text line of one diagnoses.jsonl row.
std::string window_line(const nlohmann::json& row);

/// "printed N ms (median) and at most M ms after a window closed" from FollowResult::summary, or "" when no
/// window was answered at once.
std::string latency_text(const nlohmann::json& summary);

}  // namespace cann_debug::cli
