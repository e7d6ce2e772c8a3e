// json_sink: every envelope's JSON form to a file, one per line (jsonl) or as one array (json).
#include "json_sink.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cann_debug/messages.hpp"

namespace cann_debug::plugins {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

Manifest make_manifest() {
  Manifest m;
  m.type = "json_sink";
  m.kind = ComponentKind::kSink;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description =
      "Writes every message it receives to a file as JSON envelopes, one per line (jsonl) or in one array";
  InputPort in{"in", {}, true, "any core message type"};
  // Not metric.frame/1: the host expands frames into metric.batch/1, whose JSON has one object per point.
  for (auto id : kCoreMessageTypes)
    if (id != MetricFrame::type_id) in.accepts.emplace_back(id);
  m.inputs = {std::move(in)};
  m.options = {
      {.name = "path",
       .type = OptionType::kString,
       .description = "file to write",
       .default_value = nullptr,
       .required = true,
       .min = {},
       .max = {},
       .enum_values = {}},
      {.name = "format",
       .type = OptionType::kEnum,
       .description = "jsonl: one envelope per line; json: one JSON array of envelopes",
       .default_value = "jsonl",
       .required = false,
       .min = {},
       .max = {},
       .enum_values = {"jsonl", "json"}},
      {.name = "append",
       .type = OptionType::kBool,
       .description = "add to an existing file instead of replacing it",
       .default_value = false,
       .required = false,
       .min = {},
       .max = {},
       .enum_values = {}},
      {.name = "pretty",
       .type = OptionType::kBool,
       .description = "indent the elements (format json only)",
       .default_value = false,
       .required = false,
       .min = {},
       .max = {},
       .enum_values = {}},
  };
  m.concurrency = Concurrency::serial();
  m.sample_yaml =
      "# Record everything a pipeline produces, one JSON envelope per line.\n"
      "json_sink/record:\n"
      "  path: \"${output}/messages.jsonl\"   # required\n"
      "  format: jsonl                       # or json (one array, written at end of stream)\n"
      "  append: false\n";
  return m;
}

std::string errno_text(int err) {
  return err ? std::strerror(err) : "unknown error";
}

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

class JsonSink final : public Component {
 public:
  JsonSink(const CreateContext& /*ctx*/, const Config& config)
      : path_(config.str("path")),
        array_(config.str("format") == "json"),
        append_(config.boolean("append")),
        indent_(config.boolean("pretty") ? 2 : -1) {}
  ~JsonSink() override {
    try {
      stop();
    } catch (...) {  // a destructor must not throw; stop() reports errors when called by the host
    }
  }

  void start() override {
    create_parent_directories();
    target_ = array_ ? path_ + ".tmp" : path_;
    json previous = array_ && append_ ? read_existing_array() : json::array();
    errno = 0;
    file_.reset(std::fopen(target_.c_str(), array_ || !append_ ? "wb" : "ab"));
    if (!file_)
      throw std::runtime_error(fmt::format("{}: cannot open for writing: {}", target_, errno_text(errno)));
    first_ = true;
    if (array_) {
      write("[");
      for (const auto& element : previous) element_out(element);
    }
  }

  void process(const Envelope& message, std::size_t /*port*/, Emitter& /*out*/) override {
    if (!file_) throw std::logic_error(fmt::format("{}: json_sink received a message before start()", path_));
    if (array_)
      element_out(message.to_json());
    else
      write(dump(message.to_json(), -1) + "\n");
  }

  void flush(Emitter& /*out*/) override { close(); }
  void stop() override { close(); }

 private:
  void create_parent_directories() const {
    const fs::path parent = fs::path(path_).parent_path();
    if (parent.empty()) return;
    std::error_code ec;
    fs::create_directories(parent, ec);
    if (ec)
      throw std::runtime_error(
          fmt::format("{}: cannot create directory '{}': {}", path_, parent.string(), ec.message()));
  }

  json read_existing_array() const {
    std::error_code ec;
    if (!fs::exists(path_, ec)) return json::array();
    std::ifstream in(path_, std::ios::binary);
    if (!in) throw std::runtime_error(fmt::format("{}: cannot open to append: {}", path_, errno_text(errno)));
    json existing = json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (!existing.is_array())
      throw std::runtime_error(fmt::format(
          "{}: append=true with format=json needs the existing file to be a JSON array; it is not "
          "(remove it or set append: false)",
          path_));
    return existing;
  }

  std::string dump(const json& j, int indent) const {
    return j.dump(indent, ' ', false, json::error_handler_t::replace);
  }

  void element_out(const json& element) {
    write((first_ ? "\n" : ",\n") + dump(element, indent_));
    first_ = false;
  }

  void write(const std::string& text) { write_to(file_.get(), text); }
  void write_to(std::FILE* f, const std::string& text) const {
    errno = 0;
    if (std::fwrite(text.data(), 1, text.size(), f) != text.size() || std::fflush(f) != 0)
      throw std::runtime_error(fmt::format("{}: write failed: {}", target_, errno_text(errno)));
  }

  // Finishes the file: the array's ']' and the rename for json. Idempotent; the file is closed even when
  // finishing it fails.
  void close() {
    if (!file_) return;
    std::unique_ptr<std::FILE, FileCloser> owned = std::move(file_);
    if (array_) write_to(owned.get(), first_ ? "]\n" : "\n]\n");
    std::FILE* f = owned.release();
    errno = 0;
    if (std::fclose(f) != 0)
      throw std::runtime_error(fmt::format("{}: close failed: {}", target_, errno_text(errno)));
    if (array_) {
      std::error_code ec;
      fs::rename(target_, path_, ec);
      if (ec)
        throw std::runtime_error(
            fmt::format("{}: cannot rename '{}' to it: {}", path_, target_, ec.message()));
    }
  }

  std::string path_;
  bool array_;
  bool append_;
  int indent_;
  std::string target_;
  std::unique_ptr<std::FILE, FileCloser> file_;
  bool first_ = true;
};

class JsonSinkFactory final : public SimpleFactory<JsonSink> {
 public:
  using SimpleFactory::SimpleFactory;
  std::vector<ConfigProblem> validate(const Config& config) const override {
    std::vector<ConfigProblem> problems;
    if (config.has("path") && config.str("path").empty())
      problems.push_back({"path", "must name a file, got ''"});
    if (config.has("pretty") && config.boolean("pretty") && config.has("format") &&
        config.str("format") == "jsonl")
      problems.push_back({"pretty", "applies to format json only (jsonl needs one envelope per line)"});
    return problems;
  }
};

}  // namespace

const ComponentFactory& json_sink_factory() {
  static const JsonSinkFactory factory(make_manifest());
  return factory;
}

}  // namespace cann_debug::plugins
