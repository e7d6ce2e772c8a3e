#include "knowledge_base.hpp"

#include <algorithm>
#include <filesystem>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "kb_json.hpp"
#include "template_text.hpp"

namespace cann_debug::plugins::kb {
namespace {

using nlohmann::json;

const std::set<std::string, std::less<>> kFormats = {"number", "integer", "percent", "bytes", "ratio"};
const std::set<std::string, std::less<>> kDiagnosisFields = {"confidence", "root_cause", "scenario"};
const std::set<std::string, std::less<>> kEvidenceFields = {"id", "first_step", "last_step"};

void check_format(const KbNode& doc, const char* expected) {
  const KbNode format = doc.child("format");
  if (format.string() != expected) format.fail(fmt::format("\"{}\"", expected));
}

ParameterSource parse_source(const KbNode& node, bool allow_default);

void parse_transforms(const KbNode& node, ParameterSource& s) {
  if (node.has("scale")) s.scale = node.child("scale").number();
  if (node.has("offset")) s.offset = node.child("offset").number();
  if (node.has("reciprocal")) s.reciprocal = node.child("reciprocal").boolean();
  if (node.has("pow10")) s.pow10 = node.child("pow10").boolean();
  if (node.has("multiply_by")) s.multiply_by.push_back(parse_source(node.child("multiply_by"), false));
  if (node.has("divide_by")) s.divide_by.push_back(parse_source(node.child("divide_by"), false));
}

ParameterSource parse_source(const KbNode& node, bool allow_default) {
  node.object();
  ParameterSource s;
  if (node.has("default")) {
    if (!allow_default) node.fail("a source with \"from\" (a default cannot multiply or divide)");
    node.only_keys({"default"});
    s.kind = ParameterSource::Kind::kDefault;
    s.default_value = node.child("default").json();
    if (s.default_value.is_object() || s.default_value.is_array())
      node.child("default").fail("a number, string, boolean or null");
    return s;
  }
  const KbNode from = node.child("from");
  const std::string kind = from.string();
  if (kind == "feature") {
    node.only_keys(
        {"from", "feature", "labels", "scale", "offset", "reciprocal", "pow10", "multiply_by", "divide_by"});
    s.kind = ParameterSource::Kind::kFeature;
    s.name = node.child("feature").non_empty_string();
    if (node.has("labels")) {
      const KbNode labels = node.child("labels");
      for (const auto& [k, v] : labels.object().items()) s.labels[k] = labels.child(k).string();
    }
  } else if (kind == "feature_evidence") {
    node.only_keys({"from", "feature", "labels", "kind", "field"});
    s.kind = ParameterSource::Kind::kFeatureEvidence;
    s.name = node.child("feature").non_empty_string();
    s.evidence_kind = node.child("kind").non_empty_string();
    if (node.has("labels")) {
      const KbNode labels = node.child("labels");
      for (const auto& [k, v] : labels.object().items()) s.labels[k] = labels.child(k).string();
    }
    s.field = "id";
    if (node.has("field")) {
      const KbNode field = node.child("field");
      s.field = field.string();
      if (!kEvidenceFields.contains(s.field)) field.fail("one of \"id\", \"first_step\", \"last_step\"");
    }
    return s;
  } else if (kind == "config") {
    node.only_keys({"from", "key", "scale", "offset", "reciprocal", "pow10", "multiply_by", "divide_by"});
    s.kind = ParameterSource::Kind::kConfig;
    s.name = node.child("key").non_empty_string();
  } else if (kind == "diagnosis") {
    node.only_keys({"from", "field", "scale", "offset", "reciprocal", "pow10", "multiply_by", "divide_by"});
    s.kind = ParameterSource::Kind::kDiagnosis;
    const KbNode field = node.child("field");
    s.name = field.string();
    if (!kDiagnosisFields.contains(s.name)) field.fail("one of \"confidence\", \"root_cause\", \"scenario\"");
  } else if (kind == "evidence") {
    node.only_keys(
        {"from", "kind", "field", "scale", "offset", "reciprocal", "pow10", "multiply_by", "divide_by"});
    s.kind = ParameterSource::Kind::kEvidence;
    s.name = node.child("kind").non_empty_string();
    s.field = "id";
    if (node.has("field")) {
      const KbNode field = node.child("field");
      s.field = field.string();
      if (!kEvidenceFields.contains(s.field)) field.fail("one of \"id\", \"first_step\", \"last_step\"");
    }
  } else if (kind == "details") {
    node.only_keys({"from", "pointer", "scale", "offset", "reciprocal", "pow10", "multiply_by", "divide_by"});
    s.kind = ParameterSource::Kind::kDetails;
    const KbNode pointer = node.child("pointer");
    s.name = pointer.string();
    try {
      (void)json::json_pointer(s.name);
    } catch (const json::exception&) {
      pointer.fail("a JSON pointer such as \"/late_rank\"");
    }
  } else {
    from.fail(
        "one of \"feature\", \"feature_evidence\", \"config\", \"diagnosis\", \"evidence\", \"details\"");
  }
  parse_transforms(node, s);
  return s;
}

ParameterSpec parse_parameter(const KbNode& node, const std::string& name) {
  node.only_keys({"description", "sources", "cite_above", "min", "max", "round", "significant", "format"});
  ParameterSpec p;
  p.name = name;
  if (node.has("description")) p.description = node.child("description").string();
  const KbNode sources = node.child("sources");
  if (sources.array().empty()) sources.fail("a non-empty array of sources");
  for (std::size_t i = 0; i < sources.json().size(); ++i) {
    if (!p.sources.empty() && p.sources.back().kind == ParameterSource::Kind::kDefault)
      sources.at(i).fail("no source after a default (it would never be used)");
    p.sources.push_back(parse_source(sources.at(i), true));
  }
  if (node.has("cite_above")) p.cite_above = node.child("cite_above").number();
  if (node.has("min")) p.min = node.child("min").number();
  if (node.has("max")) p.max = node.child("max").number();
  if (p.min && p.max && *p.min > *p.max) node.child("max").fail("a number not below \"min\"");
  if (node.has("round")) {
    p.round = node.child("round").integer();
    if (*p.round < 0 || *p.round > 12) node.child("round").fail("an integer 0..12 (decimals)");
  }
  if (node.has("significant")) {
    p.significant = node.child("significant").integer();
    if (*p.significant < 1 || *p.significant > 15) node.child("significant").fail("an integer 1..15");
  }
  if (node.has("format")) {
    const KbNode f = node.child("format");
    p.format = f.string();
    if (!kFormats.contains(p.format)) f.fail("one of number, integer, percent, bytes, ratio");
  }
  return p;
}

// Checks the placeholders of one text: declared, and (unless `optional_ok`) always resolvable.
void check_text(const KbNode& node, const SolutionTemplate& t, bool optional_ok) {
  std::vector<std::string> names;
  try {
    names = placeholder_names(node.string());
  } catch (const std::invalid_argument& e) {
    node.fail(e.what());
  }
  for (const auto& name : names) {
    auto it = t.parameters.find(name);
    if (it == t.parameters.end())
      node.fail(fmt::format(
          "only declared parameters in placeholders; \"{{{{{}}}}}\" is not in \"parameters\"", name));
    if (!optional_ok && !it->second.always_resolves())
      node.fail(
          fmt::format("parameter \"{}\" to end with a {{\"default\": ...}} source: it is used where a "
                      "value is required",
                      name));
  }
}

// Walks the config patch: whole-value placeholders may be optional (the key is dropped), others not.
void check_patch(const KbNode& node, const SolutionTemplate& t) {
  const json& v = node.json();
  if (v.is_object()) {
    for (const auto& [k, unused] : v.items()) check_patch(node.child(k), t);
  } else if (v.is_array()) {
    for (std::size_t i = 0; i < v.size(); ++i) check_patch(node.at(i), t);
  } else if (v.is_string()) {
    const bool whole = whole_placeholder(v.get<std::string>()).has_value();
    check_text(node, t, whole);
  }
}

SolutionTemplate parse_template(const KbNode& node, const std::string& id) {
  node.only_keys({"title", "description", "rationale", "config_patch", "code", "risk", "expected_improvement",
                  "prior_source", "target_metric", "target_better", "parameters"});
  SolutionTemplate t;
  t.id = id;
  if (node.has("parameters")) {
    const KbNode params = node.child("parameters");
    for (const auto& [name, unused] : params.object().items()) {
      if (!whole_placeholder("{{" + name + "}}")) params.child(name).fail("a parameter name [a-z][a-z0-9_]*");
      t.parameters.emplace(name, parse_parameter(params.child(name), name));
    }
  }
  const KbNode title = node.child("title");
  t.title = title.non_empty_string();
  check_text(title, t, false);
  const KbNode rationale = node.child("rationale");
  if (rationale.array().empty()) rationale.fail("a non-empty array of sentences");
  for (std::size_t i = 0; i < rationale.json().size(); ++i) {
    t.rationale.push_back(rationale.at(i).non_empty_string());
    check_text(rationale.at(i), t, true);
  }
  const KbNode patch = node.child("config_patch");
  patch.object();
  t.config_patch = patch.json();
  check_patch(patch, t);
  const KbNode code = node.child("code");
  for (const auto& [framework, unused] : code.object().items()) {
    const KbNode snippet = code.child(framework);
    if (framework != "pytorch" && framework != "torch_npu" && framework != "mindspore")
      snippet.fail("a snippet for \"pytorch\", \"torch_npu\" or \"mindspore\"");
    t.code[framework] = snippet.non_empty_string();
    check_text(snippet, t, false);
  }
  if (!t.code.contains("pytorch")) code.fail("an object with at least a \"pytorch\" snippet");
  const KbNode risk = node.child("risk");
  t.risk = risk.non_empty_string();
  check_text(risk, t, false);
  const KbNode improvement = node.child("expected_improvement");
  t.expected_improvement = improvement.number();
  if (t.expected_improvement < 0.0 || t.expected_improvement > 1.0)
    improvement.fail("a relative improvement between 0 and 1");
  t.prior_source = node.child("prior_source").non_empty_string();
  t.target_metric = node.child("target_metric").non_empty_string();
  if (node.has("target_better")) {
    const KbNode better = node.child("target_better");
    t.target_better = better.non_empty_string();
    if (t.target_better != "lower" && t.target_better != "higher" && t.target_better != "closer_to_zero")
      better.fail("\"lower\", \"higher\" or \"closer_to_zero\"");
  }
  return t;
}

}  // namespace

std::map<std::string, SolutionTemplate> parse_templates(const json& doc, const std::string& file) {
  const KbNode root(doc, file, "");
  root.only_keys({"format", "description", "templates"});
  check_format(root, kTemplatesFormat);
  const KbNode templates = root.child("templates");
  std::map<std::string, SolutionTemplate> out;
  for (const auto& [id, unused] : templates.object().items()) {
    if (!whole_placeholder("{{" + id + "}}")) templates.child(id).fail("a template id [a-z][a-z0-9_]*");
    out.emplace(id, parse_template(templates.child(id), id));
  }
  return out;
}

std::map<std::string, ProblemPattern> parse_patterns(
    const json& doc, const std::string& file, const std::map<std::string, SolutionTemplate>& templates) {
  const KbNode root(doc, file, "");
  root.only_keys({"format", "description", "patterns"});
  check_format(root, kPatternsFormat);
  const KbNode patterns = root.child("patterns");
  std::map<std::string, ProblemPattern> out;
  for (std::size_t i = 0; i < patterns.array().size(); ++i) {
    const KbNode node = patterns.at(i);
    node.only_keys({"root_cause", "scenario", "title", "description", "suggestions"});
    ProblemPattern p;
    const KbNode root_cause = node.child("root_cause");
    p.root_cause = root_cause.non_empty_string();
    if (out.contains(p.root_cause)) root_cause.fail("a root cause that no earlier pattern answers");
    p.scenario = node.child("scenario").non_empty_string();
    p.title = node.child("title").non_empty_string();
    if (node.has("description")) p.description = node.child("description").string();
    const KbNode suggestions = node.child("suggestions");
    const std::size_t count = suggestions.array().size();
    const bool healthy = p.root_cause == "healthy";
    if (!healthy && (count < 1 || count > 8)) suggestions.fail("1 to 8 suggestions");
    for (std::size_t j = 0; j < count; ++j) {
      const KbNode s = suggestions.at(j);
      s.only_keys({"template", "priority", "expected_improvement", "when", "unless"});
      PatternSuggestion ps;
      const KbNode tpl = s.child("template");
      ps.template_id = tpl.non_empty_string();
      if (!templates.contains(ps.template_id))
        tpl.fail(fmt::format("the id of a template in {}", kTemplatesFile));
      const KbNode priority = s.child("priority");
      ps.priority = priority.integer();
      if (ps.priority < 1) priority.fail("a priority >= 1 (1 = do first)");
      if (s.has("expected_improvement")) {
        ps.expected_improvement = s.child("expected_improvement").number();
        if (*ps.expected_improvement < 0.0 || *ps.expected_improvement > 1.0)
          s.child("expected_improvement").fail("a relative improvement between 0 and 1");
      }
      const auto condition_of = [](const KbNode& c) {
        c.only_keys({"feature", "labels", "above"});
        FeatureCondition condition;
        condition.feature = c.child("feature").non_empty_string();
        if (c.has("labels")) {
          const KbNode labels = c.child("labels");
          for (const auto& [k, v] : labels.object().items()) condition.labels[k] = labels.child(k).string();
        }
        if (c.has("above")) condition.above = c.child("above").number();
        return condition;
      };
      if (s.has("when")) {  // one condition, or a list of which any one gives the suggestion
        const KbNode when = s.child("when");
        if (when.json().is_array()) {
          for (std::size_t k = 0; k < when.array().size(); ++k) ps.when.push_back(condition_of(when.at(k)));
          if (ps.when.empty()) when.fail("a condition, or a non-empty list of conditions");
        } else {
          ps.when.push_back(condition_of(when));
        }
      }
      if (s.has("unless")) ps.unless = condition_of(s.child("unless"));
      for (const auto& earlier : p.suggestions)
        if (earlier.template_id == ps.template_id) tpl.fail("a template not already listed in this pattern");
      p.suggestions.push_back(ps);
    }
    std::stable_sort(
        p.suggestions.begin(), p.suggestions.end(),
        [](const PatternSuggestion& a, const PatternSuggestion& b) { return a.priority < b.priority; });
    out.emplace(p.root_cause, std::move(p));
  }
  return out;
}

KnowledgeBase load_knowledge_base(const std::string& dir) {
  const std::filesystem::path base(dir);
  const std::string templates_file = (base / kTemplatesFile).string();
  const std::string patterns_file = (base / kPatternsFile).string();
  KnowledgeBase kb;
  kb.templates = parse_templates(read_json_file(templates_file), templates_file);
  kb.patterns = parse_patterns(read_json_file(patterns_file), patterns_file, kb.templates);
  return kb;
}

}  // namespace cann_debug::plugins::kb
