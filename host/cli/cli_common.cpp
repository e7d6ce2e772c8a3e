#include "cli_common.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "graph_runner.hpp"
#include "pipeline_document.hpp"

namespace cann_debug::cli {

void PipelineArgs::add_to(CLI::App& cmd, bool with_file) {
  if (with_file) cmd.add_option("pipeline", file, "Pipeline YAML file")->required()->check(CLI::ExistingFile);
  cmd.add_option("--input", input, "Value of ${input} in the pipeline (a data file or folder)");
  cmd.add_option("--output", output, "Value of ${output} in the pipeline (where results go)");
  cmd.add_option("--var", vars, "Set ${NAME} in the pipeline: --var NAME=VALUE (repeatable)");
  cmd.add_option("--set", overrides, "Override an option: --set type/name.option=VALUE (repeatable)");
}

void setup_logging(int verbosity) {
  auto logger = spdlog::stderr_color_mt("cann-debug");
  logger->set_pattern("%^%l%$: %v");
  spdlog::set_default_logger(logger);
  spdlog::set_level(verbosity >= 2   ? spdlog::level::debug
                    : verbosity == 1 ? spdlog::level::info
                                     : spdlog::level::warn);
}

std::unique_ptr<host::PluginRegistry> load_registry(const GlobalOptions& g,
                                                    const std::vector<std::string>& extra_paths) {
  auto registry = std::make_unique<host::PluginRegistry>();
  std::vector<std::string> paths = g.plugin_paths;
  paths.insert(paths.end(), extra_paths.begin(), extra_paths.end());
  auto defaults = host::PluginRegistry::default_search_path();
  paths.insert(paths.end(), defaults.begin(), defaults.end());
  registry->load_from(paths);
  for (const auto& p : registry->problems()) spdlog::warn("{}: {}", p.path, p.message);
  return registry;
}

std::optional<host::PipelinePlan> load_pipeline(const GlobalOptions& g, const PipelineArgs& args,
                                                std::unique_ptr<host::PluginRegistry>& registry, bool probe) {
  host::PipelineInputs inputs;
  if (!args.input.empty()) inputs.variables["input"] = args.input;
  if (!args.output.empty()) inputs.variables["output"] = args.output;
  host::Diagnostics diags;
  for (const auto& v : args.vars) {
    auto eq = v.find('=');
    if (eq == std::string::npos || eq == 0)
      diags.error({"--var " + v, 0, 0}, "expected --var NAME=VALUE");
    else
      inputs.variables[v.substr(0, eq)] = v.substr(eq + 1);
  }
  inputs.overrides = args.overrides;
  auto doc = host::parse_pipeline_file(args.file, inputs, diags);
  std::optional<host::PipelinePlan> plan;
  if (doc) {
    registry = load_registry(g, doc->plugin_paths);
    plan = host::plan_pipeline(*doc, *registry, diags, {probe});
  }
  if (!diags.items().empty()) fmt::print(stderr, "{}", diags.to_string());
  if (diags.has_errors()) {
    fmt::print(stderr, "{}: {} error(s); nothing was run\n", args.file, diags.error_count());
    return std::nullopt;
  }
  return plan;
}

std::vector<const TappedMessage*> EmbeddedRun::of_type(std::string_view type_id) const {
  std::vector<const TappedMessage*> out;
  for (const auto& m : messages)
    if (m.envelope.type_id() == type_id) out.push_back(&m);
  return out;
}

double quantile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  const auto k = static_cast<std::size_t>(std::floor(q * static_cast<double>(values.size() - 1)));
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(k), values.end());
  return values[k];
}

int run_document(const GlobalOptions& g, const host::PipelineDocument& doc, host::Diagnostics& diags,
                 const TapSpec& taps, EmbeddedRun& out) {
  if (!out.registry) out.registry = load_registry(g, doc.plugin_paths);
  out.plan = host::plan_pipeline(doc, *out.registry, diags);
  if (!diags.items().empty()) fmt::print(stderr, "{}", diags.to_string());
  if (!out.plan) return kInvalidPipeline;
  host::RunOptions options;
  options.taps = taps.ports;
  for (const auto& c : out.plan->components)
    for (const auto& port : c.manifest().outputs)
      if (std::find(taps.types.begin(), taps.types.end(), port.produces) != taps.types.end())
        options.taps.push_back({c.id, port.name});
  if (!options.taps.empty())
    options.on_tap = [&out, tapped = options.taps, forward = taps.on_message](std::size_t tap,
                                                                              const Envelope& message) {
      if (forward)
        forward({tapped[tap].component, tapped[tap].port, message});
      else
        out.messages.push_back({tapped[tap].component, tapped[tap].port, message});
    };
  options.interrupt = taps.interrupt;
  options.interrupt_fd = taps.interrupt_fd;
  host::GraphRunner runner(*out.plan, options);
  out.report = runner.run();
  for (const auto& e : out.report.errors) fmt::print(stderr, "{}\n", e.to_string());
  return out.report.ok ? kOk : kRunFailed;
}

}  // namespace cann_debug::cli
