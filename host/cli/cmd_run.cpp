#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cann_debug/options.hpp"
#include "cli_common.hpp"
#include "graph_runner.hpp"
#include "interrupt.hpp"

namespace cann_debug::cli {

namespace {

struct RunArgs {
  PipelineArgs pipeline;
  std::string duration;
  std::size_t queue_capacity = 0;
  bool json = false;
};

}  // namespace

Verb register_run(CLI::App& app, const GlobalOptions& g) {
  auto* cmd = app.add_subcommand("run", "Run a pipeline until its sources finish (or --duration, or Ctrl-C)");
  auto args = std::make_shared<RunArgs>();
  args->pipeline.add_to(*cmd);
  cmd->add_option("--duration", args->duration, "Stop the sources after this long, e.g. 30s or 5m");
  cmd->add_option("--queue-capacity", args->queue_capacity,
                  "Messages waiting per component before sources are held back (default: the pipeline's)");
  cmd->add_flag("--json", args->json, "Print the run summary as JSON");
  return {cmd, [&g, args] {
            host::RunOptions options;
            if (!args->duration.empty()) {
              auto ns = parse_duration_ns(args->duration);
              if (!ns || *ns <= 0) {
                fmt::print(stderr, "error: --duration: expected a duration like 30s or 5m, got '{}'\n",
                           args->duration);
                return static_cast<int>(kUsage);
              }
              options.duration_ns = *ns;
            }
            options.queue_capacity = args->queue_capacity;
            std::unique_ptr<host::PluginRegistry> registry;
            auto plan = load_pipeline(g, args->pipeline, registry);
            if (!plan) return static_cast<int>(kInvalidPipeline);

            host::RunReport report;
            {
              InterruptScope interrupt;
              options.interrupt = interrupt.level();
              options.interrupt_fd = interrupt.wake_fd();
              host::GraphRunner runner(*plan, options);
              report = runner.run();
            }

            for (const auto& e : report.errors) fmt::print(stderr, "{}\n", e.to_string());
            if (args->json) {
              nlohmann::json j = {
                  {"pipeline", args->pipeline.file},       {"ok", report.ok},
                  {"interrupted", report.interrupted},     {"seconds", report.seconds},
                  {"components", nlohmann::json::array()}, {"errors", nlohmann::json::array()}};
              for (const auto& n : report.nodes)
                j["components"].push_back({{"id", n.id},
                                           {"received", n.received},
                                           {"emitted", n.emitted},
                                           {"max_queued", n.max_queued},
                                           {"busy_seconds", n.busy_seconds}});
              for (const auto& e : report.errors)
                j["errors"].push_back({{"component", e.component},
                                       {"file", e.where.file},
                                       {"line", e.where.line},
                                       {"phase", e.phase},
                                       {"message", e.message}});
              fmt::print("{}\n", j.dump(2));
            } else {
              fmt::print("{} {} in {:.3f} s{}\n", args->pipeline.file, report.ok ? "finished" : "FAILED",
                         report.seconds,
                         report.interrupted ? " (interrupted: sources stopped, data drained)" : "");
              fmt::print("  {:<28} {:>10} {:>10} {:>10} {:>9}\n", "component", "received", "emitted",
                         "max queue", "busy s");
              for (const auto& n : report.nodes)
                fmt::print("  {:<28} {:>10} {:>10} {:>10} {:>9.3f}\n", n.id, n.received, n.emitted,
                           n.max_queued, n.busy_seconds);
            }
            if (!report.ok) return static_cast<int>(kRunFailed);
            return static_cast<int>(report.interrupted ? kInterrupted : kOk);
          }};
}

}  // namespace cann_debug::cli
