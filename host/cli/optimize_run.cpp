#include "optimize_run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include <fmt/format.h>

#include "cann_debug/reader/numbers.hpp"
#include "diagnose_run.hpp"

namespace cann_debug::cli {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

/// The value of feature `name` among `sets`: the run-scope one first, else the first of any scope.
std::optional<double> feature_value(const std::vector<FeatureSet>& sets, const std::string& name) {
  std::optional<double> any;
  for (const FeatureSet& set : sets)
    for (const Feature& f : set.features) {
      if (f.name != name) continue;
      if (set.scope == "run") return f.value;
      if (!any) any = f.value;
    }
  return any;
}

/// A number for JSON: itself when finite, else "nan", "inf" or "-inf" (the corpus convention).
json number_or_string(double v) {
  return std::isfinite(v) ? json(v) : json(plugins::readers::nonfinite_name(v));
}

json optional_number(const std::optional<double>& v) {
  return v ? number_or_string(*v) : json();
}

/// The values of `metric` in the runs that measured it.
std::vector<double> metric_values(const std::vector<RunOutcome>& runs, const std::string& metric) {
  std::vector<double> out;
  for (const auto& run : runs)
    if (auto it = run.metrics.find(metric); it != run.metrics.end()) out.push_back(it->second);
  return out;
}

/// The mean confidence of `cause` over the diagnosed runs (0 where a re-diagnosis does not rank it).
double mean_confidence(const std::vector<RunOutcome>& runs, const std::string& cause) {
  double sum = 0.0;
  std::size_t diagnosed = 0;
  for (const auto& run : runs) {
    if (!run.diagnosed) continue;
    ++diagnosed;
    if (auto it = run.named_causes.find(cause); it != run.named_causes.end()) sum += it->second;
  }
  return diagnosed ? sum / static_cast<double>(diagnosed) : 0.0;
}

std::string label_of(const Candidate& c) {
  return c.is_baseline() ? "baseline" : c.template_id;
}

/// Measures a tried suggestion against the baseline run of each repeat and says whether it is validated.
void measure(CandidateResult& s, const std::vector<RunOutcome>& baseline, const OptimizeSettings& settings) {
  const std::string& metric = s.candidate.target_metric;
  const std::string& cause = s.candidate.root_cause;
  const std::vector<double> base_metric = metric_values(baseline, metric);
  const std::vector<double> cand_metric = metric_values(s.runs, metric);
  if (!base_metric.empty()) {
    double sum = 0;
    for (double v : base_metric) sum += v;
    s.baseline_value = sum / static_cast<double>(base_metric.size());
  }
  bool all_ok = !s.runs.empty(), diagnosed_all = all_ok, measured_all = all_ok, top_named = false;
  for (const auto& run : s.runs) {
    all_ok = all_ok && run.ok();
    diagnosed_all = diagnosed_all && run.diagnosed;
    // A run whose output could not be read for the target metric is diagnosed from nothing, and "healthy"
    // from nothing says nothing: gone only where the runs gave the evidence.
    measured_all = measured_all && run.metrics.contains(metric);
    top_named = top_named || (run.diagnosed && run.top_cause == cause);
    const auto base = std::find_if(baseline.begin(), baseline.end(),
                                   [&](const RunOutcome& b) { return b.repeat == run.repeat; });
    if (base == baseline.end()) continue;
    auto bv = base->metrics.find(metric);
    auto cv = run.metrics.find(metric);
    if (bv == base->metrics.end() || cv == run.metrics.end()) continue;
    s.improvements.push_back(relative_improvement(bv->second, cv->second, s.candidate.better));
  }
  s.measured = estimate(s.improvements);
  s.median_improvement = s.improvements.empty() ? 0.0 : median(s.improvements);
  s.p_value = mann_whitney_p(base_metric, cand_metric, s.candidate.better);
  const double run_confidence = mean_confidence(s.runs, cause);
  const bool cause_named =
      top_named || (run_confidence > 0 && run_confidence > 0.5 * mean_confidence(baseline, cause));
  s.root_cause_gone = diagnosed_all && measured_all && !cause_named;
  const std::size_t wanted = static_cast<std::size_t>(settings.repeats);
  const double weakest =
      s.improvements.empty() ? 0.0 : *std::min_element(s.improvements.begin(), s.improvements.end());
  if (!all_ok) {
    std::string why;
    for (const auto& run : s.runs)
      if (!run.ok()) {
        why = !run.plan_error.empty() ? run.plan_error
              : !run.sandbox.ok()     ? "the workload " + run.sandbox.describe()
                                      : "its output could not be diagnosed: " + run.diagnose_error;
        break;
      }
    s.verdict = fmt::format("not validated: {}", why.empty() ? "it did not run" : why);
  } else if (s.improvements.size() < wanted) {
    // Name the side whose output lacked the metric, and a run folder to look at.
    const RunOutcome* lacking = nullptr;
    for (const auto& run : s.runs)
      if (!run.metrics.contains(metric)) lacking = lacking ? lacking : &run;
    const std::string side = lacking ? fmt::format("its runs' output does not hold it (see {})", lacking->dir)
                                     : std::string("the baseline's runs' output does not hold it");
    s.verdict = fmt::format("not validated: {} was measured in {} of {} repeats: {}", metric,
                            s.improvements.size(), wanted, side);
  } else if (s.median_improvement < settings.min_gain) {
    s.verdict =
        fmt::format("not validated: {} improved by {:.1f}% (median of {} repeats; at least {:.0f}% needed)",
                    metric, 100 * s.median_improvement, wanted, 100 * settings.min_gain);
  } else if (wanted >= 3 && s.p_value > settings.alpha) {
    s.verdict = fmt::format(
        "not validated: {} improved by {:.1f}% (median), but its runs are not reliably better than the "
        "baseline's (Mann-Whitney p = {:.3f} > {})",
        metric, 100 * s.median_improvement, s.p_value, settings.alpha);
  } else if (wanted < 3 && weakest < settings.min_gain) {
    s.verdict = fmt::format(
        "not validated: {} improved by {:.1f}% in one repeat of {} (with fewer than 3 repeats every repeat "
        "must improve by {:.0f}%)",
        metric, 100 * weakest, wanted, 100 * settings.min_gain);
  } else {
    s.validated = true;
    s.verdict = fmt::format("validated: {} improved by {:.1f}% (median of {} repeats{})", metric,
                            100 * s.median_improvement, wanted,
                            wanted >= 3 ? fmt::format("; Mann-Whitney p = {:.3f}", s.p_value)
                                        : std::string("; every repeat improved"));
  }
}

}  // namespace

