#include "eval_scoring.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "diagnose_run.hpp"

namespace cann_debug::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

/// Locate time at which a diagnosis is worth nothing: a minute is as long as it takes to open a
/// dashboard and start reading it by hand (docs/diagnose.md).
constexpr double kLocateTimeBudgetMs = 60'000.0;

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// A temporary folder that links every file of a case but config.json; removed when it goes.
class SignalsOnlyView {
 public:
  explicit SignalsOnlyView(const fs::path& folder) {
    static int serial = 0;
    path_ = fs::temp_directory_path() / fmt::format("cann-debug-signals-{}-{}", ::getpid(), ++serial);
    fs::create_directories(path_);
    for (const auto& entry : fs::directory_iterator(folder)) {
      const std::string name = entry.path().filename().string();
      if (name == "config.json" || name == "expected.json") continue;
      fs::create_symlink(fs::absolute(entry.path()), path_ / name);
    }
  }
  ~SignalsOnlyView() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  SignalsOnlyView(const SignalsOnlyView&) = delete;
  SignalsOnlyView& operator=(const SignalsOnlyView&) = delete;
  std::string path() const { return path_.string(); }

 private:
  fs::path path_;
};

}  // namespace

json score_case(const GlobalOptions& g, const LabelledCase& c, const ScoreOptions& options) {
  std::optional<SignalsOnlyView> view;
  DiagnoseRequest req;
  req.input = c.folder;
  if (options.signals_only) {
    view.emplace(c.folder);
    req.input = view->path();
  }
  req.set_on_type = options.set_on_type;
  const DiagnoseResult r = diagnose_folder(g, req);
  json row = {{"case", c.folder}, {"label", c.root_cause}, {"scenario", c.scenario}};
  std::vector<std::string> ranked;
  if (r.rc != kOk) {
    row["error"] = r.error;
    ranked.push_back("error");
  } else {
    for (const auto& rc : r.document["root_causes"]) ranked.push_back(rc.value("id", ""));
    if (ranked.empty()) ranked.push_back(r.document.value("healthy", false) ? "healthy" : "unknown");
    row["elapsed_ms"] = r.document.value("elapsed_ms", 0.0);
    row["routed_to"] = r.document.value("scenario", "");
    row["confidence"] =
        r.document["root_causes"].empty() ? 0.0 : r.document["root_causes"][0].value("confidence", 0.0);
    // A suggestion is effective when one of the first three answers the labelled cause; a healthy run
    // is best served by none.
    const auto& suggestions = r.document["suggestions"];
    bool effective = false;
    if (c.root_cause == "healthy") {
      effective = suggestions.empty();
    } else {
      for (std::size_t i = 0; i < std::min<std::size_t>(3, suggestions.size()); ++i)
        if (suggestions[i].value("root_cause", "") == c.root_cause) effective = true;
    }
    row["suggestion_effective"] = effective;
  }
  row["predicted"] = ranked.front();
  row["ranked"] = ranked;
  return row;
}

json summarise(const std::vector<json>& rows) {
  std::map<std::string, std::map<std::string, int>> confusion;
  std::vector<double> times;
  std::size_t top1 = 0, top3 = 0, healthy_cases = 0, false_alarms = 0, failed = 0, effective = 0;
  for (const auto& row : rows) {
    const std::string label = row["label"];
    const auto ranked = row["ranked"].get<std::vector<std::string>>();
    const std::string predicted = row["predicted"];
    if (row.contains("error")) ++failed;
    if (row.contains("elapsed_ms")) times.push_back(row["elapsed_ms"].get<double>());
    if (row.value("suggestion_effective", false)) ++effective;
    if (predicted == label) ++top1;
    const auto end3 = ranked.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(3, ranked.size()));
    if (std::find(ranked.begin(), end3, label) != end3) ++top3;
    if (label == "healthy") {
      ++healthy_cases;
      if (predicted != "healthy") ++false_alarms;
    }
    ++confusion[label][predicted];
  }
  const double n = rows.empty() ? 1.0 : static_cast<double>(rows.size());
  const double acc1 = static_cast<double>(top1) / n;
  const double eff = static_cast<double>(effective) / n;
  const double med = median(times);
  const double t_norm = std::min(1.0, med / kLocateTimeBudgetMs);
  return {{"cases", rows.size()},
          {"failed", failed},
          {"top1_accuracy", acc1},
          {"top3_accuracy", static_cast<double>(top3) / n},
          {"healthy_cases", healthy_cases},
          {"false_alarms", false_alarms},
          {"false_alarm_rate", healthy_cases ? static_cast<double>(false_alarms) / healthy_cases : 0.0},
          {"median_ms", med},
          {"suggestion_effectiveness", eff},
          {"normalised_locate_time", t_norm},
          {"locate_time_budget_ms", kLocateTimeBudgetMs},
          {"dqi", (1.0 - t_norm) * acc1 * eff},
          {"confusion", confusion}};
}

void print_summary(const json& s, const std::string& in) {
  fmt::print("{}Cases: {} ({} failed)\n", in, s["cases"].get<std::size_t>(), s["failed"].get<std::size_t>());
  fmt::print("{}Top-1 accuracy:            {:.1f}%\n", in, 100 * s["top1_accuracy"].get<double>());
  fmt::print("{}Top-3 accuracy:            {:.1f}%\n", in, 100 * s["top3_accuracy"].get<double>());
  fmt::print("{}False alarms on healthy:   {:.1f}% ({} of {})\n", in,
             100 * s["false_alarm_rate"].get<double>(), s["false_alarms"].get<std::size_t>(),
             s["healthy_cases"].get<std::size_t>());
  fmt::print("{}Median diagnosis time:     {:.0f} ms\n", in, s["median_ms"].get<double>());
  fmt::print("{}Suggestion effectiveness:  {:.1f}%\n", in, 100 * s["suggestion_effectiveness"].get<double>());
  fmt::print("{}DQI:                       {:.3f}  = (1 - {:.4f}) x {:.3f} x {:.3f}\n", in,
             s["dqi"].get<double>(), s["normalised_locate_time"].get<double>(),
             s["top1_accuracy"].get<double>(), s["suggestion_effectiveness"].get<double>());
  fmt::print("{}Confusion (label -> predicted):\n", in);
  for (const auto& [label, row] : s["confusion"].items()) {
    std::string cells;
    for (const auto& [pred, k] : row.items()) cells += fmt::format(" {}={}", pred, k.get<int>());
    fmt::print("{}  {:<26}{}\n", in, label, cells);
  }
}

}  // namespace cann_debug::cli
