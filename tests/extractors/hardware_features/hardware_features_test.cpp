// Tests of hardware_features: each condition found (with its window, device and steps) on series built by
// hand, and not found on the healthy variants that look like it (an idle device's low clock, a one-sample
// dip, a workload oversubscribing the cores itself).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <optional>
#include <string>

#include "cann_debug/messages.hpp"
#include "cann_debug/testing.hpp"
#include "hardware_features.hpp"

namespace cann_debug::plugins {
namespace {

using nlohmann::json;
using testing::Harness;

constexpr std::size_t kMetrics = 0;
constexpr std::size_t kRecords = 1;
constexpr TimestampNs kStart = 1'700'000'000'000'000'000;
constexpr TimestampNs kTick = 100'000'000;  // 100 ms sampling

using ValueAt = std::function<double(int)>;

// `n` samples of `name` (labels) at kStart + i * kTick with value f(i).
void add_series(MetricBatch& b, const std::string& name, const std::string& unit, const Labels& labels, int n,
                const ValueAt& f) {
  for (int i = 0; i < n; ++i) {
    MetricPoint p;
    p.name = name;
    p.unit = unit;
    p.value = f(i);
    p.key.timestamp_ns = kStart + i * kTick;
    p.labels = labels;
    b.points.push_back(std::move(p));
  }
}

// A step row every 200 ms (step i written at kStart + (i + 1) * 200 ms).
Envelope steps(int n) {
  RecordBatch b;
  for (int i = 0; i < n; ++i) {
    Record r;
    r.key.step_id = i;
    r.key.timestamp_ns = kStart + (i + 1) * 2 * kTick;
    r.fields = {{"step", i}, {"loss", 1.0}};
    b.records.push_back(std::move(r));
  }
  return Envelope::make(CorrelationKey{}, std::move(b));
}

std::optional<FeatureSet> run(MetricBatch batch, std::optional<Envelope> records = std::nullopt,
                              const json& options = json::object()) {
  Harness h(hardware_features_factory(), options);
  std::vector<std::pair<std::size_t, Envelope>> inputs;
  inputs.emplace_back(kMetrics, Envelope::make(CorrelationKey{}, std::move(batch)));
  if (records) inputs.emplace_back(kRecords, *records);
  h.run_processor(inputs);
  auto sets = h.outputs_of<FeatureSet>(0);
  if (sets.empty()) return std::nullopt;
  EXPECT_EQ(sets.size(), 1u);
  return sets.back();
}

const Feature* find(const FeatureSet& set, const std::string& name) {
  for (const auto& f : set.features)
    if (f.name == name) return &f;
  return nullptr;
}

const EvidenceRef* window(const Feature& f) {
  for (const auto& e : f.evidence)
    if (e.kind == "window") return &e;
  return nullptr;
}

const Labels kNpu0 = {{"device", "0"}, {"node", "n1"}, {"source_name", "dcmi_get_device_frequency"}};

// An NPU busy at 90% whose AI Core clock falls from 1800 to 1000 MHz for samples [40, 70) as it heats up.
MetricBatch throttled_npu(double busy = 0.9, int from = 40, int to = 70) {
  MetricBatch b;
  add_series(b, "npu.aicore.frequency", "hertz", kNpu0, 100,
             [&](int i) { return (i >= from && i < to ? 1000 : 1800) * 1e6; });
  add_series(b, "npu.aicore.rated_frequency", "hertz", kNpu0, 100, [](int) { return 1800e6; });
  add_series(b, "npu.aicore.utilization", "ratio", kNpu0, 100, [&](int) { return busy; });
  add_series(b, "npu.temperature", "celsius", kNpu0, 100,
             [&](int i) { return i >= from && i < to ? 96.0 : 62.0; });
  return b;
}

TEST(HardwareFeatures, AThrottledBusyDeviceIsFoundWithItsWindowTemperatureAndSteps) {
  auto set = run(throttled_npu(), steps(50));
  ASSERT_TRUE(set);
  const Feature* drop = find(*set, "hw.device.clock_drop");
  ASSERT_NE(drop, nullptr);
  EXPECT_NEAR(drop->value, 1.0 - 1000.0 / 1800.0, 1e-9);
  EXPECT_NEAR(find(*set, "hw.device.throttled_share")->value, 0.3, 1e-9);
  EXPECT_DOUBLE_EQ(find(*set, "hw.device.reference_clock")->value, 1800e6);
  EXPECT_DOUBLE_EQ(find(*set, "hw.device.throttle_temperature")->value, 96.0);
  const EvidenceRef* w = window(*drop);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->start_ns, kStart + 40 * kTick);
  EXPECT_EQ(w->end_ns, kStart + 69 * kTick);
  // rows at (i + 1) * 200 ms: steps 19 (written at 4.0 s) .. 34 (the one running at 6.9 s)
  EXPECT_EQ(w->first_step, 19);
  EXPECT_EQ(w->last_step, 34);
  EXPECT_NE(w->id.find("node n1, device 0"), std::string::npos) << w->id;
  EXPECT_NE(w->id.find("1000 MHz, 56% of rated 1800 MHz, at 96 °C (62 °C before)"), std::string::npos)
      << w->id;
}

TEST(HardwareFeatures, AnIdleDeviceClockedDownIsNotThrottled) {
  auto set = run(throttled_npu(/*busy=*/0.05));
  ASSERT_TRUE(set);
  EXPECT_DOUBLE_EQ(find(*set, "hw.device.clock_drop")->value, 0.0);  // measured: the device was fine
  EXPECT_DOUBLE_EQ(find(*set, "hw.device.throttled_share")->value, 0.0);
}

TEST(HardwareFeatures, ADipShorterThanTheRuleIsNotThrottlingButALongerOneIs) {
  EXPECT_DOUBLE_EQ(find(*run(throttled_npu(0.9, 40, 42)), "hw.device.clock_drop")->value, 0.0);  // 2 samples
  EXPECT_GT(find(*run(throttled_npu(0.9, 40, 43)), "hw.device.clock_drop")->value, 0.4);         // 3 samples
  // min_window 1s: 3 samples 200 ms apart are too short
  EXPECT_DOUBLE_EQ(
      find(*run(throttled_npu(0.9, 40, 43), std::nullopt, {{"min_window", "1s"}}), "hw.device.clock_drop")
          ->value,
      0.0);
}

TEST(HardwareFeatures, AGpuWithoutARatedClockIsMeasuredAgainstItsOwnUsualClock) {
  MetricBatch b;
  const Labels gpu = {{"device", "1"}};
  add_series(b, "gpu.clock.sm", "hertz", gpu, 100, [](int i) { return (i >= 80 ? 900 : 1410) * 1e6; });
  add_series(b, "gpu.utilization", "ratio", gpu, 100, [](int) { return 1.0; });
  auto set = run(std::move(b));
  ASSERT_TRUE(set);
  EXPECT_NEAR(find(*set, "hw.device.clock_drop")->value, 1.0 - 900.0 / 1410.0, 1e-9);
  EXPECT_NE(
      window(*find(*set, "hw.device.clock_drop"))->id.find("SM clock 900 MHz, 64% of its usual 1410 MHz"),
      std::string::npos);
}

TEST(HardwareFeatures, DeviceMemoryHeldNearFullIsPressureAndTheHostIsMeasuredToo) {
  MetricBatch b;
  const Labels npu = {{"device", "0"}};
  add_series(b, "npu.hbm.capacity", "bytes", npu, 50, [](int) { return 64e9; });
  add_series(b, "npu.hbm.used", "bytes", npu, 50, [](int i) { return i >= 30 && i < 40 ? 63.5e9 : 40e9; });
  add_series(b, "host.memory.total", "bytes", {}, 50, [](int) { return 512e9; });
  add_series(b, "host.memory.available", "bytes", {}, 50, [](int) { return 300e9; });
  auto set = run(std::move(b), steps(25));
  ASSERT_TRUE(set);
  const Feature* peak = find(*set, "hw.memory.peak_utilization");
  ASSERT_NE(peak, nullptr);
  EXPECT_NEAR(peak->value, 63.5 / 64.0, 1e-9);
  EXPECT_NEAR(find(*set, "hw.memory.pressure_share")->value, 0.2, 1e-9);
  ASSERT_NE(window(*peak), nullptr);
  EXPECT_EQ(window(*peak)->first_step, 14);
  EXPECT_NE(window(*peak)->id.find("device memory in use 99.2% of capacity"), std::string::npos)
      << window(*peak)->id;
}

TEST(HardwareFeatures, HealthyMemoryGivesItsSustainedPeakNotOneSample) {
  MetricBatch b;
  add_series(b, "npu.hbm.utilization", "ratio", {{"device", "0"}}, 50,
             [](int i) { return i == 20 ? 0.99 : 0.6; });
  auto set = run(std::move(b));
  EXPECT_NEAR(find(*set, "hw.memory.peak_utilization")->value, 0.6, 1e-9);
  EXPECT_DOUBLE_EQ(find(*set, "hw.memory.pressure_share")->value, 0.0);
}

// A RoCE port at 100k packets/s each way whose PFC pause rate (over two priorities) is `pauses(i)`.
MetricBatch roce_port(const ValueAt& pauses) {
  MetricBatch b;
  const Labels port = {{"device", "3"}};
  add_series(b, "roce.port.mac_tx_packets", "count/s", port, 60, [](int) { return 1e5; });
  add_series(b, "roce.port.mac_rx_packets", "count/s", port, 60, [](int) { return 1e5; });
  for (const char* priority : {"3", "4"}) {
    Labels l = port;
    l["priority"] = priority;
    l["source_name"] = std::string("mac_rx_pfc_pri") + priority + "_pkt_num";
    add_series(b, "roce.port.pfc_received", "count/s", l, 60, pauses);
  }
  add_series(b, "roce.port.cnp_received", "count/s", port, 60, [](int) { return 10.0; });
  return b;
}

TEST(HardwareFeatures, APfcStormIsCongestionOfItsPort) {
  auto set = run(roce_port([](int i) { return i >= 20 && i < 50 ? 4000.0 : 0.0; }));
  ASSERT_TRUE(set);
  const Feature* ratio = find(*set, "hw.network.congestion_ratio");
  ASSERT_NE(ratio, nullptr);
  EXPECT_NEAR(ratio->value, (8000.0 + 10.0) / 2e5, 1e-9);  // both priorities add up, with the CNPs
  EXPECT_NEAR(find(*set, "hw.network.congestion_rate")->value, 8010.0, 1e-9);
  EXPECT_NEAR(find(*set, "hw.network.congested_share")->value, 0.5, 1e-9);
  EXPECT_NE(window(*ratio)->id.find("device 3: 8010 congestion signals/s"), std::string::npos)
      << window(*ratio)->id;
}

TEST(HardwareFeatures, AQuietPortIsMeasuredBelowTheThreshold) {
  auto set = run(roce_port([](int) { return 5.0; }));
  EXPECT_LT(find(*set, "hw.network.congestion_ratio")->value, 0.001);
  EXPECT_DOUBLE_EQ(find(*set, "hw.network.congested_share")->value, 0.0);
}

// A 2-CPU host fully busy with 5 runnable threads; the workload process gets `own` cores of it.
MetricBatch busy_host(double own) {
  MetricBatch b;
  add_series(b, "host.cpu.utilization", "ratio", {{"cpu", "all"}}, 40, [](int) { return 1.0; });
  add_series(b, "host.cpu.iowait", "ratio", {{"cpu", "all"}}, 40, [](int) { return 0.0; });
  add_series(b, "host.cpu.count", "count", {}, 40, [](int) { return 2.0; });
  add_series(b, "host.load.runnable", "count", {}, 40, [](int) { return 5.0; });
  add_series(b, "process.cpu.utilization", "cores", {{"pid", "42"}, {"process", "python3"}}, 40,
             [&](int) { return own; });
  return b;
}

TEST(HardwareFeatures, AHostWhoseOtherProcessesTakeTheCpusStarvesTheWorkload) {
  auto set = run(busy_host(0.4));
  const Feature* starved = find(*set, "hw.host.cpu_starved_share");
  ASSERT_NE(starved, nullptr);
  EXPECT_NEAR(starved->value, 1.0, 1e-9);
  EXPECT_DOUBLE_EQ(find(*set, "hw.host.run_queue_per_core")->value, 2.5);
  EXPECT_NE(
      window(*starved)->id.find("host: run queue 2.5 per core, other processes using 80% of the 2 CPUs"),
      std::string::npos)
      << window(*starved)->id;
}

TEST(HardwareFeatures, AWorkloadOversubscribingTheCoresItselfIsNotStarved) {
  EXPECT_DOUBLE_EQ(find(*run(busy_host(1.9)), "hw.host.cpu_starved_share")->value, 0.0);
}

TEST(HardwareFeatures, IowaitStarvesTheHost) {
  MetricBatch b;
  add_series(b, "host.cpu.utilization", "ratio", {{"cpu", "all"}}, 40, [](int) { return 0.3; });
  add_series(b, "host.cpu.iowait", "ratio", {{"cpu", "all"}}, 40, [](int i) { return i < 20 ? 0.6 : 0.01; });
  auto set = run(std::move(b));
  EXPECT_NEAR(find(*set, "hw.host.cpu_starved_share")->value, 0.5, 1e-9);
  EXPECT_NE(window(*find(*set, "hw.host.cpu_starved_share"))->id.find("60% in iowait"), std::string::npos);
}

TEST(HardwareFeatures, NothingSampledGivesNoFeatureSetAndUnrelatedSeriesNoFeature) {
  EXPECT_FALSE(run(MetricBatch{}));
  MetricBatch b;
  add_series(b, "hccs.link.tx_bandwidth", "bytes/s", {{"link", "0"}}, 10, [](int) { return 1e9; });
  EXPECT_FALSE(run(std::move(b)));
}

}  // namespace
}  // namespace cann_debug::plugins
