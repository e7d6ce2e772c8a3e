// run_config reader: config.json -> one run_config/1 message.
#include "run_config.hpp"

#include <filesystem>
#include <string>

#include <fmt/format.h>

#include "cann_debug/messages.hpp"
#include "cann_debug/reader/json_document.hpp"
#include "cann_debug/reader/parse_error.hpp"
#include "cann_debug/reader/reader_options.hpp"
#include "cann_debug/reader/sniff_helpers.hpp"

namespace cann_debug::plugins {
namespace {

Manifest make_manifest() {
  Manifest m;
  m.type = "run_config";
  m.kind = ComponentKind::kReader;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description =
      "Reads a run's configuration (a JSON object such as a run folder's config.json: lr, batch_size, "
      "optimizer, clip_threshold, world_size, ...) and emits it once as run_config/1 on port 'config'. A "
      "file that is not JSON fails with '<path>:<line>: expected valid JSON ... (at byte offset N)'; a JSON "
      "value that is not an object fails with '<path>: expected a JSON object with the run's settings'. "
      "With optional: true a missing file emits nothing (a run's config is often absent).";
  m.outputs = {{"config", std::string(RunConfiguration::type_id), "the run's settings, once"}};
  m.options = {readers::path_option("the configuration file"), readers::max_file_bytes_option(),
               readers::optional_option()};
  m.concurrency = Concurrency::serial();
  m.sample_yaml =
      "run_config/config:\n"
      "  path: \"${input}/config.json\"\n"
      "  optional: true                   # a missing file emits nothing\n";
  return m;
}

class RunConfigReader final : public Component {
 public:
  RunConfigReader(const CreateContext&, const Config& config)
      : path_(config.str("path")),
        max_bytes_(static_cast<std::size_t>(config.integer("max_file_bytes"))),
        optional_(config.boolean("optional")) {}

  void start() override {
    std::error_code ec;
    if (optional_ && !std::filesystem::exists(path_, ec)) skip_ = true;
  }

  PollResult poll(Emitter& out) override {
    if (skip_) return PollResult::kDone;
    auto doc = readers::load_json(path_, max_bytes_);
    if (doc.empty) return PollResult::kDone;
    RunConfiguration config;
    config.source_path = path_;
    config.values = readers::to_plain(doc.root);
    if (!config.values.is_object())
      readers::fail_file(path_, "expected a JSON object with the run's settings");
    out.emit(0, CorrelationKey{}, std::move(config));
    return PollResult::kDone;
  }

 private:
  std::string path_;
  std::size_t max_bytes_;
  bool optional_;
  bool skip_ = false;
};

class RunConfigFactory final : public SimpleFactory<RunConfigReader> {
 public:
  RunConfigFactory() : SimpleFactory<RunConfigReader>(make_manifest()) {}
};

}  // namespace

const ComponentFactory& run_config_factory() {
  static const RunConfigFactory factory;
  return factory;
}

}  // namespace cann_debug::plugins