json RunOutcome::to_json() const {
  json j = {{"repeat", repeat}, {"dir", dir}, {"argv", argv}};
  if (!plan_error.empty()) {
    j["error"] = plan_error;
    return j;
  }
  j["started"] = sandbox.started;
  j["exit_code"] = sandbox.exit_code;
  j["ended"] = sandbox.describe();
  j["timed_out"] = sandbox.timed_out;
  j["left_processes"] = sandbox.left_processes;
  j["elapsed_s"] = sandbox.elapsed_s;
  j["stdout"] = sandbox.stdout_log;
  j["stderr"] = sandbox.stderr_log;
  if (!sandbox.ok() && !sandbox.stderr_tail.empty()) j["stderr_tail"] = sandbox.stderr_tail;
  j["diagnosed"] = diagnosed;
  if (!diagnose_error.empty()) j["diagnose_error"] = diagnose_error;
  if (diagnosed) {
    j["diagnosis"] = {
        {"top_cause", top_cause}, {"confidence", top_confidence}, {"root_causes", named_causes}};
  }
  json m = json::object();
  for (const auto& [name, value] : metrics) m[name] = number_or_string(value);
  j["metrics"] = m;
  return j;
}

json CandidateResult::to_json() const {
  const Candidate& c = candidate;
  json j = {{"id", c.id},
            {"root_cause", c.root_cause},
            {"template", c.template_id},
            {"title", c.title},
            {"patch", c.patch},
            {"passed_keys", c.passed_keys},
            {"unpassed_keys", c.unpassed_keys},
            {"expected_improvement", c.expected_improvement},
            {"improvement_source", c.improvement_source},
            {"target_metric", c.target_metric},
            {"target_better", std::string(better_name(c.better))},
            {"applicable", c.applicable}};
  if (!c.applicable) {
    j["reason"] = c.reason;
    j["validated"] = false;
    j["runs"] = json::array();
    return j;
  }
  j["baseline_value"] = optional_number(baseline_value);
  j["improvements"] = improvements;
  j["measured_improvement"] = measured.n ? json(measured.mean) : json();
  j["interval"] = measured.low ? json::array({*measured.low, *measured.high}) : json();
  j["median_improvement"] = measured.n ? json(median_improvement) : json();
  j["p_value"] = p_value;
  j["validated"] = validated;
  j["root_cause_gone"] = root_cause_gone;
  j["verdict"] = verdict;
  json r = json::array();
  for (const auto& run : runs) r.push_back(run.to_json());
  j["runs"] = r;
  return j;
}

