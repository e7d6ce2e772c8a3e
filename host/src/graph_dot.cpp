#include "graph_dot.hpp"

#include <fmt/format.h>

namespace cann_debug::host {

namespace {
std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '\\';  // labels use \n line breaks, so backslashes pass through
    out += c;
  }
  return out + "\"";
}
}  // namespace

std::string to_dot(const PipelinePlan& plan) {
  std::string out = fmt::format("digraph {} {{\n  rankdir=LR;\n  node [shape=box, style=rounded];\n",
                                quote(plan.document.name.empty() ? plan.document.file : plan.document.name));
  for (const auto& c : plan.components) {
    const Manifest& m = c.manifest();
    const char* shape = is_source(m.kind) ? "cds" : m.kind == ComponentKind::kSink ? "folder" : "box";
    out += fmt::format("  {} [label={}, shape={}];\n", quote(c.id), quote(c.id + "\\n" + std::string(to_string(m.kind))), shape);
  }
  for (const auto& l : plan.links) {
    const auto& from = plan.components[l.from];
    const auto& to = plan.components[l.to];
    out += fmt::format("  {} -> {} [label={}];\n", quote(from.id), quote(to.id),
                       quote(from.manifest().outputs[l.from_port].name + " -> " + to.manifest().inputs[l.to_port].name +
                             "\\n" + l.message_type));
  }
  return out + "}\n";
}

}  // namespace cann_debug::host
