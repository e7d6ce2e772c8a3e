// The reader's parts: decimal times, the value scanner (block and byte paths), step spans, the event decoder.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "decimal_time.hpp"
#include "event_decoder.hpp"
#include "step_spans.hpp"
#include "value_scanner.hpp"

namespace cann_debug::plugins::chrome_trace {
namespace {

std::int64_t ns(std::string_view text) {
  std::string why;
  const auto v = decimal_us_to_ns(text, why);
  EXPECT_TRUE(v.has_value()) << text << ": " << why;
  return v.value_or(-999);
}

std::string why_not(std::string_view text) {
  std::string why;
  EXPECT_FALSE(decimal_us_to_ns(text, why).has_value()) << text;
  return why;
}

TEST(TracesDecimalTime, ConvertsMicrosecondTextsToExactNanoseconds) {
  EXPECT_EQ(ns("1704161511420306.491"), 1704161511420306491);  // beyond a double's precision
  EXPECT_EQ(ns("1712195495519689.047"), 1712195495519689047);
  EXPECT_EQ(ns("12.77012757357446"), 12770);
  EXPECT_EQ(ns("0.0005"), 1);  // half a ns rounds away from zero
  EXPECT_EQ(ns("0.0004999"), 0);
  EXPECT_EQ(ns("-0.0005"), -1);
  EXPECT_EQ(ns("-3.25"), -3250);
  EXPECT_EQ(ns("100"), 100000);
  EXPECT_EQ(ns("0"), 0);
  EXPECT_EQ(ns("0.000"), 0);
  EXPECT_EQ(ns("3e2"), 300000);
  EXPECT_EQ(ns("1.5E-3"), 2);
  EXPECT_EQ(ns("1e-400"), 0);
  EXPECT_EQ(ns("007.5"), 7500);
  EXPECT_EQ(ns(" 42 "), 42000);
  EXPECT_EQ(ns("9223372036854775.807"), INT64_MAX);
}

TEST(TracesDecimalTime, RefusesWhatIsNotAFiniteDecimal) {
  EXPECT_THAT(why_not("NaN"), ::testing::HasSubstr("expected a finite decimal number of microseconds"));
  EXPECT_THAT(why_not("Infinity"), ::testing::HasSubstr("expected a finite decimal"));
  EXPECT_THAT(why_not("12ab"), ::testing::HasSubstr("'12ab'"));
  EXPECT_THAT(why_not(""), ::testing::HasSubstr("expected a finite decimal"));
  EXPECT_THAT(why_not("1e"), ::testing::HasSubstr("expected a decimal number"));
  EXPECT_THAT(why_not("1e999"), ::testing::HasSubstr("fits in 64-bit nanoseconds"));
  EXPECT_THAT(why_not("9223372036854775.808"), ::testing::HasSubstr("fits in 64-bit nanoseconds"));
  EXPECT_THAT(why_not("1.2.3"), ::testing::HasSubstr("expected a finite decimal"));
}

// Scans `text` (padded with 64 spaces, as the reader's buffer is) and returns the value's length, or -1.
long scan_length(const std::string& text, bool padded, std::size_t feed = 0, int max_depth = 128) {
  const std::string buf = text + std::string(64, ' ');
  ValueScanner s(max_depth);
  s.reset();
  std::size_t length = 0;
  std::size_t n = feed == 0 ? text.size() : std::min(feed, text.size());
  for (;;) {
    const auto status = s.scan(buf.data(), n, &length, padded);
    if (status == ValueScanner::Status::kComplete) return static_cast<long>(length);
    if (status == ValueScanner::Status::kError) return -1;
    if (n == text.size()) return s.complete_at_eof(n, &length) ? static_cast<long>(length) : -2;
    n = std::min(text.size(), n + (feed == 0 ? text.size() : feed));
  }
}

TEST(TracesValueScanner, FindsTheEndOfValues) {
  for (bool padded : {false, true}) {
    EXPECT_EQ(scan_length(R"({"a": 1}, {"b": 2})", padded), 8);
    EXPECT_EQ(scan_length(R"({"a": "}]\"{"}  ,)", padded), 14);  // brackets and an escaped quote in a string
    EXPECT_EQ(scan_length(R"({"a": "\\"}x)", padded), 11);       // an escaped backslash ends the string
    EXPECT_EQ(scan_length(R"([[1, 2], {"x": [3]}]])", padded), 20);
    EXPECT_EQ(scan_length(R"("just a string" ,)", padded), 15);
    EXPECT_EQ(scan_length("1234.5, 6", padded), 6);
    EXPECT_EQ(scan_length("true]", padded), 4);
    EXPECT_EQ(scan_length("17", padded), 2);                // a scalar at the end of the stream
    EXPECT_EQ(scan_length(R"({"a": [1, 2})", padded), -1);  // mismatched brackets
    EXPECT_EQ(scan_length(R"({"a": "unterminated)", padded), -2);
  }
}

TEST(TracesValueScanner, RefusesNestingBeyondTheLimit) {
  EXPECT_EQ(scan_length("[[[[1]]]]", true, 0, 3), -1);
  EXPECT_EQ(scan_length("[[[[1]]]]", false, 0, 3), -1);
  EXPECT_EQ(scan_length("[[[[1]]]]", true, 0, 4), 9);
  EXPECT_EQ(scan_length(std::string(100000, '[') + std::string(100000, ']'), true), -1);
}

// The 64-byte block path and the byte path agree on random JSON-like text, fed in random pieces.
TEST(TracesValueScanner, BlockAndBytePathsAgreeOnRandomValues) {
  std::mt19937 rng(1234);
  const std::string atoms[] = {
      "\"ab\"",     "\"x\\\"y\"", "\"\\\\\"", "\"{[\"",       "\"]}\"",
      "12.5",       "true",       "null",     "\"\\\\\\\"\"", "\"" + std::string(70, 'q') + "\"",
      "\"\\u00e9\""};
  std::function<std::string(int)> gen = [&](int depth) -> std::string {
    if (depth > 6 || rng() % 3 == 0) return atoms[rng() % std::size(atoms)];
    std::string s;
    if (rng() % 2) {
      s = "{";
      const int n = static_cast<int>(rng() % 5);
      for (int i = 0; i < n; ++i) s += (i ? ", " : "") + atoms[rng() % 5] + ": " + gen(depth + 1);
      return s + "}";
    }
    s = "[";
    const int n = static_cast<int>(rng() % 5);
    for (int i = 0; i < n; ++i) s += (i ? "," : "") + gen(depth + 1);
    return s + "]";
  };
  for (int k = 0; k < 2000; ++k) {
    std::string v = "{\"k\": " + gen(0) + "}";
    const auto expected = static_cast<long>(v.size());
    v += ", {\"next\": 1}";
    const std::size_t feed = 1 + rng() % 100;
    ASSERT_EQ(scan_length(v, false), expected) << v;
    ASSERT_EQ(scan_length(v, true), expected) << v;
    ASSERT_EQ(scan_length(v, true, feed), expected) << v << " fed " << feed;
  }
}

TEST(TracesStepSpans, PlacesEventsInTheirProcessOrByTime) {
  EXPECT_EQ(profiler_step_number("ProfilerStep#42"), 42);
  EXPECT_EQ(profiler_step_number("ProfilerStep # 7"), 7);
  EXPECT_EQ(profiler_step_number("ProfilerStep"), std::nullopt);
  EXPECT_EQ(profiler_step_number("xProfilerStep#1"), std::nullopt);

  StepSpans spans;
  spans.add("10", 100, 200, 1);
  spans.add("10", 200, 300, 2);
  spans.add("20", 150, 400, 9);
  spans.finalize();
  EXPECT_EQ(spans.step_of("10", false, 100), 1);
  EXPECT_EQ(spans.step_of("10", false, 199), 1);
  EXPECT_EQ(spans.step_of("10", false, 200), 2);  // [start, end)
  EXPECT_EQ(spans.step_of("10", false, 350), -1);
  EXPECT_EQ(spans.step_of("20", false, 350), 9);
  EXPECT_EQ(spans.step_of("30", false, 120), 1);  // a process without spans: by time
  EXPECT_EQ(spans.step_of("10", true, 350), 9);   // a device event: by time, any process
  EXPECT_EQ(spans.step_of("10", true, 160), 9);   // the span that starts last wins
  EXPECT_EQ(spans.step_of("10", true, 50), -1);
  EXPECT_EQ(spans.steps(), (std::vector<std::int64_t>{1, 9, 2}));
}

Slice slice_of(const std::string& padded, std::size_t size, std::uint64_t offset = 100) {
  return Slice{padded.data(), size, padded.size(), offset};
}

TEST(TracesEventDecoder, DecodesMembersAndKeepsUnknownOnes) {
  const std::string text =
      R"({"name": "k", "cat": "kernel", "ph": "X", "ts": 5.5, "dur": "2", "pid": "7", "tid": 3, "cname": "good",)"
      R"( "args": {"stream": "21", "device": 1, "correlation": 9, "big": 18446744073709551615, "s": "\u00e9"}})";
  const std::string padded = text + std::string(64, ' ');
  EventDecoder d;
  DecodedEvent out;
  d.decode(slice_of(padded, text.size()), out);
  const Event& e = out.event;
  EXPECT_EQ(e.name, "k");
  EXPECT_EQ(e.category, "kernel");
  EXPECT_EQ(e.phase, 'X');
  EXPECT_EQ(e.start_ns, 5500);
  EXPECT_EQ(e.duration_ns, 2000);
  EXPECT_EQ(e.pid, 7);  // a numeric string is a number
  EXPECT_TRUE(out.is_device);
  EXPECT_EQ(e.tid, 21);  // the stream
  EXPECT_EQ(e.key.device, 1);
  EXPECT_EQ(e.args.at("_trace").at("tid"), 3);  // the tid it replaced
  EXPECT_EQ(e.args.at("_trace").at("cname"), "good");
  EXPECT_EQ(e.args.at("big"), 18446744073709551615ull);
  EXPECT_EQ(e.args.at("s"), "\xc3\xa9");
}

TEST(TracesEventDecoder, ErrorsPointAtTheEvent) {
  EventDecoder d;
  DecodedEvent out;
  auto error_of = [&](const std::string& text) -> std::string {
    const std::string padded = text + std::string(64, ' ');
    try {
      d.decode(slice_of(padded, text.size(), 1234), out);
    } catch (const TraceError& e) {
      EXPECT_EQ(e.offset(), 1234u);
      return e.what();
    }
    return "no error";
  };
  EXPECT_EQ(error_of(R"({"ph": "X", "ts": [1]})"),
            "expected \"ts\" to be a number or a decimal string of microseconds, got an array");
  EXPECT_EQ(error_of(R"({"ph": "X", "ts": 1, "dur": -0.5})"), "expected \"dur\" >= 0, got -0.5 us");
  EXPECT_EQ(error_of(R"({"ts": 1})"), "expected a \"ph\" member (the event's phase)");
  EXPECT_EQ(error_of(R"({"ph": "X"})"), "expected a \"ts\" member in a \"X\" event");
  EXPECT_EQ(error_of(R"({"ph": "M"})"), "no error");  // metadata events need no ts
  EXPECT_EQ(error_of(R"({"ph": "X", "ts": 1, "pid": true})"),
            "expected \"pid\" to be an integer or a string, got a boolean");
  const std::string invalid =
      "\"args\": expected valid JSON: values (true, false, null, numbers, strings, arrays, objects) "
      "separated by ',' "
      "and ':', got something else (e.g. NaN, Infinity, a missing comma)";
  EXPECT_EQ(error_of(R"({"ph": "X", "ts": 1, "args": {"x": NaN}})"), invalid);
  EXPECT_EQ(error_of(R"({"ph": "X", "ts": 1, "args": {"x": 1 2}})"), invalid);
}

}  // namespace
}  // namespace cann_debug::plugins::chrome_trace
