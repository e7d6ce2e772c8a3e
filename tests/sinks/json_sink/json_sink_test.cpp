// Tests of json_sink: readable JSON lines, a valid JSON array, crash safety, append, errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "cann_debug/messages.hpp"
#include "cann_debug/testing.hpp"
#include "json_sink.hpp"
#include "plugin_test_support.hpp"

namespace cann_debug::plugins {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test::read_file;
using test::TempDir;
using test::write_file;
using testing::Harness;

Envelope metric_message(double value) {
  MetricBatch b;
  CorrelationKey k;
  k.timestamp_ns = 1'700'000'000'000'000'000;
  b.points.push_back({"host.cpu.utilization", "ratio", value, k, {{"cpu", "all"}}});
  return Envelope::make(k, std::move(b));
}

Envelope record_message() {
  RecordBatch b;
  b.source_path = "metrics.jsonl";
  Record r;
  r.key.step_id = 7;
  r.line = 8;
  r.fields = {{"step", 7}, {"loss", "nan"}};
  b.records.push_back(r);
  CorrelationKey k;
  k.step_id = 7;
  return Envelope::make(k, std::move(b));
}

std::vector<json> read_lines(const fs::path& path) {
  std::vector<json> out;
  std::istringstream in(read_file(path));
  std::string line;
  while (std::getline(in, line)) out.push_back(json::parse(line));
  return out;
}

TEST(JsonSink, ManifestIsSoundAndAcceptsEveryCoreType) {
  const auto& m = json_sink_factory().manifest();
  EXPECT_THAT(check_manifest(m), ::testing::IsEmpty());
  EXPECT_EQ(m.kind, ComponentKind::kSink);
  ASSERT_EQ(m.inputs.size(), 1u);
  EXPECT_EQ(m.inputs[0].name, "in");
  EXPECT_TRUE(m.inputs[0].required);
  std::vector<std::string> core;  // frames arrive expanded into batches (the host does it)
  for (auto id : kCoreMessageTypes)
    if (id != MetricFrame::type_id) core.emplace_back(id);
  EXPECT_EQ(m.inputs[0].accepts, core);
  EXPECT_TRUE(m.outputs.empty());
}

TEST(JsonSink, WritesOneReadableEnvelopePerLineAndFlushesEachAtOnce) {
  TempDir dir("sink");
  const fs::path path = dir / "out.jsonl";
  Harness h(json_sink_factory(), {{"path", path.string()}});
  auto& c = h.component();
  c.start();
  c.process(metric_message(0.5), 0, h.out);
  // Already on disk before the end of stream: a crash now loses nothing written.
  auto lines = read_lines(path);
  ASSERT_EQ(lines.size(), 1u);
  c.process(record_message(), 0, h.out);
  c.flush(h.out);
  c.stop();
  c.stop();  // idempotent
  lines = read_lines(path);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["type"], "metric.batch/1");
  EXPECT_EQ(lines[0]["payload"]["points"][0]["name"], "host.cpu.utilization");
  EXPECT_DOUBLE_EQ(lines[0]["payload"]["points"][0]["value"].get<double>(), 0.5);
  EXPECT_EQ(lines[0]["key"]["timestamp_ns"], 1'700'000'000'000'000'000);
  EXPECT_EQ(lines[1]["type"], "record.batch/1");
  EXPECT_EQ(lines[1]["payload"]["records"][0]["fields"]["loss"], "nan");
  // The JSON form reads back into the message type.
  EXPECT_EQ(lines[1]["payload"].get<RecordBatch>().records.at(0).line, 8);
}

TEST(JsonSink, JsonFormatWritesAValidArrayThroughATemporaryFile) {
  TempDir dir("sink");
  const fs::path path = dir / "out.json";
  Harness h(json_sink_factory(), {{"path", path.string()}, {"format", "json"}, {"pretty", true}});
  auto& c = h.component();
  c.start();
  c.process(metric_message(0.25), 0, h.out);
  c.process(record_message(), 0, h.out);
  EXPECT_FALSE(fs::exists(path));  // not complete yet
  EXPECT_THAT(read_file(path.string() + ".tmp"), ::testing::HasSubstr("host.cpu.utilization"));
  c.flush(h.out);
  c.stop();
  EXPECT_FALSE(fs::exists(path.string() + ".tmp"));
  const json doc = json::parse(read_file(path));
  ASSERT_TRUE(doc.is_array());
  ASSERT_EQ(doc.size(), 2u);
  EXPECT_EQ(doc[0]["type"], "metric.batch/1");
  EXPECT_EQ(doc[1]["type"], "record.batch/1");
  EXPECT_THAT(read_file(path), ::testing::HasSubstr("\n  \"key\""));  // pretty
}

TEST(JsonSink, JsonFormatWithNoMessagesIsAnEmptyArray) {
  TempDir dir("sink");
  const fs::path path = dir / "empty.json";
  Harness h(json_sink_factory(), {{"path", path.string()}, {"format", "json"}});
  h.run_processor({});
  EXPECT_EQ(json::parse(read_file(path)), json::array());
}

