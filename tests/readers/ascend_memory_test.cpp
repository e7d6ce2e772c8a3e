// ascend_memory: memory_record.csv, operator_memory.csv and npu_module_mem.csv (fixtures in the layouts of
// torch_npu 2.1 and msprof 8.0, the real files of the 16-rank GPT-3 job), the kind from the header, bad
// input.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ascend_memory.hpp"
#include "ascend_profiler_dir.hpp"
#include "readers_test_support.hpp"

namespace cann_debug::plugins {
namespace {

using namespace readers_test;
using testing::Harness;

constexpr double kMiB = 1048576.0;
const char* kGpt3 = "ascend/msinsight_gpt3_16rank_pp2";

TEST(AscendMemory, MemoryRecordGivesTotalsInBytes) {
  EXPECT_THAT(check_manifest(ascend_memory_factory().manifest()), ::testing::IsEmpty());
  Harness h(ascend_memory_factory(), {{"path", fixture("ascend/memory_record.csv")}, {"rank", 5}});
  ASSERT_EQ(run(h), "");
  const auto batches = record_batches(h);
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_EQ(batches[0].schema, "ascend.memory_record/1");
  const auto r = records(h);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].fields["component"], "PTA");
  EXPECT_EQ(r[0].fields["stream_ptr"], "94509039890976");  // an address, kept as text
  EXPECT_EQ(r[0].key.timestamp_ns, 1704161511420306491);
  EXPECT_EQ(r[0].key.device, 2);
  EXPECT_EQ(r[0].key.rank, 5);
  EXPECT_EQ(r[1].fields["total_allocated_mb"], nullptr);  // N/A is absent, not zero
  EXPECT_FALSE(r[2].key.has_timestamp());                 // kept as a record, no point
  EXPECT_EQ(r[2].line, 4);

  const auto m = metrics(h);
  EXPECT_EQ(m.size(), 3u + 1u);  // three totals of row 2, the reserved total of row 3
  const auto allocated = one(m, "npu.memory_allocated");
  EXPECT_EQ(allocated.value, 512.5 * kMiB);
  EXPECT_EQ(allocated.unit, "bytes");
  EXPECT_EQ(allocated.labels.at("component"), "PTA");
  EXPECT_EQ(allocated.labels.at("device"), "2");
  EXPECT_EQ(allocated.labels.at("rank"), "5");
  EXPECT_EQ(allocated.labels.at("source_name"), "Total Allocated(MB)");
  EXPECT_EQ(one(m, "npu.memory_active").value, 600.25 * kMiB);
  EXPECT_EQ(one(m, "npu.memory_reserved", {{"component", "PTA+GE"}}).value, 1024 * kMiB);
}

TEST(AscendMemory, OperatorMemoryGivesAllocationsWithTheirLifetimes) {
  Harness h(ascend_memory_factory(), {{"path", fixture("ascend/operator_memory.csv")}});
  ASSERT_EQ(run(h), "");
  EXPECT_EQ(record_batches(h).at(0).schema, "ascend.operator_memory/1");
  const auto r = records(h);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].fields["name"], "aten::empty_strided");
  EXPECT_EQ(r[0].fields["size_bytes"], 75776 * 1024);
  EXPECT_EQ(r[0].fields["allocation_time_ns"], 1704161511420306491);
  EXPECT_EQ(r[0].fields["release_time_ns"], 1704161511420481440);
  EXPECT_EQ(r[0].fields["active_release_time_ns"], 1704161511420480417);
  EXPECT_EQ(r[0].key.timestamp_ns, 1704161511420306491);
  EXPECT_EQ(r[0].key.device, 1);
  EXPECT_DOUBLE_EQ(r[0].fields["duration_us"].get<double>(), 174.949);
  EXPECT_EQ(r[1].fields["name"], "aten::matmul, fused");
  EXPECT_EQ(r[1].fields["size_bytes"], 512);
  EXPECT_FALSE(r[1].fields.contains("release_time_ns"));  // not released within the profile
  EXPECT_EQ(r[2].key.device, -1);                         // host memory: no NPU
  EXPECT_TRUE(metrics(h).empty());
}

