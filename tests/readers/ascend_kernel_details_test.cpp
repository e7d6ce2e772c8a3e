// ascend_kernel_details: the real kernel_details.csv samples, the newer column variants, and bad input.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "ascend_kernel_details.hpp"
#include "readers_test_support.hpp"

namespace cann_debug::plugins {
namespace {

using namespace readers_test;
using nlohmann::json;
using testing::Harness;

TEST(AscendKernelDetails, ManifestIsSound) {
  EXPECT_THAT(check_manifest(ascend_kernel_details_factory().manifest()), ::testing::IsEmpty());
  EXPECT_EQ(ascend_kernel_details_factory().manifest().kind, ComponentKind::kReader);
}

TEST(AscendKernelDetails, RealArithmeticUtilizationSample) {
  if (!have_real("ascend/mstt/kernel_details_2023_arithutil.csv")) GTEST_SKIP() << "shared real data absent";
  Harness h(ascend_kernel_details_factory(),
            {{"path", real("ascend/mstt/kernel_details_2023_arithutil.csv")}, {"rank", 3}});
  ASSERT_EQ(run(h), "");
  const auto r = records(h);
  ASSERT_EQ(r.size(), 591u);
  EXPECT_EQ(record_batches(h).size(), 2u);  // 512 + 79

  // Line 2:
  // 1,4294967295,1259,16,ZerosLike46,ZerosLike,AI_VECTOR_CORE,1699529622790614.8,607.98,0,48,0,"""544404480""",...
  const auto& z = r[0];
  EXPECT_EQ(z.line, 2);
  EXPECT_EQ(z.key.step_id, 1);
  EXPECT_EQ(z.key.rank, 3);
  EXPECT_EQ(z.key.timestamp_ns, 1699529622790614800);
  EXPECT_EQ(z.fields["start_ns"], 1699529622790614800);
  EXPECT_EQ(z.fields["duration_ns"], 607980);
  EXPECT_EQ(z.fields["model_id"], nullptr);  // 4294967295 = N/A
  EXPECT_EQ(z.fields["task_id"], 1259);
  EXPECT_EQ(z.fields["stream_id"], 16);
  EXPECT_EQ(z.fields["name"], "ZerosLike46");
  EXPECT_EQ(z.fields["accelerator_core"], "AI_VECTOR_CORE");
  EXPECT_EQ(z.fields["block_num"], 48);  // "Block Dim" in this version
  EXPECT_EQ(z.fields["mix_block_num"], 0);
  EXPECT_EQ(z.fields["input_shapes"], "544404480");  // written """544404480"""
  EXPECT_EQ(z.fields["input_data_types"], "FLOAT16");
  EXPECT_EQ(z.fields["context_id"], nullptr);
  EXPECT_DOUBLE_EQ(z.fields["aiv_vec_fp32_ratio"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(z.fields["aiv_vec_int32_ratio"].get<double>(), 0.0822);
  EXPECT_EQ(z.fields["aiv_vector_fops"], 137176320);
  EXPECT_EQ(z.fields.size(), 35u);  // 33 columns + start_ns + duration_ns

  // Line 3: the HCCL row, N/A everywhere but the times.
  const auto& hccl = r[1];
  EXPECT_EQ(hccl.fields["name"], "hcom_broadcast__445_0");
  EXPECT_EQ(hccl.fields["accelerator_core"], "HCCL");
  EXPECT_EQ(hccl.fields["task_id"], nullptr);
  EXPECT_EQ(hccl.fields["input_shapes"], nullptr);
  EXPECT_EQ(hccl.key.timestamp_ns, 1699529622793969500);
  EXPECT_EQ(hccl.fields["duration_ns"], 308926680);
  EXPECT_DOUBLE_EQ(hccl.fields["wait_time_us"].get<double>(), 2746.77);

  // Line 6: Slice67 with three input tensors.
  EXPECT_EQ(r[4].fields["input_shapes"], "4,1025;2;2");
  EXPECT_EQ(r[4].fields["input_data_types"], "INT32;INT64;INT64");
  // The last line: StridedSlice219, an integer start time.
  EXPECT_EQ(r.back().line, 592);
  EXPECT_EQ(r.back().fields["name"], "StridedSlice219");
  EXPECT_EQ(r.back().key.timestamp_ns, 1699529623307499000);
  EXPECT_EQ(r.back().fields["duration_ns"], 1340);

  std::map<std::string, int> cores;
  for (const auto& rec : r) cores[rec.fields["accelerator_core"].get<std::string>()]++;
  EXPECT_EQ(cores, (std::map<std::string, int>{{"AI_VECTOR_CORE", 520},
                                               {"MIX_AIV", 25},
                                               {"HCCL", 19},
                                               {"AI_CORE", 13},
                                               {"AI_CPU", 7},
                                               {"DSA_SQE", 7}}));
  for (const auto& rec : r) ASSERT_EQ(rec.key.step_id, 1);
}

TEST(AscendKernelDetails, RealMinimalSampleWithoutSteps) {
  if (!have_real("ascend/mstt/kernel_details_minimal.csv")) GTEST_SKIP() << "shared real data absent";
  Harness h(ascend_kernel_details_factory(), {{"path", real("ascend/mstt/kernel_details_minimal.csv")}});
  ASSERT_EQ(run(h), "");
  const auto r = records(h);
  ASSERT_EQ(r.size(), 8u);
  EXPECT_EQ(r[0].fields["name"], "Cast16");
  EXPECT_EQ(r[0].fields["type"], nullptr);
  EXPECT_EQ(r[0].key.timestamp_ns, 1702866902796675000);
  EXPECT_EQ(r[0].fields["duration_ns"], 932050);  // 932.0498 us, rounded to the ns
  EXPECT_FALSE(r[0].key.has_step());
  EXPECT_FALSE(r[0].key.has_rank());
  EXPECT_EQ(r[4].fields["name"], "Conv2D17");
  EXPECT_EQ(r[4].key.timestamp_ns, 1702866902996956800);
  EXPECT_DOUBLE_EQ(r[1].fields["wait_time_us"].get<double>(), 199251.9502);
  EXPECT_EQ(r[7].fields["name"], "atomic_memset-1_18_186609_1");
  EXPECT_EQ(r[7].key.timestamp_ns, 1702866903316761500);
}

// A real kernel_details.csv had one short HCCL row (31 cells under a 32-column header): the row is kept as a
// partial record, with a warning naming file:line, instead of the file being refused.
TEST(AscendKernelDetails, RaggedRowsAreKeptAsPartialRecordsWithAWarning) {
  TempDir dir;
  const std::string H = "Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim\n";
  const std::string good = "MatMul,MatMul,AI_CORE,1702866902796675,1.5,0,8\n";
  const std::string short_row = "hcom_allReduce__1,hcom_allReduce_,HCCL,1702866902796680,20.5,0\n";
  const std::string path = dir.write(
      "kernel_details.csv", H + good + short_row + "Add,Add,AI_VECTOR_CORE,1702866902796700,1,0,8,extra\n");
  Harness h(ascend_kernel_details_factory(), {{"path", path}});
  ASSERT_EQ(run(h), "");
  const auto r = records(h);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_FALSE(r[0].fields.contains("_cells"));
  EXPECT_EQ(r[1].fields["name"], "hcom_allReduce__1");
  EXPECT_EQ(r[1].fields["duration_ns"], 20500);
  EXPECT_EQ(r[1].fields["_cells"], 6);
  EXPECT_EQ(r[2].fields["_cells"], 8);
  EXPECT_EQ(r[2].fields["name"], "Add");
  ASSERT_EQ(h.host.log.lines.size(), 2u);
  EXPECT_EQ(h.host.log.lines[0].second,
            path +
                ":3: expected 7 cells as in the header, got 6; kept as a partial record (line starts at byte "
                "offset " +
                std::to_string(H.size() + good.size()) + ")");
  EXPECT_EQ(h.host.log.lines[0].first, LogLevel::kWarn);
}

// A real kernel_details.csv (a 16-rank GPT-3 job) has a FlashAttentionScore row without its duration: its
// later cells are shifted one column left, so 'NO' (HF32 Eligible) lands in Mix Block Dim. The cell is left
// empty with a warning and the rows after it are read; the same text in a row of the right width still stops
// the reader (MalformedInputs).
TEST(AscendKernelDetails, TextShiftedIntoANumberColumnOfARaggedRowIsLeftEmpty) {
  TempDir dir;
  const std::string H =
      "Name,Start Time(us),Duration(us),Wait Time(us),Block Dim,Mix Block Dim,HF32 Eligible,Context ID\n";
  const std::string good = "FlashAttentionScore,1695115378777268.5,7023.5739,1.7606,24,48,NO,0\n";
  const std::string shifted = "FlashAttentionScore,1695115378795017.5,1.8414,24,48,NO,0\n";
  const std::string after = "NonZero_MemSet,1695115378979222.2,1.1997,1336.9703,0,0,NO,0\n";
  const std::string path = dir.write("kernel_details.csv", H + good + shifted + after);
  Harness h(ascend_kernel_details_factory(), {{"path", path}});
  ASSERT_EQ(run(h), "");
  const auto r = records(h);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[1].fields["_cells"], 7);
  EXPECT_TRUE(r[1].fields["mix_block_num"].is_null());
  EXPECT_EQ(r[1].fields["block_num"], 48);
  EXPECT_EQ(r[2].fields["name"], "NonZero_MemSet");
  EXPECT_EQ(r[2].fields["duration_ns"], 1200);
  ASSERT_EQ(h.host.log.lines.size(), 2u);
  EXPECT_EQ(
      h.host.log.lines[1].second,
      path +
          ":3: expected a number in 'Mix Block Dim' (column 6), got 'NO' in a row of 7 cells: left empty " +
          "(line starts at byte offset " + std::to_string(H.size() + good.size()) + ")");
}
TEST(AscendKernelDetails, NewerColumnVariantsAndTrailingTabs) {
  Harness h(ascend_kernel_details_factory(),
            {{"path", fixture("ascend/kernel_details_2025.csv")}, {"node", "node-1"}});
  ASSERT_EQ(run(h), "");
  const auto r = records(h);
  ASSERT_EQ(r.size(), 4u);
  // "Step ID", "Block Num", "Mix Block Num", "OP State", "HF32 Eligible"; Start Time
  // "1702866902796675.123\t".
  EXPECT_EQ(r[0].key.step_id, 1);
  EXPECT_EQ(r[0].key.device, 0);
  EXPECT_EQ(r[0].key.node_id, "node-1");
  EXPECT_EQ(r[0].key.timestamp_ns, 1702866902796675123);
  EXPECT_EQ(r[0].fields["block_num"], 20);
  EXPECT_EQ(r[0].fields["op_state"], "static");
  EXPECT_EQ(r[0].fields["hf32_eligible"], "NO");
  EXPECT_EQ(r[0].fields["input_shapes"], "8192,4096;4096,1024");
  EXPECT_DOUBLE_EQ(r[0].fields["start_time_us"].get<double>(), 1702866902796675.123);
  EXPECT_DOUBLE_EQ(r[0].fields["aic_mac_ratio"].get<double>(), 0.81);
  EXPECT_EQ(r[1].fields["task_id"], nullptr);
  EXPECT_EQ(r[1].key.timestamp_ns, 1702866902796800500);
  EXPECT_EQ(r[1].fields["duration_ns"], 1500250);
  EXPECT_EQ(r[2].key.step_id, 2);
  EXPECT_EQ(r[2].key.timestamp_ns, 1702866902798301001);
  EXPECT_EQ(r[3].fields["mix_block_num"], 48);
  EXPECT_EQ(r[3].fields["context_id"], 0);
  EXPECT_EQ(r[3].fields["input_shapes"], "1,8,2048,128;1,8,2048,128;1,8,2048,128");
  EXPECT_EQ(r[3].key.timestamp_ns, 1702866902798400000);
}

TEST(AscendKernelDetails, EmptyAndHeaderOnlyFilesGiveNothing) {
  TempDir dir;
  for (const char* content : {"", "Name,Start Time(us),Duration(us)\n", "\n\n"}) {
    Harness h(ascend_kernel_details_factory(), {{"path", dir.write("k.csv", content)}});
    EXPECT_EQ(run(h), "") << content;
    EXPECT_TRUE(records(h).empty());
  }
}

TEST(AscendKernelDetails, MissingFileFailsAtStart) {
  Harness h(ascend_kernel_details_factory(), {{"path", "/nonexistent/kernel_details.csv"}});
  EXPECT_THROW(h.component().start(), std::runtime_error);
  EXPECT_EQ(run(h), "/nonexistent/kernel_details.csv: cannot open: No such file or directory");
}

TEST(AscendKernelDetails, RowsBeforeAFaultComeFirstInAPartialBatch) {
  TempDir dir;
  const std::string head = "Name,Start Time(us),Duration(us)\n";
  std::string text = head;
  for (int i = 0; i < 5; ++i)
    text += "Op" + std::to_string(i) + ",1700000000000000." + std::to_string(i) + ",1\n";
  const std::string bad_at = std::to_string(text.size());
  text += "Bad,soon,1\n";
  Harness h(ascend_kernel_details_factory(), {{"path", dir.write("k.csv", text)}, {"batch_size", 2}});
  const std::string error = run(h);
  EXPECT_EQ(
      error,
      dir / "k.csv" +
          ":7: expected a number in 'Start Time(us)' (column 2), got 'soon' (line starts at byte offset " +
          bad_at + ")");
  const auto batches = record_batches(h);
  ASSERT_EQ(batches.size(), 3u);
  EXPECT_FALSE(batches[0].partial);
  EXPECT_FALSE(batches[1].partial);
  EXPECT_TRUE(batches[2].partial);
  EXPECT_EQ(batches[2].records.size(), 1u);
  EXPECT_EQ(batches[2].records[0].fields["name"], "Op4");
  EXPECT_EQ(batches[2].error, error);
}

TEST(AscendKernelDetails, MalformedInputs) {
  TempDir dir;
  const std::string H = "Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim\n";
  const std::string good = "MatMul,MatMul,AI_CORE,1702866902796675,1.5,0,8\n";
  const std::string h = std::to_string(H.size());
  const std::string g = std::to_string(H.size() + good.size());
  std::mt19937 rng(7);
  std::string garbage;
  for (int i = 0; i < 2000; ++i) garbage += static_cast<char>(rng() & 0xff);
  const std::vector<BadInput> cases = {
      {"missing_column", "Name,Type,Duration(us)\nA,B,1\n",
       "1: expected the kernel_details.csv column(s) 'Start Time(us)' in the header, got: Name, Type, "
       "Duration(us) "
       "(line starts at byte offset 0)"},
      {"bad_start", H + good + "A,B,C,17028669O2796675,1,0,8\n",
       "3: expected a number in 'Start Time(us)' (column 4), got '17028669O2796675' (line starts at byte "
       "offset " +
           g + ")"},
      {"unterminated_quote", H + good + "\"MatMul,b,c,1,1,0,8\nx,y\n",
       "3: expected a closing quote for a field opened in the row starting on this line, got the end of the "
       "file "
       "(line starts at byte offset " +
           g + ")"},
      {"nul_byte", H + good + std::string("Mat\0Mul,b,c,1,1,0,8\n", 20),
       "3: expected text, got the control byte \\x00 at column 4 (binary data?) (line starts at byte "
       "offset " +
           g + ")"},
      {"invalid_utf8", H + good + "Mat\xff\xfeMul,b,c,1,1,0,8\n",
       "3: expected UTF-8 text, got the byte \\xff at column 4 (binary data or another encoding?) (line "
       "starts at byte "
       "offset " +
           g + ")"},
      {"bad_step", "Step Id,Name,Start Time(us),Duration(us)\nx,A,1,1\n",
       "2: expected an integer step id in 'Step Id', got 'x' (line starts at byte offset 41)"},
      {"negative_step", "Step Id,Name,Start Time(us),Duration(us)\n-3,A,1,1\n",
       "2: expected a step id >= 0 in 'Step Id' (line starts at byte offset 41)"},
      {"duplicate_variants", "Block Dim,Name,Start Time(us),Duration(us),Block Num\n8,A,1,1,8\n",
       "1: expected unique column names, but 'Block Dim' (column 1) and 'Block Num' (column 5) both mean "
       "'block_num' "
       "(line starts at byte offset 0)"},
      {"bad_duration", H + good + "A,B,C,1702866902796675,fast,0,8\n",
       "3: expected a number in 'Duration(us)' (column 5), got 'fast' (line starts at byte offset " + g +
           ")"},
      {"bad_block_dim", H + "A,B,C,1702866902796675,1,0,x\n",
       "2: expected a number in 'Block Dim' (column 7), got 'x' (line starts at byte offset " + h + ")"},
      {"garbage_after_quote", H + "\"MatMul\"x,B,C,1,1,0,8\n",
       "2: expected ',' or the end of the row after the closing quote of field 1, got 'x' at column 9 (line "
       "starts at "
       "byte offset " +
           h + ")"},
      {"binary_garbage", H + good + garbage, ""},
      {"ten_megabyte_line", H + good + std::string(10 * 1024 * 1024, 'a') + "\n",
       "3: expected a line of at most max_line_bytes = 1048576 bytes, got a longer one (binary data or a "
       "missing "
       "newline?) (line starts at byte offset " +
           g + ")"},
  };
  for (const auto& bad : cases) {
    if (bad.name == "binary_garbage") {  // where it fails depends on the bytes: only the shape is fixed
      const std::string path = dir.write("garbage/kernel_details.csv", bad.content);
      Harness hh(ascend_kernel_details_factory(), {{"path", path}});
      const std::string error = run(hh);
      EXPECT_THAT(error, ::testing::StartsWith(path + ":3: expected "));
      EXPECT_THAT(error, ::testing::HasSubstr("(line starts at byte offset " + g + ")"));
      ASSERT_FALSE(record_batches(hh).empty());
      EXPECT_EQ(record_batches(hh).back().records.size(), 1u);
      continue;
    }
    EXPECT_EQ(check_bad_input(ascend_kernel_details_factory(), {{"max_line_bytes", "1MiB"}}, bad, dir,
                              "kernel_details.csv"),
              "")
        << bad.name;
  }
}

}  // namespace
}  // namespace cann_debug::plugins
