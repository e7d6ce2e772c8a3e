// nvml sampler: utilisation, memory, power, SM clock, temperature, PCIe and NVLink throughput of NVIDIA GPUs.
#include "nvml.hpp"

#include <fmt/format.h>

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cann_debug/messages.hpp"
#include "cann_debug/sampler/interval_sampler.hpp"
#include "cann_debug/sampler/option_specs.hpp"
#include "cann_debug/sampler/slow_readings.hpp"
#include "nvml_device.hpp"
#include "nvml_library.hpp"

namespace cann_debug::plugins {
namespace {

using nvml_detail::NvmlDevice;
using nvml_detail::NvmlLibrary;

Manifest make_manifest() {
  Manifest m;
  m.type = "nvml";
  m.kind = ComponentKind::kSampler;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description =
      "NVIDIA GPU utilisation, memory, power, SM clock, temperature, PCIe and NVLink throughput via NVML";
  m.outputs = {{"metrics", std::string(MetricFrame::type_id), "one frame of readings per sample"}};
  m.options = {
      sampler_support::option_spec("library", OptionType::kString,
                                   "NVML library to open: a name dlopen looks up, or a path",
                                   "libnvidia-ml.so.1"),
      sampler_support::option_spec("devices", OptionType::kStringList,
                                   "NVML indices of the GPUs to sample (empty = all)",
                                   nlohmann::json::array()),
      sampler_support::option_spec("nvlink", OptionType::kBool, "also read NVLink throughput counters", true),
      {.name = "pcie_interval",
       .type = OptionType::kDuration,
       .description = "read PCIe throughput at most this often (0 = every sample): each read blocks while "
                      "NVML measures over 20 ms, so every sample would make intervals under ~50 ms late",
       .default_value = "1s",
       .required = false,
       .min = 0,
       .max = {},
       .enum_values = {}},
      sampler_support::slow_interval_option("gpu.temperature"),
  };
  for (auto& o : sampler_support::interval_options()) m.options.push_back(std::move(o));
  m.concurrency = Concurrency::serial();
  m.sample_yaml =
      "# NVIDIA GPUs once per second until the run stops.\n"
      "nvml/gpus:\n"
      "  interval: 1s\n"
      "  samples: 0                    # 0 = until stopped\n"
      "  devices: []                   # [] = all; or [\"0\", \"3\"]\n"
      "  library: libnvidia-ml.so.1    # or a path\n";
  return m;
}

// NVML initialised for the life of one object (nvmlInit_v2 is reference-counted by NVML).
class NvmlSession {
 public:
  NvmlSession() = default;
  NvmlSession(const NvmlSession&) = delete;
  NvmlSession& operator=(const NvmlSession&) = delete;
  ~NvmlSession() { close(); }
  nvmlReturn_t open(std::shared_ptr<const NvmlLibrary> lib) {
    close();
    const nvmlReturn_t rc = lib->init();
    if (rc == nvml_api::kSuccess) lib_ = std::move(lib);
    return rc;
  }
  void close() {
    if (lib_) lib_->shutdown();
    lib_.reset();
  }

 private:
  std::shared_ptr<const NvmlLibrary> lib_;
};

class NvmlSampler final : public Component {
 public:
  NvmlSampler(const CreateContext& ctx, const Config& config)
      : host_(&ctx.host),
        library_(config.str("library")),
        wanted_(config.strings("devices")),
        nvlink_(config.boolean("nvlink")),
        interval_ns_(config.duration_ns("interval")),
        limit_(config.integer("samples")),
        pcie_interval_ns_(config.duration_ns("pcie_interval")),
        slow_(config.duration_ns("slow_interval"), interval_ns_) {}

  void start() override {
    stop();
    lib_ = NvmlLibrary::get(library_);
    if (!lib_->usable())
      throw std::runtime_error(fmt::format("nvml: cannot use {}: {}", library_, lib_->error()));
    if (const auto rc = session_.open(lib_); rc != nvml_api::kSuccess)
      throw std::runtime_error(fmt::format("nvml: nvmlInit_v2 failed: {}", lib_->describe(rc)));
    unsigned int count = 0;
    if (const auto rc = lib_->device_count(&count); rc != nvml_api::kSuccess)
      throw std::runtime_error(fmt::format("nvml: nvmlDeviceGetCount_v2 failed: {}", lib_->describe(rc)));
    std::vector<unsigned int> indices;
    if (wanted_.empty()) {
      for (unsigned int i = 0; i < count; ++i) indices.push_back(i);
    } else {
      for (const auto& w : wanted_) {
        unsigned int i = 0;
        try {
          std::size_t used = 0;
          const unsigned long v = std::stoul(w, &used);
          if (used != w.size() || v >= count) throw std::out_of_range(w);
          i = static_cast<unsigned int>(v);
        } catch (const std::exception&) {
          throw std::runtime_error(
              fmt::format("nvml: devices: no GPU '{}' (NVML sees {} GPU{}: indices 0..{})", w, count,
                          count == 1 ? "" : "s", count == 0 ? 0 : count - 1));
        }
        indices.push_back(i);
      }
    }
    for (unsigned int i : indices) {
      nvmlDevice_t handle = nullptr;
      if (const auto rc = lib_->device_handle(i, &handle); rc != nvml_api::kSuccess)
        throw std::runtime_error(
            fmt::format("nvml: nvmlDeviceGetHandleByIndex_v2({}) failed: {}", i, lib_->describe(rc)));
      devices_.push_back(std::make_unique<NvmlDevice>(*lib_, i, handle, nvlink_));
      if (host_) host_->logger().info("nvml: sampling {}", devices_.back()->describe());
    }
    taken_ = 0;
    node_ = sampler_support::host_name();
  }

