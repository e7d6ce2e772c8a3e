// `cann-debug eval --leave-out AXIS`: generalisation to a family of runs never learnt from. For every value
// of an axis (every Adam run, every ResNet run, every block-ordered run, ...) the causal graph's tables are
// learnt from all other cases of the scenario (graphs/priors/<scenario>.json as structure and prior) and
// exactly the left-out cases are diagnosed with them. `--learn-from DIR` learns on DIR and scores every case
// of --cases (one more held-out family: a corpus never learnt from). docs/diagnose.md.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_common.hpp"

namespace cann_debug::cli {

struct LeaveOutArgs {
  std::string cases;
  std::string scenario;           // "" = every scenario found
  std::vector<std::string> axes;  // "all" = every axis of the cases' variants
  std::string learn_from;         // "" = leave families out of --cases itself
  bool signals_only = false;      // diagnose held-out cases without their config.json
  double prior_strength = 2.0;
  bool json = false;
};

int evaluate_leave_out(const GlobalOptions& g, const LeaveOutArgs& a);

/// The per-axis report: {"axis", "families": [{value, scenario, cases, top1_accuracy, ...}],
/// "pooled": summary, "worst_family": {...}} from rows that carry "axis", "family" and "scenario".
nlohmann::json axis_report(const std::string& axis, const std::vector<nlohmann::json>& rows);

}  // namespace cann_debug::cli
