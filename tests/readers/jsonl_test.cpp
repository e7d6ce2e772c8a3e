// Tests of the jsonl reader: records, correlation keys, batching, and every way a file can be bad.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

#include "cann_debug/messages.hpp"
#include "cann_debug/testing.hpp"
#include "jsonl.hpp"
#include "plugin_test_support.hpp"

namespace cann_debug::plugins {
namespace {

using test::data_dir;
using test::TempDir;
using test::write_file;
using testing::Harness;
using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string fixture(const char* name) {
  return (data_dir() / "jsonl" / name).string();
}

std::vector<Record> all_records(const std::vector<RecordBatch>& batches) {
  std::vector<Record> records;
  for (const auto& b : batches) records.insert(records.end(), b.records.begin(), b.records.end());
  return records;
}

// Runs the reader to its end; returns the error it threw ("" if none).
std::string run(Harness& h) {
  try {
    h.run_source();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return {};
}

TEST(JsonlReader, ManifestIsSound) {
  EXPECT_THAT(check_manifest(jsonl_factory().manifest()), ::testing::IsEmpty());
  const auto& m = jsonl_factory().manifest();
  EXPECT_EQ(m.type, "jsonl");
  EXPECT_EQ(m.kind, ComponentKind::kReader);
  ASSERT_EQ(m.outputs.size(), 1u);
  EXPECT_EQ(m.outputs[0].name, "records");
  EXPECT_EQ(m.outputs[0].produces, "record.batch/1");
  ASSERT_NE(m.option("path"), nullptr);
  EXPECT_TRUE(m.option("path")->required);
}

TEST(JsonlReader, ReadsEveryRecordKeepingFieldsAsTheyAre) {
  Harness h(jsonl_factory(), {{"path", fixture("good.jsonl")}});
  EXPECT_EQ(run(h), "");
  const auto batches = h.outputs_of<RecordBatch>(0);
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_FALSE(batches[0].partial);
  EXPECT_EQ(batches[0].error, "");
  EXPECT_EQ(batches[0].source_path, fixture("good.jsonl"));
  const auto& r = batches[0].records;
  ASSERT_EQ(r.size(), 4u);
  // Blank and whitespace-only lines are skipped but counted.
  EXPECT_EQ(r[0].line, 1);
  EXPECT_EQ(r[1].line, 3);
  EXPECT_EQ(r[2].line, 5);
  EXPECT_EQ(r[3].line, 6);
  // Non-finite numbers stay strings; unknown and nested fields are kept.
  EXPECT_EQ(r[1].fields.at("loss"), "nan");
  EXPECT_EQ(r[1].fields.at("grad_norm"), "inf");
  EXPECT_EQ(r[2].fields.at("loss"), "-inf");
  EXPECT_EQ(r[1].fields.at("custom_field"), "kept");
  EXPECT_TRUE(r[0].fields.at("clip_threshold").is_null());
  EXPECT_DOUBLE_EQ(r[0].fields.at("layer_grad_norms").at("2.weight").get<double>(), 1.125);
  EXPECT_EQ(r[3].fields.at("unknown").at("nested"), nlohmann::json::array({1, 2}));
  EXPECT_EQ(r[0].fields.size(), 8u);
}

TEST(JsonlReader, ExtractsCorrelationKeysFromEverySpelling) {
  Harness h(jsonl_factory(), {{"path", fixture("good.jsonl")}});
  ASSERT_EQ(run(h), "");
  const auto r = all_records(h.outputs_of<RecordBatch>(0));
  ASSERT_EQ(r.size(), 4u);

  EXPECT_EQ(r[0].key.step_id, 0);
  EXPECT_EQ(r[0].key.timestamp_ns, seconds_to_ns(1700000000.25));
  EXPECT_NEAR(static_cast<double>(r[0].key.timestamp_ns), 1700000000250000000.0, 1000.0);
  EXPECT_FALSE(r[0].key.has_rank());
  EXPECT_EQ(r[0].key.request_id, "");

  EXPECT_EQ(r[1].key.step_id, 1);

  EXPECT_EQ(r[2].key.step_id, 2);                         // from step_id
  EXPECT_EQ(r[2].key.timestamp_ns, 1700000000750000000);  // from timestamp_ns, exact
  EXPECT_EQ(r[2].key.request_id, "17");                   // a number becomes a string
  EXPECT_EQ(r[2].key.rank, 3);
  EXPECT_EQ(r[2].key.device, 1);
  EXPECT_EQ(r[2].key.node_id, "node-a");

  EXPECT_FALSE(r[3].key.has_step());
  EXPECT_EQ(r[3].key.request_id, "req-9");
  EXPECT_EQ(r[3].key.timestamp_ns, 1700000001000000000);  // from "timestamp"
  EXPECT_EQ(r[3].key.node_id, "h2");                      // from "host"

  // The batch envelope carries the key of its first record.
  EXPECT_EQ(h.out.emitted.at(0).second.key().step_id, 0);
}

TEST(JsonlReader, EmitsOneBatchPerPollOfAtMostBatchSize) {
  TempDir dir("jsonl");
  std::string text;
  for (int i = 0; i < 5; ++i) text += "{\"step\": " + std::to_string(i) + "}\r\n";  // CRLF too
  write_file(dir / "five.jsonl", text);
  Harness h(jsonl_factory(), {{"path", (dir / "five.jsonl").string()}, {"batch_size", 2}});
  auto& c = h.component();
  c.start();
  EXPECT_EQ(c.poll(h.out), PollResult::kMore);
  EXPECT_EQ(c.poll(h.out), PollResult::kMore);
  EXPECT_EQ(c.poll(h.out), PollResult::kDone);
  EXPECT_EQ(c.poll(h.out), PollResult::kDone);
  c.stop();
  const auto batches = h.outputs_of<RecordBatch>(0);
  ASSERT_EQ(batches.size(), 3u);
  EXPECT_EQ(batches[0].records.size(), 2u);
  EXPECT_EQ(batches[1].records.size(), 2u);
  EXPECT_EQ(batches[2].records.size(), 1u);
  EXPECT_EQ(batches[2].records[0].key.step_id, 4);
  EXPECT_EQ(batches[2].records[0].line, 5);
}

TEST(JsonlReader, EmptyFileGivesNoRecordsAndNoError) {
  Harness h(jsonl_factory(), {{"path", fixture("empty.jsonl")}});
  EXPECT_EQ(run(h), "");
  EXPECT_TRUE(all_records(h.outputs_of<RecordBatch>(0)).empty());
  for (const auto& b : h.outputs_of<RecordBatch>(0)) EXPECT_FALSE(b.partial);
}

TEST(JsonlReader, MissingFileFailsAtStartNamingPathAndReason) {
  const std::string path = (data_dir() / "jsonl" / "does_not_exist.jsonl").string();
  Harness h(jsonl_factory(), {{"path", path}});
  try {
    h.component().start();
    FAIL() << "start() did not throw";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), path + ": cannot open: No such file or directory");
  }
  EXPECT_TRUE(h.out.emitted.empty());
}

TEST(JsonlReader, TruncatedFileDeliversEarlierRecordsThenFailsWithFileAndLine) {
  const std::string path = fixture("truncated.jsonl");
  Harness h(jsonl_factory(), {{"path", path}});
  const std::string error = run(h);
  const auto batches = h.outputs_of<RecordBatch>(0);
  ASSERT_EQ(batches.size(), 1u);
  const RecordBatch& b = batches[0];
  EXPECT_TRUE(b.partial);
  ASSERT_EQ(b.records.size(), 3u);
  EXPECT_EQ(b.records[2].key.step_id, 2);
  // Line 4 starts after three lines of 25 + 25 + 26 bytes.
  EXPECT_THAT(b.error, StartsWith(path + ":4: expected one JSON object per line"));
  EXPECT_THAT(b.error, HasSubstr("(line starts at byte offset 76)"));
  EXPECT_EQ(error, b.error);  // the component fails with the same message
}

TEST(JsonlReader, StopsAtALineThatIsNotAnObject) {
  const std::string path = fixture("not_object.jsonl");
  Harness h(jsonl_factory(), {{"path", path}});
  const std::string error = run(h);
  const auto records = all_records(h.outputs_of<RecordBatch>(0));
  ASSERT_EQ(records.size(), 2u);  // line 4 is never read
  EXPECT_EQ(error, path + ":3: expected a JSON object, got an array (line starts at byte offset 50)");
}

TEST(JsonlReader, RejectsALineOverMaxLineBytesWithoutCrashing) {
  TempDir dir("jsonl");
  const std::string path = (dir / "huge.jsonl").string();
  std::string text = "{\"step\": 0}\n{\"blob\": \"";
  text.append(10 * 1024 * 1024, 'a');  // a 10 MB line
  text += "\"}\n{\"step\": 2}\n";
  write_file(path, text);
  Harness h(jsonl_factory(), {{"path", path}, {"max_line_bytes", "1MiB"}});
  const std::string error = run(h);
  EXPECT_EQ(error,
            path +
                ":2: expected a line of at most max_line_bytes = 1048576 bytes, got a longer one (binary "
                "data or a missing newline?) (line starts at byte offset 12)");
  const auto batches = h.outputs_of<RecordBatch>(0);
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_TRUE(batches[0].partial);
  ASSERT_EQ(batches[0].records.size(), 1u);
  EXPECT_EQ(batches[0].records[0].key.step_id, 0);
}

TEST(JsonlReader, AcceptsALongLineWithinTheLimit) {
  TempDir dir("jsonl");
  const std::string path = (dir / "long.jsonl").string();
  std::string blob(3 * 1024 * 1024, 'b');
  write_file(path, "{\"step\": 0, \"blob\": \"" + blob + "\"}\n");
  Harness h(jsonl_factory(), {{"path", path}, {"max_line_bytes", "4MiB"}});
  EXPECT_EQ(run(h), "");
  const auto records = all_records(h.outputs_of<RecordBatch>(0));
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].fields.at("blob").get_ref<const std::string&>().size(), blob.size());
}

