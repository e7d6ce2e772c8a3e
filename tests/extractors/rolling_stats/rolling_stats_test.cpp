// Tests of rolling_stats on series whose statistics are known by hand.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>

#include "cann_debug/messages.hpp"
#include "cann_debug/testing.hpp"
#include "robust_stats.hpp"
#include "rolling_stats.hpp"

namespace cann_debug::plugins {
namespace {

using nlohmann::json;
using testing::Harness;

constexpr std::size_t kRecords = 0;
constexpr std::size_t kMetrics = 1;

// One record batch with `field` = values[i] at step i (time = 1000 + i seconds).
Envelope records(const std::string& field, const std::vector<json>& values, std::int64_t first_step = 0,
                 std::int32_t rank = -1) {
  RecordBatch b;
  for (std::size_t i = 0; i < values.size(); ++i) {
    Record r;
    r.key.step_id = first_step + static_cast<std::int64_t>(i);
    r.key.timestamp_ns = seconds_to_ns(1000.0 + static_cast<double>(r.key.step_id));
    r.key.rank = rank;
    r.fields = {{"step", r.key.step_id},
                {"time", 1000.0 + static_cast<double>(r.key.step_id)},
                {"epoch", 0},
                {field, values[i]}};
    if (rank >= 0) r.fields["rank"] = rank;
    b.records.push_back(std::move(r));
  }
  return Envelope::make(CorrelationKey{}, std::move(b));
}

std::optional<Feature> feature(const FeatureSet& set, const std::string& name, const Labels& labels = {}) {
  for (const auto& f : set.features)
    if (f.name == name && f.labels == labels) return f;
  return std::nullopt;
}

double value_of(const FeatureSet& set, const std::string& name, const Labels& labels = {}) {
  auto f = feature(set, name, labels);
  if (!f) ADD_FAILURE() << "no feature " << name;
  return f ? f->value : std::nan("");
}

FeatureSet run_one(const nlohmann::json& options,
                   const std::vector<std::pair<std::size_t, Envelope>>& inputs) {
  Harness h(rolling_stats_factory(), options);
  h.run_processor(inputs);
  const auto sets = h.outputs_of<FeatureSet>(0);
  EXPECT_EQ(sets.size(), 1u);
  return sets.empty() ? FeatureSet{} : sets.back();
}

TEST(RollingStats, ManifestIsSound) {
  const auto& m = rolling_stats_factory().manifest();
  EXPECT_THAT(check_manifest(m), ::testing::IsEmpty());
  EXPECT_EQ(m.kind, ComponentKind::kExtractor);
  ASSERT_EQ(m.inputs.size(), 2u);
  EXPECT_EQ(m.inputs[kRecords].name, "records");
  EXPECT_EQ(m.inputs[kRecords].accepts, std::vector<std::string>{"record.batch/1"});
  EXPECT_FALSE(m.inputs[kRecords].required);
  EXPECT_EQ(m.inputs[kMetrics].name, "metrics");
  EXPECT_EQ(m.inputs[kMetrics].accepts, std::vector<std::string>{"metric.batch/1"});
  EXPECT_FALSE(m.inputs[kMetrics].required);
  EXPECT_EQ(m.outputs.at(0).produces, "feature.set/1");
  EXPECT_EQ(m.concurrency.mode, Concurrency::Mode::kSerial);
}

TEST(RollingStats, KnownSeriesGivesHandComputedStatistics) {
  // 1, 2, 3, 4, 100: mean 22; sample variance (441 + 400 + 361 + 324 + 6084) / 4 = 1902.5; median 3;
  // |x - 3| = 2, 1, 0, 1, 97 -> MAD 1; robust z of 100 = 97 / 1.4826.
  const FeatureSet set = run_one({{"window", 5}}, {{kRecords, records("loss", {1, 2, 3, 4, 100})}});
  EXPECT_EQ(set.scope, "run");
  EXPECT_DOUBLE_EQ(value_of(set, "loss.mean"), 22.0);
  EXPECT_DOUBLE_EQ(value_of(set, "loss.std"), std::sqrt(1902.5));
  EXPECT_DOUBLE_EQ(value_of(set, "loss.median"), 3.0);
  EXPECT_DOUBLE_EQ(value_of(set, "loss.mad"), 1.0);
  EXPECT_DOUBLE_EQ(value_of(set, "loss.robust_z"), 97.0 / 1.4826);
  EXPECT_DOUBLE_EQ(value_of(set, "loss.max_abs_robust_z"), 97.0 / 1.4826);
  EXPECT_DOUBLE_EQ(value_of(set, "loss.count"), 5.0);
  EXPECT_DOUBLE_EQ(value_of(set, "loss.nonfinite_count"), 0.0);
  // Record series have no unit; robust z is dimensionless; counts are counts.
  EXPECT_EQ(feature(set, "loss.mean")->unit, "");
  EXPECT_EQ(feature(set, "loss.robust_z")->unit, "");
  EXPECT_EQ(feature(set, "loss.count")->unit, "count");
  // Window evidence covers steps 0..4.
  const EvidenceRef w = feature(set, "loss.mean")->evidence.at(0);
  EXPECT_EQ(w.kind, "window");
  EXPECT_EQ(w.id, "loss");
  EXPECT_EQ(w.first_step, 0);
  EXPECT_EQ(w.last_step, 4);
  EXPECT_EQ(w.start_ns, seconds_to_ns(1000.0));
  EXPECT_EQ(w.end_ns, seconds_to_ns(1004.0));
  // Correlation fields are not series.
  for (const char* key : {"step.mean", "time.mean", "epoch.mean"}) EXPECT_FALSE(feature(set, key)) << key;
  EXPECT_EQ(set.features.size(), 8u);
}

TEST(RollingStats, MaxAbsRobustZPointsAtTheStepWhereItOccurred) {
  // The spike at step 3 has z = (50 - 2.5) / (1.4826 * 1) against 1, 2, 3, 50 (median 2.5, MAD 1);
  // later values bring the latest z back down.
  const FeatureSet set = run_one({{"window", 4}}, {{kRecords, records("grad_norm", {1, 2, 3, 50, 2, 3, 2})}});
  const double z = 47.5 / 1.4826;
  EXPECT_DOUBLE_EQ(value_of(set, "grad_norm.max_abs_robust_z"), z);
  const EvidenceRef at = feature(set, "grad_norm.max_abs_robust_z")->evidence.at(0);
  EXPECT_EQ(at.kind, "step");
  EXPECT_EQ(at.id, "grad_norm");
  EXPECT_EQ(at.first_step, 3);
  EXPECT_EQ(at.last_step, 3);
  EXPECT_EQ(at.start_ns, seconds_to_ns(1003.0));
  // Window 4 = 50, 2, 3, 2: median 2.5, |x - 2.5| = 47.5, .5, .5, .5 -> MAD 0.5; z(2) = -0.5 / 0.7413.
  EXPECT_DOUBLE_EQ(value_of(set, "grad_norm.robust_z"), -0.5 / (1.4826 * 0.5));
  EXPECT_DOUBLE_EQ(value_of(set, "grad_norm.mean"), 57.0 / 4);
}

TEST(RollingStats, WindowKeepsOnlyTheLatestValues) {
  const FeatureSet set = run_one({{"window", 3}}, {{kRecords, records("x", {100, 1, 2, 3})}});
  EXPECT_DOUBLE_EQ(value_of(set, "x.mean"), 2.0);
  EXPECT_DOUBLE_EQ(value_of(set, "x.std"), 1.0);
  EXPECT_DOUBLE_EQ(value_of(set, "x.count"), 4.0);  // the stream count, not the window
  EXPECT_EQ(feature(set, "x.mean")->evidence.at(0).first_step, 1);
}

TEST(RollingStats, ZeroMadGivesZeroOrTheSignedCap) {
  EXPECT_DOUBLE_EQ(value_of(run_one({}, {{kRecords, records("a", {5, 5, 5, 5})}}), "a.robust_z"), 0.0);
  EXPECT_DOUBLE_EQ(value_of(run_one({}, {{kRecords, records("a", {5, 5, 5, 9})}}), "a.robust_z"), 1e6);
  EXPECT_DOUBLE_EQ(value_of(run_one({}, {{kRecords, records("a", {5, 5, 5, 1})}}), "a.robust_z"), -1e6);
  EXPECT_DOUBLE_EQ(rolling_detail::robust_z(1e300, 0.0, 1e-300), rolling_detail::kRobustZCap);
}

TEST(RollingStats, NonFiniteStringsAreCountedAndKeptOutOfTheWindow) {
  const FeatureSet set = run_one({}, {{kRecords, records("loss", {1.0, "nan", 3.0, "inf", "-inf", "text"})}});
  EXPECT_DOUBLE_EQ(value_of(set, "loss.nonfinite_count"), 3.0);
  EXPECT_DOUBLE_EQ(value_of(set, "loss.count"), 2.0);
  EXPECT_DOUBLE_EQ(value_of(set, "loss.mean"), 2.0);
  for (const auto& f : set.features) EXPECT_TRUE(std::isfinite(f.value)) << f.name;
}

TEST(RollingStats, OnlyNonFiniteValuesGiveOnlyCounts) {
  const FeatureSet set = run_one({}, {{kRecords, records("loss", {"nan", "nan"})}});
  EXPECT_DOUBLE_EQ(value_of(set, "loss.nonfinite_count"), 2.0);
  EXPECT_DOUBLE_EQ(value_of(set, "loss.count"), 0.0);
  EXPECT_FALSE(feature(set, "loss.mean"));
}

TEST(RollingStats, MetricSeriesAreSplitByLabelsAndKeepTheirUnit) {
  MetricBatch b;
  for (int i = 0; i < 4; ++i) {
    CorrelationKey k;
    k.timestamp_ns = 1000 + i;
    b.points.push_back({"host.cpu.utilization", "ratio", 0.1 * (i + 1), k, {{"cpu", "0"}}});
    b.points.push_back({"host.cpu.utilization", "ratio", 0.5, k, {{"cpu", "1"}}});
  }
  b.points.push_back({"host.cpu.utilization", "ratio", std::nan(""), {}, {{"cpu", "1"}}});
  const FeatureSet set = run_one({}, {{kMetrics, Envelope::make(CorrelationKey{}, std::move(b))}});
  EXPECT_DOUBLE_EQ(value_of(set, "host.cpu.utilization.mean", {{"cpu", "0"}}), 0.25);
  EXPECT_DOUBLE_EQ(value_of(set, "host.cpu.utilization.mean", {{"cpu", "1"}}), 0.5);
  EXPECT_DOUBLE_EQ(value_of(set, "host.cpu.utilization.nonfinite_count", {{"cpu", "1"}}), 1.0);
  EXPECT_EQ(feature(set, "host.cpu.utilization.mean", {{"cpu", "0"}})->unit, "ratio");
  EXPECT_EQ(feature(set, "host.cpu.utilization.std", {{"cpu", "0"}})->unit, "ratio");
  // No step: the max |z| evidence is a point in time.
  const EvidenceRef at =
      feature(set, "host.cpu.utilization.max_abs_robust_z", {{"cpu", "0"}})->evidence.at(0);
  EXPECT_EQ(at.kind, "window");
  EXPECT_EQ(at.id, "host.cpu.utilization{cpu=0}");
  EXPECT_NE(at.start_ns, kNoTimestamp);
}

TEST(RollingStats, RecordsOfDifferentRanksAreDifferentSeries) {
  const FeatureSet set = run_one(
      {}, {{kRecords, records("loss", {1, 1, 1}, 0, 0)}, {kRecords, records("loss", {3, 3, 3}, 0, 1)}});
  EXPECT_DOUBLE_EQ(value_of(set, "loss.mean", {{"rank", "0"}}), 1.0);
  EXPECT_DOUBLE_EQ(value_of(set, "loss.mean", {{"rank", "1"}}), 3.0);
  EXPECT_FALSE(feature(set, "rank.mean", {{"rank", "0"}}));
}

TEST(RollingStats, FieldsOptionSelectsSeries) {
  RecordBatch b;
  Record r;
  r.fields = {{"loss", 1.0}, {"lr", 0.1}, {"grad_norm", 2.0}};
  b.records.push_back(r);
  const FeatureSet set = run_one({{"fields", {"loss", "grad_norm"}}},
                                 {{kRecords, Envelope::make(CorrelationKey{}, std::move(b))}});
  EXPECT_TRUE(feature(set, "loss.mean"));
  EXPECT_TRUE(feature(set, "grad_norm.mean"));
  EXPECT_FALSE(feature(set, "lr.mean"));
}

TEST(RollingStats, EveryBatchEmitsTheChangedSeriesAfterEachBatch) {
  Harness h(rolling_stats_factory(), {{"emit", "every_batch"}});
  h.run_processor({{kRecords, records("loss", {1, 2})}, {kRecords, records("other", {5}, 2)}});
  const auto sets = h.outputs_of<FeatureSet>(0);
  ASSERT_EQ(sets.size(), 3u);
  EXPECT_EQ(sets[0].scope, "batch");
  EXPECT_DOUBLE_EQ(value_of(sets[0], "loss.mean"), 1.5);
  EXPECT_FALSE(feature(sets[1], "loss.mean"));  // only the series of that batch
  EXPECT_DOUBLE_EQ(value_of(sets[1], "other.mean"), 5.0);
  EXPECT_EQ(sets[2].scope, "run");
  EXPECT_TRUE(feature(sets[2], "loss.mean"));
  EXPECT_TRUE(feature(sets[2], "other.mean"));
}

TEST(RollingStats, OptionsAreChecked) {
  EXPECT_THROW(Harness(rolling_stats_factory(), {{"window", 1}}), std::invalid_argument);
  EXPECT_THROW(Harness(rolling_stats_factory(), {{"emit", "sometimes"}}), std::invalid_argument);
  EXPECT_THROW(Harness(rolling_stats_factory(), {{"fields", {""}}}), std::invalid_argument);
}

TEST(RollingStats, AnUnexpectedMessageTypeIsAnError) {
  Harness h(rolling_stats_factory(), json::object());
  EXPECT_THROW(h.run_processor({{0, Envelope::make(CorrelationKey{}, JsonMessage{json::object()})}}),
               std::runtime_error);
}

TEST(RollingStatsMath, MedianMadAndStd) {
  using namespace rolling_detail;
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median({7}), 7.0);
  EXPECT_DOUBLE_EQ(mad({1, 2, 3, 4, 100}, 3.0), 1.0);
  EXPECT_DOUBLE_EQ(sample_std({2, 4, 4, 4, 5, 5, 7, 9}), std::sqrt(32.0 / 7));
  EXPECT_DOUBLE_EQ(sample_std({3}), 0.0);
}

}  // namespace
}  // namespace cann_debug::plugins
