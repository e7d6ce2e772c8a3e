// `cann-debug stats PATH` picks the reader whose sniff() scores highest: for every sample (real files,
// fixtures, the case corpus), the right reader must win, and no reader of ours may claim a file it
// cannot read.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ascend_communication.hpp"
#include "ascend_communication_matrix.hpp"
#include "ascend_kernel_details.hpp"
#include "ascend_memory.hpp"
#include "ascend_op_statistic.hpp"
#include "ascend_profiler_dir.hpp"
#include "ascend_step_trace.hpp"
#include "ascend_tool_csv.hpp"
#include "console_capture.hpp"
#include "csv_log.hpp"
#include "hf_trainer_state.hpp"
#include "host_metrics.hpp"
#include "jsonl.hpp"
#include "prometheus_text.hpp"
#include "readers_test_support.hpp"

namespace cann_debug::plugins {
namespace {

using namespace readers_test;

std::vector<const ComponentFactory*> readers() {
  return {&jsonl_factory(),
          &ascend_kernel_details_factory(),
          &ascend_op_statistic_factory(),
          &ascend_memory_factory(),
          &ascend_step_trace_factory(),
          &ascend_communication_factory(),
          &ascend_communication_matrix_factory(),
          &ascend_profiler_dir_factory(),
          &console_capture_factory(),
          &ascend_tool_csv_factory(),
          &csv_log_factory(),
          &hf_trainer_state_factory(),
          &host_metrics_factory(),
          &prometheus_text_factory()};
}

// As the host does it (host/src/reader_selection.cpp): the path, its first 64 KiB, whether it is a folder.
std::map<std::string, int> scores(const std::string& path) {
  SniffInput in;
  in.path = path;
  std::error_code ec;
  in.is_directory = fs::is_directory(path, ec);
  std::string head;
  if (!in.is_directory) {
    std::ifstream f(path, std::ios::binary);
    head.resize(64 * 1024);
    f.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(f.gcount()));
  }
  in.head = head;
  std::map<std::string, int> out;
  for (const auto* f : readers()) out[f->manifest().type] = f->sniff(in);
  return out;
}

// "" when `expected` scores highest (strictly), else the scores.
std::string winner_is(const std::string& path, const std::string& expected) {
  const auto s = scores(path);
  const int best = s.at(expected);
  std::string table;
  bool ok = best > 0;
  for (const auto& [type, score] : s) {
    table += " " + type + "=" + std::to_string(score);
    if (type != expected && score >= best) ok = false;
  }
  return ok ? "" : path + ":" + table;
}

// "" when none of `ours` claims the file (the generic jsonl reader may).
std::string nobody_of_ours(const std::string& path) {
  std::string table;
  for (const auto& [type, score] : scores(path))
    if (type != "jsonl" && score > 0) table += " " + type + "=" + std::to_string(score);
  return table.empty() ? "" : path + ":" + table;
}

TEST(Sniff, FixturesPickTheirReader) {
  const std::pair<const char*, const char*> cases[] = {
      {"ascend/kernel_details_2025.csv", "ascend_kernel_details"},
      {"ascend/op_statistic.csv", "ascend_op_statistic"},
      {"ascend/memory_record.csv", "ascend_memory"},
      {"ascend/operator_memory.csv", "ascend_memory"},
      {"ascend/npu_module_mem.csv", "ascend_memory"},
      {"ascend/step_trace_time.csv", "ascend_step_trace"},
      {"ascend/communication.json", "ascend_communication"},
      {"ascend/communication_matrix.json", "ascend_communication_matrix"},
      {"ascend/cluster_communication_matrix.json", "ascend_communication_matrix"},
      {"ascend/run", "ascend_profiler_dir"},
      {"ascend/run/node1_1001_20240101093000123_ascend_pt/ASCEND_PROFILER_OUTPUT", "ascend_profiler_dir"},
      {"ascend/run/cluster_analysis_output/cluster_step_trace_time.csv", "ascend_step_trace"},
      {"training/log.csv", "csv_log"},
      {"training/steps.csv", "csv_log"},
      {"training/trainer_state.json", "hf_trainer_state"},
      {"training/host_metrics.jsonl", "host_metrics"},
      {"prometheus/npu_exporter.prom", "prometheus_text"},
      {"console/npu_smi_info_910b.txt", "console_capture"},
      {"console/npu_smi_info_310p.txt", "console_capture"},
      {"console/watch.txt", "console_capture"},
      {"console/usages_common.txt", "console_capture"},
  };
  for (const auto& [file, reader] : cases) EXPECT_EQ(winner_is(fixture(file), reader), "") << file;
  EXPECT_EQ(scores(fixture("ascend/run")).at("ascend_profiler_dir"), 95);
  EXPECT_EQ(scores(fixture("training/host_metrics.jsonl")).at("host_metrics"), 92);
  EXPECT_EQ(scores(fixture("training/host_metrics.jsonl")).at("jsonl"), 70);
}

TEST(Sniff, RealFilesPickTheirReader) {
  if (!have_real("ascend")) GTEST_SKIP() << "shared real data absent";
  const std::pair<const char*, const char*> cases[] = {
      {"ascend/mstt/kernel_details_2023_arithutil.csv", "ascend_kernel_details"},
      {"ascend/mstt/kernel_details_minimal.csv", "ascend_kernel_details"},
      {"ascend/mstt/cluster_step_trace_time.csv", "ascend_step_trace"},
      {"ascend/mstt/cluster_communication.json", "ascend_communication"},
      {"ascend/msinsight_gpt3_16rank_pp2/rank_0/ASCEND_PROFILER_OUTPUT/memory_record.csv", "ascend_memory"},
      {"ascend/msinsight_gpt3_16rank_pp2/rank_0/ASCEND_PROFILER_OUTPUT/npu_module_mem.csv", "ascend_memory"},
      {"ascend/msinsight_gpt3_16rank_pp2/rank_1/ASCEND_PROFILER_OUTPUT/operator_memory.csv", "ascend_memory"},
      {"ascend/npu-smi/kg_parse_npu_info_before.txt", "console_capture"},
      {"ascend/npu-smi/modelarts_worker0_npu_info_before.txt", "console_capture"},
      {"ascend/npu-smi/npu_smi_0_details.csv", "ascend_tool_csv"},
      {"ascend/npu-smi/npu_smi_3_details.csv", "ascend_tool_csv"},
      {"ascend/hccn_tool/npu_0_details.csv", "ascend_tool_csv"},
      {"ascend/hccn_tool/npu_3_details.csv", "ascend_tool_csv"},
  };
  for (const auto& [file, reader] : cases) EXPECT_EQ(winner_is(real(file), reader), "") << file;
  EXPECT_EQ(scores(real("ascend/mstt/cluster_step_trace_time.csv")).at("ascend_step_trace"), 93);
  // Files that are not ours to read: a Chrome trace and msprof configuration.
  for (const char* other :
       {"ascend/mstt/trace_view.json", "ascend/msprof/device_info.json", "ascend/msprof/sample_config.json"})
    EXPECT_EQ(nobody_of_ours(real(other)), "") << other;
}

TEST(Sniff, CaseCorpusFiles) {
  const fs::path training = fs::path(CANN_DEBUG_SHARED_DIR) / "cases" / "training";
  std::error_code ec;
  if (!fs::is_directory(training, ec)) GTEST_SKIP() << training << " is absent";
  std::vector<fs::path> cases;
  for (const auto& e : fs::directory_iterator(training, ec)) cases.push_back(e.path());
  std::sort(cases.begin(), cases.end());
  ASSERT_FALSE(cases.empty());
  EXPECT_EQ(winner_is((cases.front() / "host_metrics.jsonl").string(), "host_metrics"), "");
  EXPECT_EQ(winner_is((cases.front() / "metrics.jsonl").string(), "jsonl"), "");  // per-step JSON lines
  EXPECT_EQ(nobody_of_ours((cases.front() / "metrics.jsonl").string()), "");
  EXPECT_EQ(nobody_of_ours((cases.front() / "config.json").string()), "");
}

TEST(Sniff, NothingClaimsGarbageOrAPlainFolder) {
  TempDir dir;
  std::string garbage;
  for (int i = 0; i < 4096; ++i) garbage += static_cast<char>((i * 7919) & 0xff);
  EXPECT_EQ(nobody_of_ours(dir.write("g.bin", garbage)), "");
  EXPECT_EQ(nobody_of_ours(dir.write("empty.csv", "")), "");
  EXPECT_EQ(nobody_of_ours(dir.write("words.txt", "just some words\nand more words\n")), "");
  dir.write("plain/readme.md", "# hello\n");
  EXPECT_EQ(nobody_of_ours(dir / "plain"), "");
}

}  // namespace
}  // namespace cann_debug::plugins
