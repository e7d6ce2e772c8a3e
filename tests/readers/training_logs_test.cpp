// csv_log and hf_trainer_state: Keras and step CSV logs, Hugging Face trainer_state.json, and bad input.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "csv_log.hpp"
#include "hf_trainer_state.hpp"
#include "readers_test_support.hpp"

namespace cann_debug::plugins {
namespace {

using namespace readers_test;
using testing::Harness;

TEST(CsvLog, KerasLogWithNonFiniteCells) {
  EXPECT_THAT(check_manifest(csv_log_factory().manifest()), ::testing::IsEmpty());
  Harness h(csv_log_factory(), {{"path", fixture("training/log.csv")}});
  ASSERT_EQ(run(h), "");
  const auto r = records(h);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].fields, (nlohmann::json{{"epoch", 0},
                                         {"accuracy", 0.8125},
                                         {"loss", 0.5231},
                                         {"val_accuracy", 0.85},
                                         {"val_loss", 0.4102}}));
  EXPECT_FALSE(r[0].key.has_step());  // Keras logs are per epoch: no step unless step_column says so
  EXPECT_EQ(r[1].fields["loss"], "nan");
  EXPECT_EQ(r[1].fields["val_loss"], "inf");
  EXPECT_EQ(r[2].fields["loss"], "-inf");
  EXPECT_EQ(r[2].fields["val_loss"], "nan");
  EXPECT_EQ(r[2].line, 4);
}

TEST(CsvLog, StepColumnOptionKeysByEpoch) {
  Harness h(csv_log_factory(), {{"path", fixture("training/log.csv")}, {"step_column", "epoch"}});
  ASSERT_EQ(run(h), "");
  const auto r = records(h);
  ASSERT_EQ(r.size(), 3u);
  for (std::size_t i = 0; i < r.size(); ++i) EXPECT_EQ(r[i].key.step_id, static_cast<std::int64_t>(i));
}

TEST(CsvLog, StepTimeRankAndQuotedText) {
  Harness h(csv_log_factory(), {{"path", fixture("training/steps.csv")}, {"node", "n1"}});
  ASSERT_EQ(run(h), "");
  const auto r = records(h);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].key.step_id, 0);
  EXPECT_EQ(r[0].key.timestamp_ns, 1700000000250000000);
  EXPECT_EQ(r[0].key.rank, 0);
  EXPECT_EQ(r[0].key.node_id, "n1");
  EXPECT_EQ(r[0].fields["note"], "warmup");
  EXPECT_EQ(r[1].fields["note"], nullptr);
  EXPECT_EQ(r[2].fields["loss"], nullptr);
  EXPECT_EQ(r[2].fields["note"], "a, quoted note");
  EXPECT_EQ(r[2].key.rank, 1);
  EXPECT_EQ(r[2].key.timestamp_ns, 1700000000750000000);
}

TEST(CsvLog, RaggedRowsAreKeptWithAWarningAndCounted) {
  TempDir dir;
  std::string csv = "step,loss,lr\n";
  for (int i = 0; i < 28; ++i) csv += i % 2 ? fmt::format("{},1.5\n", i) : fmt::format("{},1.5,0.1\n", i);
  const std::string path = dir.write("log.csv", csv);
  Harness h(csv_log_factory(), {{"path", path}});
  ASSERT_EQ(run(h), "");
  const auto r = records(h);
  ASSERT_EQ(r.size(), 28u);
  EXPECT_EQ(r[1].fields["lr"], nullptr);
  EXPECT_EQ(r[1].fields["_cells"], 2);
  EXPECT_DOUBLE_EQ(r[1].fields["loss"].get<double>(), 1.5);
  EXPECT_EQ(r[1].key.step_id, 1);
  // 14 ragged rows: a warning each for the first 10, then the count.
  ASSERT_EQ(h.host.log.lines.size(), 11u);
  EXPECT_THAT(
      h.host.log.lines[0].second,
      ::testing::StartsWith(path + ":3: expected 3 cells as in the header, got 2; kept as a partial record"));
  EXPECT_EQ(h.host.log.lines[10].second,
            path + ": 14 of 28 rows had another number of cells than the header (10 shown)");
}

