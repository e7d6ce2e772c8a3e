// Per-query time of exact inference (bayes_exact's junction tree, all marginals) on the shared BIF
// corpus, against a naive variable-elimination baseline (topological order, one run per variable, no
// caching) measured in the same run. Nets beyond the clique limit are reported as too large.
//
//   cann_debug_bench_bayes [--nets asia,alarm,...] [--bn-dir DIR] [--min-time SECONDS]
//                          [--baseline-budget SECONDS] [--max-clique-entries N] [--smoke]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cann_debug/causal_graph/graph_loader.hpp"
#include "core/errors.hpp"
#include "core/junction_tree.hpp"
#include "naive_elimination.hpp"

namespace {

using namespace cann_debug::bayes;
using Clock = std::chrono::steady_clock;

// Baseline factors beyond 2^24 entries (128 MiB) are not attempted.
constexpr double kBaselineFactorLimit = 16777216.0;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

struct Settings {
  std::vector<std::string> nets = {"asia", "alarm", "hepar2", "win95pts", "andes",
                                   "pigs", "munin", "barley", "link"};
  std::filesystem::path bn_dir = std::filesystem::path(CANN_DEBUG_SHARED_DIR) / "bn";
  double min_time = 1.0;          // seconds of exact queries per net (at least one pass over the queries)
  double baseline_budget = 20.0;  // seconds of baseline per net; the rest of its queries are skipped
  double max_clique_entries = kDefaultMaxCliqueEntries;
  bool smoke = false;
};

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string part; std::getline(in, part, ',');)
    if (!part.empty()) out.push_back(part);
  return out;
}

std::vector<Likelihoods> load_queries(const Network& net, const std::filesystem::path& file) {
  std::ifstream in(file);
  const auto doc = nlohmann::json::parse(in);
  std::vector<Likelihoods> out;
  for (const auto& q : doc)
    out.push_back(make_likelihoods(net, q.at("evidence").get<std::map<std::string, std::string>>(), {}));
  return out;
}

std::string fmt_time(double seconds) {
  char buf[64];
  if (seconds >= 1.0)
    std::snprintf(buf, sizeof buf, "%.2f s", seconds);
  else if (seconds >= 1e-3)
    std::snprintf(buf, sizeof buf, "%.2f ms", seconds * 1e3);
  else
    std::snprintf(buf, sizeof buf, "%.1f us", seconds * 1e6);
  return buf;
}

struct Baseline {
  std::string text;    // per-query time, or why there is none
  double seconds = 0;  // per query; 0 when none
  double worst = 0;    // max |baseline - exact| over the queries it answered
};

Baseline run_baseline(const Settings& s, const Network& net, const std::vector<Likelihoods>& queries,
                      const std::vector<InferenceResult>& exact, bench::NaiveOrder order) {
  Baseline b;
  std::size_t done = 0;
  const auto t0 = Clock::now();
  try {
    for (std::size_t i = 0; i < queries.size(); ++i) {
      if (i > 0 && seconds_since(t0) > s.baseline_budget) break;
      const InferenceResult r = bench::naive_all_marginals(net, queries[i], order, kBaselineFactorLimit);
      b.worst = std::max(b.worst, max_abs_difference(r, exact[i]));
      ++done;
    }
  } catch (const TooLargeError& e) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "too large (2^%.0f)", std::ceil(std::log2(e.clique_entries())));
    b.text = buf;
    return b;
  }
  b.seconds = seconds_since(t0) / static_cast<double>(done);
  b.text = fmt_time(b.seconds);
  if (done < queries.size()) b.text += " (" + std::to_string(done) + "q)";
  return b;
}

int run_net(const Settings& s, const std::string& name) {
  const Network net = load_graph((s.bn_dir / (name + ".bif")).string());
  const auto queries = load_queries(net, s.bn_dir / "queries" / (name + ".json"));
  const auto t_compile = Clock::now();
  std::optional<JunctionTree> tree;
  try {
    tree.emplace(net, CompileOptions{.max_clique_entries = s.max_clique_entries});
  } catch (const TooLargeError& e) {
    std::printf("%-11s %5zu  TOO LARGE: %s\n", name.c_str(), net.size(), e.what());
    return 0;
  }
  const double compile_s = seconds_since(t_compile);
  // Exact: whole passes over the queries until min_time.
  std::vector<InferenceResult> exact(queries.size());
  std::size_t runs = 0;
  const auto t_exact = Clock::now();
  do {
    for (std::size_t i = 0; i < queries.size(); ++i) exact[i] = tree->query(queries[i]);
    runs += queries.size();
  } while (seconds_since(t_exact) < s.min_time);
  const double exact_s = seconds_since(t_exact) / static_cast<double>(runs);
  const Baseline topo = run_baseline(s, net, queries, exact, bench::NaiveOrder::kTopological);
  const Baseline rev = run_baseline(s, net, queries, exact, bench::NaiveOrder::kReverseTopological);
  double best = 0;
  for (const Baseline* b : {&topo, &rev})
    if (b->seconds > 0 && (best == 0 || b->seconds < best)) best = b->seconds;
  char speedup[32] = "-";
  if (best > 0) std::snprintf(speedup, sizeof speedup, "%.0fx", best / exact_s);
  const auto& st = tree->stats();
  std::printf("%-11s %5zu %7zu %10.0f %11.0f %10s %11s %17s %17s %9s\n", name.c_str(), net.size(), st.cliques,
              st.max_clique_entries, st.total_entries, fmt_time(compile_s).c_str(), fmt_time(exact_s).c_str(),
              topo.text.c_str(), rev.text.c_str(), speedup);
  return std::max(topo.worst, rev.worst) <= 1e-9 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Settings s;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--smoke") {
      s.smoke = true;
      s.nets = {"asia"};
      s.min_time = 0.0;
      s.baseline_budget = 1.0;
    } else if (a == "--nets") {
      s.nets = split(value());
    } else if (a == "--bn-dir") {
      s.bn_dir = value();
    } else if (a == "--min-time") {
      s.min_time = std::stod(value());
    } else if (a == "--baseline-budget") {
      s.baseline_budget = std::stod(value());
    } else if (a == "--max-clique-entries") {
      s.max_clique_entries = std::stod(value());
    } else {
      std::fprintf(stderr,
                   "usage: %s [--nets a,b,...] [--bn-dir DIR] [--min-time S] [--baseline-budget S] "
                   "[--max-clique-entries N] [--smoke]\n",
                   argv[0]);
      return 2;
    }
  }
  if (!std::filesystem::is_directory(s.bn_dir / "queries")) {
    std::printf("no BIF corpus at %s: nothing to measure\n", s.bn_dir.c_str());
    return 0;
  }
  std::printf(
      "Per query, all marginals. exact: junction tree (bayes_exact), max_clique_entries %.0f. baseline: "
      "variable elimination once per variable, fixed topological order (parents first) or its reverse, no "
      "caching, factors up to 2^24 entries, %.0f s budget per net; speedup against the faster baseline.\n",
      s.max_clique_entries, s.baseline_budget);
  std::printf("%-11s %5s %7s %10s %11s %10s %11s %17s %17s %9s\n", "net", "vars", "cliques", "largest",
              "total", "compile", "exact", "VE topological", "VE reverse", "speedup");
  int failures = 0;
  for (const auto& name : s.nets) {
    try {
      failures += run_net(s, name);
    } catch (const std::exception& e) {
      std::printf("%s: error: %s\n", name.c_str(), e.what());
      ++failures;
    }
  }
  return failures == 0 ? 0 : 1;
}
