// Tests of the nvml sampler against the fake libnvidia-ml.so (tests/samplers/host/fake_nvml), scripted per
// test through CANN_DEBUG_FAKE_NVML_SCRIPT.
#include <dlfcn.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <optional>
#include <string>

#include "cann_debug/messages.hpp"
#include "cann_debug/sampler/interval_sampler.hpp"
#include "cann_debug/testing.hpp"
#include "nvml.hpp"
#include "plugin_test_support.hpp"

namespace cann_debug::plugins {
namespace {

using test::TempDir;
using test::write_file;
using testing::Harness;
using ::testing::HasSubstr;

constexpr TimestampNs kT0 = 1'700'000'000'000'000'000;
constexpr TimestampNs kTwoSeconds = 2'000'000'000;

// Points the fake at `script` for the life of the object.
class Script {
 public:
  explicit Script(const nlohmann::json& script) : dir_("nvml") {
    const auto path = dir_ / "script.json";
    write_file(path, script.dump(2));
    ::setenv("CANN_DEBUG_FAKE_NVML_SCRIPT", path.c_str(), 1);
  }
  ~Script() { ::unsetenv("CANN_DEBUG_FAKE_NVML_SCRIPT"); }

 private:
  TempDir dir_;
};

nlohmann::json options(nlohmann::json extra = nlohmann::json::object()) {
  extra["library"] = CANN_DEBUG_FAKE_NVML;
  return extra;
}

// How often the fake served `metric` of GPU `index` (its test hook).
unsigned fake_calls(unsigned index, const char* metric) {
  void* h = ::dlopen(CANN_DEBUG_FAKE_NVML, RTLD_NOW | RTLD_LOCAL);
  if (!h) return 0;
  auto* fn = reinterpret_cast<unsigned (*)(unsigned, const char*)>(::dlsym(h, "fake_nvml_calls"));
  const unsigned n = fn ? fn(index, metric) : 0;
  ::dlclose(h);
  return n;
}

std::optional<MetricPoint> find(const MetricBatch& b, const std::string& name, const std::string& device) {
  for (const auto& p : b.points)
    if (p.name == name && p.labels.count("device") && p.labels.at("device") == device) return p;
  return std::nullopt;
}

double value(const MetricBatch& b, const std::string& name, const std::string& device = "0") {
  auto p = find(b, name, device);
  if (!p) ADD_FAILURE() << "no point " << name << " device " << device;
  return p ? p->value : -1.0;
}

// Starts, polls `n` times 2 s apart on the fake clock, stops; returns the batches.
std::vector<MetricBatch> poll_n(Harness& h, int n) {
  h.host.clock_ns = kT0;
  h.component().start();
  for (int i = 0; i < n; ++i) {
    h.component().poll(h.out);
    h.host.clock_ns += kTwoSeconds;
  }
  h.component().stop();
  return h.outputs_of<MetricBatch>(0);
}

nlohmann::json full_device() {
  return {{"name", "NVIDIA A100-SXM4-80GB"},
          {"uuid", "GPU-11111111-2222-3333-4444-555555555555"},
          {"metrics",
           {{"utilization.gpu", 87},
            {"utilization.memory", 40},
            {"memory.total", 85899345920.0},
            {"memory.used", 10737418240.0},
            {"power", 250500},
            {"clock.sm", 1410},
            {"temperature", 65},
            {"pcie.tx", 1000},
            {"pcie.rx", 2000},
            {"nvlink.tx", {{"base", 5000}, {"step", 1000}}},
            {"nvlink.rx", {{"base", 0}, {"step", 4000}}}}}};
}

TEST(NvmlSampler, ManifestIsSound) {
  const auto& m = nvml_factory().manifest();
  EXPECT_THAT(check_manifest(m), ::testing::IsEmpty());
  EXPECT_EQ(m.kind, ComponentKind::kSampler);
  ASSERT_EQ(m.outputs.size(), 1u);
  EXPECT_EQ(m.outputs[0].produces, "metric.frame/1");
}

TEST(NvmlSampler, MissingLibraryIsAProbeReasonNotACrash) {
  Harness h(nvml_factory(), {{"library", "/nonexistent/libnvidia-ml.so.1"}});
  const Availability a = nvml_factory().probe(h.config());
  EXPECT_FALSE(a.available);
  EXPECT_THAT(a.reason, HasSubstr("cannot load the NVML library /nonexistent/libnvidia-ml.so.1"));
  EXPECT_THROW(h.component().start(), std::runtime_error);
}

TEST(NvmlSampler, ProbeConfigCountsTheFakeGpusOrSaysWhyNot) {
  {
    Script s(nlohmann::json{{"devices", {full_device(), full_device()}}});
    Harness h(nvml_factory(), options());
    const Availability a = nvml_factory().probe(h.config());
    EXPECT_TRUE(a.available) << a.reason;
    EXPECT_THAT(a.reason, HasSubstr("2 NVIDIA GPUs"));
  }
  {
    Script s(nlohmann::json{{"init", "DRIVER_NOT_LOADED"}});
    Harness h(nvml_factory(), options());
    const Availability a = nvml_factory().probe(h.config());
    EXPECT_FALSE(a.available);
    EXPECT_THAT(a.reason, HasSubstr("NVML_ERROR_DRIVER_NOT_LOADED (Driver Not Loaded)"));
  }
  {
    Script s(nlohmann::json{{"devices", nlohmann::json::array()}});
    Harness h(nvml_factory(), options());
    const Availability a = nvml_factory().probe(h.config());
    EXPECT_FALSE(a.available);
    EXPECT_THAT(a.reason, HasSubstr("finds no NVIDIA GPU"));
  }
}

TEST(NvmlSampler, NamesUnitsLabelsAndScaledValues) {
  Script s(nlohmann::json{{"devices", {full_device()}}});
  Harness h(nvml_factory(), options());
  const auto batches = poll_n(h, 2);
  ASSERT_EQ(batches.size(), 2u);
  const MetricBatch& first = batches[0];
  EXPECT_DOUBLE_EQ(value(first, "gpu.utilization"), 0.87);
  EXPECT_DOUBLE_EQ(value(first, "gpu.memory.utilization"), 0.40);
  EXPECT_DOUBLE_EQ(value(first, "gpu.memory.total"), 85899345920.0);
  EXPECT_DOUBLE_EQ(value(first, "gpu.memory.used"), 10737418240.0);
  EXPECT_DOUBLE_EQ(value(first, "gpu.power"), 250.5);      // 250500 mW
  EXPECT_DOUBLE_EQ(value(first, "gpu.clock.sm"), 1.41e9);  // 1410 MHz
  EXPECT_DOUBLE_EQ(value(first, "gpu.temperature"), 65.0);
  EXPECT_DOUBLE_EQ(value(first, "gpu.pcie.tx_bandwidth"), 1000.0 * 1024);  // KB/s
  EXPECT_DOUBLE_EQ(value(first, "gpu.pcie.rx_bandwidth"), 2000.0 * 1024);
  EXPECT_FALSE(find(first, "gpu.nvlink.tx_bandwidth", "0"));  // cumulative: the first sample primes
  EXPECT_EQ(first.points.size(), 9u);
  // NVLink: +1000 KiB and +4000 KiB in 2 s.
  EXPECT_DOUBLE_EQ(value(batches[1], "gpu.nvlink.tx_bandwidth"), 1000.0 * 1024 / 2);
  EXPECT_DOUBLE_EQ(value(batches[1], "gpu.nvlink.rx_bandwidth"), 4000.0 * 1024 / 2);
  EXPECT_EQ(batches[1].points.size(), 11u);

  const std::map<std::string, std::string> units = {{"gpu.utilization", "ratio"},
                                                    {"gpu.memory.utilization", "ratio"},
                                                    {"gpu.memory.total", "bytes"},
                                                    {"gpu.memory.used", "bytes"},
                                                    {"gpu.power", "watts"},
                                                    {"gpu.clock.sm", "hertz"},
                                                    {"gpu.temperature", "celsius"},
                                                    {"gpu.pcie.tx_bandwidth", "bytes/s"},
                                                    {"gpu.pcie.rx_bandwidth", "bytes/s"},
                                                    {"gpu.nvlink.tx_bandwidth", "bytes/s"},
                                                    {"gpu.nvlink.rx_bandwidth", "bytes/s"}};
  for (const auto& p : batches[1].points) {
    ASSERT_TRUE(units.count(p.name)) << p.name;
    EXPECT_EQ(p.unit, units.at(p.name)) << p.name;
    EXPECT_EQ(p.labels.at("device"), "0");
    EXPECT_EQ(p.key.device, 0);
    EXPECT_EQ(p.key.node_id, sampler_support::host_name());
    if (!p.key.node_id.empty()) {
      EXPECT_EQ(p.labels.at("node"), p.key.node_id);
    }
    EXPECT_FALSE(p.labels.at("source_name").empty());
    EXPECT_EQ(p.key.timestamp_ns, kT0 + kTwoSeconds);
  }
  EXPECT_EQ(find(first, "gpu.power", "0")->labels.at("source_name"), "power.draw");
  EXPECT_EQ(find(batches[1], "gpu.nvlink.tx_bandwidth", "0")->labels.at("source_name"),
            "NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX");
}

TEST(NvmlSampler, NotSupportedReadingIsSkippedForThatGpuAndNotAskedAgain) {
  auto second = full_device();
  second["metrics"].erase("power");                           // absent = NOT_SUPPORTED
  second["metrics"]["pcie.tx"] = "NVML_ERROR_NOT_SUPPORTED";  // explicit
  Script s(nlohmann::json{{"devices", {full_device(), second}}});
  Harness h(nvml_factory(), options());
  h.host.clock_ns = kT0;
  h.component().start();
  for (int i = 0; i < 3; ++i) {
    h.component().poll(h.out);
    h.host.clock_ns += kTwoSeconds;
  }
  EXPECT_EQ(fake_calls(1, "power"), 1u);  // asked once, then remembered
  EXPECT_EQ(fake_calls(1, "pcie.tx"), 1u);
  EXPECT_EQ(fake_calls(0, "power"), 3u);
  h.component().stop();
  const auto batches = h.outputs_of<MetricBatch>(0);
  ASSERT_EQ(batches.size(), 3u);
  for (const auto& b : batches) {
    EXPECT_FALSE(find(b, "gpu.power", "1"));
    EXPECT_FALSE(find(b, "gpu.pcie.tx_bandwidth", "1"));
    EXPECT_DOUBLE_EQ(value(b, "gpu.power", "0"), 250.5);
    EXPECT_DOUBLE_EQ(value(b, "gpu.pcie.rx_bandwidth", "1"), 2000.0 * 1024);
  }
  int notes = 0;
  for (const auto& [level, line] : h.host.log.lines)
    if (line.find("nvmlDeviceGetPowerUsage") != std::string::npos) {
      ++notes;
      EXPECT_THAT(line, HasSubstr("GPU 1 (NVIDIA A100-SXM4-80GB"));
      EXPECT_THAT(line, HasSubstr("NVML_ERROR_NOT_SUPPORTED"));
    }
  EXPECT_EQ(notes, 1);
}

TEST(NvmlSampler, TemperatureAtMostOncePerSlowIntervalTheRestEverySample) {
  Script s(nlohmann::json{{"devices", {full_device()}}});
  Harness h(nvml_factory(), options({{"interval", "10ms"}, {"slow_interval", "1s"}}));
  h.host.clock_ns = kT0;
  h.component().start();
  std::vector<bool> has_temperature;
  for (int i = 0; i < 201; ++i) {  // 0 .. 2 s in 10 ms steps
    h.component().poll(h.out);
    h.host.clock_ns += 10'000'000;
  }
  EXPECT_EQ(fake_calls(0, "temperature"), 3u);  // at 0, 1 s and 2 s
  EXPECT_EQ(fake_calls(0, "power"), 201u);
  h.component().stop();
  const auto batches = h.outputs_of<MetricBatch>(0);
  ASSERT_EQ(batches.size(), 201u);
  for (int i : {0, 100, 200}) EXPECT_TRUE(find(batches[i], "gpu.temperature", "0")) << i;
  for (int i : {1, 99, 101, 199}) EXPECT_FALSE(find(batches[i], "gpu.temperature", "0")) << i;
  EXPECT_TRUE(find(batches[1], "gpu.power", "0"));
}

TEST(NvmlSampler, LostGpuIsAnErrorNamingTheDevice) {
  auto dev = full_device();
  dev["metrics"]["temperature"] = {{"base", 60}, {"errors", {{{"from", 2}, {"code", "GPU_IS_LOST"}}}}};
  Script s(nlohmann::json{{"devices", {dev}}});
  Harness h(nvml_factory(), options({{"slow_interval", "0s"}}));  // the temperature every sample
  h.component().start();
  h.component().poll(h.out);
  h.component().poll(h.out);
  try {
    h.component().poll(h.out);
    FAIL() << "poll() did not throw";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(),
                HasSubstr("GPU 0 (NVIDIA A100-SXM4-80GB, GPU-11111111-2222-3333-4444-555555555555) is lost"));
    EXPECT_THAT(e.what(), HasSubstr("NVML_ERROR_GPU_IS_LOST"));
    EXPECT_THAT(e.what(), HasSubstr("nvmlDeviceGetTemperature"));
  }
}

TEST(NvmlSampler, OtherErrorsSkipOneSampleAndAreNotedOnce) {
  auto dev = full_device();
  dev["metrics"]["clock.sm"] = {1000, "NO_PERMISSION", "NO_PERMISSION", 1200};
  Script s(nlohmann::json{{"devices", {dev}}});
  Harness h(nvml_factory(), options());
  const auto batches = poll_n(h, 4);
  ASSERT_EQ(batches.size(), 4u);
  EXPECT_DOUBLE_EQ(value(batches[0], "gpu.clock.sm"), 1e9);
  EXPECT_FALSE(find(batches[1], "gpu.clock.sm", "0"));
  EXPECT_FALSE(find(batches[2], "gpu.clock.sm", "0"));
  EXPECT_DOUBLE_EQ(value(batches[3], "gpu.clock.sm"), 1.2e9);
  int warnings = 0;
  for (const auto& [level, line] : h.host.log.lines)
    warnings += line.find("NO_PERMISSION") != std::string::npos;
  EXPECT_EQ(warnings, 1);
}

TEST(NvmlSampler, ScriptListsSteadyNoiseAndAnomalyWindowsAreDeterministic) {
  auto dev = full_device();
  dev["metrics"]["utilization.gpu"] = {10, 20, 30};
  dev["metrics"]["power"] = {{"base", 100000},
                             {"noise", 1000},
                             {"seed", 3},
                             {"anomalies", {{{"from", 2}, {"to", 4}, {"value", 300000}}}}};
  Script s(nlohmann::json{{"devices", {dev}}});
  auto run = [] {
    Harness h(nvml_factory(), options());
    return poll_n(h, 6);
  };
  const auto a = run();
  const auto b = run();
  ASSERT_EQ(a.size(), 6u);
  ASSERT_EQ(b.size(), 6u);
  const double util[] = {0.1, 0.2, 0.3, 0.3, 0.3, 0.3};
  bool varies = false;
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_DOUBLE_EQ(value(a[i], "gpu.utilization"), util[i]);
    const double w = value(a[i], "gpu.power");
    EXPECT_DOUBLE_EQ(w, value(b[i], "gpu.power")) << "call " << i;
    if (i == 2 || i == 3) {
      EXPECT_DOUBLE_EQ(w, 300.0) << "call " << i;
    } else {
      EXPECT_GE(w, 99.0);
      EXPECT_LE(w, 101.0);
      varies = varies || w != value(a[0], "gpu.power");
    }
  }
  EXPECT_TRUE(varies) << "noise should move the steady value";
}

