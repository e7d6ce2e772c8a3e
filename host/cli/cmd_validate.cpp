#include <fmt/format.h>

#include "cli_common.hpp"

namespace cann_debug::cli {

Verb register_validate(CLI::App& app, const GlobalOptions& g) {
  auto* cmd = app.add_subcommand(
      "validate", "Check a pipeline (syntax, types, options, probes, links) without running it");
  auto args = std::make_shared<PipelineArgs>();
  args->add_to(*cmd);
  auto no_probe = std::make_shared<bool>(false);
  cmd->add_flag("--no-probe", *no_probe, "Do not ask components whether they can run on this machine");
  return {cmd, [&g, args, no_probe] {
            std::unique_ptr<host::PluginRegistry> registry;
            auto plan = load_pipeline(g, *args, registry, !*no_probe);
            if (!plan) return static_cast<int>(kInvalidPipeline);
            fmt::print("{}: ok ({} components, {} links)\n", args->file, plan->components.size(),
                       plan->links.size());
            return static_cast<int>(kOk);
          }};
}

}  // namespace cann_debug::cli
