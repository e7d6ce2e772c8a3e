// Throughput of a 5-stage chain (source -> 3 pass-through stages -> counting sink), run two ways in one
// process with the same messages (bench.tick/1 envelopes, one shared payload allocation each):
//
//   chain/host/...         the bench_chain plugin package loaded by host::PluginRegistry, the pipeline
//                          parsed and planned by the host, and run by host::GraphRunner;
//   chain/raw_tbb/...      the same chain written directly in oneTBB (input_node -> 3 serial function_nodes
//                          -> serial function_node sink, passing the same Envelope by value);
//   chain/host_vs_raw/...  both, alternately in every iteration, with the ratio host/raw (the figure the
//                          summary line reports);
//   chain/raw_tbb_lightweight/...  for reference: the raw chain with oneTBB's lightweight policy (a free
//                          stage runs in the putting thread), i.e. what inline execution is worth.
//
// Own flags (before the Google Benchmark ones): --messages=N (per run, default 200000), and --smoke (a tiny
// N, one iteration each: proves the chains still run and deliver every message; times mean nothing).
// Exits non-zero when a chain loses, duplicates or fails a message (order is not checked: oneTBB
// function_nodes may reorder, see the raw chain).
#include <oneapi/tbb/flow_graph.h>
#include <oneapi/tbb/info.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "bench_message.hpp"
#include "diagnostic.hpp"
#include "graph_runner.hpp"
#include "pipeline_document.hpp"
#include "pipeline_plan.hpp"
#include "plugin_registry.hpp"

