// Malformed input: every fixture under tests/data/traces/bad gives exactly its expected events and error, and
// random damage to a good trace never crashes or hangs the reader.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "chrome_trace.hpp"
#include "traces_test_support.hpp"

namespace cann_debug::traces_test {
namespace {

using plugins::chrome_trace_factory;
using testing::Harness;

struct Expected {
  std::size_t events = 0;
  std::string error;  // "" = none
};

Expected read_expected(const std::filesystem::path& file, const std::string& trace_path) {
  std::istringstream in(read_file(file));
  Expected e;
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("events: ", 0) == 0) e.events = std::stoul(line.substr(8));
    if (line.rfind("error: ", 0) == 0) {
      e.error = line.substr(7);
      if (e.error == "none") e.error.clear();
      if (const auto at = e.error.find("{path}"); at != std::string::npos) e.error.replace(at, 6, trace_path);
    }
  }
  return e;
}

TEST(TracesBadFixtures, EachGivesItsEventsThenItsError) {
  const auto dir = data_dir() / "bad";
  std::vector<std::filesystem::path> traces;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.ends_with(".json") || name.ends_with(".json.gz")) traces.push_back(entry.path());
  }
  std::sort(traces.begin(), traces.end());
  ASSERT_GE(traces.size(), 10u);
  for (const auto& trace : traces) {
    std::string stem = trace.filename().string();
    stem = stem.substr(0, stem.find(".json"));
    const auto expected_file = dir / (stem + ".expected");
    ASSERT_TRUE(std::filesystem::exists(expected_file)) << expected_file;
    const Expected expected = read_expected(expected_file, trace.string());
    Harness h(chrome_trace_factory(), {{"path", trace.string()}});
    const std::string error = run(h);
    EXPECT_EQ(error, expected.error) << trace;
    EXPECT_EQ(all_events(h).size(), expected.events) << trace;
    // The error is printable ASCII and starts with the path, so the host can report it as it is.
    EXPECT_TRUE(std::all_of(error.begin(), error.end(), [](char c) { return c >= 0x20 && c < 0x7f; }))
        << error;
    if (!error.empty()) {
      EXPECT_EQ(error.rfind(trace.string() + ": byte ", 0), 0u) << error;
    }
  }
}

TEST(TracesBadFixtures, EventsBeforeTheFaultComeFirstInTheirBatches) {
  const std::string path = (data_dir() / "bad" / "truncated.json").string();
  Harness h(chrome_trace_factory(), {{"path", path}, {"batch_size", 1}});
  EXPECT_THAT(run(h), ::testing::HasSubstr("got the end of the file (truncated?)"));
  const auto batches = h.outputs_of<EventBatch>(0);
  ASSERT_EQ(batches.size(), 2u);
  EXPECT_EQ(batches[0].events.size(), 2u);  // trace_info and the first event
  EXPECT_EQ(batches[1].events.size(), 1u);
  EXPECT_EQ(batches[1].events[0].name, "gemm");
  EXPECT_EQ(batches[1].events[0].key.rank, 3);
}

TEST(TracesBadFixtures, MaxEventBytesIsAnOption) {
  const std::string path = (data_dir() / "bad" / "huge_string.json.gz").string();
  Harness h(chrome_trace_factory(), {{"path", path}, {"max_event_bytes", "16MiB"}});
  EXPECT_EQ(run(h), "");
  const auto events = all_events(h);
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[2].args.at("text").get_ref<const std::string&>().size(), 10u << 20);
}

// Damaged copies of a good trace: flipped bytes, cuts, inserted brackets. The reader must end, either cleanly
// or with an error naming the file and a byte offset.
TEST(TracesBadFixtures, RandomDamageNeverCrashes) {
  const std::string good = read_file(data_dir() / "kineto_small.json");
  std::mt19937 rng(2024);
  TempDir dir;
  for (int k = 0; k < 300; ++k) {
    std::string bad = good;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int i = 0; i < edits; ++i) {
      const std::size_t at = rng() % bad.size();
      switch (rng() % 4) {
        case 0:
          bad[at] = static_cast<char>(rng() & 0xff);
          break;
        case 1:
          bad.resize(at);
          break;
        case 2:
          bad.insert(at, std::string(1 + rng() % 300, "[{\"]},:"[rng() % 7]));
          break;
        default:
          bad.erase(at, 1 + rng() % 20);
      }
      if (bad.empty()) break;
    }
    const std::string path = write_file(dir / "damaged.json", bad);
    Harness h(chrome_trace_factory(), {{"path", path}, {"batch_size", 3}});
    const std::string error = run(h);
    if (!error.empty()) {
      EXPECT_EQ(error.rfind(path + ": byte ", 0), 0u) << error;
    }
  }
}

}  // namespace
}  // namespace cann_debug::traces_test