TEST(JsonSink, StopWithoutFlushStillCompletesTheArray) {
  TempDir dir("sink");
  const fs::path path = dir / "cut.json";
  {
    Harness h(json_sink_factory(), {{"path", path.string()}, {"format", "json"}});
    h.component().start();
    h.component().process(metric_message(1.0), 0, h.out);
  }  // the harness stops the component
  EXPECT_EQ(json::parse(read_file(path)).size(), 1u);
}

TEST(JsonSink, AppendAddsToExistingOutput) {
  TempDir dir("sink");
  const fs::path lines_path = dir / "a.jsonl";
  const fs::path array_path = dir / "a.json";
  for (int run = 0; run < 2; ++run) {
    Harness l(json_sink_factory(), {{"path", lines_path.string()}, {"append", true}});
    l.run_processor({{0, metric_message(run)}, {0, record_message()}});
    Harness a(json_sink_factory(), {{"path", array_path.string()}, {"format", "json"}, {"append", true}});
    a.run_processor({{0, metric_message(run)}, {0, record_message()}});
  }
  EXPECT_EQ(read_lines(lines_path).size(), 4u);
  const json doc = json::parse(read_file(array_path));
  ASSERT_EQ(doc.size(), 4u);
  EXPECT_DOUBLE_EQ(doc[2]["payload"]["points"][0]["value"].get<double>(), 1.0);

  // Without append the file is replaced.
  Harness again(json_sink_factory(), {{"path", lines_path.string()}});
  again.run_processor({{0, metric_message(9)}});
  EXPECT_EQ(read_lines(lines_path).size(), 1u);
}

TEST(JsonSink, AppendToSomethingThatIsNotAnArrayIsAClearError) {
  TempDir dir("sink");
  const fs::path path = dir / "notarray.json";
  write_file(path, "{\"a\": 1}");
  Harness h(json_sink_factory(), {{"path", path.string()}, {"format", "json"}, {"append", true}});
  EXPECT_THROW(
      {
        try {
          h.component().start();
        } catch (const std::runtime_error& e) {
          EXPECT_THAT(e.what(), ::testing::HasSubstr(path.string() + ": append=true with format=json"));
          throw;
        }
      },
      std::runtime_error);
  EXPECT_EQ(read_file(path), "{\"a\": 1}");  // left alone
}

TEST(JsonSink, CreatesParentDirectories) {
  TempDir dir("sink");
  const fs::path path = dir / "a" / "b" / "c" / "out.jsonl";
  Harness h(json_sink_factory(), {{"path", path.string()}});
  h.run_processor({{0, metric_message(0.1)}});
  EXPECT_EQ(read_lines(path).size(), 1u);
}

TEST(JsonSink, OpenFailureNamesThePathAndTheReason) {
  TempDir dir("sink");
  write_file(dir / "file", "x");
  const fs::path path = dir / "file" / "out.jsonl";  // a file where a directory should be
  Harness h(json_sink_factory(), {{"path", path.string()}});
  try {
    h.component().start();
    FAIL() << "start() did not throw";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), ::testing::StartsWith(path.string() + ": "));
  }
  const fs::path dir_path = dir.path();  // a directory where the file should be
  Harness d(json_sink_factory(), {{"path", dir_path.string()}});
  try {
    d.component().start();
    FAIL() << "start() did not throw";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), dir_path.string() + ": cannot open for writing: Is a directory");
  }
}

TEST(JsonSink, InvalidUtf8IsReplacedNotFatal) {
  TempDir dir("sink");
  const fs::path path = dir / "utf8.jsonl";
  Harness h(json_sink_factory(), {{"path", path.string()}});
  h.run_processor({{0, Envelope::make(CorrelationKey{}, JsonMessage{json("bad \xff\xfe bytes")})}});
  const auto lines = read_lines(path);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_THAT(lines[0]["payload"].get<std::string>(), ::testing::StartsWith("bad "));
}

TEST(JsonSink, StopWithoutStartIsSafe) {
  Harness h(json_sink_factory(), {{"path", "/nonexistent/never/created.jsonl"}});
  EXPECT_NO_THROW(h.component().stop());
  EXPECT_FALSE(fs::exists("/nonexistent/never"));
}

TEST(JsonSink, OptionsAreChecked) {
  EXPECT_THROW(Harness(json_sink_factory(), json::object()), std::invalid_argument);  // path is required
  EXPECT_THROW(Harness(json_sink_factory(), {{"path", "x"}, {"format", "xml"}}), std::invalid_argument);
  EXPECT_THROW(Harness(json_sink_factory(), {{"path", "x"}, {"pretty", true}}), std::invalid_argument);
  EXPECT_NO_THROW(Harness(json_sink_factory(), {{"path", "x"}, {"format", "json"}, {"pretty", true}}));
}

}  // namespace
}  // namespace cann_debug::plugins
