#include "pipeline_plan.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <map>
#include <set>
#include <string_view>

#include "cann_debug/messages.hpp"

namespace cann_debug::host {

namespace {

std::string join_types(const std::vector<std::string>& v) {
  return fmt::format("{}", fmt::join(v, ", "));
}

std::string port_list(const Manifest& m, bool inputs) {
  std::vector<std::string> names;
  if (inputs)
    for (const auto& p : m.inputs) names.push_back(p.name);
  else
    for (const auto& p : m.outputs) names.push_back(p.name);
  return names.empty() ? "none" : fmt::format("{}", fmt::join(names, ", "));
}

// Two ids are compatible when they are equal: the major version is part of the id.
bool accepts(const InputPort& in, std::string_view type) {
  return std::find(in.accepts.begin(), in.accepts.end(), type) != in.accepts.end();
}

}  // namespace

std::string_view delivered_type(const InputPort& in, std::string_view produced) {
  if (accepts(in, produced)) return produced;
  // The one conversion the host makes: a metric frame is expanded into the batch of its points.
  if (produced == MetricFrame::type_id && accepts(in, MetricBatch::type_id)) return MetricBatch::type_id;
  return {};
}

std::string_view to_string(ErrorPolicy policy) {
  switch (policy) {
    case ErrorPolicy::kDrain:
      return "drain";
    case ErrorPolicy::kSkip:
      return "skip";
    case ErrorPolicy::kCancel:
      break;
  }
  return "cancel";
}

std::optional<ErrorPolicy> parse_error_policy(std::string_view text) {
  if (text == "cancel") return ErrorPolicy::kCancel;
  if (text == "drain") return ErrorPolicy::kDrain;
  if (text == "skip") return ErrorPolicy::kSkip;
  return std::nullopt;
}

namespace {

// Takes `on_error` out of the declared options (it is the host's, not the plugin's).
ErrorPolicy take_error_policy(const ComponentDecl& decl, nlohmann::json& options, Diagnostics& diags) {
  const OptionDecl* o = decl.option(std::string(kOnErrorKey));
  if (!o) return ErrorPolicy::kCancel;
  options.erase(std::string(kOnErrorKey));
  std::optional<ErrorPolicy> policy;
  if (o->value.is_string()) policy = parse_error_policy(o->value.get<std::string>());
  if (!policy) {
    diags.error(o->value_where, fmt::format("{}: {}: expected cancel, drain or skip, found {}", decl.id,
                                            kOnErrorKey, o->value.dump()));
    return ErrorPolicy::kCancel;
  }
  return *policy;
}

}  // namespace

std::optional<PipelinePlan> plan_pipeline(const PipelineDocument& doc, const PluginRegistry& registry,
                                          Diagnostics& diags, const PlanOptions& options) {
  PipelinePlan plan;
  plan.document = doc;
  const std::size_t errors_before = diags.error_count();
  std::map<std::string, std::size_t> index;  // id -> component index (only resolved components)
  std::set<std::string> declared;
  for (const auto& c : doc.components) declared.insert(c.id);

  // Types, options, validate, probe.
  for (const auto& decl : doc.components) {
    const ComponentEntry* entry = registry.find(decl.type);
    if (!entry) {
      auto types = registry.types();
      std::string hint = closest_match(decl.type, types);
      diags.error(decl.where,
                  fmt::format("{}: unknown component type '{}'{} (valid types: {})", decl.id, decl.type,
                              hint.empty() ? "" : fmt::format("; did you mean '{}'?", hint),
                              types.empty() ? "none loaded; check --plugin-path" : join_types(types)));
      continue;
    }
    const Manifest& m = entry->manifest();
    std::vector<OptionIssue> issues;
    nlohmann::json declared_options = decl.options_json();
    const ErrorPolicy on_error = take_error_policy(decl, declared_options, diags);
    Config config = resolve_config(m.options, declared_options, issues);
    for (const auto& issue : issues) {
      SourceRef where = decl.where;
      if (const OptionDecl* o = decl.option(issue.key))
        where = issue.kind == OptionIssue::Kind::kUnknown ? o->key_where : o->value_where;
      diags.error(where, fmt::format("{}: {}", decl.id, issue.message));
    }
    if (issues.empty()) {
      try {
        for (const auto& p : entry->factory->validate(config)) {
          SourceRef where = decl.where;
          if (const OptionDecl* o = decl.option(p.option)) where = o->value_where;
          diags.error(where, fmt::format("{}: {}{}", decl.id,
                                         p.option.empty() ? "" : "option '" + p.option + "': ", p.message));
        }
      } catch (const std::exception& e) {
        diags.error(decl.where,
                    fmt::format("{}: validate() of '{}' failed: {}", decl.id, decl.type, e.what()));
      }
      if (options.probe) {
        try {
          const Availability a = entry->factory->probe(config);
          if (!a.available)
            diags.error(decl.where,
                        fmt::format("{}: '{}' cannot run on this machine: {}", decl.id, decl.type, a.reason));
        } catch (const std::exception& e) {
          diags.error(decl.where,
                      fmt::format("{}: probe() of '{}' failed: {}", decl.id, decl.type, e.what()));
        }
      }
    }
    index[decl.id] = plan.components.size();
    plan.components.push_back({decl.id, decl.where, entry, std::move(config), on_error});
  }

  // Links: existence, direction, type, duplicates.
  std::set<std::tuple<std::size_t, std::size_t, std::size_t, std::size_t>> seen;
  for (const auto& link : doc.links) {
    bool ok = true;
    auto resolve = [&](const PortRef& ref) -> const PlannedComponent* {
      auto it = index.find(ref.component);
      if (it != index.end()) return &plan.components[it->second];
      if (!declared.count(ref.component)) {
        std::vector<std::string> ids(declared.begin(), declared.end());
        std::string hint = closest_match(ref.component, ids);
        diags.error(link.where,
                    fmt::format("link '{}': no component '{}' in the pipeline{}", link.text, ref.component,
                                hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint)));
      }
      ok = false;  // declared but unresolved: already reported as an unknown type
      return nullptr;
    };
    const PlannedComponent* from = resolve(link.from);
    const PlannedComponent* to = resolve(link.to);
    if (!from || !to) continue;
    const Manifest& fm = from->manifest();
    const Manifest& tm = to->manifest();
    int out = fm.output_index(link.from.port);
    int in = tm.input_index(link.to.port);
    if (out < 0) {
      if (fm.input_index(link.from.port) >= 0)
        diags.error(link.where,
                    fmt::format("link '{}': '{}.{}' is an input port; a link goes from an output port "
                                "(outputs of {}: {})",
                                link.text, from->id, link.from.port, from->id, port_list(fm, false)));
      else
        diags.error(link.where, fmt::format("link '{}': '{}' has no output port '{}' (outputs: {})",
                                            link.text, from->id, link.from.port, port_list(fm, false)));
      ok = false;
    }
    if (in < 0) {
      if (tm.output_index(link.to.port) >= 0)
        diags.error(link.where,
                    fmt::format("link '{}': '{}.{}' is an output port; a link goes to an input port "
                                "(inputs of {}: {})",
                                link.text, to->id, link.to.port, to->id, port_list(tm, true)));
      else
        diags.error(link.where, fmt::format("link '{}': '{}' has no input port '{}' (inputs: {})", link.text,
                                            to->id, link.to.port, port_list(tm, true)));
      ok = false;
    }
    if (!ok) continue;
    const OutputPort& op = fm.outputs[static_cast<std::size_t>(out)];
    const InputPort& ip = tm.inputs[static_cast<std::size_t>(in)];
    const std::string_view delivered = delivered_type(ip, op.produces);
    if (delivered.empty()) {
      diags.error(link.where, fmt::format("cannot link {}.{} (produces {}) -> {}.{} (accepts {})", from->id,
                                          op.name, op.produces, to->id, ip.name, join_types(ip.accepts)));
      continue;
    }
    PlannedLink pl{index[from->id], static_cast<std::size_t>(out),
                   index[to->id],   static_cast<std::size_t>(in),
                   op.produces,     link.text,
                   link.where,      delivered != op.produces};
    if (!seen.insert({pl.from, pl.from_port, pl.to, pl.to_port}).second) {
      diags.error(link.where, fmt::format("link '{}' is given twice", link.text));
      continue;
    }
    plan.links.push_back(std::move(pl));
  }

