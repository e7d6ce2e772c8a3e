// `cann-debug optimize --diagnosis RUN/report.json --workload 'COMMAND TEMPLATE' --sandbox-validate`: tries a
// diagnosis' suggestions on the user's own workload in a sandbox, measures each against the baseline, applies
// the best validated patch to a config file with a rollback, and feeds what it measured back to the
// knowledge base (docs/optimize.md).
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cann_debug/kb_outcomes.hpp"
#include "cann_debug/options.hpp"
#include "cann_debug/whole_file.hpp"
#include "cli_common.hpp"
#include "config_patch.hpp"
#include "diagnose_run.hpp"
#include "interrupt.hpp"
#include "optimize_plan.hpp"
#include "optimize_run.hpp"
#include "scenario_pipeline.hpp"

namespace cann_debug::cli {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

struct OptimizeArgs {
  std::string diagnosis;
  std::string workload;
  bool validate = false;
  int repeats = 3;
  std::string timeout = "600s";
  std::string cpu_limit, memory_limit, file_size_limit;
  std::uint64_t open_files = 4096;
  std::vector<std::string> baseline;  // KEY=VALUE
  std::string config;
  std::string env_prefix;
  std::string apply;
  std::string rollback;
  bool force = false;
  bool feedback = false;
  std::string kb_outcomes;
  std::string kb_dir;
  std::vector<std::string> only;
  std::size_t max_suggestions = 3;
  double min_gain = 0.05;
  std::string scenario;
  std::string work_dir;
  bool keep = false;
  bool json_out = false;
};

/// A size (the SDK's units: 4GiB, 512MiB, 8G = 8e9 bytes); nullopt unless it is above 0.
std::optional<std::uint64_t> parse_bytes(const std::string& text) {
  const auto v = parse_size_bytes(text);
  if (!v || *v <= 0) return std::nullopt;
  return static_cast<std::uint64_t>(*v);
}

std::optional<double> parse_seconds(const std::string& text) {
  if (auto ns = parse_duration_ns(text); ns && *ns > 0) return static_cast<double>(*ns) * 1e-9;
  return std::nullopt;
}

/// The limit asked for, never above the hard limit this process has (setrlimit would refuse it).
std::uint64_t within_hard_limit(int resource, std::uint64_t wanted) {
  struct rlimit current {};
  if (wanted == 0 || ::getrlimit(resource, &current) != 0 || current.rlim_max == RLIM_INFINITY) return wanted;
  return std::min<std::uint64_t>(wanted, current.rlim_max);
}

std::string pct(double v) {
  return fmt::format("{:+.1f}%", 100 * v);
}

/// An argv as a person would type it: words with blanks or shell characters in single quotes (display only:
/// the workload itself never goes through a shell).
std::string display_command(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& arg : argv) {
    if (!out.empty()) out += ' ';
    const bool plain = !arg.empty() && arg.find_first_not_of(
                                           "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                           "0123456789_-./=:,+@%") == std::string::npos;
    if (plain) {
      out += arg;
      continue;
    }
    out += '\'';
    for (char c : arg) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += '\'';
  }
  return out;
}

void print_text(const json& doc) {
  fmt::print("Workload: {}\n", doc["workload"].get<std::string>());
  fmt::print("Diagnosis: {} ({} scenario); {} repeat(s) each, interleaved; runs in {}\n",
             doc.value("root_cause", "?"), doc.value("scenario", "?"), doc["repeats"].get<int>(),
             doc["work_dir"].get<std::string>());
  const json& base = doc["baseline"];
  std::size_t ok = 0;
  for (const auto& r : base["runs"]) ok += r.value("diagnosed", false) ? 1 : 0;
  fmt::print("Baseline: {} of {} runs diagnosed", ok, base["runs"].size());
  if (!base["top_causes"].empty())
    fmt::print("; diagnosed as {}", fmt::join(base["top_causes"].get<std::vector<std::string>>(), ", "));
  fmt::print("\n\n");
  for (const auto& s : doc["suggestions"]) {
    fmt::print("{}  {}\n", s.value("id", ""), s.value("title", ""));
    fmt::print("  patch {}\n", s["patch"].dump());
    if (!s.value("applicable", false)) {
      fmt::print("  not tried: {}\n\n", s.value("reason", ""));
      continue;
    }
    const std::string expected =
        s["expected_improvement"].is_number() ? pct(s["expected_improvement"].get<double>()) : "?";
    std::string measured = "not measured";
    if (s["measured_improvement"].is_number()) {
      measured = fmt::format("{} mean", pct(s["measured_improvement"].get<double>()));
      if (s["interval"].is_array())
        measured += fmt::format(" [{}, {}]", pct(s["interval"][0].get<double>()),
                                pct(s["interval"][1].get<double>()));
      measured += fmt::format(", {} median", pct(s["median_improvement"].get<double>()));
    }
    const std::string source = s.value("improvement_source", "");
    fmt::print("  {}: expected {}{}, measured {}\n", s.value("target_metric", ""), expected,
               source.empty() ? "" : " (" + source + ")", measured);
    fmt::print("  {}; {} {} in the re-diagnosis\n", s.value("verdict", ""), s.value("root_cause", ""),
               s.value("root_cause_gone", false) ? "gone" : "still named");
    for (const auto& r : s["runs"])
      if (r.contains("error") || r.value("exit_code", 0) != 0 || !r.value("diagnosed", false))
        fmt::print(
            "    run #{}: {}{}\n", r.value("repeat", 0),
            r.contains("error") ? r["error"].get<std::string>() : r.value("ended", ""),
            r.contains("diagnose_error") ? "; " + r["diagnose_error"].get<std::string>() : std::string());
    fmt::print("\n");
  }
  if (doc["best"].is_string())
    fmt::print("Best: {} (the validated suggestion with the largest measured improvement)\n",
               doc["best"].get<std::string>());
  else if (doc.value("validated", false))
    fmt::print("Best: none\n");
}

int rollback_verb(const OptimizeArgs& a) {
  try {
    rollback_file(a.rollback, a.force);
  } catch (const std::exception& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return kRunFailed;
  }
  fmt::print("{}: restored as it was before the patch\n", a.rollback);
  return kOk;
}

int optimize(const GlobalOptions& g, const OptimizeArgs& a) {
  if (!a.rollback.empty()) return rollback_verb(a);
  if (a.diagnosis.empty() || a.workload.empty()) {
    fmt::print(stderr, "error: --diagnosis and --workload are required (or --rollback CONFIG_FILE)\n");
    return kUsage;
  }
  json diagnosis;
  WorkloadInterface workload;
  OptimizeSettings settings;
  try {
    diagnosis = load_diagnosis(a.diagnosis);
    workload.command = WorkloadTemplate::parse(a.workload);
  } catch (const TemplateError& e) {
    fmt::print(stderr, "error: --workload: {}\n", e.what());
    return kUsage;
  } catch (const std::exception& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return kUsage;
  }
  for (const auto& kv : a.baseline) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      fmt::print(stderr, "error: --baseline '{}': expected KEY=VALUE\n", kv);
      return kUsage;
    }
    workload.baseline_values[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  workload.here = fs::current_path().string();
  workload.env_prefix = a.env_prefix;
  if (!a.config.empty()) {
    workload.config_file = fs::absolute(a.config).string();
    try {
      const std::string text = read_whole_file(a.config);
      // Checked as a patch would be (a top-level mapping), and its values read for the baseline.
      patch_config_text(text, is_yaml_path(a.config), json::object(), a.config);
      workload.config = RunConfiguration{a.config, config_values(text, is_yaml_path(a.config), a.config)};
    } catch (const std::exception& e) {
      fmt::print(stderr, "error: --config: {}\n", e.what());
      return kUsage;
    }
  }
  const auto timeout = parse_seconds(a.timeout);
  if (!timeout) {
    fmt::print(stderr, "error: --timeout: expected a duration like 300s or 10m, got '{}'\n", a.timeout);
    return kUsage;
  }
  settings.timeout_s = *timeout;
  settings.repeats = a.repeats;
  settings.min_gain = a.min_gain;
  settings.scenario = a.scenario.empty() ? diagnosis.value("scenario", "") : a.scenario;
  if (settings.scenario.empty()) settings.scenario = "auto";
  // CPU time: the wall-clock timeout on every core; address space only when asked (GPU and NPU runtimes
  // reserve far more virtual memory than they use); file size 8 GiB; open files 4096.
  const auto cpu =
      a.cpu_limit.empty()
          ? std::optional<double>(settings.timeout_s * std::max(1u, std::thread::hardware_concurrency()))
          : parse_seconds(a.cpu_limit);
  const auto memory = a.memory_limit.empty() ? std::optional<std::uint64_t>(0) : parse_bytes(a.memory_limit);
  const auto fsize =
      a.file_size_limit.empty() ? std::optional<std::uint64_t>(8ull << 30) : parse_bytes(a.file_size_limit);
  if (!cpu || !memory || !fsize) {
    fmt::print(stderr, "error: {}: expected {}\n",
               !cpu      ? "--cpu-limit"
               : !memory ? "--memory-limit"
                         : "--file-size-limit",
               !cpu ? "a duration like 600s" : "a size like 4GiB or 512MiB");
    return kUsage;
  }
  settings.limits.cpu_seconds = within_hard_limit(RLIMIT_CPU, static_cast<std::uint64_t>(std::ceil(*cpu)));
  settings.limits.address_space_bytes = within_hard_limit(RLIMIT_AS, *memory);
  settings.limits.file_size_bytes = within_hard_limit(RLIMIT_FSIZE, *fsize);
  settings.limits.open_files = within_hard_limit(RLIMIT_NOFILE, a.open_files);

  std::string kb_dir = a.kb_dir;
  if (kb_dir.empty()) {
    if (auto p = find_scenario_pipeline(settings.scenario == "auto" ? "training" : settings.scenario))
      kb_dir = (fs::path(*p).parent_path() / "kb").string();
  }
  TemplateCatalog catalog;
  try {
    catalog = load_template_catalog(kb_dir);
  } catch (const std::exception& e) {
    fmt::print(stderr, "error: --kb-dir: {}\n", e.what());
    return kUsage;
  }
  const std::set<std::string> only(a.only.begin(), a.only.end());
  const auto candidates = plan_candidates(diagnosis, catalog, workload, only, a.max_suggestions);
  std::size_t applicable = 0;
  for (const auto& c : candidates) applicable += (!c.is_baseline() && c.applicable) ? 1 : 0;

  // The work folder: --work (kept), else a temporary one removed at the end unless --keep.
  std::string work_dir = a.work_dir;
  bool remove_work = false;
  if (work_dir.empty()) {
    std::string pattern = (fs::temp_directory_path() / "cann-debug-optimize-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) {
      fmt::print(stderr, "error: cannot create a temporary folder in {}\n",
                 fs::temp_directory_path().string());
      return kRunFailed;
    }
    work_dir = pattern;
    remove_work = !a.keep;
  }
  settings.work_dir = fs::absolute(work_dir).string();

  json doc = {{"format", "cann-debug.optimize/1"},
              {"diagnosis", a.diagnosis},
              {"scenario", settings.scenario},
              {"workload", a.workload},
              {"repeats", settings.repeats},
              {"timeout_s", settings.timeout_s},
              {"min_gain", settings.min_gain},
              {"work_dir", settings.work_dir},
              {"validated", a.validate}};
  if (diagnosis.contains("root_causes") && diagnosis["root_causes"].is_array() &&
      !diagnosis["root_causes"].empty())
    doc["root_cause"] = diagnosis["root_causes"][0].value("id", "");
  else if (diagnosis.contains("diagnosis") && diagnosis["diagnosis"].is_object() &&
           diagnosis["diagnosis"].contains("root_causes") && !diagnosis["diagnosis"]["root_causes"].empty())
    doc["root_cause"] = diagnosis["diagnosis"]["root_causes"][0].value("id", "");

  int rc = kOk;
  OptimizeResult result;
  if (!a.validate) {
    // The plan only: what each run would be given.
    json plan = json::array();
    for (const auto& c : candidates) {
      json entry = {{"id", c.id}, {"applicable", c.applicable}, {"patch", c.patch}};
      if (!c.applicable) entry["reason"] = c.reason;
      if (c.applicable) {
        try {
          const auto inv =
              invocation_of(c, workload, (fs::path(settings.work_dir) / "plan" / c.template_id).string(), 1);
          entry["argv"] = inv.argv;
          json env = json::object();
          for (const auto& [k, v] : inv.env) env[k] = v;
          entry["env"] = env;
        } catch (const std::exception& e) {
          entry["error"] = e.what();
          rc = kUsage;
        }
      }
      plan.push_back(entry);
    }
    doc["plan"] = plan;
    if (a.json_out) {
      fmt::print("{}\n", doc.dump(2));
    } else {
      for (const auto& p : plan) {
        fmt::print("{}: ", p["id"].get<std::string>());
        if (p.contains("argv"))
          fmt::print("{}\n", display_command(p["argv"].get<std::vector<std::string>>()));
        else
          fmt::print("{}\n", p.contains("error") ? p["error"].get<std::string>()
                                                 : "not tried: " + p.value("reason", ""));
      }
      fmt::print("(a plan: add --sandbox-validate to run it)\n");
    }
    if (remove_work) fs::remove_all(settings.work_dir);
    if (rc != kOk) return rc;
    if (!a.apply.empty() && !a.force) {
      fmt::print(stderr,
                 "error: --apply: nothing was validated (add --sandbox-validate, or --force to apply "
                 "the first suggestion unmeasured)\n");
      return kRunFailed;
    }
    if (!a.apply.empty()) {
      for (const auto& c : candidates)
        if (!c.is_baseline() && c.applicable) {
          try {
            apply_patch_to_file(a.apply, c.patch, c.id);
          } catch (const std::exception& e) {
            fmt::print(stderr, "error: --apply: {}\n", e.what());
            return kRunFailed;
          }
          fmt::print(
              "{}: applied {} unmeasured (--force); roll back with cann-debug optimize --rollback {}\n",
              a.apply, c.id, a.apply);
          return kOk;
        }
      fmt::print(stderr, "error: --apply: no suggestion the workload can take\n");
      return kRunFailed;
    }
    return kOk;
  }

  if (applicable == 0) {
    // Nothing to compare the baseline with: say why for each suggestion and run nothing.
    if (candidates.size() == 1)
      fmt::print(
          stderr,
          "optimize: {} has no suggestions (a healthy run, or no pattern for its cause): nothing to try\n",
          a.diagnosis);
    else
      fmt::print(stderr, "optimize: the workload can take none of the suggestions of {}:\n", a.diagnosis);
    for (const auto& c : candidates)
      if (!c.is_baseline()) fmt::print(stderr, "  {}: {}\n", c.id, c.reason);
    if (remove_work) fs::remove_all(settings.work_dir);
    return a.apply.empty() ? kOk : kRunFailed;
  }
  const bool tty = ::isatty(STDERR_FILENO);
  OptimizeProgress progress;
  std::string current;
  std::size_t done = 0;
  progress.started = [&](std::size_t index, std::size_t total, const std::string& label) {
    current = fmt::format("[{}/{}] {}", index, total, label);
    if (tty) fmt::print(stderr, "\r\033[K{}: running", current);
  };
  progress.running = [&](double elapsed) {
    if (tty) fmt::print(stderr, "\r\033[K{}: running {:.0f} s ({} done)", current, elapsed, done);
  };
  progress.finished = [&](const RunOutcome& run) {
    ++done;
    std::string what = !run.plan_error.empty() ? run.plan_error
                       : !run.sandbox.ok()     ? run.sandbox.describe()
                       : !run.diagnosed        ? "undiagnosable: " + run.diagnose_error
                                        : fmt::format("{} ({:.2f})", run.top_cause, run.top_confidence);
    fmt::print(stderr, "{}{}: {:.1f} s, {}\n", tty ? "\r\033[K" : "", current, run.sandbox.elapsed_s, what);
  };
  {
    InterruptScope interrupt;
    const auto* level = interrupt.level();
    result = run_optimize(g, candidates, workload, settings, progress, [level] { return level->load() > 0; });
  }

  json base = json::object();
  json base_runs = json::array();
  std::set<std::string> tops;
  for (const auto& r : result.baseline) {
    base_runs.push_back(r.to_json());
    if (r.diagnosed) tops.insert(r.top_cause);
  }
  base["runs"] = base_runs;
  base["top_causes"] = std::vector<std::string>(tops.begin(), tops.end());
  base["argv"] = result.baseline.empty() ? json::array() : json(result.baseline.front().argv);
  doc["baseline"] = base;
  json suggestions = json::array();
  for (const auto& s : result.suggestions) suggestions.push_back(s.to_json());
  doc["suggestions"] = suggestions;
  const CandidateResult* best = result.best();
  doc["best"] = best ? json(best->candidate.id) : json();
  doc["interrupted"] = result.interrupted;

  bool baseline_ok = !result.baseline.empty();
  for (const auto& r : result.baseline) baseline_ok = baseline_ok && r.ok();
  if (!baseline_ok) {
    const RunOutcome* bad = nullptr;
    for (const auto& r : result.baseline)
      if (!r.ok()) bad = bad ? bad : &r;
    const std::string why =
        !bad                       ? "it did not run"
        : !bad->plan_error.empty() ? bad->plan_error
        : !bad->sandbox.ok()
            ? "the workload " + bad->sandbox.describe() +
                  (bad->sandbox.stderr_tail.empty() ? ""
                                                    : "; its stderr ends with:\n" + bad->sandbox.stderr_tail)
            : "its output could not be diagnosed: " + bad->diagnose_error;
    std::string hint;
    if (bad)
      for (const auto& arg : bad->argv)
        if (!arg.empty() && arg.front() != '/' && arg.front() != '-' &&
            fs::exists(fs::path(workload.here) / arg) && !fs::exists(fs::path(bad->dir) / arg)) {
          hint = fmt::format(" (runs start in their own folder: write {{here}}/{} for the {} of {})", arg,
                             arg, workload.here);
          break;
        }
    doc["error"] = fmt::format("the baseline run failed, so nothing could be measured: {}{}", why, hint);
    rc = kRunFailed;
  }

  // Feedback: every suggestion that ran, and the problem when none helped.
  if (a.feedback && baseline_ok && !result.interrupted) {
    const std::string path = a.kb_outcomes.empty() ? default_kb_outcomes_path() : a.kb_outcomes;
    const auto context = kb::OutcomeContext::of_run(result.baseline.front().config, settings.scenario);
    const std::string now = kb::utc_now_iso8601();
    json fb = {{"outcomes", path}, {"context", context.describe()}, {"recorded", json::array()}};
    try {
      kb::OutcomeStore::update(path, [&](kb::OutcomeStore& store) {
        kb::ProblemRecord problem;
        problem.root_cause = doc.value("root_cause", "");
        problem.context = context;
        problem.registered = now;
        for (const auto& s : result.suggestions) {
          if (!s.candidate.applicable || s.runs.empty()) continue;
          // A trial's gain is the median over its repeats (one disturbed repeat does not set it).
          const double gain = s.measured.n ? s.median_improvement : NAN;
          store.record(s.candidate.template_id, s.candidate.root_cause, context, s.validated, gain, now);
          fb["recorded"].push_back({{"suggestion", s.candidate.template_id},
                                    {"root_cause", s.candidate.root_cause},
                                    {"success", s.validated},
                                    {"measured_improvement", s.measured.n ? json(gain) : json()}});
          if (s.baseline_value)
            problem.symptoms[s.candidate.target_metric] =
                std::isfinite(*s.baseline_value) ? json(*s.baseline_value) : json("nan");
          problem.tried.push_back({{"suggestion", s.candidate.template_id},
                                   {"patch", s.candidate.patch},
                                   {"measured_improvement", s.measured.n ? json(gain) : json()},
                                   {"why", s.verdict}});
        }
        if (!best && !problem.tried.empty() && !problem.root_cause.empty()) {
          store.register_problem(problem);
          fb["registered_problem"] = problem.root_cause;
        }
      });
    } catch (const std::exception& e) {
      fmt::print(stderr, "error: --feedback: {}\n", e.what());
      rc = kRunFailed;
    }
    doc["feedback"] = fb;
  }

  if (!a.apply.empty()) {
    const CandidateResult* chosen = best;
    if (!chosen && a.force)
      for (const auto& s : result.suggestions)
        if (s.candidate.applicable && s.measured.n &&
            (!chosen || s.median_improvement > chosen->median_improvement))
          chosen = &s;
    if (!chosen) {
      doc["applied"] = json();
      fmt::print(stderr,
                 "error: --apply: no suggestion was validated, so {} is left as it is (--force applies "
                 "the best measured one anyway)\n",
                 a.apply);
      rc = kRunFailed;
    } else {
      try {
        const auto applied = apply_patch_to_file(a.apply, chosen->candidate.patch, chosen->candidate.id);
        doc["applied"] = {{"config", a.apply},
                          {"suggestion", chosen->candidate.id},
                          {"patch", chosen->candidate.patch},
                          {"rollback", applied.rollback},
                          {"formatting_kept", applied.formatting_kept}};
        fmt::print(stderr, "optimize: applied {} to {} (undo: cann-debug optimize --rollback {})\n",
                   chosen->candidate.id, a.apply, a.apply);
      } catch (const std::exception& e) {
        fmt::print(stderr, "error: --apply: {}\n", e.what());
        rc = kRunFailed;
      }
    }
  }

  if (a.json_out)
    fmt::print("{}\n", doc.dump(2));
  else
    print_text(doc);
  if (doc.contains("error")) fmt::print(stderr, "error: {}\n", doc["error"].get<std::string>());
  if (remove_work) fs::remove_all(settings.work_dir);
  if (result.interrupted) return kInterrupted;
  return rc;
}

}  // namespace

