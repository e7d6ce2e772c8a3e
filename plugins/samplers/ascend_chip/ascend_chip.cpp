// ascend_chip sampler: per NPU utilisation, HBM, power, temperature, AI Core frequency, health and error
// codes, from DCMI (libdcmi.so opened with dlopen) or, where it is absent, from
// `npu-smi info -t usages|common|health -i N`. Both back ends give the same metric names.
#include "ascend_chip.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ascend_console/metric_names.hpp"
#include "cann_debug/messages.hpp"
#include "cann_debug/sampler/interval_sampler.hpp"
#include "cann_debug/sampler/option_specs.hpp"
#include "dcmi/ascend_tools.hpp"
#include "dcmi/dcmi_api.hpp"
#include "dcmi/dcmi_calls.hpp"

namespace cann_debug::plugins {
namespace {

namespace ss = sampler_support;
using dcmi::DcmiDevice;
using dcmi::DcmiLibrary;

constexpr double kMiB = 1024.0 * 1024.0;
constexpr unsigned kMaxErrorCodes = 128;

Manifest make_manifest() {
  Manifest m;
  m.type = "ascend_chip";
  m.kind = ComponentKind::kSampler;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description =
      "Ascend NPU utilisation, HBM, power, temperature, clocks, health and error codes via DCMI or npu-smi";
  m.outputs = {{"metrics", std::string(MetricFrame::type_id), "one frame of readings per sample"}};
  m.options = ss::interval_options();
  m.options.push_back({.name = "backend",
                       .type = OptionType::kEnum,
                       .description = "where to read from: dcmi (libdcmi.so), npu_smi (the npu-smi command), "
                                      "or auto (dcmi when it loads and lists NPUs, else npu_smi)",
                       .default_value = "auto",
                       .required = false,
                       .min = {},
                       .max = {},
                       .enum_values = {"auto", "dcmi", "npu_smi"}});
  m.options.push_back(ss::dcmi_library_option());
  m.options.push_back({.name = "npu_smi",
                       .type = OptionType::kString,
                       .description = "the npu-smi program (looked up in PATH unless it holds a '/')",
                       .default_value = "npu-smi",
                       .required = false,
                       .min = {},
                       .max = {},
                       .enum_values = {}});
  m.options.push_back(ss::command_timeout_option("npu-smi"));
  m.options.push_back(
      ss::devices_option("device labels to sample (DCMI logical ids or npu-smi NPU ids); empty = all"));
  m.options.push_back(
      ss::slow_interval_option("npu.temperature, npu.aicore.rated_frequency, npu.health and the error codes "
                               "(npu-smi: info -t health)"));
  m.concurrency = Concurrency::serial();
  m.sample_yaml =
      "# Every NPU once per second through libdcmi.so, npu-smi where DCMI is missing.\n"
      "ascend_chip/npus:\n"
      "  interval: 1s\n"
      "  slow_interval: 1s    # temperature, rated clock, health, error codes\n"
      "  backend: auto        # auto | dcmi | npu_smi\n"
      "  library: libdcmi.so\n"
      "  npu_smi: npu-smi\n"
      "  devices: []         # e.g. [\"0\", \"1\"]; empty = all\n";
  return m;
}

bool wanted(const std::vector<std::string>& selection, const std::string& label) {
  return selection.empty() || std::find(selection.begin(), selection.end(), label) != selection.end();
}

std::chrono::milliseconds command_timeout(const Config& config) {
  return std::chrono::milliseconds(config.duration_ns("command_timeout") / 1'000'000);
}

std::string health_name(unsigned health) {
  static const char* const names[] = {"OK", "Warning", "Alarm", "Critical"};
  return health < 4 ? names[health] : "UNKNOWN";
}

// ---- DCMI back end -------------------------------------------------------------------------------------

class DcmiChip {
 public:
  /// Opens libdcmi.so and finds the selected NPUs; false with `reason` when it cannot.
  bool open(const Config& config, std::string& reason) {
    std::vector<DcmiDevice> all;
    if (!lib_.open(config.str("library")) || !lib_.enumerate(all)) {
      reason = lib_.error();
      return false;
    }
    const auto selection = config.strings("devices");
    devices_.clear();
    for (auto& d : all)
      if (wanted(selection, d.label)) devices_.push_back(d);
    if (devices_.empty())
      reason = fmt::format("none of the devices {} among the {} NPUs DCMI lists", selection, all.size());
    return !devices_.empty();
  }