TEST(JsonlReader, BinaryGarbageFailsCleanlyWithAPrintableError) {
  TempDir dir("jsonl");
  const std::string path = (dir / "garbage.jsonl").string();
  std::mt19937 rng(42);
  std::string text = "{\"step\": 0}\n";
  for (int i = 0; i < 4096; ++i) text += static_cast<char>(rng() & 0xff);
  write_file(path, text);
  Harness h(jsonl_factory(), {{"path", path}, {"max_line_bytes", "64KiB"}});
  const std::string error = run(h);
  EXPECT_THAT(error, StartsWith(path + ":2: "));
  EXPECT_THAT(error, HasSubstr("line starts at byte offset 12"));
  const auto batches = h.outputs_of<RecordBatch>(0);
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_EQ(batches[0].records.size(), 1u);
  // The error is printable ASCII, so the batch's JSON form (reports, recordings) can be written.
  EXPECT_TRUE(std::all_of(error.begin(), error.end(), [](char c) { return c >= 0x20 && c < 0x7f; })) << error;
  EXPECT_NO_THROW((void)nlohmann::json(batches[0]).dump());
}

TEST(JsonlReader, GarbageWithoutNewlinesIsCappedByMaxLineBytes) {
  TempDir dir("jsonl");
  const std::string path = (dir / "nonl.bin").string();
  write_file(path, std::string(300 * 1024, '\0'));
  Harness h(jsonl_factory(), {{"path", path}, {"max_line_bytes", "64KiB"}});
  EXPECT_THAT(run(h), StartsWith(path + ":1: expected a line of at most max_line_bytes = 65536 bytes"));
  const auto batches = h.outputs_of<RecordBatch>(0);
  ASSERT_EQ(batches.size(), 1u);  // the error travels even with no records before it
  EXPECT_TRUE(batches[0].partial);
  EXPECT_TRUE(batches[0].records.empty());
}

