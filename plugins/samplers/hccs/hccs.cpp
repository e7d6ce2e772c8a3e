// hccs sampler: the HCCS links of each Ascend NPU through DCMI — per-link tx/rx bandwidth, CRC errors and
// retries (cumulative 32-bit counters turned into rates and deltas), and the link status.
#include "hccs.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cann_debug/messages.hpp"
#include "cann_debug/sampler/counter_points.hpp"
#include "cann_debug/sampler/interval_sampler.hpp"
#include "cann_debug/sampler/option_specs.hpp"
#include "dcmi/dcmi_api.hpp"
#include "dcmi/dcmi_calls.hpp"

namespace cann_debug::plugins {
namespace {

namespace ss = sampler_support;
using dcmi::DcmiDevice;

constexpr double kGB = 1e9;  // DCMI reports HCCS bandwidth in GB/s

Manifest make_manifest() {
  Manifest m;
  m.type = "hccs";
  m.kind = ComponentKind::kSampler;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description =
      "Ascend NPU HCCS links via DCMI: per-link bandwidth, packet, CRC error and retry rates, link status";
  m.outputs = {{"metrics", std::string(MetricFrame::type_id), "one frame of readings per sample"}};
  m.options = ss::interval_options();
  m.options.push_back(ss::dcmi_library_option());
  m.options.push_back({.name = "bandwidth_window",
                       .type = OptionType::kDuration,
                       .description = "how long DCMI measures link bandwidth (the call blocks that long)",
                       .default_value = "100ms",
                       .required = false,
                       .min = 1e6,
                       .max = 1e9,
                       .enum_values = {}});
  m.options.push_back({.name = "links",
                       .type = OptionType::kInt,
                       .description = "how many HCCS link slots to read per device",
                       .default_value = dcmi::kHccsMaxLinks,
                       .required = false,
                       .min = 1,
                       .max = dcmi::kHccsMaxLinks,
                       .enum_values = {}});
  m.options.push_back({.name = "all_links",
                       .type = OptionType::kBool,
                       .description = "also emit links that never showed traffic, errors or bandwidth",
                       .default_value = false,
                       .required = false,
                       .min = {},
                       .max = {},
                       .enum_values = {}});
  m.options.push_back(ss::devices_option("device labels (DCMI logical ids) to sample; empty = all"));
  m.options.push_back(ss::slow_interval_option("hccs.status (the links' HDLC and PCS state)"));
  m.concurrency = Concurrency::serial();
  m.sample_yaml =
      "# HCCS links of every NPU once per second; bandwidth measured over 100 ms.\n"
      "hccs/links:\n"
      "  interval: 1s\n"
      "  bandwidth_window: 100ms\n"
      "  library: libdcmi.so\n";
  return m;
}

/// Opens libdcmi.so and finds the selected NPUs; false with `reason` when it cannot.
bool open_devices(const Config& config, dcmi::DcmiLibrary& lib, std::vector<DcmiDevice>& devices,
                  std::string& reason) {
  std::vector<DcmiDevice> all;
  if (!lib.open(config.str("library")) || !lib.enumerate(all)) {
    reason = lib.error();
    return false;
  }
  if (!lib.api().get_hccs_link_bandwidth_info && !lib.api().get_device_info) {
    reason = fmt::format("{} exports neither dcmi_get_hccs_link_bandwidth_info nor dcmi_get_device_info",
                         lib.path());
    return false;
  }
  const auto selection = config.strings("devices");
  devices.clear();
  for (auto& d : all)
    if (selection.empty() || std::find(selection.begin(), selection.end(), d.label) != selection.end())
      devices.push_back(d);
  if (devices.empty())
    reason = fmt::format("none of the devices {} among the {} NPUs DCMI lists", selection, all.size());
  return !devices.empty();
}

class HccsSampler final : public ss::IntervalSampler {
 public:
  HccsSampler(const CreateContext& ctx, const Config& config)
      : IntervalSampler(ctx, config),
        config_(config),
        window_ms_(static_cast<int>(config.duration_ns("bandwidth_window") / 1'000'000)),
        links_(static_cast<int>(config.integer("links"))),
        all_links_(config.boolean("all_links")) {
    emit_frames();
  }

 protected:
  void open() override {
    calls_.clear();
    calls_.set_logger(host() ? &host()->logger() : nullptr);
    std::string reason;
    if (!open_devices(config_, lib_, devices_, reason))
      throw std::runtime_error("hccs: no NPU to sample: " + reason);
    active_.assign(devices_.size(), {});
  }

  void sample_frame(ss::FrameBuilder& frame) override {
    const bool slow = slow_readings_due();
    for (std::size_t i = 0; i < devices_.size(); ++i)
      sample_device(static_cast<std::uint32_t>(i), frame, slow);
    calls_.skipped().add_to(frame);
  }

 private:
  // What a series measures: the first part of its key (device index, link, ... follow).
  enum What : std::uint32_t {
    kDeviceTx = 1,
    kDeviceRx,
    kLinkTx,
    kLinkRx,
    kStatus,
    kCounters,  // + index into kCounters
  };

