// roce sampler: cumulative RoCE counters -> rates (count/s, bytes/s) and deltas, from two kinds of NIC:
//  - the on-die NIC of each Ascend NPU: dcmi_get_netdev_pkt_stats_info (libdcmi.so), or
//    `hccn_tool -i N -stat -g` where DCMI is absent (PFC pause, CNP, ECN, retransmissions, PSN errors,
//    bytes);
//  - Linux RDMA devices (mlx5, ...): <root>/sys/class/infiniband/<nic>/ports/<n>/{counters,hw_counters}/*.
#include "roce.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ascend_console/metric_names.hpp"
#include "cann_debug/messages.hpp"
#include "cann_debug/sampler/counter_points.hpp"
#include "cann_debug/sampler/interval_sampler.hpp"
#include "cann_debug/sampler/option_specs.hpp"
#include "cann_debug/sampler/relisted.hpp"
#include "cann_debug/sampler/run_command.hpp"
#include "cann_debug/sampler/sysfs_files.hpp"
#include "dcmi/ascend_tools.hpp"
#include "dcmi/dcmi_api.hpp"
#include "dcmi/dcmi_calls.hpp"
#include "rdma_sysfs.hpp"

namespace cann_debug::plugins {
namespace {

namespace ss = sampler_support;
using dcmi::DcmiDevice;

constexpr const char* kDefaultHccnTool = "hccn_tool";
constexpr const char* kDriverHccnTool = "/usr/local/Ascend/driver/tools/hccn_tool";

Manifest make_manifest() {
  Manifest m;
  m.type = "roce";
  m.kind = ComponentKind::kSampler;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description =
      "RoCE NIC counters as rates and deltas from Ascend NPU NICs (DCMI or hccn_tool) and Linux RDMA sysfs";
  m.outputs = {{"metrics", std::string(MetricFrame::type_id), "one frame of readings per sample"}};
  m.options = ss::interval_options();
  m.options.push_back({.name = "ascend",
                       .type = OptionType::kEnum,
                       .description = "Ascend NPU NIC counters from dcmi (libdcmi.so), hccn_tool, auto (dcmi "
                                      "when it loads, else hccn_tool when found, else none) or off",
                       .default_value = "auto",
                       .required = false,
                       .min = {},
                       .max = {},
                       .enum_values = {"auto", "dcmi", "hccn_tool", "off"}});
  m.options.push_back({.name = "rdma_sysfs",
                       .type = OptionType::kBool,
                       .description = "also read Linux RDMA counters under <root>/sys/class/infiniband",
                       .default_value = true,
                       .required = false,
                       .min = {},
                       .max = {},
                       .enum_values = {}});
  m.options.push_back(
      ss::string_option("root", "directory holding the sys and dev trees (tests use a fixture)", "/"));
  m.options.push_back(ss::dcmi_library_option());
  m.options.push_back(ss::string_option(
      "hccn_tool", "the hccn_tool program (PATH, then /usr/local/Ascend/driver/tools/)", kDefaultHccnTool));
  m.options.push_back(ss::command_timeout_option("hccn_tool"));
  m.options.push_back({.name = "port",
                       .type = OptionType::kInt,
                       .description = "DCMI port_id of the NPU NIC (0 on Atlas A2)",
                       .default_value = 0,
                       .required = false,
                       .min = 0,
                       .max = 64,
                       .enum_values = {}});
  m.options.push_back(ss::devices_option(
      "NPUs to sample (DCMI logical ids, or hccn_tool -i ids; default: every NPU DCMI lists, or every "
      "<root>/dev/davinciN)"));
  m.options.push_back(ss::slow_interval_option(
      "the Linux RDMA error, discard and retransmission counters (traffic and congestion counters: every "
      "sample)"));
  m.concurrency = Concurrency::serial();
  m.sample_yaml =
      "# RoCE counters of the NPU NICs and of any RDMA NIC, as rates, once per second.\n"
      "roce/nics:\n"
      "  interval: 1s\n"
      "  ascend: auto        # auto | dcmi | hccn_tool | off\n"
      "  rdma_sysfs: true\n"
      "  root: /\n";
  return m;
}

// What a series measures: the first part of its frame key.
enum What : std::uint32_t { kDcmiCounter = 1, kHccnCounter, kSysfsCounter };

bool wanted(const std::vector<std::string>& selection, const std::string& label) {
  return selection.empty() || std::find(selection.begin(), selection.end(), label) != selection.end();
}

// ---- Ascend NPU NIC: DCMI ------------------------------------------------------------------------------

class DcmiNic {
 public:
  bool open(const Config& config, std::string& reason) {
    std::vector<DcmiDevice> all;
    if (!lib_.open(config.str("library")) || !lib_.enumerate(all)) {
      reason = lib_.error();
      return false;
    }
    if (!lib_.api().get_netdev_pkt_stats_info) {
      reason = fmt::format("{} does not export dcmi_get_netdev_pkt_stats_info", lib_.path());
      return false;
    }
    port_ = static_cast<int>(config.integer("port"));
    const auto selection = config.strings("devices");
    devices_.clear();
    for (auto& d : all)
      if (wanted(selection, d.label)) devices_.push_back(d);
    if (devices_.empty())
      reason = fmt::format("none of the devices {} among the {} NPUs DCMI lists", selection, all.size());
    return !devices_.empty();
  }