TEST(JsonlReader, RefusesAbsurdNesting) {
  TempDir dir("jsonl");
  const std::string path = (dir / "deep.jsonl").string();
  write_file(path, "{\"a\": " + std::string(100000, '[') + std::string(100000, ']') + "}\n");
  Harness h(jsonl_factory(), {{"path", path}});
  EXPECT_THAT(run(h), HasSubstr(":1: expected a JSON object nested at most 512 levels deep"));
}

TEST(JsonlReader, ANumberTooLargeForADoubleIsABadLineNotACrash) {
  TempDir dir("jsonl");
  const std::string path = (dir / "overflow.jsonl").string();
  write_file(path, "{\"step\": 0}\n{\"loss\": 1e99999}\n");
  Harness h(jsonl_factory(), {{"path", path}});
  EXPECT_THAT(
      run(h),
      StartsWith(path + ":2: expected one JSON object per line, got JSON that cannot be represented"));
  const auto batches = h.outputs_of<RecordBatch>(0);
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_TRUE(batches[0].partial);
  EXPECT_EQ(batches[0].records.size(), 1u);
}

TEST(JsonlReader, EmptyPathIsAConfigProblem) {
  EXPECT_THROW(Harness(jsonl_factory(), {{"path", ""}}), std::invalid_argument);
  EXPECT_THROW(Harness(jsonl_factory(), nlohmann::json::object()), std::invalid_argument);
}

// A real training log from the shared case corpus, when it is there.
TEST(JsonlReader, ReadsARealTrainingLog) {
  namespace fs = std::filesystem;
  const fs::path training = fs::path(CANN_DEBUG_SHARED_DIR) / "cases" / "training";
  std::error_code ec;
  if (!fs::is_directory(training, ec)) GTEST_SKIP() << training << " is absent";
  std::vector<fs::path> cases;
  for (const auto& entry : fs::directory_iterator(training, ec))
    if (fs::exists(entry.path() / "metrics.jsonl")) cases.push_back(entry.path());
  if (cases.empty()) GTEST_SKIP() << "no training case with metrics.jsonl under " << training;
  std::sort(cases.begin(), cases.end());
  const fs::path file = cases.front() / "metrics.jsonl";

  std::size_t lines = 0;
  {
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line))
      if (line.find_first_not_of(" \t\r") != std::string::npos) ++lines;
  }
  Harness h(jsonl_factory(), {{"path", file.string()}});
  ASSERT_EQ(run(h), "");
  const auto records = all_records(h.outputs_of<RecordBatch>(0));
  ASSERT_EQ(records.size(), lines) << file;
  ASSERT_GT(records.size(), 0u);
  for (std::size_t i = 0; i < records.size(); ++i) {
    ASSERT_EQ(records[i].key.step_id, static_cast<std::int64_t>(i)) << file << " record " << i;
    ASSERT_TRUE(records[i].key.has_timestamp()) << file << " record " << i;
  }
}

}  // namespace
}  // namespace cann_debug::plugins
