// correlate: step joins emitted as steps complete, time-window joins, and bounded memory (eviction).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "correlate.hpp"
#include "join_state.hpp"
#include "readers_test_support.hpp"

namespace cann_debug::plugins {
namespace {

using testing::Harness;
using Inputs = std::vector<std::pair<std::size_t, Envelope>>;

Envelope records_at(std::int64_t step, TimestampNs t = kNoTimestamp,
                    nlohmann::json fields = {{"loss", 1.0}}) {
  RecordBatch b;
  Record r;
  r.key.step_id = step;
  r.key.timestamp_ns = t;
  r.fields = std::move(fields);
  b.records.push_back(r);
  return Envelope::make<RecordBatch>(r.key, std::move(b));
}

Envelope metric_at(std::int64_t step, TimestampNs t, double value, std::string name = "step.computing_time") {
  MetricBatch b;
  MetricPoint p;
  p.name = std::move(name);
  p.unit = "ns";
  p.value = value;
  p.key.step_id = step;
  p.key.timestamp_ns = t;
  p.labels = {{"rank", "0"}};
  b.points.push_back(p);
  return Envelope::make<MetricBatch>(p.key, std::move(b));
}

std::vector<nlohmann::json> rows(const Harness& h) {
  std::vector<nlohmann::json> out;
  for (const auto& m : h.outputs_of<JsonMessage>(0)) out.push_back(m.value);
  return out;
}

TEST(Correlate, ManifestIsSound) {
  const auto& m = correlate_factory().manifest();
  EXPECT_THAT(check_manifest(m), ::testing::IsEmpty());
  EXPECT_EQ(m.kind, ComponentKind::kExtractor);
  ASSERT_EQ(m.inputs.size(), 2u);
  EXPECT_FALSE(m.inputs[0].required);
  EXPECT_FALSE(m.inputs[1].required);
  EXPECT_EQ(m.inputs[0].accepts.size(), 3u);
  EXPECT_EQ(m.outputs[0].produces, "json/1");
}

TEST(Correlate, JoinsByStepAndEmitsEachStepOnceBothInputsPassedIt) {
  Harness h(correlate_factory(), nlohmann::json::object());
  auto& c = h.component();
  c.start();
  for (int s = 0; s < 5; ++s) {
    c.process(records_at(s, kNoTimestamp, {{"loss", 1.0 + s}}), 0, h.out);
    c.process(metric_at(s, kNoTimestamp, 100.0 * s), 1, h.out);
    // Step s-1 completes when both inputs have moved to step s.
    EXPECT_EQ(rows(h).size(), static_cast<std::size_t>(s)) << "after step " << s;
  }
  c.flush(h.out);
  c.stop();
  const auto r = rows(h);
  ASSERT_EQ(r.size(), 6u);  // 5 steps + summary
  for (int s = 0; s < 5; ++s) {
    const auto& row = r[static_cast<std::size_t>(s)];
    EXPECT_EQ(row["kind"], "step");
    EXPECT_EQ(row["step"], s);
    EXPECT_EQ(row["complete"], true);
    EXPECT_EQ(row["a"]["records"][0]["loss"], 1.0 + s);
    EXPECT_EQ(row["b"]["metrics"]["step.computing_time{rank=0}"]["mean"], 100.0 * s);
    EXPECT_EQ(row["b"]["metrics"]["step.computing_time{rank=0}"]["unit"], "ns");
  }
  EXPECT_EQ(r[5]["kind"], "summary");
  EXPECT_EQ(r[5]["joined"], 5);
  EXPECT_EQ(r[5]["evicted"], 0);
  EXPECT_EQ(h.out.emitted[0].second.key().step_id, 0);
}

TEST(Correlate, EvictsAStepOneInputNeverReaches) {
  Harness h(correlate_factory(), {{"max_pending_steps", 4}});
  Inputs in;
  for (int s = 0; s <= 20; ++s) {
    in.emplace_back(0, records_at(s));
    if (s != 7) in.emplace_back(1, metric_at(s, kNoTimestamp, 1.0));
  }
  h.run_processor(in);
  const auto r = rows(h);
  std::vector<std::int64_t> steps;
  for (const auto& row : r)
    if (row["kind"] == "step") steps.push_back(row["step"].get<std::int64_t>());
  EXPECT_EQ(std::count(steps.begin(), steps.end(), 7), 0);
  EXPECT_EQ(steps.size(), 20u);
  const auto& summary = r.back();
  EXPECT_EQ(summary["evicted"], 1);
  EXPECT_EQ(summary["evicted_keys"], nlohmann::json::array({"step 7"}));
  EXPECT_EQ(summary["joined"], 20);
  // Step 7 was evicted when step 12 arrived (7 < 12 - 4): rows after it count it.
  for (const auto& row : r) {
    if (row["kind"] == "step" && row["step"].get<int>() >= 12) {
      EXPECT_EQ(row["evicted_so_far"], 1);
    }
  }
}

TEST(Correlate, AStreamWithoutPartnerIsBoundedNotKeptForever) {
  correlate::JoinOptions o;
  o.mode = correlate::Mode::kStep;
  o.max_pending_steps = 4;
  correlate::JoinState state(o);
  std::size_t most = 0;
  for (int s = 0; s <= 100; ++s) {
    Record r;
    r.key.step_id = s;
    state.add(0, r);
    most = std::max(most, state.pending());
    EXPECT_TRUE(state.take_ready().empty());  // nothing ever completes
  }
  EXPECT_LE(most, 5u);
  EXPECT_EQ(state.counts().evicted, 96u);  // steps 0..95; 96..100 are still within 4 of the newest
  const auto flushed = state.flush();
  ASSERT_EQ(flushed.size(), 6u);
  EXPECT_EQ(flushed[0].value["step"], 96);
  EXPECT_EQ(flushed[0].value["complete"], false);
  EXPECT_EQ(flushed.back().value["incomplete_at_flush"], 5);
  EXPECT_EQ(flushed.back().value["evicted"], 96);
  EXPECT_EQ(flushed.back().value["evicted_keys"].size(), 32u);  // the first few, not all
}

TEST(Correlate, AutoModeJoinsAStepLogWithStepLessMetricsByTime) {
  // A training log (step and time) and host metrics (time only): no step in common, so time windows.
  Harness h(correlate_factory(), {{"window", "1s"}, {"lateness", "0s"}, {"max_pending_steps", 3}});
  const TimestampNs s = 1'000'000'000;
  Inputs in;
  for (int i = 0; i < 10; ++i) {
    in.emplace_back(0, records_at(i, i * s + s / 10, {{"loss", 1.0 / (i + 1)}}));
    in.emplace_back(1, metric_at(-1, i * s + s / 2, 0.5 + i, "host.cpu.utilization"));
  }
  h.run_processor(in);
  const auto r = rows(h);
  ASSERT_EQ(r.size(), 11u);
  for (int i = 0; i < 10; ++i) {
    const auto& row = r[static_cast<std::size_t>(i)];
    EXPECT_EQ(row["kind"], "window") << i;
    EXPECT_EQ(row["complete"], true) << i;
    EXPECT_EQ(row["start_ns"], i * s);
    EXPECT_EQ(row["a"]["records"][0]["loss"], 1.0 / (i + 1));
    EXPECT_EQ(row["b"]["metrics"]["host.cpu.utilization{rank=0}"]["last"], 0.5 + i);
  }
  EXPECT_EQ(r.back()["joined"], 10);
  EXPECT_EQ(r.back()["evicted"], 0);  // the log's steps age out unseen: they were joined by time
  EXPECT_EQ(r.back()["unkeyed"], 0);
}

TEST(Correlate, AutoModePrefersStepsWhenBothInputsCarryThem) {
  Harness h(correlate_factory(), {{"window", "1s"}, {"lateness", "0s"}});
  const TimestampNs s = 1'000'000'000;
  Inputs in;
  for (int i = 0; i < 6; ++i) {
    in.emplace_back(0, records_at(i, i * s));
    in.emplace_back(1, metric_at(i, i * s + s / 2, 1.0));
  }
  h.run_processor(in);
  const auto r = rows(h);
  ASSERT_EQ(r.size(), 7u);
  for (std::size_t i = 0; i + 1 < r.size(); ++i) EXPECT_EQ(r[i]["kind"], "step") << i;
  EXPECT_EQ(r.back()["joined"], 6);
  EXPECT_EQ(r.back()["evicted"], 0);
  EXPECT_EQ(r.back()["unkeyed"], 0);
}

TEST(Correlate, LateItemsForClosedStepsAreCounted) {
  Harness h(correlate_factory(), {{"max_pending_steps", 2}});
  Inputs in;
  for (int s = 0; s <= 6; ++s) {
    in.emplace_back(0, records_at(s));
    in.emplace_back(1, records_at(s));
  }
  in.emplace_back(0, records_at(1));  // step 1 went out long ago
  in.emplace_back(1, records_at(5));  // step 5 went out when both passed it
  h.run_processor(in);
  const auto summary = rows(h).back();
  EXPECT_EQ(summary["late"], 2);
  EXPECT_EQ(summary["joined"], 7);
}

TEST(Correlate, JoinsByTimeWindowWhenItemsHaveNoStep) {
  Harness h(correlate_factory(), {{"window", "1s"}, {"lateness", "500ms"}});
  const TimestampNs s = 1'000'000'000;
  Inputs in = {{0, metric_at(-1, s / 10, 1.0, "host.cpu.utilization")},
               {1, records_at(-1, 3 * s / 10)},
               {0, metric_at(-1, 5 * s / 10, 3.0, "host.cpu.utilization")},
               {0, metric_at(-1, 12 * s / 10, 5.0, "host.cpu.utilization")},
               {1, records_at(-1, 17 * s / 10)}};
  Harness* hp = &h;
  auto& c = hp->component();
  c.start();
  for (std::size_t i = 0; i < in.size(); ++i) {
    c.process(in[i].second, in[i].first, h.out);
    // Window [0, 1s) closes when an item at or after 1.5s arrives: the last one.
    EXPECT_EQ(rows(h).size(), i + 1 == in.size() ? 1u : 0u) << i;
  }
  c.flush(h.out);
  c.stop();
  const auto r = rows(h);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0]["kind"], "window");
  EXPECT_EQ(r[0]["start_ns"], 0);
  EXPECT_EQ(r[0]["end_ns"], s);
  EXPECT_EQ(r[0]["complete"], true);
  const auto& cpu = r[0]["a"]["metrics"]["host.cpu.utilization{rank=0}"];
  EXPECT_EQ(cpu["count"], 2);
  EXPECT_EQ(cpu["mean"], 2.0);
  EXPECT_EQ(cpu["min"], 1.0);
  EXPECT_EQ(cpu["max"], 3.0);
  EXPECT_EQ(r[0]["b"]["items"], 1);
  EXPECT_EQ(r[0]["a"]["first_ns"], s / 10);
  EXPECT_EQ(r[0]["a"]["last_ns"], 5 * s / 10);
  EXPECT_EQ(r[1]["start_ns"], s);
  EXPECT_EQ(r[1]["complete"], true);
  EXPECT_EQ(h.out.emitted[0].second.key().timestamp_ns, 0);
}

