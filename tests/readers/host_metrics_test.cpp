// host_metrics: the case corpus' host_metrics.jsonl, name mapping, labels, and bad input.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "host_metrics.hpp"
#include "readers_test_support.hpp"

namespace cann_debug::plugins {
namespace {

using namespace readers_test;
using testing::Harness;

TEST(HostMetrics, MapsNamesAndKeepsLabels) {
  EXPECT_THAT(check_manifest(host_metrics_factory().manifest()), ::testing::IsEmpty());
  Harness h(host_metrics_factory(), {{"path", fixture("training/host_metrics.jsonl")}});
  ASSERT_EQ(run(h), "");
  const auto m = metrics(h);
  ASSERT_EQ(m.size(), 5u);
  EXPECT_EQ(m[0].name, "host.cpu.utilization");
  EXPECT_EQ(m[0].unit, "ratio");
  EXPECT_EQ(m[0].value, 1.0);
  EXPECT_EQ(m[0].key.timestamp_ns, 1796013529594700000);
  EXPECT_EQ(m[0].labels, (Labels{{"cpu", "all"}, {"source_name", "cpu.utilization"}}));
  EXPECT_EQ(m[1].name, "host.memory.used");
  EXPECT_EQ(m[1].unit, "bytes");
  EXPECT_EQ(m[1].value, 3221225472.0);
  EXPECT_EQ(m[2].name, "process.cpu.utilization");
  EXPECT_EQ(m[2].unit, "cores");
  EXPECT_EQ(m[2].labels.at("rank"), "1");
  EXPECT_EQ(m[2].labels.at("pid"), "18664");
  EXPECT_EQ(m[2].key.rank, 1);
  EXPECT_EQ(m[3].name, "host.context_switches");
  EXPECT_EQ(m[3].unit, "count/s");
  EXPECT_TRUE(std::isnan(m[3].value));
  EXPECT_EQ(m[3].key.timestamp_ns, 1796013529695100000);
  EXPECT_EQ(m[4].name, "host.gpu.fan_speed");
  EXPECT_EQ(m[4].unit, "");
  EXPECT_EQ(m[4].labels.at("source_name"), "gpu.fan_speed");
}

TEST(HostMetrics, ReadsARealCaseFile) {
  const fs::path cases = fs::path(CANN_DEBUG_SHARED_DIR) / "cases" / "distributed";
  std::error_code ec;
  if (!fs::is_directory(cases, ec)) GTEST_SKIP() << cases << " is absent";
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(cases, ec))
    if (fs::exists(e.path() / "host_metrics.jsonl")) files.push_back(e.path() / "host_metrics.jsonl");
  if (files.empty()) GTEST_SKIP();
  std::sort(files.begin(), files.end());
  std::size_t lines = 0;
  {
    std::ifstream in(files.front());
    std::string line;
    while (std::getline(in, line))
      if (!line.empty()) ++lines;
  }
  Harness h(host_metrics_factory(), {{"path", files.front().string()}});
  ASSERT_EQ(run(h), "");
  const auto m = metrics(h);
  ASSERT_EQ(m.size(), lines);
  const std::set<std::string> known = {"host.cpu.utilization",    "host.cpu.iowait",    "host.cpu.steal",
                                       "host.context_switches",   "host.load.runnable", "host.load.blocked",
                                       "host.memory.used",        "host.memory.total",  "process.threads",
                                       "process.cpu.utilization", "process.memory.rss"};
  std::set<int> ranks;
  for (const auto& p : m) {
    ASSERT_TRUE(known.contains(p.name)) << p.name;
    ASSERT_TRUE(p.key.has_timestamp());
    if (p.name.starts_with("process.")) ranks.insert(p.key.rank);
  }
  EXPECT_EQ(ranks, (std::set<int>{0, 1}));  // the distributed cases label per-rank processes
}

TEST(HostMetrics, MalformedInputs) {
  TempDir dir;
  const std::string good = "{\"time\": 1.5, \"metric\": \"cpu.utilization\", \"value\": 0.5}\n";
  const std::string g = std::to_string(good.size());
  const std::vector<BadInput> cases = {
      {"not_json", good + "{\"time\": 1, \"metric\": \"a\", \"value\": }\n",
       "2: expected one JSON object per line, got invalid or truncated JSON at byte 36 of the line: syntax "
       "error while "
       "parsing value - unexpected '}'; expected '[', '{', or a literal (line starts at byte offset " +
           g + ")"},
      {"array", good + "[1]\n",
       "2: expected a JSON object, got an array (line starts at byte offset " + g + ")"},
      {"no_metric", good + "{\"time\": 1, \"value\": 1}\n",
       "2: expected a \"metric\" name (a string), got none (line starts at byte offset " + g + ")"},
      {"metric_number", good + "{\"time\": 1, \"metric\": 7, \"value\": 1}\n",
       "2: expected a \"metric\" name (a string), got a number (line starts at byte offset " + g + ")"},
      {"no_time", good + "{\"metric\": \"a\", \"value\": 1}\n",
       "2: expected \"time\" in Unix seconds (a number), got none (line starts at byte offset " + g + ")"},
      {"time_string", good + "{\"time\": \"now\", \"metric\": \"a\", \"value\": 1}\n",
       "2: expected \"time\" in Unix seconds (a number), got a string (line starts at byte offset " + g +
           ")"},
      {"no_value", good + "{\"time\": 1, \"metric\": \"a\"}\n",
       "2: expected a \"value\", got none (line starts at byte offset " + g + ")"},
      {"value_string", good + "{\"time\": 1, \"metric\": \"a\", \"value\": \"high\"}\n",
       "2: expected \"value\" to be a number (or \"nan\", \"inf\", \"-inf\"), got the string \"high\" (line "
       "starts at "
       "byte offset " +
           g + ")"},
      {"value_object", good + "{\"time\": 1, \"metric\": \"a\", \"value\": {}}\n",
       "2: expected \"value\" to be a number, got an object (line starts at byte offset " + g + ")"},
      {"labels_array", good + "{\"time\": 1, \"metric\": \"a\", \"value\": 1, \"labels\": []}\n",
       "2: expected \"labels\" to be an object, got an array (line starts at byte offset " + g + ")"},
      {"label_nested", good + "{\"time\": 1, \"metric\": \"a\", \"value\": 1, \"labels\": {\"cpu\": {}}}\n",
       "2: expected label \"cpu\" to be a string or a number, got an object (line starts at byte offset " +
           g + ")"},
      {"deep", good + "{\"a\": " + std::string(600, '[') + std::string(600, ']') + "}\n",
       "2: expected a JSON object nested at most 512 levels deep (line starts at byte offset " + g + ")"},
      {"long_line", good + std::string(2 << 20, ' ') + "\n",
       "2: expected a line of at most max_line_bytes = 1048576 bytes, got a longer one (binary data or a "
       "missing "
       "newline?) (line starts at byte offset " +
           g + ")"},
  };
  for (const auto& bad : cases)
    EXPECT_EQ(
        check_bad_input(host_metrics_factory(), {{"max_line_bytes", "1MiB"}}, bad, dir, "host_metrics.jsonl"),
        "")
        << bad.name;
}

}  // namespace
}  // namespace cann_debug::plugins
