// What the optimize loop learnt about suggestions (docs/advisors.md, "Outcomes"): a human-readable JSON file
// (format cann-debug.kb-outcomes/1) that `cann-debug optimize --feedback` writes and kb_advisor reads.
// Per suggestion template, root cause and context (scenario, model, hardware, framework, scale) it keeps a
// Beta posterior of success (prior Beta(1, 1)) and the measured gains; when nothing helped a problem pattern
// is registered (its symptoms, what was tried, how it failed). Several writers may update one file: each
// update is a read-modify-write under an exclusive lock, and the file is replaced atomically.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "cann_debug/messages.hpp"

namespace cann_debug::kb {

inline constexpr std::string_view kOutcomesFormat = "cann-debug.kb-outcomes/1";

/// Where a suggestion was tried. Unknown parts are "unknown"; contexts match when every part is equal.
struct OutcomeContext {
  std::string scenario = "unknown";
  std::string model = "unknown";      // config model.type (mlp, resnet, gpt, ...)
  std::string hardware = "unknown";   // cpu, gpu, npu
  std::string framework = "unknown";  // pytorch, torch_npu, mindspore
  std::string scale = "unknown";      // "1", "2-8", "9-64", "65-1024", ">1024" ranks

  /// From a run's configuration (run_config/1: config.json of the run folder; empty = nothing known) and
  /// its scenario.
  static OutcomeContext of_run(const RunConfiguration& config, std::string_view scenario);
  /// "training/mlp/cpu/pytorch/1"
  std::string describe() const;
  bool operator==(const OutcomeContext&) const = default;
};

/// The outcomes of one suggestion template for one root cause in one context.
struct SuggestionOutcome {
  std::string suggestion;  // the solution template's id (lower_learning_rate)
  std::string root_cause;
  OutcomeContext context;
  std::size_t trials = 0;            // validations run (each over its repeats)
  std::size_t successes = 0;         // of them, validated (measured gain with its interval above the bar)
  std::size_t measured = 0;          // of them, with a measured gain (a run that failed measures none)
  double gain_sum = 0.0;             // sum of the measured relative improvements
  std::vector<double> recent_gains;  // the last kMaxRecentGains, oldest first
  std::string updated;               // ISO 8601 UTC of the last trial

  static constexpr std::size_t kMaxRecentGains = 20;
  double alpha() const { return 1.0 + static_cast<double>(successes); }
  double beta() const { return 1.0 + static_cast<double>(trials - successes); }
  /// The posterior mean of the success probability.
  double success_probability() const { return alpha() / (alpha() + beta()); }
  double mean_gain() const { return measured ? gain_sum / static_cast<double>(measured) : 0.0; }
};

/// A problem the suggestions tried did not fix.
struct ProblemRecord {
  std::string root_cause;
  OutcomeContext context;
  nlohmann::json symptoms = nlohmann::json::object();  // target metric -> baseline value
  nlohmann::json tried = nlohmann::json::array();      // [{suggestion, patch, measured_improvement, why}]
  std::string registered;                              // ISO 8601 UTC
};

/// A lookup's answer: the outcomes of that context, else of every context pooled.
struct OutcomeMatch {
  SuggestionOutcome outcome;
  bool same_context = false;
};

class OutcomeStore {
 public:
  /// Reads `path`; a file that does not exist is an empty store. Throws std::runtime_error naming the file
  /// and the byte offset (syntax) or JSON pointer (schema) of what is wrong and what was expected.
  static OutcomeStore load(const std::string& path);
  /// Reads, changes and writes `path` under an exclusive lock on `path.lock`, replacing it atomically, so
  /// concurrent writers do not lose each other's updates. Creates the file and its folder when missing.
  static void update(const std::string& path, const std::function<void(OutcomeStore&)>& change);

  void record(const std::string& suggestion, const std::string& root_cause, const OutcomeContext& context,
              bool success, double measured_gain, const std::string& when);
  void register_problem(ProblemRecord problem);
  std::optional<OutcomeMatch> find(std::string_view suggestion, std::string_view root_cause,
                                   const OutcomeContext& context) const;

  const std::vector<SuggestionOutcome>& outcomes() const { return outcomes_; }
  const std::vector<ProblemRecord>& problems() const { return problems_; }
  nlohmann::json to_json() const;

 private:
  std::vector<SuggestionOutcome> outcomes_;
  std::vector<ProblemRecord> problems_;
};

/// Now as ISO 8601 UTC ("2026-12-04T17:31:49Z").
std::string utc_now_iso8601();

}  // namespace cann_debug::kb