  // Inputs: required ones linked; every non-source has at least one linked input.
  for (std::size_t i = 0; i < plan.components.size(); ++i) {
    const auto& pc = plan.components[i];
    const Manifest& m = pc.manifest();
    if (is_source(m.kind)) continue;
    std::size_t linked_total = 0;
    for (std::size_t p = 0; p < m.inputs.size(); ++p) {
      auto linked = std::count_if(plan.links.begin(), plan.links.end(),
                                  [&](const PlannedLink& l) { return l.to == i && l.to_port == p; });
      linked_total += static_cast<std::size_t>(linked);
      if (m.inputs[p].required && linked == 0)
        diags.error(pc.where, fmt::format("{}: required input '{}' (accepts {}) is not linked", pc.id,
                                          m.inputs[p].name, join_types(m.inputs[p].accepts)));
    }
    if (linked_total == 0 &&
        std::none_of(m.inputs.begin(), m.inputs.end(), [](const InputPort& p) { return p.required; }))
      diags.error(pc.where,
                  fmt::format("{}: none of its inputs ({}) is linked, so it would never receive anything",
                              pc.id, port_list(m, true)));
  }

  // Cycles (Kahn's algorithm); report the links that stay inside a cycle.
  const std::size_t n = plan.components.size();
  std::vector<std::size_t> indegree(n, 0);
  std::vector<std::vector<std::size_t>> succ(n);
  for (const auto& l : plan.links) {
    succ[l.from].push_back(l.to);
    ++indegree[l.to];
  }
  std::vector<std::size_t> ready;
  for (std::size_t i = 0; i < n; ++i)
    if (indegree[i] == 0) ready.push_back(i);
  std::vector<std::size_t> order;
  while (!ready.empty()) {
    // Keep declaration order among ready nodes: the order is stable and readable.
    auto it = std::min_element(ready.begin(), ready.end());
    std::size_t v = *it;
    ready.erase(it);
    order.push_back(v);
    for (std::size_t w : succ[v])
      if (--indegree[w] == 0) ready.push_back(w);
  }
  if (order.size() != n) {
    // What Kahn's algorithm left is on a cycle or downstream of one: drop what leads nowhere back.
    std::vector<bool> in_cycle(n);
    for (std::size_t i = 0; i < n; ++i) in_cycle[i] = indegree[i] > 0;
    for (bool changed = true; changed;) {
      changed = false;
      for (std::size_t i = 0; i < n; ++i) {
        auto leads_back = [&](std::size_t w) { return static_cast<bool>(in_cycle[w]); };
        if (in_cycle[i] && std::none_of(succ[i].begin(), succ[i].end(), leads_back)) {
          in_cycle[i] = false;
          changed = true;
        }
      }
    }
    std::vector<std::string> members;
    for (std::size_t i = 0; i < n; ++i)
      if (in_cycle[i]) members.push_back(plan.components[i].id);
    for (const auto& l : plan.links)
      if (in_cycle[l.from] && in_cycle[l.to]) {
        diags.error(l.where, fmt::format("link '{}' is part of a cycle ({}); a pipeline must be acyclic",
                                         l.text, fmt::join(members, " -> ")));
        break;
      }
  }
  plan.topological_order = std::move(order);
  if (diags.error_count() > errors_before) return std::nullopt;
  return plan;
}

}  // namespace cann_debug::host
