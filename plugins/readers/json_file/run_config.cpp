// run_config reader: config.json -> one run_config/1 message.
#include "run_config.hpp"

#include <string>
#include <utility>

#include "cann_debug/messages.hpp"
#include "cann_debug/reader/parse_error.hpp"
#include "one_document_reader.hpp"

namespace cann_debug::plugins {
namespace {

Manifest run_config_manifest() {
  Manifest m;
  m.type = "run_config";
  m.kind = ComponentKind::kReader;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description =
      "Reads a run's configuration (a JSON object such as config.json) and emits it once as run_config/1";
  m.outputs = {{"config", std::string(RunConfiguration::type_id), "the run's settings, once"}};
  m.options = one_document_options("the configuration file");
  m.concurrency = Concurrency::serial();
  m.sample_yaml =
      "run_config/config:\n"
      "  path: \"${input}/config.json\"\n"
      "  optional: true                   # a missing file emits nothing\n";
  return m;
}

void emit_config(const std::string& path, nlohmann::json document, Emitter& out) {
  if (!document.is_object()) readers::fail_file(path, "expected a JSON object with the run's settings");
  out.emit(0, CorrelationKey{}, RunConfiguration{path, std::move(document)});
}

class RunConfigReader final : public OneDocumentReader {
 public:
  RunConfigReader(const CreateContext&, const Config& config) : OneDocumentReader(config, &emit_config) {}
};

class RunConfigFactory final : public SimpleFactory<RunConfigReader> {
 public:
  RunConfigFactory() : SimpleFactory<RunConfigReader>(run_config_manifest()) {}
};

}  // namespace

const ComponentFactory& run_config_factory() {
  static const RunConfigFactory factory;
  return factory;
}

}  // namespace cann_debug::plugins
