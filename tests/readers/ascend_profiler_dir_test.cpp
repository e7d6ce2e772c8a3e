// ascend_profiler_dir: discovery of per-rank and cluster files, rank attribution, filters, error policy.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ascend_profiler_dir.hpp"
#include "readers_test_support.hpp"

namespace cann_debug::plugins {
namespace {

using namespace readers_test;
using testing::Harness;

const char* kW0 = "node1_1001_20240101093000123_ascend_pt";
const char* kW1 = "node1_1002_20240101093000456_ascend_pt";

std::string base(const std::string& p) {
  return fs::path(p).filename().string();
}

void copy_run(const TempDir& dir) {
  fs::copy(data_dir() / "ascend" / "run", dir.path() / "run", fs::copy_options::recursive);
}

TEST(AscendProfilerDir, ReadsEveryRankAndTheClusterAnalysis) {
  EXPECT_THAT(check_manifest(ascend_profiler_dir_factory().manifest()), ::testing::IsEmpty());
  Harness h(ascend_profiler_dir_factory(), {{"path", fixture("ascend/run")}});
  ASSERT_EQ(run(h), "");
  const auto batches = record_batches(h);
  std::vector<std::string> order;
  for (const auto& b : batches)
    order.push_back(fs::path(b.source_path).parent_path().parent_path().filename().string() + "/" +
                    base(b.source_path));
  EXPECT_EQ(order, (std::vector<std::string>{
                       std::string(kW0) + "/kernel_details.csv", std::string(kW0) + "/step_trace_time.csv",
                       std::string(kW0) + "/communication.json", std::string(kW1) + "/op_statistic.csv",
                       std::string(kW1) + "/step_trace_time.csv",
                       std::string(kW1) + "/communication_matrix.json", "run/cluster_step_trace_time.csv"}));
  for (const auto& b : batches) EXPECT_FALSE(b.partial);
  EXPECT_EQ(batches[0].records.size(), 2u);
  for (const auto& r : batches[0].records) EXPECT_EQ(r.key.rank, 0);
  EXPECT_EQ(batches[0].records[0].key.timestamp_ns, 1704161511420306491);
  for (const auto& r : batches[2].records) EXPECT_EQ(r.key.rank, 0);  // communication.json of rank 0
  for (const auto& r : batches[3].records) EXPECT_EQ(r.key.rank, 1);  // op_statistic.csv of rank 1
  EXPECT_EQ(batches[4].records[0].key.rank, 1);
  EXPECT_EQ(batches[4].records[0].key.device, 1);
  EXPECT_EQ(batches[6].records.size(), 3u);
  EXPECT_EQ(batches[6].records[1].key.rank, 1);  // from the cluster file's Index
  EXPECT_EQ(records(h).size(), 16u);

  const auto m = metrics(h);
  EXPECT_EQ(m.size(), 9u + 24u + 9u + 9u + 24u);
  EXPECT_EQ(one(m, "step.computing_time", {{"rank", "1"}, {"device", "1"}}).value, 1500000.0);
  EXPECT_EQ(one(m, "step.computing_time", {{"rank", "0"}, {"type", "rank"}}).value, 1000500.0);
  EXPECT_EQ(one(m, "step.computing_time", {{"stage", "(0, 1)"}}).value, 1500000.0);
}

TEST(AscendProfilerDir, FilesOptionPicksKinds) {
  Harness h(ascend_profiler_dir_factory(), {{"path", fixture("ascend/run")}, {"files", {"step_trace_time"}}});
  ASSERT_EQ(run(h), "");
  const auto batches = record_batches(h);
  ASSERT_EQ(batches.size(), 3u);
  for (const auto& b : batches) EXPECT_THAT(b.source_path, ::testing::EndsWith("step_trace_time.csv"));
}

// A pipeline that reads the cluster files with their own readers takes only the ranks' files from here.
TEST(AscendProfilerDir, ClusterFalseLeavesTheClusterFilesOut) {
  Harness h(ascend_profiler_dir_factory(),
            {{"path", fixture("ascend/run")}, {"files", {"step_trace_time"}}, {"cluster", false}});
  ASSERT_EQ(run(h), "");
  const auto batches = record_batches(h);
  ASSERT_EQ(batches.size(), 2u);
  for (const auto& b : batches) EXPECT_EQ(base(b.source_path), "step_trace_time.csv");
  EXPECT_EQ(batches[0].records[0].key.rank, 0);
  EXPECT_EQ(batches[1].records[0].key.rank, 1);
}

// A pipeline that takes whatever a run's folder holds (the distributed one, for Kineto traces too): an
// optional reader finds no profiler files and emits nothing, as for a missing folder; a required one fails.
TEST(AscendProfilerDir, AnOptionalReaderOfAFolderWithoutProfilerFilesEmitsNothing) {
  TempDir dir;
  dir.write("rank0.trace.json", "{\"traceEvents\": []}");
  Harness optional(ascend_profiler_dir_factory(), {{"path", dir.path().string()}, {"optional", true}});
  ASSERT_EQ(run(optional), "");
  EXPECT_TRUE(record_batches(optional).empty());
  Harness required(ascend_profiler_dir_factory(), {{"path", dir.path().string()}});
  EXPECT_THAT(run(required), ::testing::HasSubstr("found none"));
}

// `diagnose --input .../kernel_details.csv`: one profiler file named on its own is read, with the rank of
// the worker folder it sits in; a file of no profiler kind gives nothing when optional; folders still sniff.
TEST(AscendProfilerDir, OneProfilerFileNamedOnItsOwn) {
  const std::string file =
      (fs::path(fixture("ascend/run")) / kW1 / "ASCEND_PROFILER_OUTPUT" / "step_trace_time.csv").string();
  Harness h(ascend_profiler_dir_factory(), {{"path", file}});
  ASSERT_EQ(run(h), "");
  const auto batches = record_batches(h);
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_EQ(batches[0].source_path, file);
  EXPECT_EQ(batches[0].records[0].key.rank, 1);
  Harness filtered(ascend_profiler_dir_factory(),
                   {{"path", file}, {"files", {"kernel_details"}}, {"optional", true}});
  ASSERT_EQ(run(filtered), "");
  EXPECT_TRUE(record_batches(filtered).empty());
  EXPECT_EQ(ascend_profiler_dir_factory().sniff({file, "", false}), 0);  // the per-file readers claim files
  EXPECT_EQ(ascend_profiler_dir_factory().sniff({fixture("ascend/run"), "", true}), 95);
}

TEST(AscendProfilerDir, UnknownFileKindsAreAConfigProblem) {
  try {
    Harness h(ascend_profiler_dir_factory(), {{"path", "x"}, {"files", {"kernel_detail"}}});
    FAIL() << "no config problem";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("unknown file kind 'kernel_detail'"));
  }
}

TEST(AscendProfilerDir, AFolderThatIsOneWorkersOutput) {
  Harness h(ascend_profiler_dir_factory(),
            {{"path", (data_dir() / "ascend" / "run" / kW1 / "ASCEND_PROFILER_OUTPUT").string()}});
  ASSERT_EQ(run(h), "");
  const auto r = records(h);
  ASSERT_EQ(r.size(), 7u);
  EXPECT_EQ(r[0].key.rank, 1);
}

TEST(AscendProfilerDir, RankFromRankIdOrFolderName) {
  TempDir dir;
  const std::string st = "Device_id,Step,Computing,Communication(Not Overlapped)\n0,1,10,20\n";
  dir.write("job/a_ascend_pt/profiler_info.json", "{\"rank_id\": 5}");
  dir.write("job/a_ascend_pt/ASCEND_PROFILER_OUTPUT/step_trace_time.csv", st);
  dir.write("job/rank_7/b_ascend_pt/ASCEND_PROFILER_OUTPUT/step_trace_time.csv", st);
  dir.write("job/worker_rank3_ascend_pt/ASCEND_PROFILER_OUTPUT/step_trace_time.csv", st);
  dir.write("job/c_ascend_pt/ASCEND_PROFILER_OUTPUT/step_trace_time.csv", st);
  Harness h(ascend_profiler_dir_factory(), {{"path", dir / "job"}});
  ASSERT_EQ(run(h), "");
  std::vector<int> ranks;
  for (const auto& r : records(h)) ranks.push_back(r.key.rank);
  // Unknown ranks (-1) first; b_ascend_pt has no rank in its own name (rank_7 is its parent).
  EXPECT_EQ(ranks, (std::vector<int>{-1, -1, 3, 5}));
}

TEST(AscendProfilerDir, SkipModeReportsABadFileAndGoesOn) {
  TempDir dir;
  copy_run(dir);
  const std::string bad = (dir.path() / "run" / kW1 / "ASCEND_PROFILER_OUTPUT" / "op_statistic.csv").string();
  { std::ofstream(bad, std::ios::trunc) << "Device_id,OP Type,Count,Total Time(us)\n0,MatMul,lots,1\n"; }
  Harness h(ascend_profiler_dir_factory(), {{"path", dir / "run"}, {"bad_file", "skip"}});
  EXPECT_EQ(run(h), "");
  const auto batches = record_batches(h);
  ASSERT_EQ(batches.size(), 7u);
  EXPECT_TRUE(batches[3].partial);
  EXPECT_EQ(batches[3].source_path, bad);
  EXPECT_EQ(batches[3].error,
            bad + ":2: expected a number in 'Count' (column 3), got 'lots' (line starts at byte offset 39)");
  EXPECT_FALSE(batches[4].partial);
  EXPECT_THAT(batches[4].source_path, ::testing::EndsWith("step_trace_time.csv"));
}

TEST(AscendProfilerDir, MalformedInputs) {
  // Folder-level faults fail at start().
  {
    Harness h(ascend_profiler_dir_factory(), {{"path", "/nonexistent/run"}});
    EXPECT_EQ(run(h), "/nonexistent/run: cannot open: No such file or directory");
  }
  {
    TempDir dir;
    const std::string notes = dir / "notes.txt";
    dir.write("notes.txt", "not a profiler file");
    Harness h(ascend_profiler_dir_factory(), {{"path", notes}});
    EXPECT_EQ(run(h), notes +
                          ": expected an Ascend profiler file (kernel_details.csv, step_trace_time.csv, "
                          "communication.json, ...) or a folder holding them");
  }
  {
    TempDir dir;
    dir.write("empty/readme.txt", "nothing here");
    Harness h(ascend_profiler_dir_factory(), {{"path", dir / "empty"}});
    EXPECT_EQ(
        run(h),
        dir / "empty" +
            ": expected *_ascend_pt/ASCEND_PROFILER_OUTPUT/ or cluster_analysis_output/ folders with "
            "profiler files (kernel_details.csv, step_trace_time.csv, communication.json, ...), found none");
    EXPECT_TRUE(h.out.emitted.empty());
  }
  {
    TempDir dir;
    const std::string st = "Device_id,Step,Computing,Communication(Not Overlapped)\n0,1,10,20\n";
    dir.write("job/a_ascend_pt/profiler_info_2.json", "{}");
    dir.write("job/a_ascend_pt/ASCEND_PROFILER_OUTPUT/step_trace_time.csv", st);
    dir.write("job/b_ascend_pt/profiler_info_2.json", "{}");
    dir.write("job/b_ascend_pt/ASCEND_PROFILER_OUTPUT/step_trace_time.csv", st);
    Harness h(ascend_profiler_dir_factory(), {{"path", dir / "job"}});
    const std::string error = run(h);
    EXPECT_THAT(error,
                ::testing::StartsWith(dir / "job" +
                                      ": expected one profiler folder per rank, but rank 2 is claimed by "));
    EXPECT_THAT(error, ::testing::HasSubstr("a_ascend_pt"));
    EXPECT_THAT(error, ::testing::HasSubstr("b_ascend_pt"));
  }
  // File-level faults name the file inside the folder, after a partial batch (bad_file: fail).
  struct FileFault {
    std::string name;
    std::string file;  // relative to run/
    std::string content;
    std::string expected;  // after "<file path>:"
    std::size_t batches_before;
  };
  const std::string w0 = std::string(kW0) + "/ASCEND_PROFILER_OUTPUT/";
  const std::string w1 = std::string(kW1) + "/ASCEND_PROFILER_OUTPUT/";
  const std::string kd = "Name,Start Time(us),Duration(us)\n";
  const std::string st = "Device_id,Step,Computing,Communication(Not Overlapped)\n";
  const std::vector<FileFault> faults = {
      {"kernel_bad_time", w0 + "kernel_details.csv", kd + "A,1,1\nB,later,1\n",
       "3: expected a number in 'Start Time(us)' (column 2), got 'later' (line starts at byte offset 39)", 0},
      {"kernel_missing_column", w0 + "kernel_details.csv", "Name,Duration(us)\nA,1\n",
       "1: expected the kernel_details.csv column(s) 'Start Time(us)' in the header, got: Name, Duration(us) "
       "(line "
       "starts at byte offset 0)",
       0},
      {"kernel_long_line", w0 + "kernel_details.csv", kd + std::string(2 << 20, 'x') + "\n",
       "2: expected a line of at most max_line_bytes = 1048576 bytes, got a longer one (binary data or a "
       "missing "
       "newline?) (line starts at byte offset 33)",
       0},
      {"step_binary", w0 + "step_trace_time.csv", st + std::string("0,1,\x01\x02,3\n"),
       "2: expected text, got the control byte \\x01 at column 5 (binary data?) (line starts at byte offset "
       "55)",
       1},
      {"comm_syntax", w0 + "communication.json", "{\"step1\": ",
       "1: expected valid JSON, got syntax error while parsing value - unexpected end of input; expected "
       "'[', '{', or "
       "a literal (at byte offset 10)",
       2},
      {"comm_value", w0 + "communication.json", "{\"step1\": {\"op@g\": {\"Communication Time Info\": []}}}",
       "1: in /step1/op@g/Communication Time Info: expected an object, got an array (at byte offset 20)", 2},
      {"matrix_link", w1 + "communication_matrix.json", "{\"s\": {\"x\": {\"Transport Type\": \"RDMA\"}}}",
       "1: in /s/x: expected a link key like '0-1' or '0->1', got 'x' (at byte offset 7)", 5},
      {"op_stat_count", w1 + "op_statistic.csv", "OP Type,Count,Total Time(us)\nA,-4,1\n",
       "2: expected a count >= 0 in 'Count' (line starts at byte offset 29)", 3},
      {"cluster_rank", "cluster_analysis_output/cluster_step_trace_time.csv",
       "Step,Type,Index,Computing,Communication(Not Overlapped)\n1,rank,x,1,2\n",
       "2: expected a rank id (Type is 'rank') in 'Index', got 'x' (line starts at byte offset 56)", 6},
  };
  for (const auto& f : faults) {
    TempDir dir;
    copy_run(dir);
    const std::string path = (dir.path() / "run" / f.file).string();
    { std::ofstream(path, std::ios::binary | std::ios::trunc) << f.content; }
    Harness h(ascend_profiler_dir_factory(), {{"path", dir / "run"}, {"max_line_bytes", "1MiB"}});
    const std::string error = run(h);
    EXPECT_EQ(error, path + ":" + f.expected) << f.name;
    const auto batches = record_batches(h);
    ASSERT_EQ(batches.size(), f.batches_before + 1) << f.name;
    EXPECT_TRUE(batches.back().partial) << f.name;
    EXPECT_EQ(batches.back().source_path, path) << f.name;
    EXPECT_EQ(batches.back().error, error) << f.name;
  }
}

}  // namespace
}  // namespace cann_debug::plugins
