#include "suggestion_renderer.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "template_text.hpp"
#include "value_format.hpp"

namespace cann_debug::plugins::kb {
namespace {

using nlohmann::json;
using Values = std::map<std::string, std::optional<json>>;

// Evidence references cited at the end of a rationale.
constexpr std::size_t kCitedEvidence = 3;

std::optional<std::string> text_of(const SolutionTemplate& tpl, const Values& values,
                                   const std::string& name) {
  const auto& value = values.at(name);
  if (!value) return std::nullopt;
  return format_value(*value, tpl.parameters.at(name).format);
}

// Text that must render: load-time checks guarantee that its parameters always resolve.
std::string required_text(const SolutionTemplate& tpl, const Values& values, const std::string& text) {
  auto out = substitute(text, [&](const std::string& name) { return text_of(tpl, values, name); });
  if (!out) throw std::logic_error("template '" + tpl.id + "': a required parameter did not resolve");
  return *out;
}

// Patch values: a whole placeholder becomes the parameter's JSON value (dropped when unresolved).
std::optional<json> render_patch(const json& node, const SolutionTemplate& tpl, const Values& values) {
  if (node.is_object()) {
    json out = json::object();
    for (const auto& [key, child] : node.items())
      if (auto v = render_patch(child, tpl, values)) out[key] = std::move(*v);
    return out;
  }
  if (node.is_array()) {
    json out = json::array();
    for (const auto& child : node)
      if (auto v = render_patch(child, tpl, values)) out.push_back(std::move(*v));
    return out;
  }
  if (!node.is_string()) return node;
  const std::string& text = node.get_ref<const std::string&>();
  if (auto name = whole_placeholder(text)) return values.at(*name);
  return required_text(tpl, values, text);
}

std::string describe_ref(const EvidenceRef& ref) {
  std::string text = ref.kind;
  if (!ref.id.empty()) text += " " + ref.id;
  if (ref.kind == "line" && ref.first_step >= 0)  // a log event without a step: its line in the file
    return fmt::format("{} (line {})", ref.id, ref.first_step);
  if (ref.first_step >= 0 && ref.last_step > ref.first_step)
    text += fmt::format(" (steps {}-{})", ref.first_step, ref.last_step);
  else if (ref.first_step >= 0)
    text += fmt::format(" (step {})", ref.first_step);
  return text;
}

}  // namespace

std::string suggestion_id(const std::string& root_cause, const std::string& template_id) {
  return root_cause + "/" + template_id;
}

std::string describe_evidence(const std::vector<EvidenceRef>& evidence, std::size_t limit) {
  // A reference cited by two of the cause's observations is one piece of evidence.
  std::vector<std::string> distinct;
  for (const auto& ref : evidence)
    if (std::string d = describe_ref(ref); std::find(distinct.begin(), distinct.end(), d) == distinct.end())
      distinct.push_back(std::move(d));
  std::string out;
  for (std::size_t i = 0; i < distinct.size() && i < limit; ++i) out += (i ? "; " : "") + distinct[i];
  if (distinct.size() > limit) out += fmt::format("; and {} more", distinct.size() - limit);
  return out;
}

Suggestion render_suggestion(const SolutionTemplate& tpl, const PatternSuggestion& entry,
                             const MeasuredContext& context, const cann_debug::kb::OutcomeStore& history) {
  Values values;
  for (const auto& [name, spec] : tpl.parameters) values[name] = resolve_parameter(spec, context);

  const std::string root_cause = context.root_cause ? context.root_cause->id : std::string();
  Suggestion s;
  s.id = suggestion_id(root_cause, tpl.id);
  s.title = required_text(tpl, values, tpl.title);
  if (context.root_cause)
    s.rationale = fmt::format("Answers {} (confidence {}).", root_cause,
                              format_value(context.root_cause->confidence, "percent"));
  for (const auto& sentence : tpl.rationale) {
    auto text = substitute(sentence, [&](const std::string& name) { return text_of(tpl, values, name); });
    if (text) s.rationale += (s.rationale.empty() ? "" : " ") + *text;
  }
  if (context.root_cause && !context.root_cause->evidence.empty())
    s.rationale += " Evidence: " + describe_evidence(context.root_cause->evidence, kCitedEvidence) + ".";
  s.config_patch = render_patch(tpl.config_patch, tpl, values).value_or(json::object());
  for (const auto& [framework, snippet] : tpl.code) s.code[framework] = required_text(tpl, values, snippet);
  s.risk = required_text(tpl, values, tpl.risk);
  s.priority = entry.priority;
  s.target_metric = tpl.target_metric;
  s.target_better = tpl.target_better;
  const cann_debug::kb::OutcomeContext run_context =
      context.run_context ? *context.run_context : cann_debug::kb::OutcomeContext{};
  const auto measured = history.find(tpl.id, root_cause, run_context);
  if (measured && measured->outcome.trials > 0) {
    const auto& o = measured->outcome;
    s.expected_improvement = o.mean_gain();
    s.improvement_source = "history";
    s.history = {{"trials", o.trials},
                 {"successes", o.successes},
                 {"success_probability", o.success_probability()},
                 {"mean_gain", o.mean_gain()},
                 {"same_context", measured->same_context},
                 {"context", run_context.describe()}};
  } else {
    s.expected_improvement = entry.expected_improvement.value_or(tpl.expected_improvement);
    s.improvement_source = "prior";
  }
  return s;
}

}  // namespace cann_debug::plugins::kb
