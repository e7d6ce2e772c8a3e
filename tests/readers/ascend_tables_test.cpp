// ascend_op_statistic and ascend_step_trace: fixtures, the real cluster_step_trace_time.csv, bad input.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ascend_op_statistic.hpp"
#include "ascend_step_trace.hpp"
#include "readers_test_support.hpp"

namespace cann_debug::plugins {
namespace {

using namespace readers_test;
using testing::Harness;

TEST(AscendOpStatistic, ReadsTypedRows) {
  EXPECT_THAT(check_manifest(ascend_op_statistic_factory().manifest()), ::testing::IsEmpty());
  Harness h(ascend_op_statistic_factory(), {{"path", fixture("ascend/op_statistic.csv")}, {"rank", 2}});
  ASSERT_EQ(run(h), "");
  const auto r = records(h);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].fields["op_type"], "MatMul");
  EXPECT_EQ(r[0].fields["core_type"], "AI_CORE");
  EXPECT_EQ(r[0].fields["count"], 120);
  EXPECT_DOUBLE_EQ(r[0].fields["total_time_us"].get<double>(), 4214.4);
  EXPECT_EQ(r[0].fields["total_time_ns"], 4214400);
  EXPECT_DOUBLE_EQ(r[0].fields["ratio_pct"].get<double>(), 61.25);
  EXPECT_EQ(r[0].key.device, 0);
  EXPECT_EQ(r[0].key.rank, 2);
  EXPECT_EQ(r[1].fields["ratio_pct"], nullptr);
  EXPECT_EQ(r[1].fields["total_time_ns"], 6001000);
  EXPECT_EQ(r[2].fields["avg_time_us"], 2.501);
}

TEST(AscendOpStatistic, MalformedInputs) {
  TempDir dir;
  const std::string H = "Device_id,OP Type,Core Type,Count,Total Time(us),Avg Time(us),Ratio(%)\n";
  const std::string good = "0,MatMul,AI_CORE,120,4214.4,35.12,61.25\n";
  const std::string g = std::to_string(H.size() + good.size());
  const std::vector<BadInput> cases = {
      {"missing_count", "Device_id,OP Type,Total Time(us)\n0,MatMul,1\n",
       "1: expected the op_statistic.csv column(s) 'Count' in the header, got: Device_id, OP Type, Total "
       "Time(us) (line "
       "starts at byte offset 0)"},
      {"fractional_count", H + good + "0,Add,AI_CORE,12.5,1,1,1\n",
       "3: expected an integer count in 'Count', got '12.5' (line starts at byte offset " + g + ")"},
      {"text_count", H + good + "0,Add,AI_CORE,many,1,1,1\n",
       "3: expected a number in 'Count' (column 4), got 'many' (line starts at byte offset " + g + ")"},
      {"negative_count", H + good + "0,Add,AI_CORE,-1,1,1,1\n",
       "3: expected a count >= 0 in 'Count' (line starts at byte offset " + g + ")"},
      {"bad_total", H + good + "0,Add,AI_CORE,1,abc,1,1\n",
       "3: expected a number in 'Total Time(us)' (column 5), got 'abc' (line starts at byte offset " + g +
           ")"},
      {"bad_ratio", H + good + "0,Add,AI_CORE,1,1,1,x%\n",
       "3: expected a number in 'Ratio(%)' (column 7), got 'x%' (line starts at byte offset " + g + ")"},
      {"bad_device", H + good + "gpu0,Add,AI_CORE,1,1,1,1\n",
       "3: expected an integer device id in 'Device_id', got 'gpu0' (line starts at byte offset " + g + ")"},
      {"nul", H + good + std::string("0,A\0d,AI_CORE,1,1,1,1\n", 22),
       "3: expected text, got the control byte \\x00 at column 4 (binary data?) (line starts at byte "
       "offset " +
           g + ")"},
      {"unterminated", H + good + "0,\"Add,AI_CORE,1,1,1,1\n",
       "3: expected a closing quote for a field opened in the row starting on this line, got the end of the "
       "file "
       "(line starts at byte offset " +
           g + ")"},
      {"long_line", H + good + std::string(2 * 1024 * 1024, ',') + "\n",
       "3: expected a line of at most max_line_bytes = 1048576 bytes, got a longer one (binary data or a "
       "missing "
       "newline?) (line starts at byte offset " +
           g + ")"},
  };
  for (const auto& bad : cases)
    EXPECT_EQ(check_bad_input(ascend_op_statistic_factory(), {{"max_line_bytes", "1MiB"}}, bad, dir,
                              "op_statistic.csv"),
              "")
        << bad.name;
}

