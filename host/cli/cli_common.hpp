// What every verb of the command line shares: global options, exit codes, loading plugins and pipelines.
#pragma once

#include <CLI/CLI.hpp>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cann_debug/component.hpp"
#include "graph_runner.hpp"
#include "pipeline_plan.hpp"
#include "plugin_registry.hpp"

namespace cann_debug::cli {

/// Documented in docs/cli.md.
enum ExitCode : int {
  kOk = 0,
  kRunFailed = 1,        // a component failed while running
  kUsage = 2,            // bad command line
  kInvalidPipeline = 3,  // the pipeline has errors (all are printed)
  kNotFound = 4,         // unknown component type, or no plugin could be loaded
  kInterrupted = 130,    // stopped by Ctrl-C/SIGTERM after draining what was collected
};

struct GlobalOptions {
  std::vector<std::string> plugin_paths;
  int verbosity = 0;
};

struct PipelineArgs {
  std::string file;
  std::string input;
  std::string output;
  std::vector<std::string> vars;       // name=value
  std::vector<std::string> overrides;  // type/name.option=value
  void add_to(CLI::App& cmd, bool with_file = true);
};

void setup_logging(int verbosity);

/// Loads packages from --plugin-path, the pipeline's plugins.paths, then the default search path.
std::unique_ptr<host::PluginRegistry> load_registry(const GlobalOptions& g,
                                                    const std::vector<std::string>& extra_paths = {});

/// Parses, loads plugins for, and validates a pipeline; prints every problem to stderr.
/// `registry` receives the registry used (the plan refers to it).
std::optional<host::PipelinePlan> load_pipeline(const GlobalOptions& g, const PipelineArgs& args,
                                                std::unique_ptr<host::PluginRegistry>& registry,
                                                bool probe = true);

/// A message a tapped output port emitted.
struct TappedMessage {
  std::string component;  // type/name
  std::string port;
  Envelope envelope;
};

/// A pipeline a verb runs and then reads the output of (infer, kb learn, diagnose, ...). Tapped envelopes
/// refer to the plan and may hold plugin objects: keep this object alive while reading them.
struct EmbeddedRun {
  std::unique_ptr<host::PluginRegistry> registry;  // loaded by run_document() when empty
  std::optional<host::PipelinePlan> plan;
  host::RunReport report;
  std::vector<TappedMessage> messages;  // in emission order per port
  /// The tapped messages of one type.
  std::vector<const TappedMessage*> of_type(std::string_view type_id) const;
};

/// What run_document() taps: the named ports, and every output port that produces one of `types`.
struct TapSpec {
  std::vector<host::PortTap> ports;
  std::vector<std::string> types;
  /// When set, each tapped message is handed to it as it is emitted (from the emitting component's
  /// thread, calls serialized) instead of being kept in `out.messages`: a run that follows a live source.
  std::function<void(const TappedMessage&)> on_message;
  /// Stops the run's sources (RunOptions::interrupt / interrupt_fd); may be null / -1.
  const std::atomic<int>* interrupt = nullptr;
  int interrupt_fd = -1;
};

/// Loads the plugins `doc` names (unless `out.registry` is already set), validates it, runs it with the
/// taps and keeps what they saw in `out.messages`. Prints problems to stderr (`diags` may already hold
/// some from parsing). Returns kOk, kInvalidPipeline or kRunFailed; what was tapped before a failure is
/// kept.
int run_document(const GlobalOptions& g, const host::PipelineDocument& doc, host::Diagnostics& diags,
                 const TapSpec& taps, EmbeddedRun& out);

/// The value at rank floor(q * (n - 1)) of `values` (0 when empty): the quantile the figures verbs print
/// (fusion.json's clock offsets, online diagnosis latencies) are computed with.
double quantile(std::vector<double> values, double q);

/// A verb: its subcommand and what runs when it was given (returns the exit code).
struct Verb {
  CLI::App* command = nullptr;
  std::function<int()> action;
};
using Registrar = Verb (*)(CLI::App& app, const GlobalOptions& g);
Verb register_run(CLI::App& app, const GlobalOptions& g);
Verb register_collect(CLI::App& app, const GlobalOptions& g);
Verb register_optimize(CLI::App& app, const GlobalOptions& g);
Verb register_validate(CLI::App& app, const GlobalOptions& g);
Verb register_plugins(CLI::App& app, const GlobalOptions& g);
Verb register_inspect(CLI::App& app, const GlobalOptions& g);
Verb register_graph(CLI::App& app, const GlobalOptions& g);
Verb register_infer(CLI::App& app, const GlobalOptions& g);
Verb register_kb(CLI::App& app, const GlobalOptions& g);
Verb register_diagnose(CLI::App& app, const GlobalOptions& g);
Verb register_eval(CLI::App& app, const GlobalOptions& g);
Verb register_new_plugin(CLI::App& app, const GlobalOptions& g);

}  // namespace cann_debug::cli
