#include <fmt/format.h>

#include "cli_common.hpp"
#include "graph_dot.hpp"

namespace cann_debug::cli {

Verb register_graph(CLI::App& app, const GlobalOptions& g) {
  auto* cmd = app.add_subcommand("graph", "Print a pipeline's graph (Graphviz with --dot)");
  auto args = std::make_shared<PipelineArgs>();
  args->add_to(*cmd);
  auto dot = std::make_shared<bool>(false);
  cmd->add_flag("--dot", *dot, "Graphviz DOT output (pipe into `dot -Tsvg`)");
  return {cmd, [&g, args, dot] {
            std::unique_ptr<host::PluginRegistry> registry;
            auto plan = load_pipeline(g, *args, registry, /*probe=*/false);
            if (!plan) return static_cast<int>(kInvalidPipeline);
            if (*dot) {
              fmt::print("{}", host::to_dot(*plan));
              return static_cast<int>(kOk);
            }
            for (std::size_t i : plan->topological_order) {
              const auto& c = plan->components[i];
              fmt::print("{} ({})\n", c.id, to_string(c.manifest().kind));
              for (const auto& l : plan->links)
                if (l.from == i)
                  fmt::print("  {} -> {}.{}  [{}]\n", c.manifest().outputs[l.from_port].name,
                             plan->components[l.to].id,
                             plan->components[l.to].manifest().inputs[l.to_port].name, l.message_type);
            }
            return static_cast<int>(kOk);
          }};
}

}  // namespace cann_debug::cli