TEST(AscendStepTrace, PerRankFileGivesRecordsAndStepTimes) {
  EXPECT_THAT(check_manifest(ascend_step_trace_factory().manifest()), ::testing::IsEmpty());
  Harness h(ascend_step_trace_factory(), {{"path", fixture("ascend/step_trace_time.csv")}, {"rank", 4}});
  ASSERT_EQ(run(h), "");
  const auto r = records(h);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].key.step_id, 1);
  EXPECT_EQ(r[0].key.rank, 4);
  EXPECT_EQ(r[0].key.device, 0);
  EXPECT_DOUBLE_EQ(r[0].fields["communication_not_overlapped"].get<double>(), 683731.289);
  EXPECT_DOUBLE_EQ(r[1].fields["preparing"].get<double>(), 98.25);
  const auto m = metrics(h);
  EXPECT_EQ(m.size(), 18u);  // 9 time columns x 2 rows
  EXPECT_EQ(
      find(m, "step.computing_time", {{"rank", "4"}, {"device", "0"}, {"source_name", "Computing"}}).size(),
      2u);
  const auto c1 = find(m, "step.computing_time");
  ASSERT_EQ(c1.size(), 2u);
  EXPECT_EQ(c1[0].unit, "ns");
  EXPECT_EQ(c1[0].value, 80309687.0);
  EXPECT_EQ(c1[0].key.step_id, 1);
  EXPECT_EQ(c1[1].value, 80435746.0);
  EXPECT_EQ(find(m, "step.preparing_time")[0].value, 120500.0);
  EXPECT_EQ(find(m, "step.communication_not_overlapped_exclude_receive_time")[1].value, 133385977.0);
}

TEST(AscendStepTrace, RealClusterStepTraceTime) {
  if (!have_real("ascend/mstt/cluster_step_trace_time.csv")) GTEST_SKIP() << "shared real data absent";
  Harness h(ascend_step_trace_factory(), {{"path", real("ascend/mstt/cluster_step_trace_time.csv")}});
  ASSERT_EQ(run(h), "");
  const auto r = records(h);
  ASSERT_EQ(r.size(), 9u);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(r[static_cast<std::size_t>(i)].key.rank, i);
    EXPECT_FALSE(r[static_cast<std::size_t>(i)].key.has_step());  // the Step column is empty
    EXPECT_EQ(r[static_cast<std::size_t>(i)].fields["type"], "rank");
  }
  EXPECT_EQ(r[8].fields["type"], "stage");
  EXPECT_EQ(r[8].fields["index"], "(0, 1, 2, 3, 4, 5, 6, 7)");
  EXPECT_FALSE(r[8].key.has_rank());
  EXPECT_DOUBLE_EQ(r[0].fields["computing"].get<double>(), 80309.68717187493);
  EXPECT_EQ(r[0].fields["step"], nullptr);

  const auto m = metrics(h);
  EXPECT_EQ(m.size(), 72u);  // 8 time columns x 9 rows (no Preparing column)
  EXPECT_EQ(one(m, "step.computing_time", {{"rank", "0"}}).value, 80309687.0);
  EXPECT_EQ(one(m, "step.communication_not_overlapped_time", {{"rank", "0"}}).value, 683731290.0);
  EXPECT_EQ(one(m, "step.free_time", {{"rank", "0"}}).value, 990605104.0);
  EXPECT_EQ(one(m, "step.stage_time", {{"rank", "0"}}).value, 1754645750.0);
  EXPECT_EQ(one(m, "step.communication_not_overlapped_time", {{"rank", "5"}}).value, 756374860.0);
  EXPECT_EQ(one(m, "step.free_time", {{"rank", "1"}}).value, 1488610059.0);  // 1488610.0587500026 us
  const auto stage = one(m, "step.free_time", {{"stage", "(0, 1, 2, 3, 4, 5, 6, 7)"}});
  EXPECT_EQ(stage.value, 1488610059.0);
  EXPECT_EQ(stage.labels.at("type"), "stage");
  EXPECT_EQ(stage.labels.count("rank"), 0u);
  EXPECT_EQ(one(m, "step.bubble_time", {{"rank", "7"}}).value, 0.0);
}

