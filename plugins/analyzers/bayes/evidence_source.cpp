// evidence_source: one evidence/1 message from options, for running a single query through a pipeline.
#include "evidence_source.hpp"

#include <cmath>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "cann_debug/messages.hpp"

namespace cann_debug::plugins {
namespace {

using nlohmann::json;

Manifest make_manifest() {
  Manifest m;
  m.type = "evidence_source";
  m.kind = ComponentKind::kReader;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description =
      "Emits one evidence/1 message built from its options, then ends: `hard` maps variables to observed "
      "states, `soft` maps variables to {state: likelihood} (unlisted states get likelihood 0). Used to run "
      "one query through a bayes engine, e.g. `cann-debug run query.yaml --set "
      "evidence_source/q.hard={...}`.";
  m.outputs = {{"evidence", std::string(Evidence::type_id), "the one evidence message"}};
  m.options = {{.name = "hard",
                .type = OptionType::kMap,
                .description = "variable -> observed state",
                .default_value = json::object()},
               {.name = "soft",
                .type = OptionType::kMap,
                .description = "variable -> {state: likelihood >= 0}",
                .default_value = json::object()}};
  m.concurrency = Concurrency::serial();
  m.sample_yaml =
      "# One query: dyspnoea observed, a soft reading of the x-ray.\n"
      "evidence_source/query:\n"
      "  hard: { dysp: \"yes\" }\n"
      "  soft: { xray: { \"yes\": 0.8, \"no\": 0.2 } }\n";
  return m;
}

// YAML turns plain scalars such as 1 or true into numbers and booleans; state names are strings.
std::optional<std::string> as_name(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer() || v.is_boolean()) return v.dump();
  return std::nullopt;
}

std::vector<ConfigProblem> check(const Config& config, Evidence* out) {
  std::vector<ConfigProblem> problems;
  for (const auto& [var, state] : config.raw("hard").items()) {
    auto name = as_name(state);
    if (!name) {
      problems.push_back({"hard", fmt::format("'{}': expected a state name, got {}", var, state.dump())});
      continue;
    }
    if (out) out->hard[var] = *name;
  }
  for (const auto& [var, states] : config.raw("soft").items()) {
    if (!states.is_object()) {
      problems.push_back({"soft", fmt::format("'{}': expected a mapping of state -> likelihood, got {}", var,
                                              states.dump())});
      continue;
    }
    if (config.raw("hard").contains(var))
      problems.push_back({"soft", fmt::format("'{}' is also in 'hard'", var)});
    for (const auto& [state, likelihood] : states.items()) {
      if (!likelihood.is_number() || !std::isfinite(likelihood.get<double>()) ||
          likelihood.get<double>() < 0) {
        problems.push_back({"soft", fmt::format("'{}.{}': expected a likelihood >= 0, got {}", var, state,
                                                likelihood.dump())});
        continue;
      }
      if (out) out->soft[var][state] = likelihood.get<double>();
    }
  }
  return problems;
}

class EvidenceSource final : public Component {
 public:
  EvidenceSource(const CreateContext& /*ctx*/, const Config& config) {
    auto problems = check(config, &evidence_);
    if (!problems.empty())
      throw std::invalid_argument(problems.front().option + ": " + problems.front().message);
  }
  PollResult poll(Emitter& out) override {
    if (!sent_) {
      sent_ = true;
      out.emit(0, CorrelationKey{}, evidence_);
    }
    return PollResult::kDone;
  }

 private:
  Evidence evidence_;
  bool sent_ = false;
};

class EvidenceSourceFactory final : public SimpleFactory<EvidenceSource> {
 public:
  using SimpleFactory::SimpleFactory;
  std::vector<ConfigProblem> validate(const Config& config) const override { return check(config, nullptr); }
};

}  // namespace

const ComponentFactory& evidence_source_factory() {
  static const EvidenceSourceFactory factory(make_manifest());
  return factory;
}

}  // namespace cann_debug::plugins