TEST(AscendMemory, ModuleMemoryKeepsReleasesAsRecordsOnly) {
  Harness h(ascend_memory_factory(), {{"path", fixture("ascend/npu_module_mem.csv")}});
  ASSERT_EQ(run(h), "");
  EXPECT_EQ(record_batches(h).at(0).schema, "ascend.npu_module_mem/1");
  const auto r = records(h);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].key.timestamp_ns, 1724670453385978290);  // the profiler's trailing tab is not part of it
  EXPECT_EQ(r[0].key.device, 0);
  const auto m = metrics(h);
  ASSERT_EQ(m.size(), 2u);  // the -1 of RUNTIME is "only a release was seen", not a size
  EXPECT_EQ(one(m, "npu.module_memory_reserved", {{"component", "APP"}}).value, 25750 * kMiB);
  EXPECT_EQ(one(m, "npu.module_memory_reserved", {{"component", "HCCL"}}).value,
            std::round(816.12109375 * kMiB));
}

TEST(AscendMemory, RealFilesOfTheGpt3Job) {
  if (!have_real(kGpt3)) GTEST_SKIP() << "shared real data absent";
  const std::string out = std::string(kGpt3) + "/rank_0/ASCEND_PROFILER_OUTPUT/";
  {
    // Line 4: PTA,1695115378714622.8,4599.74072265625,8664.0,NPU:0
    Harness h(ascend_memory_factory(), {{"path", real(out + "memory_record.csv")}});
    ASSERT_EQ(run(h), "");
    const auto r = records(h);
    ASSERT_EQ(r.size(), 11u);
    EXPECT_EQ(r[2].key.timestamp_ns, 1695115378714622800);
    const auto m = metrics(h);
    EXPECT_EQ(find(m, "npu.memory_reserved").size(), 11u);
    EXPECT_EQ(find(m, "npu.memory_allocated").size(), 9u);  // APP rows leave it empty
    EXPECT_EQ(find(m, "npu.memory_allocated", {{"component", "PTA"}}).at(0).value, 4823177728.0);
    EXPECT_EQ(find(m, "npu.memory_reserved", {{"component", "APP"}}).at(0).value, 11224.375 * kMiB);
  }
  {
    Harness h(ascend_memory_factory(), {{"path", real(out + "operator_memory.csv")}});
    ASSERT_EQ(run(h), "");
    const auto r = records(h);
    ASSERT_EQ(r.size(), 28u);
    // cann::Graph_70,192,1695115378723902.5,1695115378723939.2,...
    EXPECT_EQ(r[0].fields["name"], "cann::Graph_70");
    EXPECT_EQ(r[0].fields["size_bytes"], 196608);
    EXPECT_EQ(r[0].fields["release_time_ns"], 1695115378723939200);
  }
  {
    Harness h(ascend_memory_factory(), {{"path", real(out + "npu_module_mem.csv")}});
    ASSERT_EQ(run(h), "");
    EXPECT_EQ(records(h).size(), 78u);
    EXPECT_EQ(find(metrics(h), "npu.module_memory_reserved", {{"component", "APP"}}).size(), 9u);
  }
  {
    // torch_npu 2.1's operator_memory.csv of rank 1: Active Release Time and Stream Ptr columns.
    Harness h(ascend_memory_factory(),
              {{"path", real(std::string(kGpt3) + "/rank_1/ASCEND_PROFILER_OUTPUT/operator_memory.csv")}});
    ASSERT_EQ(run(h), "");
    const auto r = records(h);
    ASSERT_EQ(r.size(), 21u);
    EXPECT_EQ(r[0].fields["size_bytes"], 75776 * 1024);
    EXPECT_EQ(r[0].fields["allocation_time_ns"], 1706704429088523015);
    EXPECT_EQ(r[0].key.device, 1);
  }
}

TEST(AscendMemory, TheProfilerFolderReaderReadsTheMemoryFilesOfEachRank) {
  if (!have_real(kGpt3)) GTEST_SKIP() << "shared real data absent";
  Harness h(ascend_profiler_dir_factory(), {{"path", real(kGpt3)}, {"files", {"memory_record"}}});
  ASSERT_EQ(run(h), "");
  std::set<std::int32_t> ranks;
  for (const auto& p : find(metrics(h), "npu.memory_reserved")) ranks.insert(std::stoi(p.labels.at("rank")));
  EXPECT_EQ(ranks, (std::set<std::int32_t>{0, 1}));
}