TEST(NvmlSampler, DevicesOptionSelectsGpusAndRejectsUnknownOnes) {
  Script s(nlohmann::json{{"devices", {full_device(), full_device()}}});
  {
    Harness h(nvml_factory(), options({{"devices", {"1"}}, {"samples", 1}}));
    h.run_source();
    const auto batches = h.outputs_of<MetricBatch>(0);
    ASSERT_EQ(batches.size(), 1u);
    for (const auto& p : batches[0].points) EXPECT_EQ(p.labels.at("device"), "1");
  }
  {
    Harness h(nvml_factory(), options({{"devices", {"7"}}}));
    try {
      h.component().start();
      FAIL() << "start() did not throw";
    } catch (const std::runtime_error& e) {
      EXPECT_THAT(e.what(), HasSubstr("no GPU '7' (NVML sees 2 GPUs"));
    }
  }
}

TEST(NvmlSampler, StopsAfterSamplesAndShutsNvmlDown) {
  Script s(nlohmann::json{{"devices", {full_device()}}});
  Harness h(nvml_factory(), options({{"samples", 2}, {"interval", "250ms"}}));
  EXPECT_EQ(h.component().idle_interval_ns(), 250'000'000);
  h.run_source();
  EXPECT_EQ(h.outputs_of<MetricBatch>(0).size(), 2u);
  h.component().stop();                   // idempotent
  EXPECT_EQ(fake_calls(0, "power"), 0u);  // shut down: the fake forgot its devices
}

}  // namespace
}  // namespace cann_debug::plugins
