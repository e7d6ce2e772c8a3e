// The loss objective of a run; see loss_objective.hpp and docs/features-training.md ("The loss objective").
#include "loss_objective.hpp"

#include <array>
#include <cctype>
#include <string>
#include <utility>

namespace cann_debug::plugins::training_detail {
namespace {

struct Family {
  std::string_view part;  // a part of the name, lowercase, letters and digits only
  LossObjective objective;
};

// Parts of operator and loss-function names. "crossentropy" covers softmax, sparse, sigmoid and binary
// cross-entropy; "l1loss" smooth L1 and L1LossGrad.
constexpr std::array<Family, 9> kFamilies{{{"crossentropy", LossObjective::classification},
                                           {"nllloss", LossObjective::classification},
                                           {"ctcloss", LossObjective::classification},
                                           {"kldiv", LossObjective::classification},
                                           {"marginloss", LossObjective::classification},
                                           {"mseloss", LossObjective::regression},
                                           {"l1loss", LossObjective::regression},
                                           {"huberloss", LossObjective::regression},
                                           {"squarederror", LossObjective::regression}}};

// Whole names a configuration uses for the same functions.
constexpr std::array<Family, 10> kShortNames{{{"ce", LossObjective::classification},
                                              {"nll", LossObjective::classification},
                                              {"bce", LossObjective::classification},
                                              {"bcewithlogits", LossObjective::classification},
                                              {"mse", LossObjective::regression},
                                              {"l2", LossObjective::regression},
                                              {"l1", LossObjective::regression},
                                              {"mae", LossObjective::regression},
                                              {"huber", LossObjective::regression},
                                              {"smoothl1", LossObjective::regression}}};

std::string letters_and_digits(std::string_view s) {
  std::string out;
  for (const unsigned char c : s)
    if (std::isalnum(c)) out.push_back(static_cast<char>(std::tolower(c)));
  return out;
}

std::optional<LossObjective> family_of(const std::string& name) {
  for (const Family& f : kFamilies)
    if (name.find(f.part) != std::string::npos) return f.objective;
  return std::nullopt;
}

}  // namespace

std::optional<LossObjective> objective_of_operator(std::string_view name) {
  return family_of(letters_and_digits(name));
}

std::optional<LossObjective> objective_of_loss_name(std::string_view name) {
  const std::string key = letters_and_digits(name);
  for (const Family& f : kShortNames)
    if (key == f.part) return f.objective;
  return family_of(key);
}

std::optional<NamedObjective> objective_of_config(const RunConfiguration& config) {
  const auto from_config = [](LossObjective objective, std::string what) {
    return NamedObjective{objective, {"config", std::move(what), kNoTimestamp, kNoTimestamp, -1, -1}};
  };
  std::optional<std::string> loss = config.text("loss");
  if (!loss) loss = config.text("loss.name");
  if (loss)
    if (const auto objective = objective_of_loss_name(*loss)) return from_config(*objective, "loss " + *loss);
  if (const auto task = config.text("task")) {
    const std::string key = letters_and_digits(*task);
    if (key.find("regress") != std::string::npos)
      return from_config(LossObjective::regression, "task " + *task);
    if (key.find("classif") != std::string::npos)
      return from_config(LossObjective::classification, "task " + *task);
  }
  return std::nullopt;
}

void TraceObjectiveScanner::add(const EventBatch& batch) {
  for (const Event& e : batch.events) {
    if (e.start_ns == kNoTimestamp || (found_ && found_->source.start_ns <= e.start_ns)) continue;
    const auto objective = objective_of_operator(e.name);
    if (!objective) continue;
    found_ = NamedObjective{*objective, operator_ref(e)};
  }
}

void add_objective_feature(const std::optional<NamedObjective>& objective, FeatureList& out) {
  if (!objective) return;
  out.add("loss.objective_regression", objective->objective == LossObjective::regression ? 1.0 : 0.0, "flag",
          {objective->source});
}

}  // namespace cann_debug::plugins::training_detail