  /// `slow`: also the readings that change slowly (SlowReadings).
  void sample(ss::FrameBuilder& frame, dcmi::DcmiCalls& calls, bool slow) {
    calls_ = &calls;
    for (std::uint32_t i = 0; i < devices_.size(); ++i) sample_device(i, frame, slow);
  }

 private:
  // What a series measures: the first part of its frame key (the device index follows).
  enum What : std::uint32_t {
    kUtilisation = 1,  // + 0..2
    kHbmCapacity = 4,
    kHbmUsed,
    kHbmUtilisation,
    kHbmBandwidth,
    kHbmFrequency,
    kHbmTemperature,
    kPower,
    kTemperature,
    kFrequency,  // + 0..1
    kHealth = kFrequency + 2,
    kErrorCount,
    kErrorCode,
  };

  void sample_device(std::uint32_t index, ss::FrameBuilder& frame, bool slow) {
    const DcmiDevice& dev = devices_[index];
    const auto& api = lib_.api();
    auto add = [&](std::uint32_t what, const char* name, const char* unit, double value, const char* source,
                   std::uint32_t extra = 0, Labels labels = {}) {
      frame.gauge({what, index, 0, extra}, value, [&] {
        labels["device"] = dev.label;
        labels["source_name"] = source;
        return MetricSeries{name, unit, std::move(labels), dev.logic_id};
      });
    };
    const int c = dev.card, d = dev.device;

    static constexpr struct {
      int type;
      const char* name;
      const char* call;
    } kUtilisations[] = {
        {dcmi::kUtilAiCore, "npu.aicore.utilization", "dcmi_get_device_utilization_rate(2)"},
        {dcmi::kUtilVectorCore, "npu.aivector.utilization", "dcmi_get_device_utilization_rate(12)"},
        {dcmi::kUtilAiCpu, "npu.aicpu.utilization", "dcmi_get_device_utilization_rate(3)"}};
    static_assert(dcmi::kUtilAiCore == 2 && dcmi::kUtilVectorCore == 12 && dcmi::kUtilAiCpu == 3);
    for (std::uint32_t i = 0; i < std::size(kUtilisations); ++i) {
      const auto& u = kUtilisations[i];
      unsigned rate = 0;
      if (api.get_device_utilization_rate && can_call(dev, u.call) &&
          ok(dev, u.call, api.get_device_utilization_rate(c, d, u.type, &rate)))
        add(kUtilisation + i, u.name, "ratio", rate * 0.01, u.call);
    }

    dcmi::dcmi_hbm_info hbm{};
    if (api.get_device_hbm_info && can_call(dev, "dcmi_get_device_hbm_info") &&
        ok(dev, "dcmi_get_device_hbm_info", api.get_device_hbm_info(c, d, &hbm))) {
      add(kHbmCapacity, "npu.hbm.capacity", "bytes", static_cast<double>(hbm.memory_size) * kMiB,
          "dcmi_hbm_info.memory_size");
      add(kHbmUsed, "npu.hbm.used", "bytes", static_cast<double>(hbm.memory_usage) * kMiB,
          "dcmi_hbm_info.memory_usage");
      if (hbm.memory_size > 0)
        add(kHbmUtilisation, "npu.hbm.utilization", "ratio",
            static_cast<double>(hbm.memory_usage) / static_cast<double>(hbm.memory_size),
            "dcmi_hbm_info.memory_usage");
      add(kHbmBandwidth, "npu.hbm.bandwidth_utilization", "ratio", hbm.bandwith_util_rate * 0.01,
          "dcmi_hbm_info.bandwith_util_rate");
      add(kHbmFrequency, "npu.hbm.frequency", "hertz", hbm.freq * 1e6, "dcmi_hbm_info.freq");
      if (valid_temperature(dev, "dcmi_hbm_info.temp", hbm.temp))
        add(kHbmTemperature, "npu.hbm.temperature", "celsius", hbm.temp, "dcmi_hbm_info.temp");
    }

    int power = 0;
    if (api.get_device_power_info && can_call(dev, "dcmi_get_device_power_info") &&
        ok(dev, "dcmi_get_device_power_info", api.get_device_power_info(c, d, &power)))
      add(kPower, "npu.power", "watts", power * 0.1, "dcmi_get_device_power_info");  // 0.1 W units

    int temperature = 0;
    if (slow && api.get_device_temperature && can_call(dev, "dcmi_get_device_temperature") &&
        ok(dev, "dcmi_get_device_temperature", api.get_device_temperature(c, d, &temperature)) &&
        valid_temperature(dev, "dcmi_get_device_temperature", temperature))
      add(kTemperature, "npu.temperature", "celsius", temperature, "dcmi_get_device_temperature");

    static constexpr struct {
      dcmi::dcmi_freq_type type;
      const char* name;
      const char* call;
      bool slow;
    } kFrequencies[] = {
        {dcmi::DCMI_FREQ_AICORE_CURRENT_, "npu.aicore.frequency", "dcmi_get_device_frequency(7)", false},
        {dcmi::DCMI_FREQ_AICORE_MAX, "npu.aicore.rated_frequency", "dcmi_get_device_frequency(9)", true}};
    static_assert(dcmi::DCMI_FREQ_AICORE_CURRENT_ == 7 && dcmi::DCMI_FREQ_AICORE_MAX == 9);
    for (std::uint32_t i = 0; i < std::size(kFrequencies); ++i) {
      const auto& f = kFrequencies[i];
      unsigned mhz = 0;
      if ((slow || !f.slow) && api.get_device_frequency && can_call(dev, f.call) &&
          ok(dev, f.call, api.get_device_frequency(c, d, f.type, &mhz)))
        add(kFrequency + i, f.name, "hertz", mhz * 1e6, f.call);
    }

    if (!slow) return;
    unsigned health = 0;
    if (api.get_device_health && can_call(dev, "dcmi_get_device_health") &&
        ok(dev, "dcmi_get_device_health", api.get_device_health(c, d, &health)))
      add(kHealth, "npu.health", "state", health < 4 ? static_cast<double>(health) : -1.0,
          "dcmi_get_device_health", health, {{"health", health_name(health)}});

    int count = 0;
    unsigned codes[kMaxErrorCodes] = {};
    if (api.get_device_errorcode_v2 && can_call(dev, "dcmi_get_device_errorcode_v2") &&
        ok(dev, "dcmi_get_device_errorcode_v2",
           api.get_device_errorcode_v2(c, d, &count, codes, kMaxErrorCodes))) {
      add(kErrorCount, "npu.error_count", "count", count, "dcmi_get_device_errorcode_v2");
      for (int i = 0; i < std::clamp(count, 0, static_cast<int>(kMaxErrorCodes)); ++i)
        add(kErrorCode, "npu.error_code", "code", codes[i], "dcmi_get_device_errorcode_v2", codes[i],
            {{"code", fmt::format("0x{:08X}", codes[i])}});
    }
  }

