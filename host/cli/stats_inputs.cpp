#include "stats_inputs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "reader_selection.hpp"

namespace cann_debug::cli::stats {

namespace fs = std::filesystem;

namespace {

std::string readers_tried(const host::PluginRegistry& registry) {
  std::vector<std::string> types;
  for (const auto& [type, entry] : registry.components())
    if (entry.manifest().kind == ComponentKind::kReader) types.push_back(type);
  if (types.empty()) return "no reader is loaded: check --plugin-path";
  return fmt::format("tried: {}", fmt::join(types, ", "));
}

class InputCollector {
 public:
  InputCollector(const host::PluginRegistry& registry, const CollectOptions& options, InputStats& out)
      : registry_(registry), options_(options), out_(out) {}

  void file(const std::string& path) {
    const auto candidates = host::rank_readers(registry_, path);
    if (candidates.empty()) {
      out_.error = fmt::format("{}: no reader claims it ({})", path, readers_tried(registry_));
      return;
    }
    read(path, candidates);
  }

  void folder(const fs::path& dir) {
    const auto candidates = host::rank_readers(registry_, dir.string());
    if (!candidates.empty()) {
      read(dir.string(), candidates);
      return;
    }
    std::vector<fs::directory_entry> entries;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) entries.push_back(*it);
    if (ec) {
      out_.skipped.push_back({dir.string(), fmt::format("cannot list the folder: {}", ec.message())});
      return;
    }
    std::sort(entries.begin(), entries.end(),
              [](const auto& a, const auto& b) { return a.path().filename() < b.path().filename(); });
    for (const auto& e : entries) {
      std::error_code kind_ec;
      if (e.is_directory(kind_ec)) {
        if (e.is_symlink(kind_ec))
          out_.skipped.push_back({e.path().string(), "a symbolic link to a folder (not followed)"});
        else
          folder(e.path());
        continue;
      }
      const auto file_candidates = host::rank_readers(registry_, e.path().string());
      if (file_candidates.empty())
        out_.skipped.push_back({e.path().string(), "no reader claims it"});
      else
        read(e.path().string(), file_candidates);
    }
  }

  // Reads every file found, in one run.
  void finish() {
    ReadOptions read;
    read.include_last_profiler_step = options_.include_last_profiler_step;
    ReadResult result = read_files(registry_, files_, read);
    out_.files = std::move(result.files);
    out_.hta = std::move(result.hta);
  }

 private:
  void read(const std::string& path, const std::vector<host::ReaderCandidate>& candidates) {
    FileToRead f;
    f.path = path;
    f.reader = candidates.front().entry;
    f.sniff_score = candidates.front().score;
    for (std::size_t i = 1; i < candidates.size(); ++i)
      f.also_claimed_by.push_back(candidates[i].entry->manifest().type);
    files_.push_back(std::move(f));
  }

  const host::PluginRegistry& registry_;
  const CollectOptions& options_;
  InputStats& out_;
  std::vector<FileToRead> files_;
};

}  // namespace

InputStats collect_input(const host::PluginRegistry& registry, const std::string& argument,
                         const CollectOptions& options) {
  InputStats in;
  in.argument = argument;
  std::error_code ec;
  const auto status = fs::status(argument, ec);
  if (ec || !fs::exists(status)) {
    in.error =
        fmt::format("{}: cannot open: {}", argument,
                    ec ? ec.message() : std::make_error_code(std::errc::no_such_file_or_directory).message());
    return in;
  }
  in.is_directory = fs::is_directory(status);
  InputCollector collector(registry, options, in);
  if (in.is_directory)
    collector.folder(argument);
  else
    collector.file(argument);
  collector.finish();
  return in;
}

}  // namespace cann_debug::cli::stats