  void sample(ss::FrameBuilder& frame, dcmi::DcmiCalls& calls, HostServices* host) {
    const char* call = "dcmi_get_netdev_pkt_stats_info";
    const auto& fields = dcmi::netdev_counter_fields();
    for (std::uint32_t d = 0; d < devices_.size(); ++d) {
      const DcmiDevice& dev = devices_[d];
      dcmi::dcmi_network_pkt_stats_info stats{};
      if (!calls.can_call(dev.label, call) ||
          !calls.ok(dev.label, call,
                    lib_.api().get_netdev_pkt_stats_info(dev.card, dev.device, port_, &stats)))
        continue;
      const std::int64_t read_ns = ss::read_clock_ns(host);
      for (std::uint32_t i = 0; i < fields.size(); ++i) {
        const auto& field = fields[i];
        frame.counter({kDcmiCounter, d, i}, stats.*field.member, 64, read_ns, [&] {
          const auto metric = ascend_console::hccn_counter_metric(field.name);
          MetricSeries series{metric.name, metric.unit, metric.labels, dev.logic_id};
          series.labels["device"] = dev.label;
          series.labels["source_name"] = field.name;
          return series;
        });
      }
    }
  }

 private:
  dcmi::DcmiLibrary lib_;
  std::vector<DcmiDevice> devices_;
  int port_ = 0;
};

// ---- Ascend NPU NIC: hccn_tool -------------------------------------------------------------------------

class HccnToolNic {
 public:
  bool open(const Config& config, std::string& reason) {
    tool_ = config.str("hccn_tool");
    timeout_ = std::chrono::milliseconds(config.duration_ns("command_timeout") / 1'000'000);
    if (tool_ == kDefaultHccnTool && !ss::find_executable(tool_) && ss::find_executable(kDriverHccnTool))
      tool_ = kDriverHccnTool;
    if (reason = dcmi::tool_missing_reason(tool_); !reason.empty()) return false;
    ids_.clear();
    const auto selection = config.strings("devices");
    if (!selection.empty()) {
      for (const auto& s : selection) {
        try {
          ids_.push_back(std::stoi(s));
        } catch (const std::exception&) {
          reason = fmt::format("devices: '{}' is not an NPU id", s);
          return false;
        }
      }
    } else {
      ids_ = dcmi::davinci_devices(config.str("root"));
      if (ids_.empty())
        reason = fmt::format("no NPU: no davinciN device in {}", ss::join_path(config.str("root"), "dev"));
    }
    return !ids_.empty();
  }