TEST(Correlate, WindowsWithOneInputAreEvictedWhenTheyClose) {
  Harness h(correlate_factory(), {{"window", "1s"}, {"lateness", "0s"}, {"max_pending_steps", 3}});
  Inputs in;
  for (int i = 0; i < 10; ++i) in.emplace_back(0, metric_at(-1, i * 1'000'000'000LL + 1, 1.0));
  h.run_processor(in);
  const auto r = rows(h);
  ASSERT_EQ(r.size(), 2u);  // the last window at flush (incomplete), then the summary
  EXPECT_EQ(r[0]["complete"], false);
  EXPECT_EQ(r[0]["start_ns"], 9'000'000'000LL);
  EXPECT_EQ(r.back()["evicted"], 9);
  EXPECT_EQ(r.back()["incomplete_at_flush"], 1);
}

TEST(Correlate, WindowCountIsBoundedEvenWithLargeLateness) {
  correlate::JoinOptions o;
  o.mode = correlate::Mode::kTime;
  o.window_ns = 1000;
  o.lateness_ns = 1'000'000'000'000;
  o.max_pending_steps = 8;
  correlate::JoinState state(o);
  for (int i = 0; i < 1000; ++i) {
    MetricPoint p;
    p.key.timestamp_ns = i * 1000;
    p.key.step_id = i;  // ignored in time mode
    state.add(i % 2, p);
    EXPECT_LE(state.pending(), 8u);
  }
  EXPECT_EQ(state.counts().evicted, 992u);  // one input per window: every closed window is evicted
}

TEST(Correlate, ModesEventsUnkeyedItemsAndRecordCaps) {
  Harness h(correlate_factory(), {{"mode", "step"}, {"max_records_per_key", 1}});
  EventBatch events;
  Event e;
  e.name = "ProfilerStep#3";
  e.start_ns = 100;
  e.duration_ns = 50;
  e.key.step_id = 3;
  events.events.push_back(e);
  Inputs in = {{0, records_at(3)},
               {0, records_at(3)},      // over max_records_per_key
               {0, records_at(-1, 5)},  // no step: unkeyed in step mode
               {1, Envelope::make<EventBatch>(e.key, events)}};
  h.run_processor(in);
  const auto r = rows(h);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0]["a"]["items"], 2);
  EXPECT_EQ(r[0]["a"]["records"].size(), 1u);
  EXPECT_EQ(r[0]["a"]["records_dropped"], 1);
  EXPECT_EQ(r[0]["b"]["events"]["ProfilerStep#3"]["total_duration_ns"], 50);
  EXPECT_EQ(r[0]["b"]["first_ns"], 100);
  EXPECT_EQ(r[0]["b"]["last_ns"], 150);
  EXPECT_EQ(r.back()["unkeyed"], 1);
}

TEST(Correlate, AMessageOfAnotherTypeIsAnError) {
  Harness h(correlate_factory(), nlohmann::json::object());
  h.component().start();
  const auto other = Envelope::make<JsonMessage>(CorrelationKey{}, JsonMessage{nlohmann::json{{"x", 1}}});
  try {
    h.component().process(other, 1, h.out);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(),
                ::testing::StartsWith(
                    "input 'b': expected record.batch/1, metric.batch/1 or event.batch/1, got 'json/1'"));
  }
}

}  // namespace
}  // namespace cann_debug::plugins