TEST(CsvLog, MalformedInputs) {
  TempDir dir;
  const std::string H = "step,time,loss,rank\n";
  const std::string good = "0,1700000000.5,2.3,0\n";
  const std::string g = std::to_string(H.size() + good.size());
  const std::vector<BadInput> cases = {
      {"text_step", H + good + "x,1700000001,2.2,0\n",
       "3: expected an integer step >= 0 in 'step', got 'x' (line starts at byte offset " + g + ")"},
      {"negative_step", H + good + "-1,1700000001,2.2,0\n",
       "3: expected an integer step >= 0 in 'step', got '-1' (line starts at byte offset " + g + ")"},
      {"fractional_step", H + good + "1.5,1700000001,2.2,0\n",
       "3: expected an integer step >= 0 in 'step', got '1.5' (line starts at byte offset " + g + ")"},
      {"bad_time", H + good + "1,noon,2.2,0\n",
       "3: expected Unix seconds in 'time', got 'noon' (line starts at byte offset " + g + ")"},
      {"bad_rank", H + good + "1,1700000001,2.2,r1\n",
       "3: expected a rank >= 0 in 'rank', got 'r1' (line starts at byte offset " + g + ")"},
      {"duplicate", "loss,Loss\n1,2\n",
       "1: expected unique column names, but 'loss' (column 1) and 'Loss' (column 2) both mean 'loss' (line "
       "starts at "
       "byte offset 0)"},
      {"nul", H + good + std::string("1,17\0,2,0\n", 10),
       "3: expected text, got the control byte \\x00 at column 5 (binary data?) (line starts at byte "
       "offset " +
           g + ")"},
      {"utf8", H + good + "1,1700000001,\xa0,0\n",
       "3: expected UTF-8 text, got the byte \\xa0 at column 14 (binary data or another encoding?) (line "
       "starts at byte "
       "offset " +
           g + ")"},
      {"unterminated", H + good + "1,\"1700000001,2.2,0\n",
       "3: expected a closing quote for a field opened in the row starting on this line, got the end of the "
       "file "
       "(line starts at byte offset " +
           g + ")"},
      {"long_line", H + good + std::string(10 << 20, '7') + "\n",
       "3: expected a line of at most max_line_bytes = 1048576 bytes, got a longer one (binary data or a "
       "missing "
       "newline?) (line starts at byte offset " +
           g + ")"},
  };
  for (const auto& bad : cases)
    EXPECT_EQ(check_bad_input(csv_log_factory(), {{"max_line_bytes", "1MiB"}}, bad, dir, "log.csv"), "")
        << bad.name;
  const BadInput missing{
      "missing_step_column", "epoch,loss\n0,1\n",
      "1: expected the column 'iteration' named by step_column, the header has none (line starts at "
      "byte offset 0)"};
  EXPECT_EQ(check_bad_input(csv_log_factory(), {{"step_column", "iteration"}}, missing, dir, "log.csv"), "");
}

TEST(HfTrainerState, LogHistoryEntries) {
  EXPECT_THAT(check_manifest(hf_trainer_state_factory().manifest()), ::testing::IsEmpty());
  Harness h(hf_trainer_state_factory(), {{"path", fixture("training/trainer_state.json")}, {"rank", 0}});
  ASSERT_EQ(run(h), "");
  const auto r = records(h);
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0].key.step_id, 10);
  EXPECT_EQ(r[0].key.rank, 0);
  EXPECT_DOUBLE_EQ(r[0].fields["loss"].get<double>(), 2.3026);
  EXPECT_DOUBLE_EQ(r[0].fields["learning_rate"].get<double>(), 4.5e-05);
  EXPECT_EQ(r[0].fields["log_kind"], "train");
  EXPECT_EQ(r[1].fields["grad_norm"], "nan");  // bare NaN in the file
  EXPECT_EQ(r[1].fields["loss"], "inf");       // bare Infinity
  EXPECT_EQ(r[2].fields["log_kind"], "eval");
  EXPECT_EQ(r[2].key.step_id, 20);
  EXPECT_DOUBLE_EQ(r[2].fields["eval_loss"].get<double>(), 1.9876);
  EXPECT_EQ(r[3].fields["log_kind"], "summary");
  EXPECT_EQ(r[3].key.step_id, 30);
}

