// Tests of the frame builder every live sampler uses: series described once, the schema shared until a
// series is added, counters turned into rates and deltas, absent readings as NaN.
#include <gtest/gtest.h>

#include <cmath>

#include "cann_debug/sampler/counter_points.hpp"
#include "cann_debug/sampler/frame_builder.hpp"

namespace cann_debug::plugins::sampler_support {
namespace {

CorrelationKey at(std::int64_t t) {
  CorrelationKey k;
  k.timestamp_ns = t;
  k.node_id = "n1";
  return k;
}

MetricSeries series(const char* name, const char* device) {
  return MetricSeries{name, "ratio", {{"device", device}}, std::atoi(device)};
}

TEST(FrameBuilder, DescribesEachSeriesOnceAndSharesTheSchemaUntilOneIsAdded) {
  FrameBuilder b;
  int described = 0;
  auto put = [&](std::uint32_t device, double v) {
    b.gauge({1, device}, v, [&] {
      ++described;
      return series("npu.utilization", device == 0 ? "0" : "1");
    });
  };
  b.begin(at(100));
  put(0, 0.5);
  put(1, 0.25);
  const MetricFrame f1 = b.finish();
  b.begin(at(200));
  put(0, 0.75);
  put(1, 0.125);
  const MetricFrame f2 = b.finish();
  EXPECT_EQ(described, 2);
  EXPECT_EQ(f1.schema.get(), f2.schema.get());
  ASSERT_EQ(f2.values.size(), 2u);
  EXPECT_DOUBLE_EQ(f2.values[1], 0.125);
  EXPECT_EQ(f2.key.timestamp_ns, 200);
  // The node becomes a label; the device travels with the series.
  EXPECT_EQ(f2.schema->series[1].labels.at("node"), "n1");
  EXPECT_EQ(f2.schema->series[1].device, 1);

  b.begin(at(300));
  put(1, 0.5);  // out of the usual order, and device 0 gives no reading
  b.gauge({2, 0}, 42, [&] { return series("npu.power", "0"); });
  const MetricFrame f3 = b.finish();
  EXPECT_NE(f3.schema.get(), f2.schema.get());
  ASSERT_EQ(f3.schema->series.size(), 3u);
  EXPECT_TRUE(std::isnan(f3.values[0]));
  EXPECT_DOUBLE_EQ(f3.values[1], 0.5);
  EXPECT_DOUBLE_EQ(f3.values[2], 42);
  EXPECT_EQ(f2.schema->series.size(), 2u);  // a shared schema never changes

  const MetricBatch batch = to_metric_batch(f3);
  ASSERT_EQ(batch.points.size(), 2u);  // the NaN is no point
  EXPECT_EQ(batch.points[0].name, "npu.utilization");
  EXPECT_EQ(batch.points[0].key.device, 1);
  EXPECT_EQ(batch.points[0].key.timestamp_ns, 300);
  EXPECT_EQ(batch.points[1].name, "npu.power");
}

TEST(FrameBuilder, CountersGiveRateAndDeltaFromTheSecondReadingAndWrapAcross) {
  FrameBuilder b;
  auto describe = [] { return MetricSeries{"x.packets", "count", {}, -1}; };
  b.begin(at(0));
  b.counter({1}, 100, 32, 0, describe);
  EXPECT_TRUE(b.empty());  // a first reading only primes the counter
  (void)b.finish();
  b.begin(at(2'000'000'000));
  b.counter({1}, 700, 32, 2'000'000'000, describe, 4.0);
  EXPECT_FALSE(b.empty());
  const MetricFrame f = b.finish();
  ASSERT_EQ(f.schema->series.size(), 2u);
  EXPECT_EQ(f.schema->series[0].name, "x.packets");
  EXPECT_EQ(f.schema->series[0].unit, "count/s");
  EXPECT_EQ(f.schema->series[1].name, "x.packets.delta");
  EXPECT_EQ(f.schema->series[1].unit, "count");
  EXPECT_DOUBLE_EQ(f.values[0], 1200);  // 600 in 2 s, times 4
  EXPECT_DOUBLE_EQ(f.values[1], 2400);
  EXPECT_EQ(b.previous_counter({1}), 700u);

  b.begin(at(3'000'000'000));
  b.counter({1}, 0xfffffff0u, 32, 3'000'000'000, describe);
  (void)b.finish();  // near the top of 32 bits
  b.begin(at(4'000'000'000));
  b.counter({1}, 0x10, 32, 4'000'000'000, describe);
  const MetricFrame w = b.finish();  // from the top quarter to the bottom: a wrap
  EXPECT_DOUBLE_EQ(w.values[1], 0x20);
}

TEST(FrameBuilder, SeriesLeftOutOfASampleLeaveNaNAndTheOthersLandInTheirOwnPlaces) {
  FrameBuilder b;
  auto sample = [&](TimestampNs t, auto wanted) {
    b.begin(at(t));
    for (std::uint32_t i = 0; i < 40; ++i)
      if (wanted(i))
        b.gauge({1, i}, i * 10.0, [&] {
          return MetricSeries{"x.y", "count", {{"i", std::to_string(i)}}, -1};
        });
    return b.finish();
  };
  const MetricFrame all = sample(1, [](std::uint32_t) { return true; });
  // Every third left out (found by looking ahead), then a run of 20 (found by the hash), then the rest.
  const MetricFrame some = sample(2, [](std::uint32_t i) { return i % 3 != 1 && (i < 12 || i >= 32); });
  EXPECT_EQ(some.schema, all.schema) << "no series added";
  ASSERT_EQ(some.values.size(), 40u);
  for (std::uint32_t i = 0; i < 40; ++i) {
    const bool wanted = i % 3 != 1 && (i < 12 || i >= 32);
    if (wanted)
      EXPECT_DOUBLE_EQ(some.values[i], i * 10.0) << i;
    else
      EXPECT_TRUE(std::isnan(some.values[i])) << i;
  }
  const MetricFrame again = sample(3, [](std::uint32_t) { return true; });
  for (std::uint32_t i = 0; i < 40; ++i) EXPECT_DOUBLE_EQ(again.values[i], i * 10.0) << i;
}

TEST(FrameBuilder, SkippedReadingsKeepTheirSeriesAsNewReasonsAppear) {
  SkippedReadings skipped;
  FrameBuilder b;
  skipped.count("0", "dcmi_get_device_temperature", "invalid (0x7ffd)");
  b.begin(at(1));
  skipped.add_to(b);
  const MetricFrame f1 = b.finish();
  skipped.count("0", "dcmi_get_device_power_info", "error -8005");  // sorts before the first one
  skipped.count("0", "dcmi_get_device_temperature", "invalid (0x7ffd)");
  b.begin(at(2));
  skipped.add_to(b);
  const MetricFrame f2 = b.finish();
  ASSERT_EQ(f2.schema->series.size(), 2u);
  EXPECT_EQ(f2.schema->series[0].labels.at("source_name"), "dcmi_get_device_temperature");
  EXPECT_DOUBLE_EQ(f2.values[0], 2);
  EXPECT_DOUBLE_EQ(f2.values[1], 1);
  EXPECT_EQ(f1.schema->series[0].name, "sampler.skipped_readings");
}

}  // namespace
}  // namespace cann_debug::plugins::sampler_support
