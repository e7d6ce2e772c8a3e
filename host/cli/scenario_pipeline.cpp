#include "scenario_pipeline.hpp"

#include <boost/dll/runtime_symbol_info.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>

#include <fmt/format.h>

namespace cann_debug::cli {

namespace fs = std::filesystem;

std::vector<std::string> pipeline_search_path() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("CANN_DEBUG_PIPELINE_PATH")) {
    std::string_view rest = env;
    while (!rest.empty()) {
      auto colon = rest.find(':');
      auto item = rest.substr(0, colon);
      if (!item.empty()) dirs.emplace_back(item);
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
  }
  boost::system::error_code ec;
  auto exe = boost::dll::program_location(ec);
  if (!ec) dirs.push_back((exe.parent_path().parent_path() / "share" / "cann-debug" / "pipelines").string());
#ifdef CANN_DEBUG_SOURCE_PIPELINE_DIR
  dirs.emplace_back(CANN_DEBUG_SOURCE_PIPELINE_DIR);
#endif
  return dirs;
}

std::optional<std::string> find_scenario_pipeline(const std::string& scenario) {
  for (const auto& dir : pipeline_search_path()) {
    std::error_code ec;
    fs::path p = fs::path(dir) / (scenario + ".yaml");
    if (fs::is_regular_file(p, ec)) return p.string();
  }
  return std::nullopt;
}

int run_tapped(const GlobalOptions& g, const TapRequest& request, EmbeddedRun& out) {
  host::PipelineInputs inputs;
  inputs.variables["input"] = request.input;
  inputs.variables["output"] = request.output.empty() ? std::string("/nonexistent-output") : request.output;
  host::Diagnostics diags;
  for (const auto& v : request.vars) {
    auto eq = v.find('=');
    if (eq != std::string::npos && eq > 0) inputs.variables[v.substr(0, eq)] = v.substr(eq + 1);
  }
  inputs.overrides = request.overrides;
  auto doc = host::parse_pipeline_file(request.pipeline, inputs, diags);
  if (!doc) {
    if (!diags.items().empty()) fmt::print(stderr, "{}", diags.to_string());
    return kInvalidPipeline;
  }
  out.registry = load_registry(g, doc->plugin_paths);
  const auto& registry = *out.registry;

  // Drop sinks (and links into them): their outputs are files this verb does not want.
  std::set<std::string> dropped;
  std::erase_if(doc->components, [&](const host::ComponentDecl& c) {
    const auto* entry = registry.find(c.type);
    if (!request.keep_sinks && entry && entry->manifest().kind == ComponentKind::kSink &&
        !request.keep_sink_types.contains(c.type)) {
      dropped.insert(c.id);
      return true;
    }
    return false;
  });
  std::erase_if(doc->links, [&](const host::LinkDecl& l) { return dropped.contains(l.to.component); });

  for (auto& c : doc->components) {
    auto it = request.set_on_type.find(c.type);
    if (it == request.set_on_type.end()) continue;
    for (const auto& item : it->second.items()) {
      const std::string key = item.key();
      auto existing = std::find_if(c.options.begin(), c.options.end(),
                                   [&](const host::OptionDecl& o) { return o.key == key; });
      if (existing != c.options.end())
        existing->value = item.value();
      else
        c.options.push_back({key, item.value(), c.where, c.where});
    }
  }
  TapSpec taps;
  taps.types = request.tap_types;
  taps.ports = request.tap_ports;
  taps.on_message = request.on_message;
  taps.interrupt = request.interrupt;
  taps.interrupt_fd = request.interrupt_fd;
  return run_document(g, *doc, diags, taps, out);
}

}  // namespace cann_debug::cli