  void sample(ss::FrameBuilder& frame, const CorrelationKey& key, dcmi::DcmiCalls& calls,
              HostServices* host) {
    for (int id : ids_) {
      ascend_console::ConsoleContext ctx;
      ctx.timestamp = key.timestamp_ns;
      ctx.node = key.node_id;
      ctx.device = id;
      auto r = dcmi::run_hccn_tool(tool_, id, {"-stat", "-g"}, timeout_, ctx);
      const std::int64_t read_ns = ss::read_clock_ns(host);
      if (!r.ok) {
        calls.skip(std::to_string(id), "hccn_tool -stat", "command failed", "; " + r.reason);
        continue;
      }
      for (auto& cumulative : r.points) {
        if (cumulative.value < 0) continue;
        const auto source = cumulative.labels.find("source_name");
        const std::string& counter = source != cumulative.labels.end() ? source->second : cumulative.name;
        const auto ordinal =
            ordinals_.try_emplace(counter, static_cast<std::uint32_t>(ordinals_.size())).first->second;
        frame.counter({kHccnCounter, static_cast<std::uint32_t>(id), ordinal},
                      static_cast<std::uint64_t>(cumulative.value), 64, read_ns, [&] {
                        MetricSeries series{cumulative.name, cumulative.unit, cumulative.labels, id};
                        series.labels.erase("node");  // the frame adds this node's name
                        return series;
                      });
      }
    }
  }

 private:
  std::map<std::string, std::uint32_t, std::less<>> ordinals_;  // counter name -> series key
  std::string tool_;
  std::chrono::milliseconds timeout_{5000};
  std::vector<int> ids_;
};

// ---- Linux RDMA sysfs ----------------------------------------------------------------------------------

class RdmaSysfs {
 public:
  bool open(const Config& config, std::string& reason) {
    root_ = config.str("root");
    counters_.forget();
    ordinals_.clear();
    if (roce::rdma_counter_files(root_).empty()) {
      reason = fmt::format("no RDMA port counters under {}", roce::rdma_class_dir(root_));
      return false;
    }
    return true;
  }

  /// `slow`: also the counters read at most once per slow_interval (errors).
  void sample(ss::FrameBuilder& frame, std::int64_t now_ns, HostServices* host, bool slow) {
    counters_.refresh(
        now_ns, [&] { return counter_files(); },
        [](const Listed& f) -> const std::string& { return f.where.path; },
        [&](Listed f) {
          const auto ordinal =
              ordinals_.try_emplace(f.where.path, static_cast<std::uint32_t>(ordinals_.size())).first->second;
          ss::AttributeFile file(f.where.path);  // opened at the first read
          return Counter{std::move(f.where), std::move(f.metric), std::move(file), ordinal};
        });
    for (auto& c : counters_.entries()) {
      if (c.metric.slow && !slow) continue;
      const auto value = c.file.read_u64();
      if (!value) continue;  // unreadable (some hw_counters need privileges) or not a number
      const std::int64_t read_ns = ss::read_clock_ns(host);
      const ss::SeriesKey key{kSysfsCounter, c.ordinal};
      const unsigned width = 0;  // 32 or 64 bits: inferred from the readings
      // port_xmit_data counts 4-byte words: the scale applies to the rate and the delta alike.
      frame.counter(
          key, *value, width, read_ns,
          [&] {
            return MetricSeries{c.metric.name,
                                c.metric.unit,
                                {{"nic", c.where.nic}, {"port", c.where.port}, {"source_name", c.where.file}},
                                -1};
          },
          c.metric.scale);
    }
  }

 private:
  struct Counter {
    roce::RdmaCounterFile where;
    roce::RdmaCounterName metric;
    ss::AttributeFile file;
    std::uint32_t ordinal = 0;
  };

  struct Listed {
    roce::RdmaCounterFile where;
    roce::RdmaCounterName metric;
  };
  // The counter files of every NIC and port, without the files that are not counters (mlx5's lifespan).
  std::vector<Listed> counter_files() const {
    std::vector<Listed> out;
    for (auto& f : roce::rdma_counter_files(root_))
      if (auto metric = roce::rdma_counter_name(f.file); !metric.name.empty())
        out.push_back({std::move(f), std::move(metric)});
    return out;
  }