  void stop() override {
    devices_.clear();
    session_.close();
    frame_.clear();
    next_pcie_ns_ = 0;
    slow_.restart();
  }

  PollResult poll(Emitter& out) override {
    if (limit_ > 0 && taken_ >= limit_) return PollResult::kDone;
    if (!lib_) throw std::logic_error("nvml: poll() before start()");
    const TimestampNs now = host_ ? host_->now_ns() : wall_clock_ns();
    CorrelationKey key;
    key.timestamp_ns = now;
    key.node_id = node_;
    frame_.begin(key);
    // PCIe throughput calls block while NVML measures (20 ms each): at most once per pcie_interval.
    const bool read_pcie = now >= next_pcie_ns_;
    if (read_pcie) next_pcie_ns_ = now + pcie_interval_ns_;
    auto note = [this](bool warn, const std::string& message) {
      if (!host_) return;
      if (warn)
        host_->logger().warn("{}", message);
      else
        host_->logger().info("{}", message);
    };
    const bool read_slow = slow_.due(now);
    for (auto& device : devices_) device->sample(now, frame_, note, read_pcie, read_slow);
    ++taken_;
    if (!frame_.empty()) out.emit(0, key, frame_.finish());
    return limit_ > 0 && taken_ >= limit_ ? PollResult::kDone : PollResult::kIdle;
  }

  std::int64_t idle_interval_ns() const override { return interval_ns_; }

 private:
  HostServices* host_;
  std::string library_;
  std::vector<std::string> wanted_;
  bool nvlink_;
  std::int64_t interval_ns_;
  std::int64_t limit_;
  std::shared_ptr<const NvmlLibrary> lib_;
  NvmlSession session_;
  std::vector<std::unique_ptr<NvmlDevice>> devices_;
  std::int64_t taken_ = 0;
  std::string node_;
  std::int64_t pcie_interval_ns_;
  std::int64_t next_pcie_ns_ = 0;
  sampler_support::SlowReadings slow_;
  sampler_support::FrameBuilder frame_;
};

class NvmlFactory final : public SimpleFactory<NvmlSampler> {
 public:
  using SimpleFactory::SimpleFactory;
  Availability probe(const Config& config) const override {
    return probe_library(config.has("library") ? config.str("library") : "libnvidia-ml.so.1");
  }
  std::vector<ConfigProblem> validate(const Config& config) const override {
    if (config.has("library") && config.str("library").empty())
      return {{"library", "must name the NVML library, got ''"}};
    return {};
  }

 private:
  static Availability probe_library(const std::string& library) {
    auto lib = NvmlLibrary::get(library);
    if (!lib->usable())
      return Availability::no(
          fmt::format("cannot load the NVML library {} (no NVIDIA driver here?): {}", library, lib->error()));
    NvmlSession session;
    if (const auto rc = session.open(lib); rc != nvml_api::kSuccess)
      return Availability::no(
          fmt::format("nvmlInit_v2 failed: {} (is the NVIDIA driver loaded?)", lib->describe(rc)));
    unsigned int count = 0;
    if (const auto rc = lib->device_count(&count); rc != nvml_api::kSuccess)
      return Availability::no(fmt::format("nvmlDeviceGetCount_v2 failed: {}", lib->describe(rc)));
    if (count == 0) return Availability::no(fmt::format("NVML ({}) finds no NVIDIA GPU", library));
    return Availability::yes(fmt::format("{} NVIDIA GPU{} via {}", count, count == 1 ? "" : "s", library));
  }
};

}  // namespace

const ComponentFactory& nvml_factory() {
  static const NvmlFactory factory(make_manifest());
  return factory;
}

}  // namespace cann_debug::plugins