namespace {

namespace flow = oneapi::tbb::flow;
namespace host = cann_debug::host;
using cann_debug::Envelope;
using cann_debug::bench::BenchTick;
using cann_debug::bench::make_tick;
using Clock = std::chrono::steady_clock;

std::atomic<bool> g_failed{false};

struct ChainResult {
  std::uint64_t delivered = 0;
  std::string error;  // empty when every message arrived exactly once
};

// ---- the raw oneTBB chain ------------------------------------------------------------------------------

// Note: oneTBB (2021.8) function_node frees its serial slot and starts the next body before it puts the
// output to its successors, so messages can overtake each other between stages. The sink checks that all
// arrived once, not their order.
// With Policy = queueing_lightweight (chain/raw_tbb_lightweight, for reference only) a free stage runs in the
// thread that puts to it: no task per hop, and no pipelining either.
template <typename Policy = flow::queueing>
ChainResult run_raw_chain(std::uint64_t n) {
  flow::graph g;
  std::uint64_t next = 0;
  flow::input_node<Envelope> source(g, [&next, n](oneapi::tbb::flow_control& fc) -> Envelope {
    if (next >= n) {
      fc.stop();
      return {};
    }
    return make_tick(next++);
  });
  // noexcept: oneTBB applies the lightweight policy only to bodies that cannot throw.
  auto pass = [](const Envelope& e) noexcept { return e; };
  flow::function_node<Envelope, Envelope, Policy> p1(g, flow::serial, pass);
  flow::function_node<Envelope, Envelope, Policy> p2(g, flow::serial, pass);
  flow::function_node<Envelope, Envelope, Policy> p3(g, flow::serial, pass);
  ChainResult result;
  std::uint64_t sum = 0;
  flow::function_node<Envelope, flow::continue_msg, Policy> sink(g, flow::serial,
                                                                 [&result, &sum](const Envelope& e) noexcept {
                                                                   if (e.is<BenchTick>())
                                                                     sum += e.as<BenchTick>().seq;
                                                                   ++result.delivered;
                                                                   return flow::continue_msg{};
                                                                 });
  flow::make_edge(source, p1);
  flow::make_edge(p1, p2);
  flow::make_edge(p2, p3);
  flow::make_edge(p3, sink);
  source.activate();
  g.wait_for_all();
  if (!cann_debug::bench::tick_checksum_ok(result.delivered, sum, n))
    result.error = fmt::format("expected messages 0..{} once each, got {} messages with seq sum {}", n - 1,
                               result.delivered, sum);
  return result;
}

// ---- the host chain --------------------------------------------------------------------------------------

const host::PluginRegistry& bench_registry() {
  static host::PluginRegistry registry;
  static const bool loaded = (registry.load_from({CANN_DEBUG_BENCH_PLUGIN_DIR}), true);
  (void)loaded;
  return registry;
}

// `stages` picks the pass/sink types: "" = lightweight (bench_pass), "_serial" = a task per message per
// stage.
std::string pipeline_text(std::uint64_t n, std::uint64_t per_poll, std::string_view stages) {
  std::string text = fmt::format(
      "version: 1\n"
      "name: bench_chain\n"
      "components:\n"
      "  bench_source/src: {{ count: {}, per_poll: {} }}\n"
      "  bench_pass/p1: {{}}\n"
      "  bench_pass/p2: {{}}\n"
      "  bench_pass/p3: {{}}\n"
      "  bench_sink/sink: {{ expect: {} }}\n"
      "links:\n"
      "  - bench_source/src.out -> bench_pass/p1.in\n"
      "  - bench_pass/p1.out -> bench_pass/p2.in\n"
      "  - bench_pass/p2.out -> bench_pass/p3.in\n"
      "  - bench_pass/p3.out -> bench_sink/sink.in\n",
      n, per_poll, n);
  for (const char* type : {"bench_pass", "bench_sink"}) {
    std::string from = std::string(type) + "/", to = std::string(type) + std::string(stages) + "/";
    for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
      text.replace(at, from.size(), to);
  }
  return text;
}

/// The validated plan of the chain, or an error that says why there is none.
std::optional<host::PipelinePlan> plan_chain(std::uint64_t n, std::uint64_t per_poll, std::string_view stages,
                                             std::string& error) {
  const host::PluginRegistry& registry = bench_registry();
  host::Diagnostics diags;
  auto doc = host::parse_pipeline_text(pipeline_text(n, per_poll, stages), "bench_chain.yaml", {}, diags);
  std::optional<host::PipelinePlan> plan;
  if (doc && !diags.has_errors()) plan = host::plan_pipeline(*doc, registry, diags);
  if (!plan) {
    error = diags.to_string();
    for (const auto& p : registry.problems()) error += fmt::format("\n{}: {}", p.path, p.message);
    error += fmt::format("\n(plugin directory: {})", CANN_DEBUG_BENCH_PLUGIN_DIR);
  }
  return plan;
}

ChainResult run_host_chain(const host::PipelinePlan& plan, std::uint64_t n) {
  host::GraphRunner runner(plan, host::RunOptions{});
  host::RunReport report = runner.run();
  ChainResult result;
  for (const auto& node : report.nodes)
    if (node.id.ends_with("/sink")) result.delivered = node.received;
  if (!report.ok) {
    for (const auto& e : report.errors) result.error += e.to_string() + "\n";
  } else if (result.delivered != n) {
    result.error = fmt::format("{} of {} messages arrived", result.delivered, n);
  }
  return result;
}

// ---- benchmarks ------------------------------------------------------------------------------------------

bool check(benchmark::State& state, const ChainResult& r, std::string_view chain) {
  if (r.error.empty()) return true;
  g_failed = true;
  state.SkipWithError(fmt::format("{} chain: {}", chain, r.error).c_str());
  return false;
}

void set_rate(benchmark::State& state, std::uint64_t n) {
  const auto messages = static_cast<double>(n) * static_cast<double>(state.iterations());
  state.counters["msg/s"] = benchmark::Counter(messages, benchmark::Counter::kIsRate);
  state.SetItemsProcessed(static_cast<std::int64_t>(messages));
}

template <typename Policy>
void bm_raw(benchmark::State& state, std::uint64_t n) {
  for (auto _ : state)
    if (!check(state, run_raw_chain<Policy>(n), "raw oneTBB")) return;
  set_rate(state, n);
}

void bm_host(benchmark::State& state, std::uint64_t n, std::uint64_t per_poll, std::string stages) {
  std::string error;
  auto plan = plan_chain(n, per_poll, stages, error);
  if (!plan) {
    g_failed = true;
    state.SkipWithError(("host chain: cannot plan the pipeline: " + error).c_str());
    return;
  }
  for (auto _ : state)
    if (!check(state, run_host_chain(*plan, n), "host")) return;
  set_rate(state, n);
}

// Both chains in every iteration, alternately, so drift of the machine affects both alike.
void bm_host_vs_raw(benchmark::State& state, std::uint64_t n) {
  std::string error;
  auto plan = plan_chain(n, 1, "", error);
  if (!plan) {
    g_failed = true;
    state.SkipWithError(("host chain: cannot plan the pipeline: " + error).c_str());
    return;
  }
  double host_s = 0, raw_s = 0;
  for (auto _ : state) {
    auto t0 = Clock::now();
    if (!check(state, run_raw_chain(n), "raw oneTBB")) return;
    auto t1 = Clock::now();
    if (!check(state, run_host_chain(*plan, n), "host")) return;
    auto t2 = Clock::now();
    raw_s += std::chrono::duration<double>(t1 - t0).count();
    host_s += std::chrono::duration<double>(t2 - t1).count();
  }
  const auto messages = static_cast<double>(n) * static_cast<double>(state.iterations());
  state.counters["host_msg/s"] = benchmark::Counter(messages / host_s);
  state.counters["raw_msg/s"] = benchmark::Counter(messages / raw_s);
  state.counters["ratio"] = benchmark::Counter(raw_s / host_s);
}

// Keeps the host_vs_raw figures of the reported (final) runs for the summary line.
class SummaryReporter : public benchmark::ConsoleReporter {
 public:
  using ConsoleReporter::ConsoleReporter;
  struct Figures {
    double host = 0, raw = 0, ratio = 0;
  };
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs)
      if (r.run_type == Run::RT_Iteration && !r.error_occurred &&
          r.benchmark_name().find("host_vs_raw") != std::string::npos)
        figures_.push_back({r.counters.at("host_msg/s").value, r.counters.at("raw_msg/s").value,
                            r.counters.at("ratio").value});
    ConsoleReporter::ReportRuns(runs);
  }
  const std::vector<Figures>& figures() const { return figures_; }

 private:
  std::vector<Figures> figures_;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