TEST(AscendStepTrace, MalformedInputs) {
  TempDir dir;
  const std::string H =
      "Device_id,Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free\n";
  const std::string good = "0,1,10,20,5,25,3\n";
  const std::string g = std::to_string(H.size() + good.size());
  const std::string C = "Step,Type,Index,Computing,Communication(Not Overlapped),Free\n";
  const std::string c = std::to_string(C.size());
  const std::vector<BadInput> cases = {
      {"missing_computing", "Device_id,Step,Free\n0,1,3\n",
       "1: expected the step_trace_time.csv column(s) 'Computing', 'Communication(Not Overlapped)' in the "
       "header, got: "
       "Device_id, Step, Free (line starts at byte offset 0)"},
      {"text_step", H + good + "0,x,10,20,5,25,3\n",
       "3: expected an integer step in 'Step', got 'x' (line starts at byte offset " + g + ")"},
      {"negative_step", H + good + "0,-1,10,20,5,25,3\n",
       "3: expected a step >= 0 in 'Step' (line starts at byte offset " + g + ")"},
      {"text_time", H + good + "0,2,fast,20,5,25,3\n",
       "3: expected a number in 'Computing' (column 3), got 'fast' (line starts at byte offset " + g + ")"},
      {"overflowing_time", H + good + "0,2,10,20,5,25,1e999\n",
       "3: expected a number in 'Free' (column 7), got '1e999' (line starts at byte offset " + g + ")"},
      {"rank_index_text", C + "1,rank,r0,1,2,3\n",
       "2: expected a rank id (Type is 'rank') in 'Index', got 'r0' (line starts at byte offset " + c + ")"},
      {"rank_index_empty", C + "1,rank,,1,2,3\n",
       "2: expected a rank id >= 0 in 'Index' (Type is 'rank') (line starts at byte offset " + c + ")"},
      {"utf8", H + good + "0,2,1\xc3(,20,5,25,3\n",
       "3: expected UTF-8 text, got the byte \\xc3 at column 6 (binary data or another encoding?) (line "
       "starts at byte "
       "offset " +
           g + ")"},
      {"unterminated", H + good + "0,2,\"10,20,5,25,3\n",
       "3: expected a closing quote for a field opened in the row starting on this line, got the end of the "
       "file "
       "(line starts at byte offset " +
           g + ")"},
      {"long_line", H + good + std::string(10 * 1024 * 1024, '9') + "\n",
       "3: expected a line of at most max_line_bytes = 1048576 bytes, got a longer one (binary data or a "
       "missing "
       "newline?) (line starts at byte offset " +
           g + ")"},
  };
  for (const auto& bad : cases)
    EXPECT_EQ(check_bad_input(ascend_step_trace_factory(), {{"max_line_bytes", "1MiB"}}, bad, dir,
                              "step_trace_time.csv"),
              "")
        << bad.name;
}

}  // namespace
}  // namespace cann_debug::plugins
