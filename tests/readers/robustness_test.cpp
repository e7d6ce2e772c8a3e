// Every file reader on damaged input: truncated at random points, with random bytes changed, with huge
// lines and keys. None may crash or hang; every error names the file; a reader with a records port ends
// with a partial batch carrying the error.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "ascend_communication.hpp"
#include "ascend_communication_matrix.hpp"
#include "ascend_kernel_details.hpp"
#include "ascend_op_statistic.hpp"
#include "ascend_step_trace.hpp"
#include "ascend_tool_csv.hpp"
#include "console_capture.hpp"
#include "csv_log.hpp"
#include "hf_trainer_state.hpp"
#include "host_metrics.hpp"
#include "metric_series_json.hpp"
#include "prometheus_text.hpp"
#include "readers_test_support.hpp"
#include "tensorboard_events.hpp"
#include "train_log.hpp"

namespace cann_debug::plugins {
namespace {

using namespace readers_test;
using testing::Harness;

struct Seed {
  const ComponentFactory* factory;
  std::string fixture;
};

std::vector<Seed> seeds() {
  return {{&ascend_kernel_details_factory(), "ascend/kernel_details_2025.csv"},
          {&ascend_op_statistic_factory(), "ascend/op_statistic.csv"},
          {&ascend_step_trace_factory(), "ascend/step_trace_time.csv"},
          {&ascend_communication_factory(), "ascend/communication.json"},
          {&ascend_communication_matrix_factory(), "ascend/cluster_communication_matrix.json"},
          {&console_capture_factory(), "console/usages_common.txt"},
          {&console_capture_factory(), "console/npu_smi_info_910b.txt"},
          {&csv_log_factory(), "training/steps.csv"},
          {&hf_trainer_state_factory(), "training/trainer_state.json"},
          {&host_metrics_factory(), "training/host_metrics.jsonl"},
          {&prometheus_text_factory(), "prometheus/npu_exporter.prom"},
          {&ascend_tool_csv_factory(), "tool.csv"},
          {&train_log_factory(), "llm/megatron.log"},
          {&metric_series_json_factory(), "llm/golden_values.json"},
          {&tensorboard_events_factory(), "llm/events.out.tfevents.1700000000.host.1.0"}};
}

std::string seed_text(const Seed& s) {
  if (s.fixture == "tool.csv")
    return "time,dev_id,power,freq,temp\n1670052428,0,69.6,1000,42\n1670052442,0,69.4,1000,42\n";
  return read_text(data_dir() / s.fixture);
}

// "" when the run kept the contract, else what broke.
std::string contract(const ComponentFactory& f, const std::string& path) {
  Harness h(f, {{"path", path}});
  const std::string error = run(h);
  if (!error.empty() && !error.starts_with(path + ":")) return "error does not name the file: " + error;
  if (f.manifest().output_index("records") >= 0) {
    const auto batches = record_batches(h);
    const bool partial = !batches.empty() && batches.back().partial;
    if (error.empty() == partial) return "partial flag and error disagree: '" + error + "'";
    for (const auto& b : batches) (void)nlohmann::json(b).dump();  // the JSON form must be writable (UTF-8)
  }
  for (const auto& [port, env] : h.out.emitted) (void)env.to_json().dump();
  return {};
}

TEST(Robustness, TruncatedAndMutatedInputs) {
  TempDir dir;
  std::mt19937 rng(20240101);
  for (const auto& seed : seeds()) {
    const std::string text = seed_text(seed);
    const std::string name = seed.factory->manifest().type + "_" + fs::path(seed.fixture).filename().string();
    for (int i = 0; i < 25; ++i) {
      std::string damaged = text.substr(0, rng() % (text.size() + 1));
      const std::string path = dir.write(name + "/cut" + std::to_string(i), damaged);
      ASSERT_EQ(contract(*seed.factory, path), "") << path;
    }
    for (int i = 0; i < 40; ++i) {
      std::string damaged = text;
      const int changes = 1 + static_cast<int>(rng() % 4);
      for (int k = 0; k < changes; ++k) damaged[rng() % damaged.size()] = static_cast<char>(rng() & 0xff);
      const std::string path = dir.write(name + "/flip" + std::to_string(i), damaged);
      ASSERT_EQ(contract(*seed.factory, path), "") << path;
    }
  }
}

TEST(Robustness, HugeLinesAndKeysWithinTheLimits) {
  TempDir dir;
  const std::string big(3 << 20, '7');
  const std::vector<std::pair<const ComponentFactory*, std::string>> cases = {
      {&ascend_kernel_details_factory(), "Name,Start Time(us),Duration(us)\n" + big + ",1,1\n"},
      {&ascend_communication_factory(),
       "{\"step" + big + "\": {\"(" + big + ")\": {\"Communication Time Info\": {}}}}"},
      {&ascend_communication_matrix_factory(),
       "{\"s\": {\"" + big + "->" + big + "\": {\"Transport Type\": \"HCCS\"}}}"},
      {&console_capture_factory(),
       "hccn_tool -i 0 -stat -g\nroce_x_num:" + big + "\nBandwidth TX: " + big + "\n"},
      {&console_capture_factory(), "Datetime: " + big + "\n"},
      {&prometheus_text_factory(), "m{a=\"" + big + "\"} 1\n"},
      {&host_metrics_factory(), "{\"time\": 1, \"metric\": \"" + big + "\", \"value\": 1}\n"},
      {&csv_log_factory(), "step,loss\n" + big + ",1\n"},
      {&train_log_factory(), " iteration 1/2 | lm loss: 1.0 | note: " + big + " |\n"},
      {&metric_series_json_factory(), "{\"lm loss\": {\"values\": {\"1\": " + big + "}}}"},
  };
  int i = 0;
  for (const auto& [factory, text] : cases) {
    const std::string path = dir.write("big" + std::to_string(i++), text);
    EXPECT_EQ(contract(*factory, path), "") << factory->manifest().type;
  }
}

TEST(Robustness, GarbageWithoutNewlinesIsCapped) {
  TempDir dir;
  std::mt19937 rng(5);
  std::string garbage(20 << 20, '\0');
  for (auto& c : garbage) c = static_cast<char>(rng() & 0xff);
  for (auto& c : garbage)
    if (c == '\n') c = 'x';
  const std::string path = dir.write("garbage.bin", garbage);
  for (const auto& seed : seeds())
    EXPECT_EQ(contract(*seed.factory, path), "") << seed.factory->manifest().type;
}

}  // namespace
}  // namespace cann_debug::plugins
