// `cann-debug collect`: runs the live samplers into a recording (.cdr), with a progress line, until
// --duration, Ctrl-C or SIGTERM (the file is then closed cleanly with everything sampled so far).
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cann_debug/options.hpp"
#include "cli_common.hpp"
#include "collect_plan.hpp"
#include "collect_workload.hpp"
#include "diagnose_run.hpp"
#include "interrupt.hpp"
#include "stats_reading.hpp"

namespace cann_debug::cli {
namespace {

struct CollectArgs {
  std::string sources = "all";
  std::string interval = "1s";
  std::string duration;
  std::string output;
  bool compress = false;
  bool correlation = false;
  bool diagnose = false;
  std::string kb_outcomes;
  std::string scenario = "auto";
  bool dry_run = false;
  bool json = false;
  std::string progress = "auto";
  std::vector<std::string> overrides;
  std::vector<std::string> command;  // after --: the workload
  long pid = 0;
  std::vector<std::string> logs, traces;
  std::string max_log_size = "1GiB";
};

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

std::string size_text(double bytes) {
  if (bytes >= 1 << 20) return fmt::format("{:.1f} MiB", bytes / (1 << 20));
  if (bytes >= 1 << 10) return fmt::format("{:.1f} KiB", bytes / (1 << 10));
  return fmt::format("{:.0f} B", bytes);
}

/// The line shown while collecting: time, samples taken (one per sampler poll that produced data), bytes.
class ProgressLine {
 public:
  ProgressLine(std::string mode, std::string output, double duration_s, std::size_t sources)
      : output_(std::move(output)), duration_s_(duration_s), sources_(sources) {
    tty_ = ::isatty(::fileno(stderr)) != 0;
    enabled_ = mode == "always" || (mode == "auto" && tty_);
    // Without a terminal, one line per 10 s keeps logs readable.
    every_ = tty_ ? 1 : 10;
  }
  void update(const host::RunProgress& p) {
    if (!enabled_ || ++ticks_ % every_ != 0) return;
    std::uint64_t samples = 0;
    for (const auto& n : p.nodes)
      if (n.id.ends_with("/live")) samples += n.emitted;
    std::error_code ec;
    const auto bytes = std::filesystem::file_size(output_, ec);
    const std::string of = duration_s_ > 0 ? fmt::format(" / {:.0f} s", duration_s_) : "";
    fmt::print(stderr, "{}collect: {:.0f} s{}, {} sources, {} samples, {} written{}", tty_ ? "\r" : "",
               p.elapsed_seconds, of, sources_, samples, size_text(ec ? 0.0 : static_cast<double>(bytes)),
               tty_ ? "   " : "\n");
    std::fflush(stderr);
    shown_ = true;
  }
  void finish() {
    if (shown_ && tty_) fmt::print(stderr, "\n");
  }
  bool enabled() const { return enabled_; }

