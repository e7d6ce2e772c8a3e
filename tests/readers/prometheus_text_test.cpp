// prometheus_text: an npu-exporter style exposition with escapes, NaN/+Inf and timestamps; bad input.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "prometheus_text.hpp"
#include "readers_test_support.hpp"

namespace cann_debug::plugins {
namespace {

using namespace readers_test;
using testing::Harness;

TEST(PrometheusText, ReadsSamplesLabelsAndTimestamps) {
  EXPECT_THAT(check_manifest(prometheus_text_factory().manifest()), ::testing::IsEmpty());
  Harness h(prometheus_text_factory(), {{"path", fixture("prometheus/npu_exporter.prom")}});
  ASSERT_EQ(run(h), "");
  const auto m = metrics(h);
  ASSERT_EQ(m.size(), 9u);
  EXPECT_EQ(m[0].name, "machine_npu_nums");
  EXPECT_EQ(m[0].value, 8.0);
  EXPECT_FALSE(m[0].key.has_timestamp());
  EXPECT_TRUE(m[0].labels.empty());
  const auto power = one(m, "npu_chip_info_power", {{"id", "0"}});
  EXPECT_DOUBLE_EQ(power.value, 98.2);
  EXPECT_EQ(power.key.timestamp_ns, 1700000000000000000);
  EXPECT_EQ(power.key.device, 0);
  EXPECT_EQ(power.labels.at("model_name"), "Ascend910B3");
  EXPECT_EQ(power.labels.size(), 4u);
  EXPECT_TRUE(std::isnan(one(m, "npu_chip_info_power", {{"id", "1"}}).value));
  const auto c = one(m, "container_npu_utilization");
  EXPECT_TRUE(std::isinf(c.value));
  EXPECT_EQ(c.labels.at("container_name"), "trainer \"main\"");
  EXPECT_EQ(c.labels.at("namespace"), "ml\\prod");
  EXPECT_EQ(c.labels.at("pod_name"), "job-0\nworker");
  EXPECT_FALSE(c.key.has_device());  // "id" only names the device on npu_* metrics
  EXPECT_EQ(one(m, "http_request_duration_seconds_bucket", {{"le", "+Inf"}}).value, 144320.0);
  EXPECT_EQ(one(m, "http_request_duration_seconds_bucket", {{"le", "0.5"}}).unit, "count");
  EXPECT_EQ(one(m, "http_request_duration_seconds_sum").unit, "seconds");
  EXPECT_EQ(one(m, "http_request_duration_seconds_count").unit, "count");
}

TEST(PrometheusText, MissingTimestampCanBeTheFileTime) {
  Harness h(prometheus_text_factory(),
            {{"path", fixture("prometheus/npu_exporter.prom")}, {"missing_timestamp", "file_mtime"}});
  ASSERT_EQ(run(h), "");
  const auto m = metrics(h);
  EXPECT_TRUE(m[0].key.has_timestamp());
  EXPECT_GT(m[0].key.timestamp_ns, 1'500'000'000'000'000'000);
}

TEST(PrometheusText, MalformedInputs) {
  TempDir dir;
  const std::string good = "# TYPE up gauge\nup 1\n";
  const std::string g = std::to_string(good.size());
  auto line2 = [&](const std::string& what) {
    return "3: " + what + " (line starts at byte offset " + g + ")";
  };
  const std::vector<BadInput> cases = {
      {"bad_name", good + "1metric 5\n", line2("expected a metric name, got '1metric 5' at column 1")},
      {"unterminated_label", good + "m{a=\"x} 1\n",
       line2("expected '\"' to close the label value, got the end of the line at column 10")},
      {"bad_escape", good + "m{a=\"\\q\"} 1\n",
       line2("expected an escape \\\\, \\\" or \\n in a label value, got '\\q' at column 6")},
      {"duplicate_label", good + "m{a=\"1\",a=\"2\"} 1\n",
       line2("expected each label once, got 'a' twice at column 9")},
      {"no_equals", good + "m{a \"1\"} 1\n", line2("expected '=' after the label name 'a' at column 5")},
      {"no_value", good + "m{a=\"1\"}\n",
       line2("expected a value after the metric, got the end of the line at column 9")},
      {"bad_value", good + "m 12abc\n",
       line2("expected a number, NaN, +Inf or -Inf as the value, got '12abc' at column 3")},
      {"bad_timestamp", good + "m 1 12.5\n",
       line2("expected a timestamp in integer milliseconds, got '12.5' at column 5")},
      {"trailing", good + "m 1 1000 extra\n",
       line2("expected the end of the line after the timestamp, got 'extra' at column 10")},
      {"missing_comma", good + "m{a=\"1\" b=\"2\"} 1\n",
       line2("expected ',' or '}' after a label, got 'b=\"2\"} 1' at column 9")},
      {"bad_type", good + "# TYPE m gauges\n",
       line2("expected a type (counter, gauge, histogram, summary, untyped), got 'gauges' at column 10")},
      {"type_after_samples", good + "# TYPE up counter\n",
       line2("expected one # TYPE line for 'up', got a second at column 1")},
      {"type_late", "m 1\n# TYPE m gauge\n",
       "2: expected # TYPE of 'm' before its samples at column 1 (line starts at byte offset 4)"},
      {"after_eof", good + "# EOF\nm 1\n",
       "4: expected nothing after # EOF at column 1 (line starts at byte offset " +
           std::to_string(good.size() + 6) + ")"},
      {"nul", good + std::string("m\0 1\n", 5),
       line2("expected text, got the control byte \\x00 at column 2 (binary data?)")},
      {"long_line", good + "m{a=\"" + std::string(2 << 20, 'x') + "\"} 1\n",
       line2("expected a line of at most max_line_bytes = 1048576 bytes, got a longer one (binary data or a "
             "missing "
             "newline?)")},
  };
  for (const auto& bad : cases)
    EXPECT_EQ(
        check_bad_input(prometheus_text_factory(), {{"max_line_bytes", "1MiB"}}, bad, dir, "metrics.prom"),
        "")
        << bad.name;
}

TEST(PrometheusText, PointsBeforeAFaultAreEmitted) {
  TempDir dir;
  const std::string path = dir.write("m.prom", "a 1\nb 2\nc{ 3\n");
  Harness h(prometheus_text_factory(), {{"path", path}});
  EXPECT_THAT(run(h), ::testing::StartsWith(path + ":3: "));
  EXPECT_EQ(metrics(h).size(), 2u);
}

}  // namespace
}  // namespace cann_debug::plugins
