// End of stream: consumers start before producers, components flush in topological order (draining after
// each), so what a buffering component emits from flush() reaches its sink before the sink flushes.
#include <gtest/gtest.h>

#include <algorithm>

#include "fixtures.hpp"
#include "temp_dir.hpp"

namespace cann_debug::itest {
namespace {

// Declared in an order that is neither topological nor its reverse: src(0), out(1), buf(2).
constexpr const char* kPipeline = R"(version: 1
components:
  counter_source/src: { count: 5, trace: "${tmp}/trace.txt" }
  collect_sink/out: { path: "${tmp}/out.jsonl", trace: "${tmp}/trace.txt" }
  flush_buffer/buf: { trace: "${tmp}/trace.txt" }
links:
  - counter_source/src.out -> flush_buffer/buf.in
  - flush_buffer/buf.out -> collect_sink/out.in
)";

class FlushOrder : public ::testing::Test {
 protected:
  void SetUp() override {
    registry_ = good_registry();
    host::Diagnostics diags;
    host::PipelineInputs inputs;
    inputs.variables["tmp"] = dir_.path().string();
    plan_ = plan_text(kPipeline, *registry_, diags, inputs);
    ASSERT_TRUE(plan_) << diags.to_string();
    report_ = run_with_deadline(*plan_, {});
    trace_ = read_lines(dir_.file("trace.txt"));
  }
  std::vector<std::string> events(const std::string& kind) const {
    std::vector<std::string> out;
    for (const auto& l : trace_)
      if (l.rfind(kind + " ", 0) == 0) out.push_back(l.substr(kind.size() + 1));
    return out;
  }

  TempDir dir_;
  std::unique_ptr<host::PluginRegistry> registry_;
  std::optional<host::PipelinePlan> plan_;
  host::RunReport report_;
  std::vector<std::string> trace_;
};

TEST_F(FlushOrder, TheRunSucceeds) {
  EXPECT_TRUE(report_.ok);
  EXPECT_FALSE(report_.interrupted);
  EXPECT_EQ(node_stats(report_, "flush_buffer/buf").received, 5u);
  EXPECT_EQ(node_stats(report_, "flush_buffer/buf").emitted, 5u);
  EXPECT_EQ(node_stats(report_, "collect_sink/out").received, 5u);
}

TEST_F(FlushOrder, ConsumersStartBeforeProducers) {
  EXPECT_EQ(events("start"),
            (std::vector<std::string>{"collect_sink/out", "flush_buffer/buf", "counter_source/src"}));
}

TEST_F(FlushOrder, ComponentsFlushProducersFirst) {
  EXPECT_EQ(events("flush"),
            (std::vector<std::string>{"counter_source/src", "flush_buffer/buf", "collect_sink/out"}));
}

TEST_F(FlushOrder, FlushedOutputReachesTheSinkBeforeTheSinkFlushes) {
  EXPECT_EQ(
      read_lines(dir_.file("out.jsonl")),
      (std::vector<std::string>{"{\"n\":1}", "{\"n\":2}", "{\"n\":3}", "{\"n\":4}", "{\"n\":5}", "#flush"}));
}

TEST_F(FlushOrder, EveryComponentStopsOnceAfterAllFlushes) {
  auto stops = events("stop");
  std::sort(stops.begin(), stops.end());
  EXPECT_EQ(stops, (std::vector<std::string>{"collect_sink/out", "counter_source/src", "flush_buffer/buf"}));
  std::size_t last_flush = 0, first_stop = trace_.size();
  for (std::size_t i = 0; i < trace_.size(); ++i) {
    if (trace_[i].rfind("flush ", 0) == 0) last_flush = i;
    if (trace_[i].rfind("stop ", 0) == 0) first_stop = std::min(first_stop, i);
  }
  EXPECT_LT(last_flush, first_stop);
}

}  // namespace
}  // namespace cann_debug::itest
