#include "fusion_summary.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "cli_common.hpp"
#include "stats_inputs.hpp"

namespace cann_debug::cli {
namespace {

namespace fs = std::filesystem;

std::string iso(std::int64_t ns) {
  if (ns <= 0) return "";
  // Whole seconds through the calendar, the fraction by hand: fmt's %T drops it for some precisions.
  const std::int64_t s = ns / 1'000'000'000, us = (ns % 1'000'000'000) / 1000;
  const auto t = std::chrono::system_clock::time_point(std::chrono::seconds(s));
  return fmt::format("{:%FT%H:%M:%S}.{:06d}Z", t, us);
}

std::string kind_of(const stats::FileStats& f) {
  if (f.recording.is_object()) return "hardware";
  if (f.events > 0) return "trace";
  if (f.reader == "host_metrics") return "host";
  if (f.reader == "json_file") return "document";  // a run's config or a report: no time axis of its own
  return "log";
}

std::string clock_of(const stats::FileStats& f, const std::string& kind) {
  if (kind == "hardware") return "collect's samplers: the host's CLOCK_REALTIME";
  if (f.keys.span.empty()) return "none (no timestamps: aligned by step or request keys only)";
  if (kind == "trace") return "the workload's trace clock (epoch)";
  return "the workload's own timestamps (epoch)";
}

}  // namespace

nlohmann::json lag_summary(std::vector<double> lags_s) {
  nlohmann::json j = {{"lines_compared", lags_s.size()}};
  if (lags_s.empty()) return j;
  std::vector<double> abs_lags(lags_s.size());
  std::transform(lags_s.begin(), lags_s.end(), abs_lags.begin(), [](double v) { return std::fabs(v); });
  j["median_s"] = quantile(lags_s, 0.5);
  j["p95_abs_s"] = quantile(abs_lags, 0.95);
  j["max_abs_s"] = *std::max_element(abs_lags.begin(), abs_lags.end());
  return j;
}

nlohmann::json fusion_summary(const host::PluginRegistry& registry, const std::string& run_dir,
                              const WorkloadRun& run, const std::string& recording_path) {
  nlohmann::json workload = {
      {"pid", run.pid},
      {"attached", run.attached},
      {"started_at", iso(run.started_ns)},
      {"ended_at", iso(run.ended_ns)},
      {"seconds",
       run.ended_ns > run.started_ns ? static_cast<double>(run.ended_ns - run.started_ns) * 1e-9 : 0.0},
      {"signals_forwarded", run.signals_forwarded},
      {"interrupted", run.interrupted}};
  if (!run.command.empty()) workload["command"] = run.command;
  if (!run.start_error.empty()) workload["start_error"] = run.start_error;
  if (!run.ended.empty()) {
    workload["ended"] = run.ended;
    workload["exit_code"] = run.exit_code;
  }

  nlohmann::json streams = nlohmann::json::object();
  for (const auto& [name, totals] : run.streams) {
    auto s = totals.to_json();
    s["file"] = name + ".log";
    // The offset between the workload's clock and collect's, from lines that carry their own time: the
    // arrival is after the write, so a positive median is the pipe's (and stdio's buffering) delay.
    s["clock_offset"] = lag_summary(totals.lags_s);
    streams[name] = std::move(s);
  }

  nlohmann::json sources = nlohmann::json::array();
  std::uint64_t stored = 0, raw = 0;
  const auto in = stats::collect_input(registry, run_dir, {});
  const fs::path root(run_dir);
  for (const auto& f : in.files) {
    // collect's own outputs are not sources of the run.
    if (const auto rel = fs::relative(f.path, root).generic_string();
        rel == "fusion.json" || rel == "diagnoses.jsonl")
      continue;
    const std::string kind = kind_of(f);
    nlohmann::json s = {{"path", fs::relative(f.path, root).generic_string()},
                        {"kind", kind},
                        {"reader", f.reader},
                        {"clock", clock_of(f, kind)}};
    if (f.status != stats::ReadStatus::kOk) s["error"] = f.error;
    if (kind == "hardware") {
      s["series"] = f.recording.value("series", std::uint64_t{0});
      s["samples"] = f.recording.value("samples_total", std::uint64_t{0});
      s["samples_kept"] = f.recording.value("samples_kept", std::uint64_t{0});
      s["summaries"] = f.recording.value("summaries", std::uint64_t{0});
      const auto file_bytes = f.recording.value("file_bytes", std::uint64_t{0});
      // Raw: one (timestamp, value) pair of 8 bytes each per sample, what a plain array of them would take.
      const std::uint64_t raw_bytes = 16 * s["samples"].get<std::uint64_t>();
      s["stored_bytes"] = file_bytes;
      s["raw_bytes"] = raw_bytes;
      stored += file_bytes;
      raw += raw_bytes;
    } else {
      s["records"] = f.records;
      s["metric_points"] = f.metric_points;
      s["events"] = f.events;
      s["requests"] = f.keys.requests.size();
      s["steps"] = f.keys.steps.size();
      s["ranks"] = f.keys.ranks;
      std::error_code ec;
      const auto bytes = fs::is_regular_file(f.path, ec) ? fs::file_size(f.path, ec) : 0;
      stored += ec ? 0 : bytes;
      raw += ec ? 0 : bytes;
    }
    if (!f.keys.span.empty()) {
      s["first_at"] = iso(f.keys.span.first_ns);
      s["last_at"] = iso(f.keys.span.last_ns);
      // How far the source's times fall outside the workload's lifetime: 0 when the clocks agree to within
      // what the run shows; more is a clock offset (or a file left from an earlier run).
      if (run.started_ns > 0 && run.ended_ns > 0) {
        const double before = static_cast<double>(run.started_ns - f.keys.span.first_ns) * 1e-9;
        const double after = static_cast<double>(f.keys.span.last_ns - run.ended_ns) * 1e-9;
        s["outside_run_s"] = std::max({0.0, before, after});
      }
    }
    sources.push_back(std::move(s));
  }
  nlohmann::json skipped = nlohmann::json::array();
  for (const auto& sk : in.skipped) {
    const std::string rel = fs::relative(sk.path, root).generic_string();
    if (rel == "fusion.json" || rel == "diagnoses.jsonl") continue;
    skipped.push_back({{"path", rel}, {"reason", sk.reason}});
  }
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  return {{"version", 1},
          {"run_dir", run_dir},
          {"host", host},
          {"collector_clock", "CLOCK_REALTIME"},
          {"workload", workload},
          {"streams", streams},
          {"recording", fs::relative(recording_path, root).generic_string()},
          {"sources", sources},
          {"not_read", skipped},
          {"copied", run.copied},
          {"stored_bytes", stored},
          {"raw_bytes", raw},
          {"stored_over_raw", raw ? static_cast<double>(stored) / static_cast<double>(raw) : 1.0}};
}

}  // namespace cann_debug::cli
