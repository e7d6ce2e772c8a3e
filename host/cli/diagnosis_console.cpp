#include "diagnosis_console.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "suggestion_choice.hpp"

namespace cann_debug::cli {
namespace {

using nlohmann::json;

constexpr std::size_t kEvidenceShown = 6;
constexpr std::size_t kOperatorsShown = 5;
constexpr std::size_t kRanksShown = 8;
constexpr std::size_t kSuggestionsShown = 3;

double number_or(const json& j, const char* key, double fallback) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : fallback;
}

/// The report model's shape built from a diagnose document, for pipelines without a report.
json model_from_document(const json& doc) {
  json causes = doc.value("root_causes", json::array());
  return {{"diagnosis",
           {{"healthy", doc.value("healthy", false)},
            {"root_causes", causes},
            {"details", doc.value("details", json::object())}}},
          {"suggestions", doc.value("suggestions", json::array())},
          {"operators", nullptr},
          {"ranks", json::array()}};
}

/// The analyzer's reason when the input held no signal its graph reads (details.undetermined); "" otherwise.
std::string undetermined_reason(const json& details) {
  if (!details.is_object()) return {};
  const auto it = details.find("undetermined");
  return it != details.end() && it->is_string() ? it->get<std::string>() : std::string();
}

void print_verdict(const json& causes, bool healthy, const std::string& undetermined) {
  if (!undetermined.empty()) {
    fmt::print("Verdict:    undetermined: {}\n", undetermined);
  } else if (healthy) {
    double conf = 0.0;
    for (const auto& c : causes)
      if (c.value("id", "") == "healthy") conf = number_or(c, "confidence", 0.0);
    fmt::print("Verdict:    healthy (confidence {:.2f})\n", conf);
  } else if (!causes.empty()) {
    fmt::print("Root cause: {} (confidence {:.2f})\n", causes[0].value("id", "?"),
               number_or(causes[0], "confidence", 0.0));
  }
  if (causes.size() > 1) {
    fmt::print("Ranked:\n");
    for (const auto& c : causes)
      fmt::print("  {:<28} {:.3f}\n", c.value("id", "?"), number_or(c, "confidence", 0.0));
  }
  if (!causes.empty() && causes[0].contains("path") && !causes[0]["path"].empty())
    fmt::print("Path:       {}\n", fmt::join(causes[0]["path"].get<std::vector<std::string>>(), " -> "));
}

/// Whether the named cause rests on a rank: the last step of its path is a variable read from a rank.*
/// feature (a straggler's gap or skew, an imbalance), not from a stage or a link that the skew only sits
/// beside. The explanation spells each step as "var=state (what it is): feature = value".
bool cause_rests_on_rank(const json& causes) {
  if (causes.empty() || !causes[0].contains("path") || causes[0]["path"].empty()) return false;
  const std::string step = causes[0]["path"].back().get<std::string>();
  const std::string text = causes[0].value("explanation", "");
  const auto at = text.find(step + " (");
  if (at == std::string::npos) return false;
  const auto colon = text.find("): ", at);
  return colon != std::string::npos && text.compare(colon + 3, 5, "rank.") == 0;
}

/// Who waited for whom. Asserted as the direction of a diagnosis whose cause rests on that rank; beside a
/// healthy verdict or another cause it is only an observation, so the lines never contradict.
void print_direction(const json& details, const json& causes, bool healthy) {
  if (!details.is_object() || !details.contains("who_waited_for_whom")) return;
  const auto& w = details["who_waited_for_whom"];
  if (!w.contains("late_rank") || !w["late_rank"].is_number()) return;
  const double late = w["late_rank"].get<double>();
  std::string skew;
  if (w.contains("rank.collective_wait_skew") && w["rank.collective_wait_skew"].contains("value")) {
    skew = fmt::format("the longest waiter lost {:.0f}% of a step",
                       100.0 * number_or(w["rank.collective_wait_skew"], "value", 0.0));
  } else if (w.contains("rank.step_split_gap") && w["rank.step_split_gap"].contains("value")) {
    // A profiler's step split (Ascend cluster analysis): the gap of the rank against the fastest of its
    // pipeline stage, in the part of the step where it stood out.
    const auto& gap = w["rank.step_split_gap"];
    const double pct = 100.0 * number_or(gap, "value", 0.0);
    const json labels = gap.value("labels", json::object());
    const std::string dimension = labels.value("dimension", "");
    const std::string stage = labels.value("stage", "");
    const std::string of_stage = stage.empty() ? "" : fmt::format(" of stage {}", stage);
    if (dimension == "computing")
      skew = fmt::format("it computed {:.0f}% of a step longer than the fastest rank{}", pct, of_stage);
    else if (dimension == "free")
      skew =
          fmt::format("its device idled {:.0f}% of a step longer than the least idle rank{}", pct, of_stage);
    else
      skew = fmt::format("the longest waiter{} lost {:.0f}% of a step", of_stage, pct);
  }
  if (healthy || !cause_rests_on_rank(causes))
    fmt::print("Observed:   rank {:.0f} reached the collectives last{}\n", late,
               skew.empty() ? ""
                            : fmt::format("; {} ({})", skew,
                                          healthy ? "no cause named for it" : "not the cause named above"));
  else
    fmt::print("Direction:  rank {:.0f} held the others up in the collectives{}\n", late,
               skew.empty() ? "" : fmt::format(" ({})", skew));
}

/// The observations of the details (transients the run recovered from, restarts, warnings), one line each.
void print_observations(const json& details) {
  if (!details.is_object() || !details.contains("observations") || !details["observations"].is_array())
    return;
  for (const auto& o : details["observations"]) {
    std::string line = o.value("text", "");
    if (line.empty()) continue;
    if (!o.value("where", "").empty()) line += " (" + o.value("where", "") + ")";
    fmt::print("Observed:   {}\n", line);
  }
}

/// An evidence id as a person reads it: a path under --input relative to it.
std::string relative_to_input(const std::string& id, const std::string& input) {
  if (input.empty()) return id;
  std::filesystem::path base(input);
  if (!std::filesystem::is_directory(base)) base = base.parent_path();
  std::string prefix = base.lexically_normal().string();
  if (!prefix.empty() && prefix.back() != '/') prefix += '/';
  const std::string normal = std::filesystem::path(id).lexically_normal().string();
  if (prefix.size() > 1 && normal.starts_with(prefix) && normal.size() > prefix.size())
    return normal.substr(prefix.size());
  return id;
}

/// The same id with every run of digits replaced by '#': rank0.trace.json and rank7.trace.json share it.
std::string digits_folded(const std::string& id) {
  std::string out;
  for (std::size_t i = 0; i < id.size(); ++i) {
    if (std::isdigit(static_cast<unsigned char>(id[i]))) {
      out += '#';
      while (i + 1 < id.size() && std::isdigit(static_cast<unsigned char>(id[i + 1]))) ++i;
    } else {
      out += id[i];
    }
  }
  return out;
}

void print_evidence(const json& causes, const std::string& input) {
  // One line per distinct piece of evidence of a cause; references that differ only in a number (the
  // same steps of eight ranks' traces) are one line with "and the same for N more".
  struct Line {
    std::string cause, text, key;
    std::vector<std::string> others;  // the ids of the references folded into this line
  };
  std::vector<Line> lines;
  for (const auto& c : causes)
    for (const auto& e : c.value("evidence", json::array())) {
      const std::string kind = e.value("kind", "");
      const std::string id = relative_to_input(e.value("id", ""), input);
      std::string where = kind;
      if (!id.empty()) where += " " + id;
      const long first = e.value("first_step", -1L), last = e.value("last_step", -1L);
      if (first >= 0 && kind == "line")  // a log event without a step: its line in the file
        where = fmt::format("{} at line {}", id, first);
      else if (first >= 0 && last > first)
        where += fmt::format(" steps {}-{}", first, last);
      else if (first >= 0)
        where += fmt::format(" step {}", first);
      const std::string cause = c.value("id", "");
      const std::string key =
          cause + "|" + kind + "|" + digits_folded(id) + fmt::format("|{}|{}", first, last);
      auto same = std::find_if(lines.begin(), lines.end(), [&](const Line& l) { return l.key == key; });
      if (same == lines.end())
        lines.push_back({cause, where, key, {}});
      else if (same->text != where &&
               std::find(same->others.begin(), same->others.end(), id) == same->others.end())
        same->others.push_back(id);
    }
  std::size_t shown = 0;
  for (const Line& l : lines) {
    if (shown == 0) fmt::print("Evidence:\n");
    if (++shown > kEvidenceShown) return;
    std::string folded;
    if (l.others.size() > 2)
      folded = fmt::format(", and the same for {} more", l.others.size());
    else if (!l.others.empty())
      folded = fmt::format("; also {}", fmt::join(l.others, ", "));
    fmt::print("  [{}] {}{}\n", l.cause, l.text, folded);
  }
}

void print_operators(const json& operators) {
  if (!operators.is_object() || !operators.contains("rows") || operators["rows"].empty()) return;
  fmt::print("Top operators (self time, of {} operator events):\n", operators.value("events", 0L));
  std::size_t shown = 0;
  for (const auto& r : operators["rows"]) {
    if (++shown > kOperatorsShown) break;
    std::string name = r.value("name", "?");
    if (name.size() > 72) name = name.substr(0, 69) + "...";  // a templated kernel's full signature
    fmt::print("  {:<40} {:>10.3f} ms {:>5.1f}%  x{}\n", name, number_or(r, "self_ms", 0.0),
               100.0 * number_or(r, "share", 0.0), r.value("count", 0L));
  }
}

void print_ranks(const json& ranks) {
  if (!ranks.is_array() || ranks.empty()) return;
  fmt::print("Ranks (ms per step: compute / communication / free):\n");
  std::vector<json> sorted(ranks.begin(), ranks.end());
  // The slowest steps first: a straggler and the ranks that waited for it lead.
  std::stable_sort(sorted.begin(), sorted.end(), [](const json& a, const json& b) {
    return number_or(a, "step_ms", 0.0) > number_or(b, "step_ms", 0.0);
  });
  std::size_t shown = 0;
  for (const auto& r : sorted) {
    if (++shown > kRanksShown) {
      fmt::print("  ... {} more in the report\n", sorted.size() - kRanksShown);
      break;
    }
    const std::string rank = r["rank"].is_string() ? r["rank"].get<std::string>() : r["rank"].dump();
    fmt::print("  rank {:<6} {:>9.1f} = {:.1f} / {:.1f} / {:.1f}\n", rank, number_or(r, "step_ms", 0.0),
               number_or(r, "compute_ms", 0.0), number_or(r, "communication_ms", 0.0),
               number_or(r, "free_ms", 0.0));
  }
}

void print_suggestions(const json& suggestions, const std::string& input) {
  // The rationale cites evidence by path: under --input, relative to it, as the Evidence lines do.
  std::string prefix;
  if (!input.empty()) {
    std::filesystem::path base(input);
    if (!std::filesystem::is_directory(base)) base = base.parent_path();
    prefix = base.string();
    if (!prefix.empty() && prefix.back() != '/') prefix += '/';
  }
  const std::vector<std::size_t> chosen = suggestions_to_show(suggestions, kSuggestionsShown);
  if (chosen.empty()) return;
  fmt::print("Suggestions:\n");
  std::size_t shown = 0;
  for (std::size_t i : chosen) {
    const json& s = suggestions[i];
    std::string rationale = s.value("rationale", "");
    if (prefix.size() > 1)
      for (std::size_t at = rationale.find(prefix); at != std::string::npos; at = rationale.find(prefix, at))
        rationale.erase(at, prefix.size());
    fmt::print("  {}. {} — {}\n", ++shown, s.value("title", ""), rationale);
    if (s.contains("config_patch") && !s["config_patch"].is_null() && !s["config_patch"].empty())
      fmt::print("     patch: {}\n", s["config_patch"].dump());
  }
  if (suggestions.size() > chosen.size())
    fmt::print("  ... {} more with --json or in the report\n", suggestions.size() - chosen.size());
}

}  // namespace

