#include "online_diagnosis.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <filesystem>
#include <mutex>
#include <thread>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "cann_debug/messages.hpp"
#include "cann_debug/time.hpp"
#include "diagnose_run.hpp"
#include "scenario_pipeline.hpp"

namespace cann_debug::cli {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kWindowsComponent = "anomaly_windows/detect";
constexpr const char* kWindowsSchema = "cann-debug.anomaly-window/1";

double cpu_seconds() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

std::string clock_text(std::int64_t ns) {
  const auto t = std::chrono::system_clock::time_point(std::chrono::seconds(ns / 1'000'000'000));
  return fmt::format("{:%H:%M:%S}.{:03d}", t, (ns % 1'000'000'000) / 1'000'000);
}

bool overlaps(const json& ref, std::int64_t start, std::int64_t end) {
  if (!ref.contains("start_ns") || !ref.contains("end_ns")) return false;
  return ref["start_ns"].get<std::int64_t>() <= end && ref["end_ns"].get<std::int64_t>() >= start;
}

/// What the diagnosis of the folder says about one window: the ranking, and the top cause's evidence that
/// overlaps the window (all of it when none does: the cause may rest on the whole run).
json diagnosis_of_window(const json& doc, std::int64_t start, std::int64_t end) {
  json d = {{"scenario", doc.value("scenario", "")}, {"healthy", doc.value("healthy", false)}};
  json ranking = json::array();
  for (const auto& c : doc["root_causes"])
    if (ranking.size() < 3) ranking.push_back({{"id", c["id"]}, {"confidence", c["confidence"]}});
  d["root_causes"] = ranking;
  if (doc["root_causes"].empty()) return d;
  const json& top = doc["root_causes"][0];
  d["top_cause"] = top["id"];
  d["confidence"] = top["confidence"];
  if (top.contains("explanation")) d["explanation"] = top["explanation"];
  json inside = json::array(), all = json::array();
  for (const auto& e : top.value("evidence", json::array())) {
    all.push_back(e);
    if (overlaps(e, start, end)) inside.push_back(e);
  }
  d["evidence_in_window"] = !inside.empty();
  d["evidence"] = inside.empty() ? all : inside;
  return d;
}

}  // namespace

std::string window_line(const json& row) {
  std::string what;
  const auto& series = row.value("series", json::array());
  if (!series.empty()) {
    const auto& s = series[0];
    std::string labels;
    const json labels_of = s.value("labels", json::object());
    for (const auto& [k, v] : labels_of.items())
      labels += fmt::format("{}{}={}", labels.empty() ? "" : ",", k, v.get<std::string>());
    if (s.contains("device") && !labels_of.contains("device"))
      labels += fmt::format("{}device={}", labels.empty() ? "" : ",", s["device"].get<int>());
    what = fmt::format("{}{} {:.4g} -> {:.4g} (z {:+.0f})", s.value("name", ""),
                       labels.empty() ? "" : "{" + labels + "}", s.value("baseline", 0.0),
                       s.value("peak_value", 0.0), s.value("peak_z", 0.0));
    if (row.value("series_total", 0) > 1)
      what += fmt::format(" and {} more series", row.value("series_total", 0) - 1);
  }
  const double seconds =
      static_cast<double>(row.value("closed_ns", std::int64_t{0}) - row.value("start_ns", std::int64_t{0})) *
      1e-9;
  std::string verdict;
  if (row.contains("error")) {
    verdict = "not diagnosed: " + row["error"].get<std::string>();
  } else if (row.contains("diagnosis")) {
    const auto& d = row["diagnosis"];
    verdict = fmt::format("{}{} {:.2f}", row.value("late", false) ? "(diagnosed later) " : "",
                          d.value("top_cause", "?"), d.value("confidence", 0.0));
    for (const auto& e : d.value("evidence", json::array())) {
      if (e.value("first_step", -1) >= 0) {
        verdict +=
            fmt::format(" (steps {}-{})", e["first_step"].get<std::int64_t>(), e.value("last_step", -1));
        break;
      }
    }
    if (!row.value("late", false))
      verdict +=
          fmt::format("; printed {:.2f} s after the window closed", row.value("latency_ms", 0.0) * 1e-3);
  } else {
    verdict = "marked";
  }
  return fmt::format("window {} at {} for {:.2f} s ({}): {} => {}", row.value("window", 0),
                     clock_text(row.value("start_ns", std::int64_t{0})), seconds, row.value("closed_by", ""),
                     what.empty() ? "no series" : what, verdict);
}

std::string latency_text(const json& summary) {
  if (!summary.contains("latency_ms")) return {};
  const auto& l = summary["latency_ms"];
  return fmt::format("printed {:.0f} ms (median) and at most {:.0f} ms after a window closed",
                     l.value("p50", 0.0), l.value("max", 0.0));
}

FollowResult follow_run(const GlobalOptions& g, const FollowRequest& request) {
  FollowResult result;
  const auto pipeline = find_scenario_pipeline("follow");
  if (!pipeline) {
    result.rc = kNotFound;
    result.error = fmt::format("no pipeline 'follow.yaml' in {}", fmt::join(pipeline_search_path(), ", "));
    return result;
  }
  const double cpu_before = cpu_seconds();
  const auto wall_before = std::chrono::steady_clock::now();

  std::mutex mutex;
  std::condition_variable ready;
  std::deque<json> pending;
  bool finished = false;
  int follow_rc = kOk;

  std::thread follower([&] {
    TapRequest tap;
    tap.pipeline = *pipeline;
    tap.input = request.run_dir;
    tap.tap_ports = {{kWindowsComponent, "windows"}};
    tap.set_on_type["recording"] = {{"follow_idle_timeout", request.idle_timeout_ns},
                                    {"follow_interval", request.poll_interval_ns}};
    tap.interrupt = request.interrupt;
    tap.interrupt_fd = request.interrupt_fd;
    tap.on_message = [&](const TappedMessage& m) {
      if (!m.envelope.is<RecordBatch>()) return;
      const auto& batch = m.envelope.as<RecordBatch>();
      if (batch.schema != kWindowsSchema) return;
      std::lock_guard lock(mutex);
      for (const auto& r : batch.records) pending.push_back(r.fields);
      ready.notify_one();
    };
    EmbeddedRun run;
    const int rc = run_tapped(g, tap, run);
    std::lock_guard lock(mutex);
    follow_rc = rc;
    finished = true;
    ready.notify_one();
  });

  std::FILE* log = nullptr;
  if (request.diagnose) {
    const auto path = fs::path(request.run_dir) / "diagnoses.jsonl";
    log = std::fopen(path.c_str(), "w");  // this follow's windows only
    if (!log && request.print_to)
      fmt::print(request.print_to, "follow: cannot write {}: {}\n", path.string(), std::strerror(errno));
  }
  std::vector<double> latencies;
  std::size_t diagnosed = 0;
  // Windows the folder could not be diagnosed for yet (early in a run it may not tell its scenario): they
  // are answered again with the next diagnosis, and at the end.
  std::deque<json> retry;
  for (bool last = false; !last;) {
    std::deque<json> batch;
    {
      std::unique_lock lock(mutex);
      ready.wait(lock, [&] { return !pending.empty() || finished; });
      last = finished && pending.empty();
      if (last && retry.empty()) break;
      batch.swap(pending);
    }
    for (auto& w : retry) {
      w["late"] = true;
      batch.push_front(std::move(w));
    }
    retry.clear();
    // Windows that closed together are answered by one diagnosis of the folder as it stands now.
    json doc;
    std::string error;
    double diagnose_ms = 0;
    if (request.diagnose) {
      DiagnoseRequest d;
      d.input = request.run_dir;
      d.scenario = request.scenario;
      d.kb_outcomes = request.kb_outcomes;
      const auto t0 = std::chrono::steady_clock::now();
      const DiagnoseResult r = diagnose_folder(g, d);
      diagnose_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      if (r.rc != kOk)
        error = r.error;
      else
        doc = r.document;
    }
    const std::int64_t now = wall_clock_ns();
    for (auto& w : batch) {
      json row = w;
      const auto start = w.value("start_ns", std::int64_t{0});
      const auto closed = w.value("closed_ns", std::int64_t{0});
      row["start"] = clock_text(start);
      if (request.diagnose) {
        if (!error.empty()) {
          row["error"] = error;
          if (!last && !w.value("late", false)) retry.push_back(w);
        } else {
          row["diagnosis"] = diagnosis_of_window(doc, start, closed);
        }
        row["diagnosed_ns"] = now;
        row["diagnose_ms"] = diagnose_ms;
        row["latency_ms"] = static_cast<double>(now - closed) * 1e-6;
        row["after_last_anomaly_ms"] = static_cast<double>(now - w.value("end_ns", closed)) * 1e-6;
        if (error.empty()) {
          ++diagnosed;
          // The latency of online diagnosis: windows closed by quiet and answered at once.
          if (w.value("closed_by", "") == "quiet" && !w.value("late", false))
            latencies.push_back(row["latency_ms"].get<double>());
        }
      }
      if (request.print_to) {
        fmt::print(request.print_to, "{}\n", request.json_lines ? row.dump() : window_line(row));
        std::fflush(request.print_to);
      }
      if (log) {
        fmt::print(log, "{}\n", row.dump());
        std::fflush(log);
      }
      result.windows.push_back(std::move(row));
    }
  }
  follower.join();
  if (log) std::fclose(log);
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_before).count();
  const double cpu_s = cpu_seconds() - cpu_before;
  result.summary = {{"windows", result.windows.size()},
                    {"diagnosed", diagnosed},
                    {"wall_s", wall_s},
                    {"cpu_s", cpu_s},
                    {"cpu_share", wall_s > 0 ? cpu_s / wall_s : 0.0}};
  if (!latencies.empty())
    result.summary["latency_ms"] = {{"p50", quantile(latencies, 0.5)},
                                    {"max", *std::max_element(latencies.begin(), latencies.end())},
                                    {"windows", latencies.size()}};
  result.rc = follow_rc;
  if (follow_rc != kOk) result.error = "following the recording failed (above)";
  return result;
}

}  // namespace cann_debug::cli