Verb register_optimize(CLI::App& app, const GlobalOptions& g) {
  auto* cmd = app.add_subcommand(
      "optimize",
      "Try a diagnosis' suggestions on your workload in a sandbox, measure each against the baseline, apply "
      "the best with a rollback, and feed the outcome back to the knowledge base");
  auto a = std::make_shared<OptimizeArgs>();
  cmd->add_option("--diagnosis", a->diagnosis,
                  "report.json of `diagnose --output`, or `diagnose --json` output")
      ->check(CLI::ExistingFile);
  cmd->add_option("--workload", a->workload,
                  "The command template: split into argv once, never run through a shell; {KEY} placeholders "
                  "named after config-patch keys ({lr}, {optimizer.lr}), {output}, {config}, {here}; [ ... ] "
                  "groups are left out when a placeholder in them has no value");
  cmd->add_flag("--sandbox-validate", a->validate,
                "Run the baseline and each suggestion (without it: print the plan, run nothing)");
  cmd->add_option("--repeats", a->repeats, "Runs of the baseline and of each suggestion (default 3)")
      ->check(CLI::Range(1, 100));
  cmd->add_option("--timeout", a->timeout,
                  "Wall-clock limit of one run; its process group is killed (default 600s)");
  cmd->add_option("--cpu-limit", a->cpu_limit, "RLIMIT_CPU of a run (default: the timeout on every core)");
  cmd->add_option("--memory-limit", a->memory_limit, "RLIMIT_AS of a run, e.g. 8GiB (default: none)");
  cmd->add_option("--file-size-limit", a->file_size_limit, "RLIMIT_FSIZE of a run (default 8GiB)");
  cmd->add_option("--open-files-limit", a->open_files, "RLIMIT_NOFILE of a run (default 4096)");
  cmd->add_option("--baseline", a->baseline,
                  "KEY=VALUE: the value of {KEY} in runs whose patch does not set it (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--config", a->config,
                  "The workload's JSON or YAML config: each run gets a patched copy as {config}")
      ->check(CLI::ExistingFile);
  cmd->add_option("--env-prefix", a->env_prefix,
                  "Also pass every patch key as an environment variable PREFIXKEY (dots as _, upper case)");
  cmd->add_option("--apply", a->apply,
                  "Write the best validated patch into this JSON/YAML config, with a rollback file beside it")
      ->check(CLI::ExistingFile);
  cmd->add_option("--rollback", a->rollback, "Restore this config as it was before --apply, byte for byte");
  cmd->add_flag("--force", a->force, "--apply even when nothing was validated; --rollback over later edits");
  cmd->add_flag("--feedback", a->feedback, "Record what was measured in the knowledge-base outcomes");
  cmd->add_option("--kb-outcomes", a->kb_outcomes,
                  "The outcomes file --feedback updates (default: $CANN_DEBUG_KB_OUTCOMES, else "
                  "~/.local/share/cann-debug/outcomes.json)");
  cmd->add_option("--kb-dir", a->kb_dir,
                  "The knowledge base whose templates declare patch types (default: the pipelines')");
  cmd->add_option("--only", a->only, "Try only this suggestion (an id or a template id; repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--suggestions", a->max_suggestions, "Try at most this many suggestions (default 3)")
      ->check(CLI::Range(1, 100));
  cmd->add_option("--min-gain", a->min_gain,
                  "Relative improvement a validated suggestion needs (default 0.05)")
      ->check(CLI::Range(0.0, 10.0));
  cmd->add_option("--scenario", a->scenario, "Scenario of the re-diagnoses (default: the diagnosis')");
  cmd->add_option("--work", a->work_dir,
                  "Keep the runs' folders here (default: a temporary folder, removed)");
  cmd->add_flag("--keep", a->keep, "Keep the temporary folder of the runs");
  cmd->add_flag("--json", a->json_out, "One JSON document on stdout (docs/optimize.md)");
  return {cmd, [&g, a] { return optimize(g, *a); }};
}

}  // namespace cann_debug::cli
