#include "measured_context.hpp"

#include <algorithm>
#include <cmath>

namespace cann_debug::plugins::kb {
namespace {

using nlohmann::json;

bool has_labels(const Feature& f, const std::map<std::string, std::string>& labels) {
  for (const auto& [k, v] : labels) {
    auto it = f.labels.find(k);
    if (it == f.labels.end() || it->second != v) return false;
  }
  return true;
}

const Feature* find_in(const FeatureSet& set, const std::string& name,
                       const std::map<std::string, std::string>& labels, bool unlabelled_only) {
  for (const auto& f : set.features) {
    if (f.name != name || !std::isfinite(f.value) || !has_labels(f, labels)) continue;
    if (unlabelled_only && !f.labels.empty()) continue;
    return &f;
  }
  return nullptr;
}

// The asked-for field of the first reference of that kind; nullopt when none has it.
std::optional<json> evidence_field(const std::vector<EvidenceRef>& refs, const std::string& kind,
                                   const std::string& field) {
  for (const auto& ref : refs) {
    if (ref.kind != kind) continue;
    if (field == "id" && !ref.id.empty()) return json(ref.id);
    if (field == "first_step" && ref.first_step >= 0) return json(ref.first_step);
    if (field == "last_step" && ref.last_step >= 0) return json(ref.last_step);
  }
  return std::nullopt;
}

std::optional<json> raw_value(const ParameterSource& s, const MeasuredContext& c) {
  using Kind = ParameterSource::Kind;
  switch (s.kind) {
    case Kind::kDefault:
      return s.default_value;
    case Kind::kFeature: {
      if (!c.features) return std::nullopt;
      const Feature* f = find_feature(*c.features, s.name, s.labels);
      if (!f) return std::nullopt;
      return json(f->value);
    }
    case Kind::kConfig: {
      if (!c.config) return std::nullopt;
      const json* v = find_config_value(*c.config, s.name);
      if (!v || !(v->is_number() || v->is_string() || v->is_boolean())) return std::nullopt;
      return *v;
    }
    case Kind::kDiagnosis: {
      if (s.name == "confidence" && c.root_cause) return json(c.root_cause->confidence);
      if (s.name == "root_cause" && c.root_cause) return json(c.root_cause->id);
      if (s.name == "scenario" && c.diagnosis && !c.diagnosis->scenario.empty())
        return json(c.diagnosis->scenario);
      return std::nullopt;
    }
    case Kind::kFeatureEvidence: {
      if (!c.features) return std::nullopt;
      const Feature* f = find_feature(*c.features, s.name, s.labels);
      if (!f) return std::nullopt;
      return evidence_field(f->evidence, s.evidence_kind, s.field);
    }
    case Kind::kEvidence:
      if (!c.root_cause) return std::nullopt;
      return evidence_field(c.root_cause->evidence, s.name, s.field);
    case Kind::kDetails: {
      if (!c.diagnosis || !c.diagnosis->details.is_object()) return std::nullopt;
      const json::json_pointer pointer(s.name);
      if (!c.diagnosis->details.contains(pointer)) return std::nullopt;
      const json& v = c.diagnosis->details.at(pointer);
      if (!(v.is_number() || v.is_string() || v.is_boolean())) return std::nullopt;
      return v;
    }
  }
  return std::nullopt;
}

bool has_transforms(const ParameterSource& s) {
  return !s.multiply_by.empty() || !s.divide_by.empty() || s.reciprocal || s.pow10 || s.scale != 1.0 ||
         s.offset != 0.0;
}

double round_to(double x, int decimals) {
  const double f = std::pow(10.0, decimals);
  return std::round(x * f) / f;
}

double round_significant(double x, int digits) {
  if (x == 0.0) return 0.0;
  const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(x))));
  const double f = std::pow(10.0, digits - 1 - magnitude);
  return std::round(x * f) / f;
}

}  // namespace

const Feature* find_feature(const std::vector<FeatureSet>& sets, const std::string& name,
                            const std::map<std::string, std::string>& labels) {
  // Run-scope sets first; then, without asked-for labels, unlabelled features before labelled ones.
  for (bool run_scope : {true, false}) {
    for (bool unlabelled_only : {labels.empty(), false}) {
      for (const auto& set : sets) {
        if ((set.scope == "run") != run_scope) continue;
        if (const Feature* f = find_in(set, name, labels, unlabelled_only)) return f;
      }
    }
  }
  return nullptr;
}

const json* find_config_value(const json& config, const std::string& dotted_key) {
  const json* node = &config;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = dotted_key.find('.', start);
    const std::string part =
        dotted_key.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!node->is_object()) return nullptr;
    auto it = node->find(part);
    if (it == node->end()) return nullptr;
    node = &*it;
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return node->is_null() ? nullptr : node;
}

std::optional<json> resolve_source(const ParameterSource& s, const MeasuredContext& c) {
  std::optional<json> value = raw_value(s, c);
  if (!value || s.kind == ParameterSource::Kind::kDefault || !has_transforms(s)) return value;
  if (!value->is_number()) return std::nullopt;  // transforms need a number
  double x = value->get<double>();
  if (!s.multiply_by.empty()) {
    const std::optional<json> m = resolve_source(s.multiply_by.front(), c);
    if (!m || !m->is_number()) return std::nullopt;
    x *= m->get<double>();
  }
  if (!s.divide_by.empty()) {
    const std::optional<json> d = resolve_source(s.divide_by.front(), c);
    if (!d || !d->is_number() || d->get<double>() == 0.0) return std::nullopt;
    x /= d->get<double>();
  }
  if (s.reciprocal) {
    if (x == 0.0) return std::nullopt;
    x = 1.0 / x;
  }
  if (s.pow10) x = std::pow(10.0, x);
  x = x * s.scale + s.offset;
  if (!std::isfinite(x)) return std::nullopt;
  return json(x);
}

std::optional<json> resolve_parameter(const ParameterSpec& spec, const MeasuredContext& c) {
  for (const auto& source : spec.sources) {
    std::optional<json> value = resolve_source(source, c);
    if (!value) continue;
    if (source.kind == ParameterSource::Kind::kDefault || !value->is_number()) return value;
    double x = value->get<double>();
    if (spec.cite_above && x <= *spec.cite_above) continue;
    if (spec.min) x = std::max(x, *spec.min);
    if (spec.max) x = std::min(x, *spec.max);
    if (spec.significant) x = round_significant(x, *spec.significant);
    if (spec.round) x = round_to(x, *spec.round);
    if ((spec.round && *spec.round == 0) || spec.format == "integer")
      return json(static_cast<std::int64_t>(std::llround(x)));
    return json(x);
  }
  return std::nullopt;
}

}  // namespace cann_debug::plugins::kb
