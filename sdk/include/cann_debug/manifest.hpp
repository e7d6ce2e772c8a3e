// What a component is, what it consumes and produces, and which options it takes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cann_debug/options.hpp"

namespace cann_debug {

enum class ComponentKind { kSampler, kReader, kExtractor, kEngine, kAnalyzer, kAdvisor, kSink };
enum class Stability { kDevelopment, kAlpha, kBeta, kStable, kDeprecated, kUnmaintained };

std::string_view to_string(ComponentKind k);
std::string_view to_string(Stability s);

/// Sources (samplers and readers) have no inputs and are driven through poll().
inline bool is_source(ComponentKind k) {
  return k == ComponentKind::kSampler || k == ComponentKind::kReader;
}

struct InputPort {
  std::string name;
  std::vector<std::string> accepts;  // message type ids, e.g. {"record.batch/1", "metric.batch/1"}
  bool required = true;              // must be linked for the pipeline to be valid
  std::string description;
};

struct OutputPort {
  std::string name;
  std::string produces;  // one message type id
  std::string description;
};

struct Concurrency {
  // kLightweight: serial, and every call is tiny and never blocks (forwarding, counting, filtering:
  // well under a microsecond). When the component is idle the host may run it right away in the thread
  // that emitted the message: no task and no hand-over between cores, but no pipelining with that producer
  // either, and a slow lightweight component slows its producer down. Leave it off for anything heavier.
  enum class Mode { kSerial, kReentrant, kLimited, kLightweight } mode = Mode::kSerial;
  unsigned limit = 1;  // for kLimited
  static Concurrency serial() { return {}; }
  static Concurrency reentrant() { return {Mode::kReentrant, 0}; }
  static Concurrency limited(unsigned n) { return {Mode::kLimited, n}; }
  static Concurrency lightweight() { return {Mode::kLightweight, 1}; }
};

struct Manifest {
  std::string type;  // [a-z][a-z0-9_.]*, unique across loaded packages
  ComponentKind kind = ComponentKind::kExtractor;
  std::string version = "0.1.0";
  Stability stability = Stability::kDevelopment;
  std::string description;
  std::vector<InputPort> inputs;
  std::vector<OutputPort> outputs;
  std::vector<OptionSpec> options;
  Concurrency concurrency;
  std::string sample_yaml;  // a commented example of the component's YAML entry

  const OptionSpec* option(std::string_view name) const;
  int input_index(std::string_view name) const;   // -1 if absent
  int output_index(std::string_view name) const;  // -1 if absent
};

/// Structural checks of a manifest (type syntax, unique port/option names, defaults that convert,
/// known kinds of ports for the kind). Returns one line per problem; empty when the manifest is sound.
std::vector<std::string> check_manifest(const Manifest& m);

/// The longest one-line description manifest_style_problems() accepts.
inline constexpr std::size_t kMaxDescriptionChars = 120;
/// What the host does not refuse but a shipped plugin should not have: a description over one line or
/// kMaxDescriptionChars (longer prose belongs in the package's README.md, which `inspect --readme` prints).
std::vector<std::string> manifest_style_problems(const Manifest& m);

}  // namespace cann_debug

#include <nlohmann/json.hpp>

namespace cann_debug {
/// The manifest as JSON (for `cann-debug inspect --json` and generated docs).
nlohmann::json manifest_to_json(const Manifest& m);
}  // namespace cann_debug
