// Anomaly-window retention: on a steady run with injected anomalies, every anomalous window is kept at full
// resolution while the file shrinks by at least 90% against recording every sample.
#include <gtest/gtest.h>

#include <unistd.h>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <map>
#include <set>

#include "recording/anomaly_retention.hpp"
#include "recording/recording_reader.hpp"
#include "recording/recording_writer.hpp"
#include "test_noise.hpp"

namespace fs = std::filesystem;
using namespace cann_debug;
using namespace cann_debug::plugins::recording;

namespace {

constexpr TimestampNs kT0 = 1'764'000'000'000'000'000;
constexpr std::int64_t kTick = 10'000'000;  // 10 ms
constexpr int kSeries = 8;
constexpr int kSamples = 30'000;  // 300 s at 10 ms

using cann_debug::testing::noise;

struct Window {
  int series, first, last;  // sample indices, inclusive
};

/// Steady series (level 10*(s+1), noise 1%) with spikes, a dip and a step change injected.
const std::vector<Window> kWindows = {
    {0, 5000, 5019}, {3, 12000, 12004}, {5, 20000, 20099}, {7, 27000, 27000}};

double value(int s, int i) {
  const double level = 10.0 * (s + 1);
  double v = level * (1.0 + 0.01 * noise(static_cast<std::uint64_t>(i), s));
  for (const auto& w : kWindows)
    if (w.series == s && i >= w.first && i <= w.last) v = s == 5 ? level * 0.2 : level * 3.0;
  if (s == 6 && i >= 15000) v += level * 0.5;  // a step change that stays
  return v;
}

class Recorder final : public RetentionSink {
 public:
  explicit Recorder(RecordingWriter* w) : writer_(w) {}
  void keep(std::uint64_t series, TimestampNs ts, double v) override {
    kept[static_cast<int>(series)].insert(static_cast<int>((ts - kT0) / kTick));
    if (writer_) writer_->add_sample(ts, {{series, v}});
  }
  void summary(const Summary& s) override {
    summarised += s.count;
    if (writer_) writer_->add_summary(s);
  }
  std::map<int, std::set<int>> kept;
  std::uint64_t summarised = 0;

 private:
  RecordingWriter* writer_;
};

std::string temp_path(const char* name) {
  return (fs::temp_directory_path() / (std::string(name) + std::to_string(::getpid()) + ".cdr")).string();
}

std::uint64_t record(bool retention, Recorder* recorder_out = nullptr, RetentionTotals* totals = nullptr) {
  const auto path = temp_path(retention ? "cdr_kept" : "cdr_raw");
  std::uint64_t size = 0;
  {
    RecordingWriter w(path, {});
    std::vector<std::uint64_t> ids;
    for (int s = 0; s < kSeries; ++s) {
      MetricPoint p;
      p.name = "npu.power";
      p.unit = "watts";
      p.labels = {{"device", std::to_string(s)}};
      ids.push_back(w.series_of(p));
    }
    AnomalyRetention keep;
    Recorder rec(&w);
    for (int i = 0; i < kSamples; ++i) {
      const TimestampNs ts = kT0 + i * kTick;
      if (retention) {
        for (int s = 0; s < kSeries; ++s) keep.feed(ids[static_cast<std::size_t>(s)], ts, value(s, i), rec);
      } else {
        std::vector<std::pair<std::uint64_t, double>> values;
        for (int s = 0; s < kSeries; ++s) values.emplace_back(ids[static_cast<std::size_t>(s)], value(s, i));
        w.add_sample(ts, values);
      }
    }
    if (retention) keep.finish(rec);
    w.close();
    size = fs::file_size(path);
    if (recorder_out) *recorder_out = rec;
    if (totals) *totals = keep.totals();
  }
  fs::remove(path);
  return size;
}

TEST(AnomalyRetention, KeepsEveryInjectedAnomalyWindowAtFullResolution) {
  Recorder rec(nullptr);
  RetentionTotals totals;
  record(true, &rec, &totals);
  for (const auto& w : kWindows)
    for (int i = w.first - 5; i <= w.last + 5; ++i)
      EXPECT_TRUE(rec.kept[w.series].count(i)) << "series " << w.series << " sample " << i;
  // The step change is kept where it happens, not for the rest of the run.
  for (int i = 14995; i <= 15005; ++i) EXPECT_TRUE(rec.kept[6].count(i)) << "step sample " << i;
  EXPECT_LT(rec.kept[6].size(), 1000u);
  // Steady series keep (almost) nothing.
  EXPECT_LT(rec.kept[1].size(), 300u);
  EXPECT_EQ(totals.seen, static_cast<std::uint64_t>(kSeries) * kSamples);
  EXPECT_EQ(totals.kept + totals.summarised, totals.seen) << "every value is kept or summarised";
  EXPECT_LT(totals.retained_share(), 0.05);
}

TEST(AnomalyRetention, AtLeastNinetyPercentSmallerThanRecordingEverySample) {
  const auto raw = record(false);
  const auto kept = record(true);
  EXPECT_LE(static_cast<double>(kept), 0.10 * static_cast<double>(raw)) << "raw " << raw << " kept " << kept;
}

TEST(AnomalyRetention, SummariesStandForTheValuesTheyReplace) {
  AnomalyRetention keep;
  Recorder rec(nullptr);
  std::vector<Summary> summaries;
  class Collect final : public RetentionSink {
   public:
    explicit Collect(std::vector<Summary>& out) : out_(out) {}
    void keep(std::uint64_t, TimestampNs, double) override {}
    void summary(const Summary& s) override { out_.push_back(s); }
    std::vector<Summary>& out_;
  } sink(summaries);
  for (int i = 0; i < 1000; ++i) keep.feed(0, kT0 + i * kTick, 5.0 + (i % 2), sink);
  keep.finish(sink);
  std::uint64_t count = 0;
  for (const auto& s : summaries) {
    count += s.count;
    EXPECT_GE(s.min, 5.0);
    EXPECT_LE(s.max, 6.0);
    EXPECT_NEAR(s.mean, 5.5, 0.01);
    EXPECT_LE(s.end_ns - s.start_ns, 2'000'000'000);
  }
  EXPECT_EQ(count, 1000u);
}

}  // namespace
