#include "one_document_reader.hpp"

#include <filesystem>
#include <utility>

#include "cann_debug/reader/json_document.hpp"
#include "cann_debug/reader/reader_options.hpp"

namespace cann_debug::plugins {

std::vector<OptionSpec> one_document_options(const char* path_description) {
  return {readers::path_option(path_description), readers::max_file_bytes_option(),
          readers::optional_option()};
}

OneDocumentReader::OneDocumentReader(const Config& config, Emit emit)
    : path_(config.str("path")),
      max_bytes_(static_cast<std::size_t>(config.integer("max_file_bytes"))),
      optional_(config.boolean("optional")),
      emit_(emit) {}

void OneDocumentReader::start() {
  std::error_code ec;
  if (optional_ && !std::filesystem::exists(path_, ec)) skip_ = true;
}

PollResult OneDocumentReader::poll(Emitter& out) {
  if (skip_) return PollResult::kDone;
  auto doc = readers::load_json(path_, max_bytes_);
  if (doc.empty) return PollResult::kDone;
  emit_(path_, readers::to_plain(doc.root), out);
  return PollResult::kDone;
}

}  // namespace cann_debug::plugins