  bool can_call(const DcmiDevice& dev, std::string_view call) const {
    return calls_->can_call(dev.label, call);
  }
  bool ok(const DcmiDevice& dev, std::string_view call, int rc) { return calls_->ok(dev.label, call, rc); }

  // 0x7ffd (invalid) and 0x7fff (read failure) are what the MCU reports instead of a temperature.
  bool valid_temperature(const DcmiDevice& dev, const std::string& source, int value) {
    if (value == dcmi::kTemperatureInvalid) calls_->skip(dev.label, source, "invalid (0x7ffd)");
    if (value == dcmi::kTemperatureReadFailed) calls_->skip(dev.label, source, "read failed (0x7fff)");
    return value != dcmi::kTemperatureInvalid && value != dcmi::kTemperatureReadFailed;
  }

  DcmiLibrary lib_;
  std::vector<DcmiDevice> devices_;
  dcmi::DcmiCalls* calls_ = nullptr;
};

// ---- npu-smi back end ----------------------------------------------------------------------------------

class NpuSmiChip {
 public:
  bool open(const Config& config, std::string& reason) {
    tool_ = config.str("npu_smi");
    timeout_ = command_timeout(config);
    if (reason = dcmi::tool_missing_reason(tool_); !reason.empty()) return false;
    const auto all = dcmi::npu_smi_ids(tool_, timeout_, reason);
    const auto selection = config.strings("devices");
    ids_.clear();
    for (int id : all)
      if (wanted(selection, std::to_string(id))) ids_.push_back(id);
    if (!all.empty() && ids_.empty())
      reason = fmt::format("none of the devices {} among the {} NPUs npu-smi lists", selection, all.size());
    return !ids_.empty();
  }

