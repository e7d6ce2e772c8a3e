// What json_file and run_config share: read one JSON document (`path`, `max_file_bytes`, `optional`) and
// emit one message made from it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cann_debug/component.hpp"

namespace cann_debug::plugins {

/// `path`, `max_file_bytes`, `optional` (a missing file emits nothing).
std::vector<OptionSpec> one_document_options(const char* path_description);

class OneDocumentReader : public Component {
 public:
  /// Emits the message of `document` read from `path` (may throw a reader error naming the file).
  using Emit = void (*)(const std::string& path, nlohmann::json document, Emitter& out);

  OneDocumentReader(const Config& config, Emit emit);
  void start() override;
  PollResult poll(Emitter& out) override;

 private:
  std::string path_;
  std::size_t max_bytes_;
  bool optional_;
  Emit emit_;
  bool skip_ = false;
};

}  // namespace cann_debug::plugins