TEST(AscendMemory, AnotherCsvIsRefusedWithTheExpectedHeaders) {
  TempDir dir;
  const std::string path = dir.write("other.csv", "Step,Loss\n1,2.5\n");
  Harness h(ascend_memory_factory(), {{"path", path}});
  EXPECT_THAT(run(h), ::testing::HasSubstr(path + ":1 (byte 0): expected the header of memory_record.csv"));
  EXPECT_EQ(ascend_memory_factory().sniff(SniffInput{path, "Step,Loss\n1,2.5\n", false}), 0);
}

TEST(AscendMemory, MalformedInputs) {
  TempDir dir;
  const std::string R = "Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Device Type\n";
  const std::string r_good = "PTA,1695115378714622.8,4599.5,8664.0,NPU:0\n";
  const std::string rg = std::to_string(R.size() + r_good.size());
  const std::string O = "Name,Size(KB),Allocation Time(us),Release Time(us),Device Type\n";
  const std::string o_good = "aten::add,64,1695115378723902.5,1695115378723939.2,NPU:0\n";
  const std::string og = std::to_string(O.size() + o_good.size());
  const std::string M = "Component,Timestamp(us),Total Reserved(MB),Device\n";
  const std::string m_good = "APP,1724670453385978.290,25750.0,NPU:0\n";
  const std::string mg = std::to_string(M.size() + m_good.size());
  const std::vector<BadInput> cases = {
      {"text_reserved", R + r_good + "PTA,1695115378714622.8,4599.5,lots,NPU:0\n",
       "3: expected a number in 'Total Reserved(MB)' (column 4), got 'lots' (line starts at byte offset " +
           rg + ")"},
      {"negative_reserved", R + r_good + "PTA,1695115378714622.8,4599.5,-2,NPU:0\n",
       "3: expected a size >= 0 MB in 'Total Reserved(MB)' (line starts at byte offset " + rg + ")"},
      {"negative_time", R + r_good + "PTA,-5,4599.5,1,NPU:0\n",
       "3: expected a time >= 0 in 'Timestamp(us)' (line starts at byte offset " + rg + ")"},
      {"bad_device", R + r_good + "PTA,1695115378714622.8,4599.5,1,GPU:0\n",
       "3: expected NPU:<id> or CPU in 'Device Type', got 'GPU:0' (line starts at byte offset " + rg + ")"},
      {"no_component", R + r_good + ",1695115378714622.8,4599.5,1,NPU:0\n",
       "3: expected a component name in 'Component' (line starts at byte offset " + rg + ")"},
      {"unterminated", R + r_good + "\"PTA,1695115378714622.8,4599.5,1,NPU:0\n",
       "3: expected a closing quote for a field opened in the row starting on this line, got the end of the "
       "file (line starts at byte offset " +
           rg + ")"},
      {"released_before_allocated", O + o_good + "aten::add,64,1695115378723902.5,1695115378723000,NPU:0\n",
       "3: expected 'Release Time(us)' at or after 'Allocation Time(us)' (line starts at byte offset " + og +
           ")"},
      {"text_size", O + o_good + "aten::add,big,1695115378723902.5,1695115378723939.2,NPU:0\n",
       "3: expected a number in 'Size(KB)' (column 2), got 'big' (line starts at byte offset " + og + ")"},
      {"no_name", O + o_good + ",64,1695115378723902.5,1695115378723939.2,NPU:0\n",
       "3: expected an operator name in 'Name' (line starts at byte offset " + og + ")"},
      {"text_allocation_time", O + o_good + "aten::add,64,soon,1695115378723939.2,NPU:0\n",
       "3: expected a number in 'Allocation Time(us)' (column 3), got 'soon' (line starts at byte offset " +
           og + ")"},
      {"module_negative", M + m_good + "APP,1724670453385978.290,-3,NPU:0\n",
       "3: expected a size >= 0 MB (or -1) in 'Total Reserved(MB)' (line starts at byte offset " + mg + ")"},
      {"module_nul", M + m_good + std::string("A\0P,1724670453385978.290,1,NPU:0\n", 34),
       "3: expected text, got the control byte \\x00 at column 2 (binary data?) (line starts at byte "
       "offset " +
           mg + ")"},
  };
  for (const auto& bad : cases)
    EXPECT_EQ(check_bad_input(ascend_memory_factory(), nlohmann::json::object(), bad, dir, "memory.csv"), "")
        << bad.name;
}

}  // namespace
}  // namespace cann_debug::plugins