std::string locate(const std::string& text, const std::string& token, const std::string& pointer,
                   const std::string& what) {
  const auto offset = text.find(token);
  return "1: in " + pointer + ": " + what + " (at byte offset " + std::to_string(offset) + ")";
}

TEST(HfTrainerState, MalformedInputs) {
  TempDir dir;
  std::vector<BadInput> cases;
  auto add = [&](std::string name, std::string text, std::string token, std::string pointer,
                 std::string what) {
    cases.push_back({name, text, locate(text, token, pointer, what)});
  };
  add("top_array", "[]", "[", "/", "expected a trainer state object, got an array");
  add("no_history", "{\"global_step\": 3}", "{", "/",
      "expected a \"log_history\" array (a Hugging Face trainer_state.json), got none");
  add("history_object", "{\"log_history\": {}}", "\"log_history\"", "/log_history",
      "expected an array of log entries, got an object");
  add("entry_number", "{\"log_history\": [{\"step\": 1}, 17]}", "17", "/log_history/1",
      "expected a log entry object, got a number");
  add("entry_string", "{\"log_history\": [\"x\\\"y\"]}", "\"x", "/log_history/0",
      "expected a log entry object, got a string");
  add("step_string", "{\"log_history\": [{\"step\": \"ten\"}]}", "\"step\"", "/log_history/0/step",
      "expected \"step\" to be an integer >= 0, got a string");
  add("step_fraction", "{\"log_history\": [{\"step\": 1.5}]}", "\"step\"", "/log_history/0/step",
      "expected \"step\" to be an integer >= 0, got 1.5");
  add("step_negative", "{\"log_history\": [{\"step\": -3}]}", "\"step\"", "/log_history/0/step",
      "expected \"step\" to be an integer >= 0, got -3");
  add("epoch_string", "{\"log_history\": [{\"step\": 1, \"epoch\": \"one\"}]}", "\"epoch\"",
      "/log_history/0/epoch", "expected \"epoch\" to be a number, got a string");
  cases.push_back(
      {"syntax", "{\"log_history\": [{\"step\": 1},]}",
       "1: expected valid JSON, got syntax error while parsing value - unexpected ']'; expected '[', '{', or "
       "a literal (at byte offset 29)"});
  cases.push_back({"deep", "{\"log_history\": " + std::string(600, '[') + std::string(600, ']') + "}",
                   " expected JSON nested at most 512 levels deep"});
  for (const auto& bad : cases)
    EXPECT_EQ(
        check_bad_input(hf_trainer_state_factory(), nlohmann::json::object(), bad, dir, "trainer_state.json"),
        "")
        << bad.name;
  const BadInput big{"too_big", "{\"log_history\": [" + std::string(100, ' ') + "]}",
                     " expected a file of at most max_file_bytes = 100 bytes, got 119 bytes"};
  EXPECT_EQ(
      check_bad_input(hf_trainer_state_factory(), {{"max_file_bytes", 100}}, big, dir, "trainer_state.json"),
      "");
}

TEST(HfTrainerState, EntriesBeforeABadOneArePartial) {
  TempDir dir;
  const std::string path = dir.write(
      "t.json", "{\"log_history\": [{\"step\": 1, \"loss\": 2}, {\"step\": 2}, {\"step\": \"x\"}]}");
  Harness h(hf_trainer_state_factory(), {{"path", path}});
  EXPECT_THAT(run(h), ::testing::HasSubstr("in /log_history/2/step"));
  const auto batches = record_batches(h);
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_TRUE(batches[0].partial);
  EXPECT_EQ(batches[0].records.size(), 2u);
}

}  // namespace
}  // namespace cann_debug::plugins
