// ddr sampler: host memory bandwidth and usage from whichever back ends this machine has.
#include "ddr.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cann_debug/messages.hpp"
#include "cann_debug/sampler/interval_sampler.hpp"
#include "cann_debug/sampler/option_specs.hpp"
#include "cann_debug/sampler/sysfs_files.hpp"
#include "dcmi_memory.hpp"
#include "meminfo_usage.hpp"
#include "perf_imc.hpp"
#include "resctrl.hpp"

namespace cann_debug::plugins {
namespace {

using ddr_detail::DdrBackend;

const std::vector<std::string> kBackends = {"resctrl", "perf_imc", "meminfo", "dcmi"};

Manifest make_manifest() {
  Manifest m;
  m.type = "ddr";
  m.kind = ComponentKind::kSampler;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description =
      "Host memory (DDR) bandwidth and usage from resctrl MBM, uncore IMC perf events, /proc/meminfo, DCMI";
  m.outputs = {{"metrics", std::string(MetricFrame::type_id), "one frame of readings per sample"}};
  m.options = {
      sampler_support::option_spec("root", OptionType::kString,
                                   "directory holding the proc and sys trees to read (tests: a fixture)",
                                   "/"),
      sampler_support::option_spec("backends", OptionType::kStringList,
                                   "back ends to use: [auto] or some of resctrl, perf_imc, meminfo, dcmi",
                                   nlohmann::json::array({"auto"})),
      sampler_support::option_spec("dcmi_library", OptionType::kString,
                                   "libdcmi.so of the Ascend driver for the dcmi back end (a name or a path)",
                                   "libdcmi.so"),
  };
  for (auto& o : sampler_support::interval_options()) m.options.push_back(std::move(o));
  m.concurrency = Concurrency::serial();
  m.sample_yaml =
      "# Host memory bandwidth and usage once per second until the run stops.\n"
      "ddr/host:\n"
      "  interval: 1s\n"
      "  backends: [auto]   # or e.g. [resctrl, meminfo]\n"
      "  root: /\n";
  return m;
}

struct Where {
  std::string root;
  std::string dcmi_library;
};

std::string unavailable_reason(const std::string& backend, const Where& where) {
  const std::string& root = where.root;
  if (backend == "dcmi") return ddr_detail::dcmi_unavailable_reason(where.dcmi_library);
  if (backend == "resctrl") return ddr_detail::resctrl_unavailable_reason(root);
  if (backend == "perf_imc") return ddr_detail::perf_imc_unavailable_reason(root);
  if (backend == "meminfo") return ddr_detail::meminfo_unavailable_reason(root);
  return fmt::format("unknown back end '{}'", backend);
}

std::unique_ptr<DdrBackend> make_backend(const std::string& backend, const Where& where) {
  if (backend == "resctrl") return std::make_unique<ddr_detail::ResctrlMbm>(where.root);
  if (backend == "perf_imc") return std::make_unique<ddr_detail::PerfImc>(where.root);
  if (backend == "dcmi") return std::make_unique<ddr_detail::DcmiMemory>(where.dcmi_library);
  return std::make_unique<ddr_detail::MeminfoUsage>(where.root);
}

bool is_auto(const std::vector<std::string>& backends) {
  return backends.empty() || (backends.size() == 1 && backends[0] == "auto");
}

struct Plan {
  std::vector<std::string> use;
  std::vector<std::string> reasons;  // "resctrl: why not" for each back end left out
};

Plan plan(const Where& where, const std::vector<std::string>& backends) {
  Plan p;
  const bool automatic = is_auto(backends);
  for (const auto& b : automatic ? kBackends : backends) {
    const std::string why = unavailable_reason(b, where);
    if (why.empty())
      p.use.push_back(b);
    else
      p.reasons.push_back(fmt::format("{}: {}", b, why));
  }
  return p;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : "; ") + x;
  return s;
}

class DdrSampler final : public Component {
 public:
  DdrSampler(const CreateContext& ctx, const Config& config)
      : host_(&ctx.host),
        where_{config.str("root"), config.str("dcmi_library")},
        backends_(config.strings("backends")),
        interval_ns_(config.duration_ns("interval")),
        limit_(config.integer("samples")) {}

