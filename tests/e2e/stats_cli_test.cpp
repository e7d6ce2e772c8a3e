// `cann-debug stats` through the real binary: reader selection, counts, HTA figures per rank (hand-computed
// on a fixture, and equal to Holistic Trace Analysis' own outputs on the real Kineto traces), bad input.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_test.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const fs::path kData = CANN_DEBUG_TEST_DATA_DIR;
const fs::path kShared = CANN_DEBUG_SHARED_DIR;

class StatsCli : public cann_debug::testing::CliTest {
 protected:
  StatsCli() : CliTest("stats") {}
  int run(std::vector<std::string> args) {
    args.insert(args.begin(), "stats");
    return CliTest::run(std::move(args), std::chrono::seconds(120));
  }
  // Runs with --json and parses stdout (which must be one JSON document whatever the exit code).
  json run_json(std::vector<std::string> args, int expected_rc) {
    args.push_back("--json");
    const int rc = run(args);
    EXPECT_EQ(rc, expected_rc) << child_->err();
    json out = json::parse(child_->out(), nullptr, false);
    EXPECT_FALSE(out.is_discarded()) << child_->out();
    if (!out.is_discarded()) {
      EXPECT_EQ(out.at("exit_code"), expected_rc);
    }
    return out;
  }
  fs::path write(const std::string& name, const std::string& text) {
    const fs::path p = scratch_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
  static const json& file_read_by(const json& input, const std::string& filename) {
    for (const auto& f : input.at("files"))
      if (fs::path(f.at("path").get<std::string>()).filename() == filename) return f;
    static const json none;
    ADD_FAILURE() << filename << " was not read: " << input.dump(1);
    return none;
  }
};

// kineto_small.json: 12 events (1 M, 6 X, 2 i, s, f, C) of rank 2 (distributedInfo). Its two kernels on
// stream 7, in HTA's integer microseconds (ts ceil, end floor): [1021, 1120] and [2500, 2510]: kernel time
// 2510 - 1021 = 1489, busy 99 + 10 = 109 (both COMPUTATION), idle 1380 = 92.68 %. One cudaLaunchKernel
// (correlation 42) launches the first: n = 1.
TEST_F(StatsCli, CountsATraceAndComputesHtaFiguresPerRank) {
  const json out = run_json({(kData / "traces/kineto_small.json").string()}, 0);
  ASSERT_EQ(out.at("format"), "cann-debug.stats/1");
  ASSERT_EQ(out.at("inputs").size(), 1u);
  const json& in = out["inputs"][0];
  ASSERT_EQ(in.at("files").size(), 1u);
  const json& f = in["files"][0];
  EXPECT_EQ(f.at("reader"), "chrome_trace");
  EXPECT_EQ(f.at("status"), "ok");
  EXPECT_EQ(f.at("events").at("count"), 12);
  EXPECT_EQ(f["events"].at("by_category"), (json{{"", 3},
                                                 {"cpu_op", 2},
                                                 {"ac2g", 2},
                                                 {"kernel", 2},
                                                 {"cuda_runtime", 1},
                                                 {"cpu_instant_event", 1},
                                                 {"user_annotation", 1}}));
  EXPECT_EQ(f["events"].at("by_phase"), (json{{"X", 6}, {"i", 2}, {"M", 1}, {"s", 1}, {"f", 1}, {"C", 1}}));
  EXPECT_EQ(f.at("trace").at("format"), "kineto");
  EXPECT_EQ(f.at("ranks"), json::array({2}));
  EXPECT_EQ(f.at("steps").at("first"), 7);
  EXPECT_EQ(f.at("span").at("clock"), "epoch");
  EXPECT_EQ(f["span"].at("first_ns"), 1700000000000000000LL + 995000);  // the "Iteration Start" instant
  EXPECT_EQ(f["span"].at("last_ns"), 1700000000000000000LL + 2510000);  // the end of late_kernel

  const json& rank = in.at("hta").at("ranks").at("2");
  EXPECT_EQ(rank.at("kernel_time"), 1489);
  EXPECT_EQ(rank.at("idle_time"), 1380);
  EXPECT_EQ(rank.at("compute_time"), 109);
  EXPECT_EQ(rank.at("non_compute_time"), 0);
  EXPECT_NEAR(rank.at("idle_time_pctg").get<double>(), 100.0 * 1380 / 1489, 1e-9);
  EXPECT_NEAR(rank.at("compute_time_pctg").get<double>(), 100.0 * 109 / 1489, 1e-9);
  EXPECT_FALSE(rank.contains("comp_comm_overlap_pctg"));  // no communication kernel (HTA: NaN)
  EXPECT_EQ(rank.at("cuda_kernel_launch_stats").at("n"), 1);
  ASSERT_TRUE(rank.at("kernel_type_breakdown").is_array());
  double computation = -1;
  for (const auto& row : rank["kernel_type_breakdown"])
    if (row.at("kernel_type") == "COMPUTATION") computation = row.at("sum");
  EXPECT_EQ(computation, 109);
  EXPECT_EQ(in["hta"].at("units").at("idle_time"), "us");
}

TEST_F(StatsCli, ReadsGzipLikeThePlainFile) {
  const json plain = run_json({(kData / "traces/kineto_small.json").string()}, 0);
  const json gz = run_json({(kData / "traces/kineto_small.json.gz").string()}, 0);
  const json& a = plain["inputs"][0];
  const json& b = gz["inputs"][0];
  EXPECT_EQ(a["files"][0]["events"], b["files"][0]["events"]);
  EXPECT_EQ(a["files"][0]["span"], b["files"][0]["span"]);
  EXPECT_EQ(a["hta"]["ranks"], b["hta"]["ranks"]);
}

TEST_F(StatsCli, PrintsTheSameAsText) {
  ASSERT_EQ(run({(kData / "traces/kineto_small.json").string()}), 0) << child_->err();
  const std::string text = child_->out();
  EXPECT_NE(text.find("reader: chrome_trace"), std::string::npos) << text;
  EXPECT_NE(text.find("events: 12"), std::string::npos) << text;
  EXPECT_NE(text.find("HTA-parity trace metrics"), std::string::npos) << text;
  EXPECT_NE(text.find("92.68"), std::string::npos) << text;  // rank 2's idle %
}

// A folder that no reader claims as a whole: every file is read by the reader that claims it.
TEST_F(StatsCli, PicksTheReaderOfEveryFileInAFolder) {
  const json out = run_json({(kData / "readers/training").string()}, 0);
  const json& in = out["inputs"][0];
  EXPECT_EQ(in.at("kind"), "folder");
  const json& metrics = file_read_by(in, "host_metrics.jsonl");
  EXPECT_EQ(metrics.at("reader"), "host_metrics");
  EXPECT_EQ(metrics.at("metrics").at("count"), 5);  // 5 lines (and a blank one)
  EXPECT_EQ(metrics["metrics"]["series"].at("host.cpu.utilization").at("unit"), "ratio");
  EXPECT_EQ(metrics.at("ranks"), json::array({1}));
  const json& keras = file_read_by(in, "log.csv");
  EXPECT_EQ(keras.at("reader"), "csv_log");
  EXPECT_EQ(keras.at("records").at("count"), 3);
  EXPECT_EQ(keras["records"]["by_field"].at("val_loss"), 3);
  const json& steps = file_read_by(in, "steps.csv");
  EXPECT_EQ(steps.at("records").at("count"), 3);
  EXPECT_EQ(steps.at("steps"), (json{{"count", 3}, {"first", 0}, {"last", 2}}));
  EXPECT_EQ(steps.at("ranks"), json::array({0, 1}));
  EXPECT_EQ(steps.at("span").at("first_ns"), 1700000000250000000LL);
  EXPECT_EQ(steps["span"].at("last_ns"), 1700000000750000000LL);
  const json& hf = file_read_by(in, "trainer_state.json");
  EXPECT_EQ(hf.at("reader"), "hf_trainer_state");
  EXPECT_EQ(hf.at("records").at("count"), 4);  // the log_history entries
  EXPECT_TRUE(in.at("hta").is_null());         // no trace
}

// A folder a reader claims as a whole (an Ascend profiler run of two ranks) is read by it.
TEST_F(StatsCli, ReadsAnAscendProfilerRunAsOneInput) {
  const json out = run_json({(kData / "readers/ascend/run").string()}, 0);
  const json& in = out["inputs"][0];
  ASSERT_EQ(in.at("files").size(), 1u);
  const json& f = in["files"][0];
  EXPECT_EQ(f.at("reader"), "ascend_profiler_dir");
  EXPECT_GT(f.at("records").at("count").get<int>(), 0);
  EXPECT_EQ(f.at("ranks"), json::array({0, 1}));
}

TEST_F(StatsCli, NamesAFileNoReaderClaimsAndWhatWasTried) {
  const fs::path junk = write("junk.bin", std::string("\x7f\x01\x02 not a format \x03\x04", 20));
  const json out = run_json({junk.string()}, 4);
  const std::string error = out["inputs"][0].at("error");
  EXPECT_NE(error.find(junk.string() + ": no reader claims it (tried: "), std::string::npos) << error;
  EXPECT_NE(error.find("chrome_trace"), std::string::npos) << error;
  EXPECT_NE(child_->err().find(junk.string()), std::string::npos);
}

TEST_F(StatsCli, NamesAMissingPath) {
  const std::string missing = (scratch_ / "nowhere.json").string();
  const json out = run_json({missing}, 4);
  EXPECT_EQ(out["inputs"][0].at("error"), missing + ": cannot open: No such file or directory");
}

// The reader stops at byte 417 of truncated.json after 2 events: they are counted (and given to
// hta_metrics), the input is marked partial, and the exit code is 1.
TEST_F(StatsCli, ReportsWhatWasReadBeforeAReaderFailed) {
  const fs::path bad = kData / "traces/bad/truncated.json";
  const json out = run_json({bad.string()}, 1);
  const json& f = out["inputs"][0]["files"][0];
  EXPECT_EQ(f.at("status"), "partial");
  EXPECT_EQ(f.at("events").at("count"), 2);
  EXPECT_EQ(f.at("error"),
            bad.string() +
                ": byte 417: expected the rest of the event that starts at byte 371, got the end of "
                "the file (truncated?)");
  EXPECT_EQ(out["inputs"][0].at("hta").at("partial"), true);
  EXPECT_NE(child_->err().find(bad.string() + ": byte 417"), std::string::npos) << child_->err();
}

TEST_F(StatsCli, ReportsRecordsReadBeforeABadLine) {
  const fs::path log =
      write("metrics.jsonl",
            "{\"step\": 0, \"loss\": 2.5}\n{\"step\": 1, \"loss\": 2.4}\n{\"step\": 2, \"loss\": \n");
  const json out = run_json({log.string()}, 1);
  const json& f = out["inputs"][0]["files"][0];
  EXPECT_EQ(f.at("reader"), "jsonl");
  EXPECT_EQ(f.at("status"), "partial");
  EXPECT_EQ(f.at("records").at("count"), 2);
  EXPECT_NE(f.at("error").get<std::string>().find(log.string() + ":3:"), std::string::npos) << f.dump();
}

TEST_F(StatsCli, KeepsGoingAfterABadInput) {
  const std::string missing = (scratch_ / "nowhere.json").string();
  const json out = run_json({missing, (kData / "traces/kineto_small.json").string()}, 4);
  ASSERT_EQ(out.at("inputs").size(), 2u);
  EXPECT_EQ(out["inputs"][1]["files"][0].at("status"), "ok");
}

// --json per-rank figures equal HTA's own outputs (../shared/real/kineto/hta_reference), where
// tests/extractors/hta_metrics/hta_golden_test.cpp checks them: times in us exactly, percentages within HTA's
// rounding to 2 decimals. HTA loads a single file as rank 0 whatever rank it holds: a single trace is
// compared by its only rank. `--hta-drop-last-step` is given when the reference used HTA's default.
class StatsCliGolden : public StatsCli, public ::testing::WithParamInterface<const char*> {};

TEST_P(StatsCliGolden, PerRankFiguresEqualHta) {
  const fs::path root = kShared / "real" / "kineto";
  const fs::path ref_path = root / "hta_reference" / (std::string(GetParam()) + ".json");
  if (!fs::exists(ref_path)) GTEST_SKIP() << ref_path << " is absent";
  std::ifstream ref_in(ref_path);
  const json ref = json::parse(ref_in);
  std::vector<std::string> args;
  for (const auto& [rank, file] : ref.at("trace_files").items())
    args.push_back((root / file.get<std::string>()).string());
  const bool several = args.size() > 1;
  if (several) args = {fs::path(args.front()).parent_path().string()};  // the folder of the per-rank traces
  if (!ref.at("params").at("include_last_profiler_step").get<bool>()) args.push_back("--hta-drop-last-step");
  const json out = run_json(args, 0);
  ASSERT_EQ(out.at("inputs").size(), 1u);
  const json& hta = out["inputs"][0].at("hta");
  ASSERT_TRUE(hta.is_object()) << out.dump(1);
  const json& ranks = hta.at("ranks");
  auto mine = [&](int rank) -> const json& {
    if (!several) {
      EXPECT_EQ(ranks.size(), 1u);
      return ranks.begin().value();
    }
    return ranks.at(std::to_string(rank));
  };
  for (const auto& t : ref.at("temporal_breakdown")) {
    const json& r = mine(t.at("rank"));
    SCOPED_TRACE("rank " + t.at("rank").dump());
    EXPECT_EQ(r.at("idle_time").get<double>(), t.at("idle_time(us)").get<double>());
    EXPECT_EQ(r.at("compute_time").get<double>(), t.at("compute_time(us)").get<double>());
    EXPECT_EQ(r.at("non_compute_time").get<double>(), t.at("non_compute_time(us)").get<double>());
    EXPECT_EQ(r.at("kernel_time").get<double>(), t.at("kernel_time(us)").get<double>());
    for (const char* p : {"idle_time_pctg", "compute_time_pctg", "non_compute_time_pctg"})
      EXPECT_NEAR(r.at(p).get<double>(), t.at(p).get<double>(), 0.005) << p;
  }
  for (const auto& o : ref.at("comm_comp_overlap")) {
    const json& r = mine(o.at("rank"));
    if (o.at("comp_comm_overlap_pctg").is_null())
      EXPECT_FALSE(r.contains("comp_comm_overlap_pctg"));
    else
      EXPECT_NEAR(r.at("comp_comm_overlap_pctg").get<double>(), o["comp_comm_overlap_pctg"].get<double>(),
                  0.005);
  }
  for (const auto& [rank_text, s] : ref.at("cuda_kernel_launch_stats").at("summary").items())
    EXPECT_EQ(mine(std::stoi(rank_text)).at("cuda_kernel_launch_stats").at("n").get<double>(),
              s.at("n").get<double>());
  if (ref.contains("potential_stragglers") && !ref["potential_stragglers"].is_null()) {
    std::vector<int> gold = ref["potential_stragglers"].get<std::vector<int>>();
    std::sort(gold.begin(), gold.end());
    EXPECT_EQ(hta.at("potential_stragglers").get<std::vector<int>>(), gold);
  }
}

INSTANTIATE_TEST_SUITE_P(StatsCli, StatsCliGolden,
                         ::testing::Values("hta_amd_mi250", "hta_cp_alexnet", "hta_cp_cuda_event_sync",
                                           "hta_cp_cuda_event_sync_multi_stream", "hta_cp_simple_add",
                                           "hta_mtia_inference", "hta_sampled_2rank",
                                           "hta_trace_diff_control", "hta_trace_diff_test",
                                           "hta_triton_example", "hta_v100_ddp_rank1of2",
                                           "hta_v100_ns_resolution", "kineto_resnet50_num_workers_0",
                                           "kineto_resnet50_num_workers_4", "tracelens_h100_bert_small",
                                           "tracelens_vllm_decode_graph_execution"),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
