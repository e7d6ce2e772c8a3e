// What `cann-debug optimize` will run: the baseline and each suggestion of a diagnosis that the workload can
// be given (through a {placeholder} of the template, a patched copy of --config, or environment variables),
// with its patch checked against the types its knowledge-base template declares.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cann_debug/messages.hpp"
#include "improvement.hpp"
#include "workload_template.hpp"

namespace cann_debug::cli {

/// How the workload receives a patch.
struct WorkloadInterface {
  WorkloadTemplate command;
  std::map<std::string, std::string> baseline_values;  // --baseline KEY=VALUE
  std::string config_file;                             // --config: a patched copy per run as {config}
  RunConfiguration config;                             // its values (baseline values, dotted keys)
  std::string env_prefix;                              // --env-prefix: every key as PREFIX_KEY too
  std::string here;                                    // {here}: the directory optimize started in
};

/// One suggestion of the diagnosis, as optimize tries it. The baseline is a Candidate with an empty patch.
struct Candidate {
  std::string id;  // "grad_clip_too_low/raise_clip_threshold"; "baseline"
  std::string root_cause;
  std::string template_id;
  std::string title;
  nlohmann::json patch = nlohmann::json::object();
  std::map<std::string, nlohmann::json> flat;  // the patch by dotted key
  std::vector<std::string> passed_keys;        // keys the workload receives
  std::vector<std::string> unpassed_keys;      // keys it has no way to receive
  double expected_improvement = 0.0;
  std::string improvement_source;
  std::string target_metric;
  Better better = Better::kLower;
  bool applicable = true;
  std::string reason;  // why it is not applicable
  bool is_baseline() const { return id == "baseline"; }
};

/// The knowledge-base templates (solution_templates.json's "templates"), or null when none was found.
struct TemplateCatalog {
  nlohmann::json templates;
  std::string file;
};
TemplateCatalog load_template_catalog(const std::string& kb_dir);

/// The diagnosis document: report.json (cann-debug.report/1) or `diagnose --json` output. Throws
/// std::runtime_error naming the file and what is wrong.
nlohmann::json load_diagnosis(const std::string& path);

/// The baseline and the suggestions of `diagnosis` (in its order; `only` keeps those ids or template ids),
/// each checked against the catalog and the interface. At most `max_suggestions` applicable ones are kept;
/// the others are listed as not applicable with their reasons.
std::vector<Candidate> plan_candidates(const nlohmann::json& diagnosis, const TemplateCatalog& catalog,
                                       const WorkloadInterface& workload, const std::set<std::string>& only,
                                       std::size_t max_suggestions);

/// What one run of `candidate` gets: its argv and the environment variables it adds.
struct RunInvocation {
  std::vector<std::string> argv;
  std::vector<std::pair<std::string, std::string>> env;
  std::string config_copy;  // the patched --config written for it ("" without --config)
};
/// `run_dir` is the run's own directory (its {output} is run_dir/output). Writes the config copy. Throws
/// std::invalid_argument when a placeholder has no value, std::runtime_error when the config copy fails.
RunInvocation invocation_of(const Candidate& candidate, const WorkloadInterface& workload,
                            const std::string& run_dir, int repeat);

}  // namespace cann_debug::cli