 private:
  std::string output_;
  double duration_s_;
  std::size_t sources_;
  bool tty_ = false, enabled_ = false, shown_ = false;
  int every_ = 1;
  long ticks_ = 0;
};

}  // namespace

Verb register_collect(CLI::App& app, const GlobalOptions& g) {
  auto* cmd = app.add_subcommand("collect",
                                 "Sample the live samplers (NPU, HCCS, RoCE, DDR, host, GPU) into a "
                                 "recording until --duration or Ctrl-C; with -- COMMAND, run a workload and "
                                 "record it, its output and its files into one run folder");
  auto a = std::make_shared<CollectArgs>();
  cmd->add_option("--sources", a->sources,
                  "'all' (every sampler that can run here; the others are listed with their reason) or a "
                  "comma-separated list of sampler types, e.g. procfs,ascend_chip,roce")
      ->capture_default_str();
  cmd->add_option("--interval", a->interval, "Time between samples of each sampler, e.g. 10ms or 1s")
      ->capture_default_str();
  cmd->add_option("--duration", a->duration, "Stop after this long, e.g. 300s (default: until Ctrl-C)");
  cmd->add_option(
         "--output,-o", a->output,
         "Recording file to write (.cdr; docs/recording-format.md); with a COMMAND or --pid, the run "
         "folder (recording.cdr, stdout.log, stderr.log, fusion.json and what the workload writes)")
      ->required();
  cmd->add_option("command", a->command,
                  "After --: the workload to run and record (no shell; its own process group; Ctrl-C is "
                  "forwarded to it; collect exits with its exit code). It finds the run folder in "
                  "$CANN_DEBUG_RUN_DIR");
  cmd->add_option("--pid", a->pid, "Record beside a process that is already running until it exits")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--logs", a->logs,
                  "Log files the workload writes outside the run folder (a glob; repeatable): copied into "
                  "RUN_DIR/logs/ when it exits")
      ->allow_extra_args(false);
  cmd->add_option("--traces", a->traces,
                  "A folder of traces the workload writes outside the run folder (repeatable): copied into "
                  "RUN_DIR/traces/ when it exits")
      ->allow_extra_args(false);
  cmd->add_option("--max-log-size", a->max_log_size,
                  "Most bytes of each of stdout.log and stderr.log: a longer stream keeps its first and last "
                  "halves and a line saying how much was left out (the terminal shows all)")
      ->capture_default_str();
  cmd->add_flag("--compress", a->compress,
                "Anomaly-window retention: full resolution only around anomalies, downsampled elsewhere");
  cmd->add_flag("--diagnose", a->diagnose,
                "With a workload: diagnose each anomaly window of the recording as it closes, print it and "
                "append it to RUN_DIR/diagnoses.jsonl (the recording is then flushed every 100 ms)");
  cmd->add_option("--scenario", a->scenario,
                  "--diagnose: auto (told from the run folder's files once the workload wrote them), "
                  "training, inference, distributed")
      ->check(CLI::IsMember({"auto", "training", "inference", "distributed"}))
      ->capture_default_str();
  a->kb_outcomes = default_kb_outcomes_path();
  cmd->add_option("--kb-outcomes", a->kb_outcomes,
                  "--diagnose: outcomes `optimize --feedback` measured, quoted as expected gains (\"\" = "
                  "priors only)");
  cmd->add_flag("--correlation", a->correlation,
                "Put every sample on one grid of --interval ticks, so samples of different sources taken in "
                "the same tick carry the same timestamp");
  cmd->add_option("--set", a->overrides,
                  "Sampler option: --set TYPE.option=VALUE, e.g. --set roce.root=/fixture (repeatable)")
      // One value per --set: a `--set X -- COMMAND --flag` must hand everything after -- to the command.
      ->allow_extra_args(false);
  cmd->add_option("--progress", a->progress, "Progress line on stderr: auto (when a terminal), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
  cmd->add_flag("--dry-run", a->dry_run,
                "Print the pipeline collect would run, and the samplers left out, and exit");
  cmd->add_flag("--json", a->json, "Print the summary as JSON");
  return {
      cmd, [&g, a] {
        const bool workload = !a->command.empty() || a->pid > 0;
        if (!a->command.empty() && a->pid > 0) {
          fmt::print(stderr, "error: give a COMMAND after -- or --pid, not both\n");
          return static_cast<int>(kUsage);
        }
        if (!workload && (!a->logs.empty() || !a->traces.empty())) {
          fmt::print(stderr, "error: --logs and --traces need a workload: -- COMMAND or --pid\n");
          return static_cast<int>(kUsage);
        }
        const auto max_log = parse_size_bytes(a->max_log_size);
        if (!max_log) {
          fmt::print(stderr, "error: --max-log-size: expected a size like 256MiB or 0 (no limit), got '{}'\n",
                     a->max_log_size);
          return static_cast<int>(kUsage);
        }
        CollectRequest request;
        if (a->sources != "all") request.sources = split_list(a->sources);
        const auto interval = parse_duration_ns(a->interval);
        if (!interval || *interval <= 0) {
          fmt::print(stderr, "error: --interval: expected a duration like 10ms or 1s, got '{}'\n",
                     a->interval);
          return static_cast<int>(kUsage);
        }
        request.interval_ns = *interval;
        host::RunOptions options;
        if (!a->duration.empty()) {
          const auto d = parse_duration_ns(a->duration);
          if (!d || *d <= 0) {
            fmt::print(stderr, "error: --duration: expected a duration like 300s or 5m, got '{}'\n",
                       a->duration);
            return static_cast<int>(kUsage);
          }
          options.duration_ns = *d;
        }
        request.output = workload ? (std::filesystem::path(a->output) / "recording.cdr").string() : a->output;
        request.compress = a->compress;
        if (a->diagnose && !workload) {
          fmt::print(stderr, "error: --diagnose needs a workload: -- COMMAND or --pid\n");
          return static_cast<int>(kUsage);
        }
        // Online diagnosis reads the recording as chunks are completed: a chunk at least every 100 ms
        // keeps the time from a window's close to its diagnosis under a second.
        if (a->diagnose) request.flush_interval_ns = 100'000'000;
        request.correlation = a->correlation;
        request.overrides = a->overrides;
        request.command_line = fmt::format(
            "cann-debug collect --sources {} --interval {}{} --output {}{}{}{}{}{}", a->sources, a->interval,
            a->duration.empty() ? "" : " --duration " + a->duration, a->output,
            a->compress ? " --compress" : "", a->correlation ? " --correlation" : "",
            a->diagnose ? " --diagnose" : "",
            a->overrides.empty() ? "" : " --set " + fmt::format("{}", fmt::join(a->overrides, " --set ")),
            a->command.empty() ? (a->pid > 0 ? fmt::format(" --pid {}", a->pid) : "")
                               : fmt::format(" -- {}", fmt::join(a->command, " ")));

        auto registry = load_registry(g);
        host::Diagnostics diags;
        CollectPlan plan = plan_collect(request, *registry, diags);
        for (const auto& s : plan.skipped) fmt::print(stderr, "collect: skipping {}: {}\n", s.type, s.reason);
        if (!diags.items().empty()) fmt::print(stderr, "{}", diags.to_string());
        if (!plan.plan) return static_cast<int>(kInvalidPipeline);
        if (a->dry_run) {
          fmt::print("{}", plan.yaml);
          return static_cast<int>(kOk);
        }
        if (workload) {
          fmt::print(stderr, "collect: {} every {} beside {} into {}{}\n", fmt::join(plan.sources, ", "),
                     a->interval,
                     a->pid > 0 ? fmt::format("pid {}", a->pid) : fmt::format("'{}'", a->command.front()),
                     a->output, a->compress ? " (anomaly-window retention)" : "");
          WorkloadRequest w;
          w.command = a->command;
          w.pid = a->pid;
          w.run_dir = a->output;
          w.logs = a->logs;
          w.traces = a->traces;
          w.max_log_bytes = static_cast<std::uint64_t>(std::max<std::int64_t>(0, *max_log));
          w.duration_ns = options.duration_ns;
          w.json = a->json;
          w.diagnose = a->diagnose;
          w.kb_outcomes = a->kb_outcomes;
          w.scenario = a->scenario;
          options.duration_ns = 0;  // the workload's end stops the samplers
          // The workload's output shares the terminal: a progress line only when asked for.
          if (a->progress == "always") {
            auto progress =
                std::make_shared<ProgressLine>("always", request.output, 0.0, plan.sources.size());
            options.on_progress = [progress](const host::RunProgress& p) { progress->update(p); };
          }
          return collect_workload(g, w, plan, *registry, std::move(options));
        }
        fmt::print(stderr, "collect: {} every {} into {}{}{}\n", fmt::join(plan.sources, ", "), a->interval,
                   a->output, a->compress ? " (anomaly-window retention)" : "",
                   a->duration.empty() ? ", until Ctrl-C" : ", for " + a->duration);

        ProgressLine progress(a->progress, a->output, static_cast<double>(options.duration_ns) * 1e-9,
                              plan.sources.size());
        if (progress.enabled())  // else no progress thread at all
          options.on_progress = [&progress](const host::RunProgress& p) { progress.update(p); };
        host::RunReport report;
        {
          InterruptScope interrupt;
          options.interrupt = interrupt.level();
          options.interrupt_fd = interrupt.wake_fd();
          host::GraphRunner runner(*plan.plan, options);
          report = runner.run();
        }
        progress.finish();
        for (const auto& e : report.errors) fmt::print(stderr, "{}\n", e.to_string());

        // Read the recording back: proves it is readable and gives the figures to print.
        nlohmann::json summary;
        std::size_t series = 0;
        if (const auto* reader = registry->find("recording")) {
          // The index holds the totals: no need to decode every chunk of a long recording.
          stats::FileToRead file;
          file.path = a->output;
          file.reader = reader;
          file.options = {{"summary_only", true}};
          stats::ReadOptions read;
          read.hta = false;
          const stats::FileStats f = std::move(stats::read_files(*registry, {file}, read).files.front());
          summary = f.recording;
          series = summary.is_object() ? summary.value("series", std::size_t{0}) : 0;
          if (f.status != stats::ReadStatus::kOk)
            fmt::print(stderr, "error: reading the recording back failed: {}\n", f.error);
        }
        if (a->json) {
          nlohmann::json j = {{"output", a->output},
                              {"sources", plan.sources},
                              {"skipped", nlohmann::json::array()},
                              {"ok", report.ok},
                              {"interrupted", report.interrupted},
                              {"seconds", report.seconds},
                              {"recording", summary}};
          for (const auto& s : plan.skipped) j["skipped"].push_back({{"type", s.type}, {"reason", s.reason}});
          fmt::print("{}\n", j.dump(2));
        } else if (summary.is_object()) {
          fmt::print("{}: {} samples in {} series from {} sources over {:.1f} s{}\n", a->output,
                     summary.value("samples_total", std::uint64_t{0}), series, plan.sources.size(),
                     report.seconds, report.interrupted ? " (stopped by a signal; file closed cleanly)" : "");
          fmt::print("  {} bytes, {:.2f} bytes/sample, {} chunks\n", summary.value("file_bytes", 0),
                     summary.value("bytes_per_sample", 0.0), summary.value("chunks", 0));
          if (a->compress)
            fmt::print(
                "  retained share: {:.2f}% of samples kept at full resolution ({} of {}), {} summaries\n",
                100.0 * summary.value("retained_share", 1.0), summary.value("samples_kept", 0),
                summary.value("samples_total", 0), summary.value("summaries", 0));
        }
        if (!report.ok) return static_cast<int>(kRunFailed);
        return static_cast<int>(report.interrupted ? kInterrupted : kOk);
      }};
}

}  // namespace cann_debug::cli
