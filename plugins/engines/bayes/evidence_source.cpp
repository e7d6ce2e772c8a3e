// evidence_source: one evidence/1 message from options, for running a single query through a pipeline.
#include "evidence_source.hpp"

#include <cmath>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "cann_debug/messages.hpp"

namespace cann_debug::plugins {
namespace {

using nlohmann::json;

Manifest evidence_source_manifest() {
  Manifest m;
  m.type = "evidence_source";
  m.kind = ComponentKind::kReader;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description =
      "Emits one evidence/1 built from its options, or replays a JSON-lines file of evidence/1 objects.";
  m.outputs = {{"evidence", std::string(Evidence::type_id), "the one evidence message"}};
  m.options = {{.name = "hard",
                .type = OptionType::kMap,
                .description = "variable -> observed state",
                .default_value = json::object()},
               {.name = "soft",
                .type = OptionType::kMap,
                .description = "variable -> {state: likelihood >= 0}",
                .default_value = json::object()},
               {.name = "path",
                .type = OptionType::kString,
                .description = "JSON-lines file of evidence/1 objects to replay instead of hard/soft",
                .default_value = ""}};
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
  EvidenceSource(const CreateContext& /*ctx*/, const Config& config) : path_(config.str("path")) {
    auto problems = check(config, &evidence_);
    if (!problems.empty())
      throw std::invalid_argument(problems.front().option + ": " + problems.front().message);
  }
  void start() override {
    if (path_.empty()) return;
    file_.open(path_);
    if (!file_) throw std::runtime_error(path_ + ": cannot open");
  }
  PollResult poll(Emitter& out) override {
    if (!path_.empty()) return replay_line(out);
    if (!sent_) {
      sent_ = true;
      out.emit(0, CorrelationKey{}, evidence_);
    }
    return PollResult::kDone;
  }

 private:
  PollResult replay_line(Emitter& out) {
    std::string line;
    while (std::getline(file_, line)) {
      ++line_;
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      Evidence e;
      try {
        from_json(json::parse(line), e);
      } catch (const std::exception& ex) {
        throw std::runtime_error(
            fmt::format("{}:{}: expected an evidence/1 object {{\"hard\": ..., \"soft\": ...}}: {}", path_,
                        line_, ex.what()));
      }
      CorrelationKey key;
      key.step_id = line_;
      out.emit(0, key, std::move(e));
      return PollResult::kMore;
    }
    return PollResult::kDone;
  }

  Evidence evidence_;
  bool sent_ = false;
  std::string path_;
  std::ifstream file_;
  std::int64_t line_ = 0;
};

class EvidenceSourceFactory final : public SimpleFactory<EvidenceSource> {
 public:
  using SimpleFactory::SimpleFactory;
  std::vector<ConfigProblem> validate(const Config& config) const override { return check(config, nullptr); }
};

}  // namespace

const ComponentFactory& evidence_source_factory() {
  static const EvidenceSourceFactory factory(evidence_source_manifest());
  return factory;
}

}  // namespace cann_debug::plugins