void print_diagnosis_text(const json& doc, const json& report) {
  const json model =
      report.is_object() && report["diagnosis"].is_object() ? report : model_from_document(doc);
  const json& diagnosis = model["diagnosis"];
  const json causes = diagnosis.value("root_causes", json::array());
  fmt::print("Scenario:   {} ({})\n", doc.value("scenario", "?"), doc.value("scenario_from", ""));
  const json details = diagnosis.value("details", json::object());
  const bool healthy = diagnosis.value("healthy", false);
  const std::string undetermined = undetermined_reason(details);
  print_verdict(causes, healthy, undetermined);
  print_direction(details, causes, healthy);
  if (undetermined.empty() && !causes.empty() && !causes[0].value("explanation", "").empty())
    fmt::print("Why:        {}\n", causes[0].value("explanation", ""));
  print_observations(details);
  print_evidence(causes, doc.value("input", ""));
  print_operators(model.value("operators", json()));
  print_ranks(model.value("ranks", json::array()));
  print_suggestions(model.value("suggestions", json::array()), doc.value("input", ""));
  if (doc.contains("output")) fmt::print("Report:     {}\n", doc["output"].get<std::string>());
  fmt::print("Time:       {:.0f} ms\n", doc.value("elapsed_ms", 0.0));
}

}  // namespace cann_debug::cli