  void start() override {
    stop();
    const Plan p = plan(where_, backends_);
    if (!is_auto(backends_) && !p.reasons.empty())
      throw std::runtime_error(fmt::format("ddr: cannot use {}", joined(p.reasons)));
    if (p.use.empty())
      throw std::runtime_error(fmt::format("ddr: no back end can run here: {}", joined(p.reasons)));
    if (host_) {
      host_->logger().info("ddr: back ends {}", fmt::join(p.use, ", "));
      if (!p.reasons.empty()) host_->logger().info("ddr: left out: {}", joined(p.reasons));
    }
    for (const auto& b : p.use) {
      active_.push_back(make_backend(b, where_));
      active_.back()->start();
    }
    taken_ = 0;
    // The node: this machine, or the fixture's hostname file.
    node_ = where_.root == "/" ? sampler_support::host_name()
                               : sampler_support::read_first_line(
                                     sampler_support::join_path(where_.root, "proc/sys/kernel/hostname"))
                                     .value_or("");
  }

  void stop() override {
    for (auto& b : active_) b->stop();
    active_.clear();
    frame_.clear();
  }

  PollResult poll(Emitter& out) override {
    if (limit_ > 0 && taken_ >= limit_) return PollResult::kDone;
    const TimestampNs now = host_ ? host_->now_ns() : wall_clock_ns();
    CorrelationKey key;
    key.timestamp_ns = now;
    key.node_id = node_;
    frame_.begin(key);  // the frame labels every series with the node
    for (auto& b : active_) b->sample(now, frame_, host_ ? &host_->logger() : nullptr);
    ++taken_;
    if (!frame_.empty()) out.emit(0, key, frame_.finish());
    return limit_ > 0 && taken_ >= limit_ ? PollResult::kDone : PollResult::kIdle;
  }

  std::int64_t idle_interval_ns() const override { return interval_ns_; }

 private:
  HostServices* host_;
  Where where_;
  std::vector<std::string> backends_;
  std::int64_t interval_ns_;
  std::int64_t limit_;
  std::vector<std::unique_ptr<DdrBackend>> active_;
  std::int64_t taken_ = 0;
  std::string node_;
  sampler_support::FrameBuilder frame_;
};

class DdrFactory final : public SimpleFactory<DdrSampler> {
 public:
  using SimpleFactory::SimpleFactory;
  Availability probe(const Config& config) const override {
    return judge({config.has("root") ? config.str("root") : "/",
                  config.has("dcmi_library") ? config.str("dcmi_library") : "libdcmi.so"},
                 config.has("backends") ? config.strings("backends") : std::vector<std::string>{"auto"});
  }
  std::vector<ConfigProblem> validate(const Config& config) const override {
    std::vector<ConfigProblem> problems;
    if (config.has("root") && config.str("root").empty())
      problems.push_back({"root", "must name a directory, got ''"});
    if (config.has("backends")) {
      const auto b = config.strings("backends");
      for (const auto& name : b) {
        if (name == "auto" && b.size() > 1)
          problems.push_back({"backends", "'auto' stands alone: [auto] or a list of back ends"});
        else if (name != "auto" && std::find(kBackends.begin(), kBackends.end(), name) == kBackends.end())
          problems.push_back(
              {"backends",
               fmt::format("unknown back end '{}' (known: auto, resctrl, perf_imc, meminfo, dcmi)", name)});
      }
    }
    return problems;
  }

 private:
  static Availability judge(const Where& where, const std::vector<std::string>& backends) {
    const Plan p = plan(where, backends);
    if (!is_auto(backends) && !p.reasons.empty()) return Availability::no(joined(p.reasons));
    if (p.use.empty())
      return Availability::no(fmt::format("no back end can run here: {}", joined(p.reasons)));
    const bool bandwidth =
        std::any_of(p.use.begin(), p.use.end(), [](const auto& b) { return b != "meminfo"; });
    std::string note = fmt::format("back ends: {}", fmt::join(p.use, ", "));
    if (!bandwidth) note += " (usage only: no memory bandwidth source)";
    if (!p.reasons.empty()) note += "; left out: " + joined(p.reasons);
    return Availability::yes(note);
  }
};

}  // namespace

const ComponentFactory& ddr_factory() {
  static const DdrFactory factory(make_manifest());
  return factory;
}

}  // namespace cann_debug::plugins