  /// `slow`: also `npu-smi info -t health`.
  void sample(ss::FrameBuilder& frame, dcmi::DcmiCalls& calls, bool slow) {
    const CorrelationKey& key = frame.key();
    for (int id : ids_) {
      ascend_console::ConsoleContext ctx;
      ctx.timestamp = key.timestamp_ns;
      ctx.node = key.node_id;
      ctx.device = id;
      std::set<std::string> seen;  // usages and common both print some rates: keep the first
      for (const char* type : {"usages", "common", "health"}) {
        if (!slow && std::string_view(type) == "health") continue;
        auto r = dcmi::run_npu_smi_info(tool_, type, id, timeout_, ctx);
        if (!r.ok) {
          calls.skip(std::to_string(id), fmt::format("npu-smi info -t {}", type), "command failed",
                     "; " + r.reason);
          continue;
        }
        for (auto& p : r.points) {
          Labels identity = p.labels;
          identity.erase("source_name");
          std::string what = fmt::format("{}{}", p.name, identity);
          if (!seen.insert(what).second) continue;
          // The series key: the name and labels (without the source), numbered in order of appearance.
          const auto ordinal =
              ordinals_.try_emplace(what, static_cast<std::uint32_t>(ordinals_.size())).first->second;
          frame.gauge({ordinal, static_cast<std::uint32_t>(id)}, p.value, [&] {
            p.labels.erase("node");  // the frame adds this node's name
            return MetricSeries{p.name, p.unit, p.labels, id};
          });
        }
      }
    }
  }

 private:
  std::map<std::string, std::uint32_t, std::less<>> ordinals_;
  std::string tool_;
  std::chrono::milliseconds timeout_{5000};
  std::vector<int> ids_;
};

// ---- choosing a back end -------------------------------------------------------------------------------

struct Backends {
  std::unique_ptr<DcmiChip> dcmi;
  std::unique_ptr<NpuSmiChip> npu_smi;
};

/// Opens the configured back end (auto: DCMI first); on failure both are null and `reason` says why.
Backends open_backend(const Config& config, std::string& reason) {
  Backends b;
  const std::string backend = config.str("backend");
  std::string dcmi_reason, smi_reason;
  if (backend != "npu_smi") {
    b.dcmi = std::make_unique<DcmiChip>();
    if (b.dcmi->open(config, dcmi_reason)) return b;
    b.dcmi.reset();
  }
  if (backend != "dcmi") {
    b.npu_smi = std::make_unique<NpuSmiChip>();
    if (b.npu_smi->open(config, smi_reason)) return b;
    b.npu_smi.reset();
  }
  if (backend == "dcmi")
    reason = dcmi_reason;
  else if (backend == "npu_smi")
    reason = smi_reason;
  else
    reason = fmt::format("DCMI: {}; npu-smi: {}", dcmi_reason, smi_reason);
  return b;
}

class AscendChipSampler final : public ss::IntervalSampler {
 public:
  AscendChipSampler(const CreateContext& ctx, const Config& config)
      : IntervalSampler(ctx, config), config_(config) {
    emit_frames();
  }

 protected:
  void open() override {
    calls_.clear();
    calls_.set_logger(host() ? &host()->logger() : nullptr);
    std::string reason;
    backends_ = open_backend(config_, reason);
    if (!backends_.dcmi && !backends_.npu_smi)
      throw std::runtime_error("ascend_chip: no NPU to sample: " + reason);
  }

  void sample_frame(ss::FrameBuilder& frame) override {
    const bool slow = slow_readings_due();
    if (backends_.dcmi) backends_.dcmi->sample(frame, calls_, slow);
    if (backends_.npu_smi) backends_.npu_smi->sample(frame, calls_, slow);
    calls_.skipped().add_to(frame);
  }

 private:
  Config config_;
  Backends backends_;
  dcmi::DcmiCalls calls_;
};

class AscendChipFactory final : public SimpleFactory<AscendChipSampler> {
 public:
  using SimpleFactory::SimpleFactory;
  Availability probe(const Config& config) const override {
    std::string reason;
    const Backends b = open_backend(config, reason);
    if (b.dcmi) return Availability::yes("DCMI");
    if (b.npu_smi) return Availability::yes("npu-smi");
    return Availability::no(reason);
  }
  std::vector<ConfigProblem> validate(const Config& config) const override {
    if (config.str("library").empty()) return {{"library", "must name a library, got ''"}};
    if (config.str("npu_smi").empty()) return {{"npu_smi", "must name a program, got ''"}};
    return {};
  }
};

}  // namespace

const ComponentFactory& ascend_chip_factory() {
  static const AscendChipFactory factory(make_manifest());
  return factory;
}

}  // namespace cann_debug::plugins