const CandidateResult* OptimizeResult::best() const {
  const CandidateResult* best = nullptr;
  for (const auto& s : suggestions)
    if (s.validated && (!best || s.median_improvement > best->median_improvement)) best = &s;
  return best;
}

OptimizeResult run_optimize(const GlobalOptions& g, const std::vector<Candidate>& candidates,
                            const WorkloadInterface& workload, const OptimizeSettings& settings,
                            const OptimizeProgress& progress, const std::function<bool()>& stop) {
  OptimizeResult result;
  std::vector<const Candidate*> runnable;
  for (const auto& c : candidates) {
    if (c.is_baseline()) {
      runnable.insert(runnable.begin(), &c);
    } else {
      result.suggestions.push_back({c});
      if (c.applicable) runnable.push_back(&c);
    }
  }
  std::set<std::string> metric_names;
  for (const auto* c : runnable)
    if (!c->is_baseline()) metric_names.insert(c->target_metric);
  auto result_of = [&](const Candidate* c) -> std::vector<RunOutcome>& {
    if (c->is_baseline()) return result.baseline;
    for (auto& s : result.suggestions)
      if (s.candidate.id == c->id) return s.runs;
    throw std::logic_error("optimize: no result slot for " + c->id);
  };

  const std::size_t total = runnable.size() * static_cast<std::size_t>(settings.repeats);
  std::size_t index = 0;
  for (int repeat = 1; repeat <= settings.repeats && !result.interrupted; ++repeat) {
    for (std::size_t k = 0; k < runnable.size() && !result.interrupted; ++k) {
      const Candidate* c = runnable[k];
      ++index;
      RunOutcome run;
      run.repeat = repeat;
      run.dir = (fs::path(settings.work_dir) / fmt::format("{:02}-{}-r{}", k, label_of(*c), repeat)).string();
      if (progress.started)
        progress.started(index, total, fmt::format("{} #{}", c->is_baseline() ? "baseline" : c->id, repeat));
      try {
        fs::create_directories(run.dir);
        RunInvocation inv = invocation_of(*c, workload, run.dir, repeat);
        run.argv = inv.argv;
        SandboxSpec spec{inv.argv,           inv.env,         run.dir,
                         settings.timeout_s, settings.limits, settings.max_log_bytes};
        if (!std::getenv("PYTHONUNBUFFERED")) spec.env.emplace_back("PYTHONUNBUFFERED", "1");
        spec.env.emplace_back("CANN_DEBUG_RUN_DIR", (fs::path(run.dir) / "output").string());
        auto last_tick = std::chrono::steady_clock::now();
        const auto began = last_tick;
        run.sandbox = run_in_sandbox(spec, [&] {
          const auto now = std::chrono::steady_clock::now();
          if (progress.running && now - last_tick >= std::chrono::seconds(1)) {
            last_tick = now;
            progress.running(std::chrono::duration<double>(now - began).count());
          }
          if (stop && stop()) {
            result.interrupted = true;
            return true;
          }
          return false;
        });
      } catch (const std::exception& e) {
        run.plan_error = e.what();
      }
      if (run.plan_error.empty() && run.sandbox.ok()) {
        // The workload's own output folder when it wrote one, else its sandbox (stdout.log is a log too).
        const fs::path output = fs::path(run.dir) / "output";
        const bool wrote_output = fs::exists(output) && !fs::is_empty(output);
        DiagnoseRequest request;
        request.input = wrote_output ? output.string() : run.dir;
        request.scenario = settings.scenario.empty() ? "auto" : settings.scenario;
        request.run_inputs = true;
        const DiagnoseResult d = diagnose_folder(g, request);
        if (d.rc != kOk) {
          run.diagnose_error = d.error;
        } else {
          run.diagnosed = true;
          const json& causes = d.document["root_causes"];
          if (!causes.empty()) {
            run.top_cause = causes[0].value("id", "");
            run.top_confidence = causes[0].value("confidence", 0.0);
          }
          for (const json& rc : causes) run.named_causes[rc.value("id", "")] = rc.value("confidence", 0.0);
          for (const auto& name : metric_names)
            if (auto v = feature_value(d.features, name)) run.metrics[name] = *v;
          run.config = d.config;
        }
      }
      if (progress.finished) progress.finished(run);
      result_of(c).push_back(std::move(run));
    }
  }

  for (auto& s : result.suggestions)
    if (s.candidate.applicable) measure(s, result.baseline, settings);
  return result;
}

}  // namespace cann_debug::cli
