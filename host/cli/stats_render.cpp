#include "stats_render.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <string>
#include <utility>

#include "stats_hta_view.hpp"

namespace cann_debug::cli::stats {

namespace {

using nlohmann::json;

// 10^18 ns after the epoch is 2001-09-09: no profiler or log timestamp on the epoch clock is older, and
// clocks relative to a profiler's start stay far below it unless a run lasted 31 years.
constexpr TimestampNs kEpochClockFloorNs = 1'000'000'000'000'000'000;
constexpr std::size_t kJsonTopNames = 100;  // event names listed in JSON (the count of all is given)
constexpr std::size_t kTextTop = 8;         // entries per list in the text report

const char* status_name(ReadStatus s) {
  switch (s) {
    case ReadStatus::kOk:
      return "ok";
    case ReadStatus::kPartial:
      return "partial";
    case ReadStatus::kFailed:
      return "failed";
  }
  return "failed";
}

std::vector<std::pair<std::string, std::uint64_t>> top(const std::map<std::string, std::uint64_t>& counts,
                                                       std::size_t n) {
  std::vector<std::pair<std::string, std::uint64_t>> v(counts.begin(), counts.end());
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  if (v.size() > n) v.resize(n);
  return v;
}

std::string clock_of(const FileStats& f) {
  if (f.trace_info.is_object() && f.trace_info.contains("clock") && f.trace_info["clock"].is_string())
    return f.trace_info["clock"].get<std::string>();
  if (f.keys.span.empty()) return "none";
  return f.keys.span.first_ns >= kEpochClockFloorNs ? "epoch" : "unknown";
}

json span_json(const FileStats& f) {
  const TimeSpan& s = f.keys.span;
  if (s.empty()) return nullptr;
  return {{"first_ns", s.first_ns},
          {"last_ns", s.last_ns},
          {"duration_s", static_cast<double>(s.last_ns - s.first_ns) * 1e-9},
          {"timestamped", s.timestamped},
          {"clock", clock_of(f)}};
}

json steps_json(const std::set<std::int64_t>& steps) {
  if (steps.empty()) return nullptr;
  return {{"count", steps.size()}, {"first", *steps.begin()}, {"last", *steps.rbegin()}};
}

json file_json(const FileStats& f) {
  json j = {{"path", f.path},
            {"reader", f.reader},
            {"sniff_score", f.sniff_score},
            {"also_claimed_by", f.also_claimed_by},
            {"status", status_name(f.status)},
            {"seconds", f.seconds}};
  if (!f.error.empty()) j["error"] = f.error;
  json names = json::object();
  for (const auto& [name, n] : top(f.events_by_name, kJsonTopNames)) names[name] = n;
  j["events"] = {{"count", f.events},
                 {"by_category", f.events_by_category},
                 {"by_phase", f.events_by_phase},
                 {"distinct_names", f.events_by_name.size()},
                 {"top_names", names}};
  j["trace"] = f.trace_info;
  if (!f.recording.is_null()) j["recording"] = f.recording;
  j["records"] = {{"count", f.records}, {"by_field", f.records_by_field}};
  json series = json::object();
  for (const auto& [name, s] : f.metrics_by_name) series[name] = {{"unit", s.unit}, {"points", s.points}};
  j["metrics"] = {{"count", f.metric_points}, {"series", series}};
  j["other_messages"] = f.other_messages;
  j["ranks"] = f.keys.ranks;
  j["devices"] = f.keys.devices;
  j["nodes"] = f.keys.nodes;
  j["steps"] = steps_json(f.keys.steps);
  j["requests"] = f.keys.requests.size();
  j["span"] = span_json(f);
  return j;
}

std::string join_counts(const std::vector<std::pair<std::string, std::uint64_t>>& v, std::size_t all) {
  std::string s;
  for (const auto& [name, n] : v)
    s += fmt::format("{}{} ({})", s.empty() ? "" : ", ", name.empty() ? "\"\"" : name, n);
  if (all > v.size()) s += fmt::format(", ... {} more", all - v.size());
  return s;
}

std::string time_text(TimestampNs ns) {
  const std::time_t seconds = static_cast<std::time_t>(ns / 1'000'000'000);
  const auto micros = (ns % 1'000'000'000) / 1000;
  return fmt::format("{:%Y-%m-%dT%H:%M:%S}.{:06}Z", fmt::gmtime(seconds), micros);
}

std::string ints_text(const std::set<std::int32_t>& v) {
  return v.empty() ? "-" : fmt::format("{}", fmt::join(v, ","));
}

void print_recording(std::FILE* out, const json& r) {
  const auto kept = r.value("samples_kept", std::uint64_t{0});
  const auto total = r.value("samples_total", std::uint64_t{0});
  fmt::print(out, "  recording: format {}, {} chunks, {} series, {}{}\n", r.value("format_version", 0),
             r.value("chunks", 0), r.value("series", 0),
             r.value("closed_cleanly", false) ? "closed cleanly" : "NOT closed cleanly",
             r.value("retention", false) ? ", anomaly-window retention" : "");
  fmt::print(out, "    samples: {} kept at full resolution of {} ({:.2f}% retained), {} summaries\n", kept,
             total, 100.0 * r.value("retained_share", 1.0), r.value("summaries", 0));
  fmt::print(out, "    file: {} bytes, {:.2f} bytes per sample\n", r.value("file_bytes", 0),
             r.value("bytes_per_sample", 0.0));
  if (r.contains("recovery_note")) fmt::print(out, "    {}\n", r["recovery_note"].get<std::string>());
}

void print_file(std::FILE* out, const FileStats& f) {
  fmt::print(out, "{}\n", f.path);
  fmt::print(out, "  reader: {} (sniff {}{}{})  read in {:.3f} s\n", f.reader, f.sniff_score,
             f.also_claimed_by.empty() ? "" : "; also claimed by ", fmt::join(f.also_claimed_by, ", "),
             f.seconds);
  if (f.status != ReadStatus::kOk)
    fmt::print(out, "  {}: {}\n",
               f.status == ReadStatus::kPartial ? "PARTIAL (counts cover what was read)" : "FAILED", f.error);
  if (f.trace_info.is_object()) {
    const auto& t = f.trace_info;
    fmt::print(out, "  trace: format {}, clock {}, rank {} ({})\n", t.value("format", "?"),
               t.value("clock", "?"), t.contains("rank") ? t["rank"].dump() : "?",
               t.value("rank_source", "?"));
  }
  if (f.recording.is_object()) print_recording(out, f.recording);
  if (f.events > 0) {
    fmt::print(out, "  events: {}\n", f.events);
    fmt::print(out, "    by category: {}\n",
               join_counts(top(f.events_by_category, kTextTop), f.events_by_category.size()));
    fmt::print(out, "    by phase: {}\n",
               join_counts(top(f.events_by_phase, kTextTop), f.events_by_phase.size()));
    fmt::print(out, "    top names: {}\n",
               join_counts(top(f.events_by_name, kTextTop), f.events_by_name.size()));
  }
  if (f.records > 0) {
    fmt::print(out, "  records: {}\n", f.records);
    fmt::print(out, "    fields: {}\n",
               join_counts(top(f.records_by_field, 2 * kTextTop), f.records_by_field.size()));
  }
  if (f.metric_points > 0) {
    std::map<std::string, std::uint64_t> points;
    for (const auto& [name, s] : f.metrics_by_name) points[name] = s.points;
    fmt::print(out, "  metric points: {} in {} series\n", f.metric_points, f.metrics_by_name.size());
    fmt::print(out, "    series: {}\n", join_counts(top(points, 2 * kTextTop), points.size()));
  }
  for (const auto& [type, n] : f.other_messages) fmt::print(out, "  {} messages: {}\n", type, n);
  if (f.events + f.records + f.metric_points == 0 && f.other_messages.empty() && f.status == ReadStatus::kOk)
    fmt::print(out, "  (nothing in it)\n");
  const auto& k = f.keys;
  std::string steps = "-";
  if (!k.steps.empty())
    steps = fmt::format("{} ({}..{})", k.steps.size(), *k.steps.begin(), *k.steps.rbegin());
  fmt::print(out, "  ranks: {}  devices: {}  steps: {}{}\n", ints_text(k.ranks), ints_text(k.devices), steps,
             k.requests.empty() ? "" : fmt::format("  requests: {}", k.requests.size()));
  if (!k.span.empty()) {
    const double seconds = static_cast<double>(k.span.last_ns - k.span.first_ns) * 1e-9;
    if (clock_of(f) == "epoch")
      fmt::print(out, "  span: {} .. {} ({:.6f} s)\n", time_text(k.span.first_ns), time_text(k.span.last_ns),
                 seconds);
    else
      fmt::print(out, "  span: {} .. {} ns on a {} clock ({:.6f} s)\n", k.span.first_ns, k.span.last_ns,
                 clock_of(f), seconds);
  }
}

std::string figure(const json& rank, const char* name, const char* format = "{:.2f}") {
  if (!rank.contains(name) || !rank[name].is_number()) return "-";
  return fmt::format(fmt::runtime(format), rank[name].get<double>());
}

void print_hta(std::FILE* out, const HtaResult& hta) {
  const json view = hta_view(hta);
  fmt::print(out, "HTA-parity trace metrics (hta_metrics{}):\n",
             hta.partial ? "; PARTIAL: a trace was not read to its end" : "");
  if (!hta.error.empty()) {
    fmt::print(out, "  error: {}\n", hta.error);
    return;
  }
  if (view["ranks"].empty()) {
    fmt::print(out, "  no rank has GPU/NPU kernels\n");
    return;
  }
  fmt::print(out, "  {:>5} {:>8} {:>10} {:>13} {:>10} {:>16} {:>9}\n", "rank", "idle %", "compute %",
             "non-compute %", "overlap %", "kernel time us", "launches");
  for (const auto& [rank, r] : view["ranks"].items()) {
    if (!r.contains("kernel_time")) {
      fmt::print(out, "  {:>5} no GPU/NPU kernels: no temporal breakdown\n", rank);
      continue;
    }
    std::string launches = "-";
    if (r.contains("cuda_kernel_launch_stats") && r["cuda_kernel_launch_stats"].contains("n"))
      launches = fmt::format("{}", r["cuda_kernel_launch_stats"]["n"].get<double>());
    fmt::print(out, "  {:>5} {:>8} {:>10} {:>13} {:>10} {:>16} {:>9}\n", rank, figure(r, "idle_time_pctg"),
               figure(r, "compute_time_pctg"), figure(r, "non_compute_time_pctg"),
               figure(r, "comp_comm_overlap_pctg"), figure(r, "kernel_time", "{:.0f}"), launches);
  }
  for (const auto& [rank, r] : view["ranks"].items()) {
    if (!r.contains("kernel_type_breakdown")) continue;
    std::string kinds;
    for (const auto& row : r["kernel_type_breakdown"])
      kinds +=
          fmt::format("{}{} {:.0f} us ({:.1f} %)", kinds.empty() ? "" : ", ", row.value("kernel_type", "?"),
                      row.value("sum", 0.0), row.value("percentage", 0.0));
    fmt::print(out, "  rank {} kernel types: {}\n", rank, kinds);
  }
  if (view.contains("potential_stragglers"))
    fmt::print(
        out, "  potential stragglers: {}\n",
        view["potential_stragglers"].empty() ? std::string("none") : view["potential_stragglers"].dump());
  fmt::print(out, "  (--json has every figure: idle time per stream and category, launch statistics, ...)\n");
}

}  // namespace

json to_json(const std::vector<InputStats>& inputs, const CollectOptions& options, int exit_code) {
  json list = json::array();
  for (const auto& in : inputs) {
    json j = {{"argument", in.argument},
              {"kind",
               in.error.empty() || !in.files.empty() ? (in.is_directory ? "folder" : "file") : "unreadable"}};
    if (!in.error.empty()) j["error"] = in.error;
    json files = json::array();
    for (const auto& f : in.files) files.push_back(file_json(f));
    j["files"] = std::move(files);
    json skipped = json::array();
    for (const auto& s : in.skipped) skipped.push_back({{"path", s.path}, {"reason", s.reason}});
    j["skipped"] = std::move(skipped);
    j["hta"] = in.hta ? hta_view(*in.hta) : json(nullptr);
    list.push_back(std::move(j));
  }
  return {{"format", "cann-debug.stats/1"},
          {"hta_options", {{"include_last_profiler_step", options.include_last_profiler_step}}},
          {"inputs", std::move(list)},
          {"exit_code", exit_code}};
}

void print_text(std::FILE* out, const std::vector<InputStats>& inputs) {
  bool first = true;
  for (const auto& in : inputs) {
    if (!first) fmt::print(out, "\n");
    first = false;
    if (in.is_directory) fmt::print(out, "== {} (folder: {} file(s) read)\n", in.argument, in.files.size());
    if (!in.error.empty()) fmt::print(out, "error: {}\n", in.error);
    for (const auto& f : in.files) print_file(out, f);
    for (const auto& s : in.skipped) fmt::print(out, "skipped {}: {}\n", s.path, s.reason);
    if (in.hta) print_hta(out, *in.hta);
  }
}

}  // namespace cann_debug::cli::stats