  /// `slow`: also the link status (SlowReadings).
  void sample_device(std::uint32_t d, ss::FrameBuilder& frame, bool slow) {
    const DcmiDevice& dev = devices_[d];
    const auto& api = lib_.api();
    auto series = [&](const char* name, const char* unit, const char* source, Labels labels = {}) {
      labels["device"] = dev.label;
      labels["source_name"] = source;
      return MetricSeries{name, unit, std::move(labels), dev.logic_id};
    };
    auto link_series = [&](const char* name, const char* unit, const char* source, std::uint32_t link) {
      return series(name, unit, source, {{"link", std::to_string(link)}});
    };
    auto& active = active_[d];

    dcmi::dcmi_hccs_bandwidth_info bw{};
    bw.profiling_time = window_ms_;
    const char* bw_call = "dcmi_get_hccs_link_bandwidth_info";
    const bool have_bw =
        api.get_hccs_link_bandwidth_info && calls_.can_call(dev.label, bw_call) &&
        calls_.ok(dev.label, bw_call, api.get_hccs_link_bandwidth_info(dev.card, dev.device, &bw));
    dcmi::dcmi_hccs_statistic_info stats{};
    unsigned size = sizeof stats;
    const char* stats_call = "dcmi_get_device_info(HCCS, statistics)";
    const bool have_stats = api.get_device_info && calls_.can_call(dev.label, stats_call) &&
                            calls_.ok(dev.label, stats_call,
                                      api.get_device_info(dev.card, dev.device, dcmi::DCMI_MAIN_CMD_HCCS,
                                                          dcmi::kHccsSubCmdStatistics, &stats, &size));
    const std::int64_t read_ns = ss::read_clock_ns(host());
    static constexpr struct {
      unsigned (dcmi::dcmi_hccs_statistic_info::*counts)[dcmi::kHccsMaxLinks];
      const char* name;
      const char* source;
    } kCounterFields[] = {
        {&dcmi::dcmi_hccs_statistic_info::tx_cnt, "hccs.link.tx_packets", "tx_cnt"},
        {&dcmi::dcmi_hccs_statistic_info::rx_cnt, "hccs.link.rx_packets", "rx_cnt"},
        {&dcmi::dcmi_hccs_statistic_info::crc_err_cnt, "hccs.link.crc_errors", "crc_err_cnt"},
        {&dcmi::dcmi_hccs_statistic_info::retry_cnt, "hccs.link.retries", "retry_cnt"}};
    // A link counts as in use once it showed bandwidth, traffic or errors; the others are left out.
    for (int i = 0; i < links_; ++i) {
      const auto l = static_cast<std::size_t>(i);
      if (have_bw && (bw.tx_bandwidth[i] > 0 || bw.rx_bandwidth[i] > 0)) active[l] = true;
      if (have_stats)
        for (const auto& c : kCounterFields)
          if ((stats.*c.counts)[i] != 0) active[l] = true;
    }

    if (have_bw) {
      frame.gauge({kDeviceTx, d}, bw.total_txbw * kGB,
                  [&] { return series("hccs.device.tx_bandwidth", "bytes/s", "total_txbw"); });
      frame.gauge({kDeviceRx, d}, bw.total_rxbw * kGB,
                  [&] { return series("hccs.device.rx_bandwidth", "bytes/s", "total_rxbw"); });
    }
    for (std::uint32_t i = 0; i < static_cast<std::uint32_t>(links_); ++i) {
      if (!all_links_ && !active[i]) continue;
      if (have_bw) {
        frame.gauge({kLinkTx, d, i}, bw.tx_bandwidth[i] * kGB,
                    [&] { return link_series("hccs.link.tx_bandwidth", "bytes/s", "tx_bandwidth", i); });
        frame.gauge({kLinkRx, d, i}, bw.rx_bandwidth[i] * kGB,
                    [&] { return link_series("hccs.link.rx_bandwidth", "bytes/s", "rx_bandwidth", i); });
      }
      if (have_stats)
        for (std::uint32_t c = 0; c < std::size(kCounterFields); ++c) {
          const auto& field = kCounterFields[c];
          frame.counter({kCounters + c, d, i}, (stats.*field.counts)[i], 32, read_ns,
                        [&] { return link_series(field.name, "count", field.source, i); });
        }
    }

    if (!slow) return;
    dcmi::dcmi_hccs_statues status{};
    size = sizeof status;
    const char* status_call = "dcmi_get_device_info(HCCS, status)";
    if (api.get_device_info && calls_.can_call(dev.label, status_call) &&
        calls_.ok(dev.label, status_call,
                  api.get_device_info(dev.card, dev.device, dcmi::DCMI_MAIN_CMD_HCCS, dcmi::kHccsSubCmdStatus,
                                      &status, &size)))
      frame.gauge({kStatus, d, status.hdlc_status, status.pcs_status},
                  status.hdlc_status == dcmi::kHdlcStatusOk ? 1 : 0, [&] {
                    return series("hccs.status", "state", "hdlc_status",
                                  {{"hdlc_status", fmt::format("0x{:x}", status.hdlc_status)},
                                   {"pcs_status", fmt::format("0x{:x}", status.pcs_status)}});
                  });
  }

  Config config_;
  int window_ms_;
  int links_;
  bool all_links_;
  dcmi::DcmiLibrary lib_;
  std::vector<DcmiDevice> devices_;
  dcmi::DcmiCalls calls_;
  std::vector<std::array<bool, dcmi::kHccsMaxLinks>> active_;  // per device: link ever in use
};

class HccsFactory final : public SimpleFactory<HccsSampler> {
 public:
  using SimpleFactory::SimpleFactory;
  Availability probe(const Config& config) const override {
    dcmi::DcmiLibrary lib;
    std::vector<DcmiDevice> devices;
    std::string reason;
    if (open_devices(config, lib, devices, reason)) return Availability::yes();
    return Availability::no(reason);
  }
  std::vector<ConfigProblem> validate(const Config& config) const override {
    if (config.str("library").empty()) return {{"library", "must name a library, got ''"}};
    return {};
  }
};

}  // namespace

const ComponentFactory& hccs_factory() {
  static const HccsFactory factory(make_manifest());
  return factory;
}

}  // namespace cann_debug::plugins
