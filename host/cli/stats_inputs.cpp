#include "stats_inputs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <optional>

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
  InputCollector(const host::PluginRegistry& registry, const CollectOptions& options, DriverContext& ctx,
                 InputStats& out)
      : registry_(registry),
        options_(options),
        ctx_(ctx),
        out_(out),
        hta_entry_(registry.find("hta_metrics")) {}

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

  void finish() {
    if (hta_) {
      out_.hta = hta_->finish();
    } else if (traces_without_hta_) {
      HtaResult missing;
      missing.error = "the hta_metrics plugin is not loaded: no HTA figures (check --plugin-path)";
      out_.hta = std::move(missing);
    }
  }

 private:
  void read(const std::string& path, const std::vector<host::ReaderCandidate>& candidates) {
    bool got_events = false;
    FileStats s = read_with(*candidates.front().entry, path, ctx_, [&](const Envelope& events) {
      got_events = true;
      if (!hta_entry_) {
        traces_without_hta_ = true;
        return;
      }
      if (!hta_) hta_.emplace(*hta_entry_, options_.include_last_profiler_step, ctx_);
      hta_->feed(events);
    });
    s.sniff_score = candidates.front().score;
    for (std::size_t i = 1; i < candidates.size(); ++i)
      s.also_claimed_by.push_back(candidates[i].entry->manifest().type);
    if (got_events && hta_ && s.status != ReadStatus::kOk) hta_->mark_partial();
    out_.files.push_back(std::move(s));
  }

  const host::PluginRegistry& registry_;
  const CollectOptions& options_;
  DriverContext& ctx_;
  InputStats& out_;
  const host::ComponentEntry* hta_entry_;
  std::optional<HtaAccumulator> hta_;
  bool traces_without_hta_ = false;
};

}  // namespace

InputStats collect_input(const host::PluginRegistry& registry, const std::string& argument,
                         const CollectOptions& options, DriverContext& ctx) {
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
  InputCollector collector(registry, options, ctx, in);
  if (in.is_directory)
    collector.folder(argument);
  else
    collector.file(argument);
  collector.finish();
  return in;
}

}  // namespace cann_debug::cli::stats