  std::string root_;
  // NICs and ports come and go (driver reload, hot plug): listed again every few seconds, the counter
  // files staying open in between.
  ss::Relisted<Counter> counters_;
  std::map<std::string, std::uint32_t, std::less<>> ordinals_;  // path -> series key, for good
};

// ---- the sampler ---------------------------------------------------------------------------------------

struct Sources {
  std::unique_ptr<DcmiNic> dcmi;
  std::unique_ptr<HccnToolNic> hccn;
  std::unique_ptr<RdmaSysfs> sysfs;
  bool any() const { return dcmi || hccn || sysfs; }
};

/// Opens what the configuration asks for; `reason` says what could not be opened and why.
Sources open_sources(const Config& config, std::string& reason) {
  Sources s;
  std::vector<std::string> why;
  const std::string ascend = config.str("ascend");
  if (ascend == "auto" || ascend == "dcmi") {
    std::string r;
    s.dcmi = std::make_unique<DcmiNic>();
    if (!s.dcmi->open(config, r)) {
      s.dcmi.reset();
      why.push_back("DCMI: " + r);
    }
  }
  if ((ascend == "auto" && !s.dcmi) || ascend == "hccn_tool") {
    std::string r;
    s.hccn = std::make_unique<HccnToolNic>();
    if (!s.hccn->open(config, r)) {
      s.hccn.reset();
      why.push_back("hccn_tool: " + r);
    }
  }
  if (config.boolean("rdma_sysfs")) {
    std::string r;
    s.sysfs = std::make_unique<RdmaSysfs>();
    if (!s.sysfs->open(config, r)) {
      s.sysfs.reset();
      why.push_back("RDMA sysfs: " + r);
    }
  }
  reason = fmt::format("{}", fmt::join(why, "; "));
  return s;
}

class RoceSampler final : public ss::IntervalSampler {
 public:
  RoceSampler(const CreateContext& ctx, const Config& config)
      : IntervalSampler(ctx, config), config_(config) {
    emit_frames();
  }

 protected:
  void open() override {
    calls_.clear();
    calls_.set_logger(host() ? &host()->logger() : nullptr);
    std::string reason;
    sources_ = open_sources(config_, reason);
    if (!sources_.any()) throw std::runtime_error("roce: nothing to sample: " + reason);
    if (!reason.empty() && host()) host()->logger().info("roce: also not sampled: {}", reason);
  }

  void sample_frame(ss::FrameBuilder& frame) override {
    if (sources_.dcmi) sources_.dcmi->sample(frame, calls_, host());
    if (sources_.hccn) sources_.hccn->sample(frame, frame.key(), calls_, host());
    if (sources_.sysfs) sources_.sysfs->sample(frame, frame.key().timestamp_ns, host(), slow_readings_due());
    calls_.skipped().add_to(frame);
  }

 private:
  Config config_;
  Sources sources_;
  dcmi::DcmiCalls calls_;
};

class RoceFactory final : public SimpleFactory<RoceSampler> {
 public:
  using SimpleFactory::SimpleFactory;
  Availability probe(const Config& config) const override {
    std::string reason;
    const Sources s = open_sources(config, reason);
    if (s.any()) return Availability::yes(reason.empty() ? "" : "partly: " + reason);
    return Availability::no(reason.empty() ? "nothing enabled (ascend: off, rdma_sysfs: false)" : reason);
  }
  std::vector<ConfigProblem> validate(const Config& config) const override {
    if (config.str("root").empty()) return {{"root", "must name a directory, got ''"}};
    if (config.str("ascend") == "off" && !config.boolean("rdma_sysfs"))
      return {{"", "ascend: off and rdma_sysfs: false leave nothing to sample"}};
    return {};
  }
};

}  // namespace

const ComponentFactory& roce_factory() {
  static const RoceFactory factory(make_manifest());
  return factory;
}

}  // namespace cann_debug::plugins
