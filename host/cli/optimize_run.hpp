// The sandbox validation of `cann-debug optimize`: the baseline and every applicable suggestion run
// --repeats times, interleaved (baseline, each suggestion, then the next repeat) so that drift hits all
// alike; each run's output diagnosed with the same scenario pipeline; the target metric of each suggestion
// measured on its runs against the baseline's of the same repeat.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_common.hpp"
#include "optimize_plan.hpp"
#include "sandbox_run.hpp"

namespace cann_debug::cli {

struct RunOutcome {
  int repeat = 0;
  std::string dir;
  std::vector<std::string> argv;
  std::string plan_error;  // the run could not be prepared (a placeholder without a value, ...)
  SandboxResult sandbox;
  bool diagnosed = false;
  std::string diagnose_error;
  std::string top_cause;  // the re-diagnosis' most likely answer ("healthy" included)
  double top_confidence = 0.0;
  std::map<std::string, double> named_causes;  // every root cause it names, with its confidence
  std::map<std::string, double> metrics;       // target metric -> value (NaN/inf kept)
  RunConfiguration config;                     // the run's configuration as the re-diagnosis read it
  bool ok() const { return plan_error.empty() && sandbox.ok() && diagnosed; }
  nlohmann::json to_json() const;
};

struct CandidateResult {
  Candidate candidate;
  std::vector<RunOutcome> runs;
  std::optional<double> baseline_value;  // mean of the baseline runs' target metric
  std::vector<double> improvements;      // per repeat where both sides measured it
  Estimate measured;                     // their mean with a 95% t interval
  double median_improvement = 0.0;       // their median
  double p_value = 1.0;  // one-sided Mann-Whitney: its runs' metric better than the baseline's
  bool validated = false;
  /// In every run the re-diagnosis' verdict is another answer, and the cause's mean confidence over its runs
  /// is at most half of its mean confidence over the baseline runs (0 where it is not named).
  bool root_cause_gone = false;
  std::string verdict;  // one line: why it is (not) validated
  nlohmann::json to_json() const;
};

struct OptimizeSettings {
  int repeats = 3;
  double timeout_s = 600;
  ResourceLimits limits;
  std::uint64_t max_log_bytes = 64ull << 20;
  double min_gain = 0.05;  // the median relative improvement a validated suggestion needs at least
  double alpha = 0.05;     // the Mann-Whitney p-value it needs at most (three or more repeats)
  std::string scenario;    // of the re-diagnoses
  std::string work_dir;    // each run in work_dir/<nn>-<label>-r<k>
};

struct OptimizeResult {
  std::vector<RunOutcome> baseline;
  std::vector<CandidateResult> suggestions;  // applicable and not, in the diagnosis' order
  bool interrupted = false;
  /// The validated suggestion with the largest measured improvement, if any.
  const CandidateResult* best() const;
};

/// Progress callbacks: a run starts, is running (every second), ends.
struct OptimizeProgress {
  std::function<void(std::size_t index, std::size_t total, const std::string& label)> started;
  std::function<void(double elapsed_s)> running;
  std::function<void(const RunOutcome& run)> finished;
};

/// Runs the loop. `stop` is polled while runs go; when it answers true the current run is stopped and the
/// rest are not started (`interrupted`).
OptimizeResult run_optimize(const GlobalOptions& g, const std::vector<Candidate>& candidates,
                            const WorkloadInterface& workload, const OptimizeSettings& settings,
                            const OptimizeProgress& progress, const std::function<bool()>& stop);

}  // namespace cann_debug::cli
