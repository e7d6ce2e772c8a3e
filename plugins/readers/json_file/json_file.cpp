// json_file reader: one JSON document -> one json/1 message {"path": ..., "document": ...}.
#include "json_file.hpp"

#include <string>
#include <utility>

#include "cann_debug/messages.hpp"
#include "cann_debug/reader/sniff_helpers.hpp"
#include "one_document_reader.hpp"

namespace cann_debug::plugins {
namespace {

Manifest json_file_manifest() {
  Manifest m;
  m.type = "json_file";
  m.kind = ComponentKind::kReader;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description = "Reads one JSON document and emits it once as json/1 {path, document}";
  m.outputs = {{"document", std::string(JsonMessage::type_id), "the whole document, once"}};
  m.options = one_document_options("the JSON file to read");
  m.concurrency = Concurrency::serial();
  m.sample_yaml =
      "# What the person who launched the run knows about it (may be missing).\n"
      "json_file/config:\n"
      "  path: \"${input}/config.json\"   # required\n"
      "  optional: true                   # a missing file emits nothing\n";
  return m;
}

void emit_document(const std::string& path, nlohmann::json document, Emitter& out) {
  out.emit(0, CorrelationKey{}, JsonMessage{{{"path", path}, {"document", std::move(document)}}});
}

class JsonFile final : public OneDocumentReader {
 public:
  JsonFile(const CreateContext&, const Config& config) : OneDocumentReader(config, &emit_document) {}
};

class JsonFileFactory final : public SimpleFactory<JsonFile> {
 public:
  JsonFileFactory() : SimpleFactory<JsonFile>(json_file_manifest()) {}
  int sniff(const SniffInput& input) const override {
    if (input.is_directory) return 0;
    const auto first = input.head.find_first_not_of(" \t\r\n\xEF\xBB\xBF");
    if (first == std::string_view::npos || input.head[first] != '{') return 0;
    // A generic reader: any JSON object file, below every reader that knows the file's own format.
    return readers::base_name(input.path).ends_with(".json") ? 5 : 0;
  }
};

}  // namespace

const ComponentFactory& json_file_factory() {
  static const JsonFileFactory factory;
  return factory;
}

}  // namespace cann_debug::plugins