void print_summary(const std::vector<SummaryReporter::Figures>& figures, bool smoke) {
  if (figures.empty()) return;
  if (smoke) {
    std::cout << "smoke run: every chain delivered every message; the figures below mean nothing\n";
  }
  std::vector<double> host, raw, ratio;
  for (const auto& f : figures) {
    host.push_back(f.host);
    raw.push_back(f.raw);
    ratio.push_back(f.ratio);
  }
  const double h = median(host), r = median(raw), q = median(ratio);
  std::cout << fmt::format("host: {:.0f} msg/s, raw oneTBB: {:.0f} msg/s, ratio: {:.3f}", h, r, q);
  if (figures.size() > 1) std::cout << fmt::format(" (median of {} runs)", figures.size());
  std::cout << fmt::format("\ntargets: ratio >= 0.8 {}, host >= 1M msg/s {} (on {} threads)\n",
                           q >= 0.8 ? "met" : "NOT met", h >= 1e6 ? "met" : "NOT met",
                           oneapi::tbb::info::default_concurrency());
}

bool take_flag(std::string_view arg, std::string_view name, std::string_view& value) {
  if (arg.substr(0, name.size()) != name) return false;
  value = arg.substr(name.size());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t n = 200000;
  bool smoke = false;
  // Take our own flags out before Google Benchmark sees the rest.
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i], value;
    if (arg == "--smoke") {
      smoke = true;
    } else if (take_flag(arg, "--messages=", value)) {
      char* end = nullptr;
      n = std::strtoull(std::string(value).c_str(), &end, 10);
      if (n == 0 || *end != '\0') {
        std::cerr << "cann_debug_bench: --messages wants a positive integer, got '" << value << "'\n";
        return 2;
      }
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  argv[argc] = nullptr;
  if (smoke) n = std::min<std::uint64_t>(n, 2000);
  // A reporter of our own does not see --benchmark_color; apply it (default: colour on a terminal).
  bool color = isatty(STDOUT_FILENO) != 0;
  for (int i = 1; i < argc; ++i) {
    std::string_view value;
    if (take_flag(argv[i], "--benchmark_color=", value))
      color = value == "true" || value == "yes" || value == "1" || (value == "auto" && color);
  }

  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::AddCustomContext("messages_per_run", std::to_string(n));
  benchmark::AddCustomContext("tbb_default_concurrency",
                              std::to_string(oneapi::tbb::info::default_concurrency()));

  std::vector<benchmark::internal::Benchmark*> benches = {
      benchmark::RegisterBenchmark(fmt::format("chain/raw_tbb/messages:{}", n).c_str(),
                                   bm_raw<flow::queueing>, n),
      benchmark::RegisterBenchmark(fmt::format("chain/raw_tbb_lightweight/messages:{}", n).c_str(),
                                   bm_raw<flow::queueing_lightweight>, n),
      benchmark::RegisterBenchmark(fmt::format("chain/host/messages:{}/per_poll:1", n).c_str(), bm_host, n, 1,
                                   std::string()),
      benchmark::RegisterBenchmark(fmt::format("chain/host/messages:{}/per_poll:64", n).c_str(), bm_host, n,
                                   64, std::string()),
      benchmark::RegisterBenchmark(fmt::format("chain/host_serial_stages/messages:{}/per_poll:1", n).c_str(),
                                   bm_host, n, 1, std::string("_serial")),
      benchmark::RegisterBenchmark(fmt::format("chain/host_vs_raw/messages:{}", n).c_str(), bm_host_vs_raw,
                                   n),
  };
  for (auto* b : benches) {
    b->UseRealTime()->Unit(benchmark::kMillisecond);
    if (smoke) b->Iterations(1);
  }
  // The ratio is the figure that matters: give it several alternating iterations of both chains.
  if (!smoke) benches.back()->MinTime(2.0);

  SummaryReporter reporter(color ? benchmark::ConsoleReporter::OO_ColorTabular
                                 : benchmark::ConsoleReporter::OO_Tabular);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  print_summary(reporter.figures(), smoke);
  if (g_failed) {
    std::cerr << "cann_debug_bench: a chain failed (see the errors above)\n";
    return 1;
  }
  return 0;
}
