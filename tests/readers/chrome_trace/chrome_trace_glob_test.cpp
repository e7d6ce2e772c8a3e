// chrome_trace with a glob pattern as `path`: every matching file, in natural order, each with its own rank.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "chrome_trace.hpp"
#include "path_pattern.hpp"
#include "trace_info.hpp"
#include "traces_test_support.hpp"

namespace cann_debug::traces_test {
namespace {

using plugins::chrome_trace_factory;
using plugins::chrome_trace::expand_trace_pattern;
using plugins::chrome_trace::is_glob_pattern;
using plugins::chrome_trace::natural_less;
using testing::Harness;
using ::testing::HasSubstr;

std::string legacy() {
  return read_file(data_dir() / "legacy_small.json");
}

// (source file name, rank) of each batch, and the trace_info events' rank sources.
struct Seen {
  std::vector<std::pair<std::string, std::int32_t>> batches;
  std::vector<std::string> rank_sources;
};

Seen seen(const Harness& h) {
  Seen s;
  for (const auto& b : h.outputs_of<EventBatch>(0)) {
    s.batches.emplace_back(std::filesystem::path(b.source_path).filename().string(),
                           b.events.front().key.rank);
    for (const auto& e : b.events) {
      EXPECT_EQ(e.key.rank, b.events.front().key.rank) << "one batch mixes ranks";
      if (e.name == plugins::chrome_trace::kTraceInfoName) s.rank_sources.push_back(e.args.at("rank_source"));
    }
  }
  return s;
}

TEST(TracesChromeTraceGlob, NaturalOrderComparesDigitRunsByValue) {
  EXPECT_TRUE(natural_less("rank2.trace.json", "rank10.trace.json"));
  EXPECT_FALSE(natural_less("rank10.trace.json", "rank2.trace.json"));
  EXPECT_TRUE(natural_less("rank1.json", "rank1.json.gz"));
  EXPECT_TRUE(natural_less("a9", "b1"));
  EXPECT_TRUE(natural_less("rank2", "rank02"));  // same value: fewer leading zeros first
  EXPECT_FALSE(natural_less("x", "x"));
  EXPECT_TRUE(is_glob_pattern("/d/rank*.trace.json"));
  EXPECT_TRUE(is_glob_pattern("/d/rank?.json"));
  EXPECT_FALSE(is_glob_pattern("/d/rank0.trace.json"));
}

TEST(TracesChromeTraceGlob, ReadsEveryMatchingFileInNaturalOrderWithTheRankOfItsName) {
  TempDir dir;
  for (const char* name : {"rank10.trace.json", "rank2.trace.json", "rank1.trace.json", "other.json"})
    write_file(dir / name, legacy());
  Harness h(chrome_trace_factory(), {{"path", (dir / "rank*.trace.json").string()}, {"batch_size", 4}});
  ASSERT_EQ(run(h), "");
  const Seen s = seen(h);
  std::vector<std::string> order;
  for (const auto& [file, rank] : s.batches) {
    if (order.empty() || order.back() != file) order.push_back(file);
    EXPECT_EQ("rank" + std::to_string(rank) + ".trace.json", file);
  }
  EXPECT_EQ(order, (std::vector<std::string>{"rank1.trace.json", "rank2.trace.json", "rank10.trace.json"}));
  EXPECT_EQ(s.rank_sources, (std::vector<std::string>(3, "file name")));
  // Every file gives all its events: three times those of one file.
  Harness one(chrome_trace_factory(), {{"path", (dir / "rank1.trace.json").string()}});
  ASSERT_EQ(run(one), "");
  EXPECT_EQ(all_events(h).size(), 3 * all_events(one).size());
}

TEST(TracesChromeTraceGlob, TheTraceRankWinsOverTheNameAndTheOptionOnlyFillsIn) {
  TempDir dir;
  write_file(dir / "a_rank7.json", read_file(data_dir() / "kineto_small.json"));  // distributedInfo.rank 2
  write_file(dir / "b_worker.json", legacy());                                    // no rank anywhere
  Harness h(chrome_trace_factory(), {{"path", (dir / "*.json").string()}, {"rank", 9}});
  ASSERT_EQ(run(h), "");
  const Seen s = seen(h);
  EXPECT_EQ(s.batches.front(), (std::pair<std::string, std::int32_t>{"a_rank7.json", 2}));
  EXPECT_EQ(s.batches.back(), (std::pair<std::string, std::int32_t>{"b_worker.json", 9}));
  EXPECT_EQ(s.rank_sources, (std::vector<std::string>{"distributedInfo", "option"}));
}

TEST(TracesChromeTraceGlob, APatternMatchingNothingIsAnErrorNamingIt) {
  TempDir dir;
  const std::string pattern = (dir / "rank*.trace.json").string();
  Harness h(chrome_trace_factory(), {{"path", pattern}});
  EXPECT_EQ(run(h), pattern + ": no trace file matches this pattern");
  EXPECT_THROW(expand_trace_pattern(pattern), std::runtime_error);
}

TEST(TracesChromeTraceGlob, AFaultInALaterFileNamesThatFile) {
  TempDir dir;
  write_file(dir / "rank0.json", legacy());
  write_file(dir / "rank1.json", "[{\"name\": \"x\", \"ph\": \"X\", \"ts\": 1, \"dur\": -5}]");
  Harness h(chrome_trace_factory(), {{"path", (dir / "rank*.json").string()}});
  const std::string error = run(h);
  EXPECT_THAT(error, HasSubstr((dir / "rank1.json").string() + ": byte "));
  EXPECT_FALSE(h.outputs_of<EventBatch>(0).empty());  // rank 0's events came first
}

}  // namespace
}  // namespace cann_debug::traces_test
