// Tests of the batch size read from a profiler trace's input shapes (trace_batch.hpp) and of its use as
// data.batch_size when neither the config nor the log names one.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "trace_batch.hpp"
#include "training_rows.hpp"

namespace cann_debug::plugins {
namespace {

using nlohmann::json;
using namespace training_test;
using training_detail::input_layer_batch;
using training_detail::TraceBatchScanner;

constexpr std::size_t kEventsPort = 2;

// An operator event as the chrome_trace reader delivers it: `step` is the ProfilerStep it falls in (-1:
// none).
Event op(std::string name, TimestampNs start_us, json dims = nullptr, std::int64_t step = -1) {
  Event e;
  e.name = std::move(name);
  e.start_ns = start_us * 1000;
  e.duration_ns = 10000;
  e.key.step_id = step;
  if (!dims.is_null()) e.args = {{"Input Dims", std::move(dims)}};
  return e;
}

EventBatch batch_of(std::vector<Event> events) {
  EventBatch b;
  b.source_path = "trace.json";
  b.events = std::move(events);
  return b;
}

TEST(TraceBatch, TheDataInputOfAnInputLayerGivesTheBatch) {
  EXPECT_EQ(input_layer_batch(op("aten::linear", 0, json{{32, 64}, {64, 64}, {64}})), 32.0);
  EXPECT_EQ(input_layer_batch(op("aten::linear", 0, json{{4, 16, 32}, {32, 32}, {32}})), 4.0);  // tokens
  EXPECT_EQ(input_layer_batch(op("aten::conv2d", 0, json{{8, 3, 224, 224}, {64, 3, 7, 7}, {}, {}})), 8.0);
  // Embedding: the weight comes first, the token ids second. A sequence of 64 positions or more counts its
  // tokens (an LLM's micro-batch of one sequence is no tiny batch); a short one its samples.
  EXPECT_EQ(input_layer_batch(op("aten::embedding", 0, json{{30522, 512}, {2, 141}, {}, {}})), 282.0);
  EXPECT_EQ(input_layer_batch(op("aten::embedding", 0, json{{30522, 512}, {2, 16}, {}, {}})), 2.0);
  EXPECT_EQ(input_layer_batch(op("aten::linear", 0, json{{1, 2048, 768}, {768, 768}})), 2048.0);
  // A conv1d's [batch, channels, length] has no positions in its second dimension.
  EXPECT_EQ(input_layer_batch(op("aten::conv1d", 0, json{{2, 128, 400}, {64, 128, 3}})), 2.0);
  // An unbatched sample, a conv2d without a batch dimension, another operator, no shapes: nothing.
  EXPECT_FALSE(input_layer_batch(op("aten::linear", 0, json{{64}, {64, 64}, {64}})));
  EXPECT_FALSE(input_layer_batch(op("aten::conv2d", 0, json{{3, 224, 224}, {64, 3, 7, 7}})));
  EXPECT_FALSE(input_layer_batch(op("aten::addmm", 0, json{{64}, {32, 64}, {64, 64}})));
  EXPECT_FALSE(input_layer_batch(op("aten::linear", 0)));
  EXPECT_FALSE(input_layer_batch(op("aten::linear", 0, json{json::array()})));
  EXPECT_FALSE(input_layer_batch(op("aten::linear", 0, json{{"x", 64}})));
}

TEST(TraceBatch, EachStepsFirstLayerCountsNotTheLayersAfterIt) {
  TraceBatchScanner scan;
  // Two profiled steps arriving in two batches, the second one's later layer first. In each step the first
  // layer sees 4 samples; a later linear sees 64 rows (a reshape inside the model) and must not count, nor
  // a call before the profiled steps.
  scan.add(batch_of({op("aten::linear", 10, json{{99, 8}, {16, 8}, {16}}),
                     op("aten::linear", 110, json{{4, 8}, {16, 8}, {16}}, 6),
                     op("aten::linear", 150, json{{64, 16}, {10, 16}, {10}}, 6)}));
  scan.add(batch_of({op("aten::linear", 350, json{{64, 16}, {10, 16}}, 7),
                     op("aten::linear", 320, json{{4, 8}, {16, 8}, {16}}, 7)}));
  const auto got = scan.result();
  ASSERT_TRUE(got);
  EXPECT_EQ(got->samples, 4.0);
  EXPECT_EQ(got->steps, 2u);
  EXPECT_EQ(got->first_layer.id, "aten::linear");
  EXPECT_EQ(got->first_layer.first_step, 6);
  EXPECT_EQ(got->first_layer.start_ns, 110000);
}

TEST(TraceBatch, WithoutStepSpansTheTracesFirstLayerCallCounts) {
  TraceBatchScanner scan;
  scan.add(batch_of({op("aten::linear", 500, json{{64, 16}, {10, 16}}),
                     op("aten::conv2d", 200, json{{2, 3, 32, 32}, {8, 3, 3, 3}})}));
  ASSERT_TRUE(scan.result());
  EXPECT_EQ(scan.result()->samples, 2.0);
  EXPECT_EQ(scan.result()->first_layer.first_step, -1);
  EXPECT_FALSE(TraceBatchScanner().result());
}

TEST(TraceBatch, TheTraceNamesTheBatchOnlyWhenNeitherConfigNorLogDoes) {
  std::vector<json> rows;
  for (int i = 0; i < 30; ++i)
    rows.push_back({{"step", i}, {"time", 1000.0 + i}, {"loss", 2.0 / (1.0 + 0.1 * i)}});
  const Envelope trace =
      Envelope::make(CorrelationKey{}, batch_of({op("aten::linear", 10, json{{2, 8}, {16, 8}, {16}}, 4)}));
  FeatureSet set = run_extractor({{kRecordsPort, records_of(rows)}, {kEventsPort, trace}});
  EXPECT_EQ(value_of(set, "data.trace_batch_size"), 2.0);
  EXPECT_EQ(value_of(set, "data.batch_size"), 2.0);
  EXPECT_EQ(evidence_of(set, "data.batch_size").at(0).kind, "operator");
  // The config's batch size wins; the trace's stays visible beside it.
  set = run_extractor({{kRecordsPort, records_of(rows)},
                       {kEventsPort, trace},
                       {kConfigPort, config_of({{"batch_size", 64}})}});
  EXPECT_EQ(value_of(set, "data.batch_size"), 64.0);
  EXPECT_EQ(value_of(set, "data.trace_batch_size"), 2.0);
}

}  // namespace
}  // namespace cann_debug::plugins
