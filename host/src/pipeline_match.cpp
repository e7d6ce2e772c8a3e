#include "pipeline_match.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <filesystem>
#include <fstream>

#include "cann_debug/reader/byte_source.hpp"
#include "reader_selection.hpp"

namespace cann_debug::host {

namespace fs = std::filesystem;

namespace {

constexpr int kDepth = 3;
constexpr std::size_t kMaxDocumentBytes = 16u << 20;
constexpr std::size_t kContainsBytes = 64u << 20;  // how far `contains:` looks into a file (decompressed)
constexpr std::size_t kContainsFiles = 8;          // ... and into how many of a rule's files

// The first record of a file: the document of a .json file, the first non-blank line of JSON lines.
nlohmann::json first_record(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return nullptr;
  std::string line;
  if (!path.ends_with(".json")) {
    for (int n = 0; n < 16 && std::getline(in, line); ++n) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      if (line.size() > (1u << 20)) return nullptr;
      return nlohmann::json::parse(line, nullptr, false);
    }
    return nullptr;
  }
  std::error_code ec;
  if (fs::file_size(path, ec) > kMaxDocumentBytes || ec) return nullptr;
  return nlohmann::json::parse(in, nullptr, false);
}

bool fields_hold(const MatchRule& rule, const nlohmann::json& record) {
  if (!record.is_object()) return false;
  if (!rule.fields.empty() &&
      std::none_of(rule.fields.begin(), rule.fields.end(), [&](const auto& f) { return record.contains(f); }))
    return false;
  for (const auto& [key, value] : rule.equals.items()) {
    auto it = record.find(key);
    if (it == record.end() || *it != value) return false;
  }
  return true;
}

// Whether a regular file holds one of `needles` in its first kContainsBytes, gzip undone. Read in chunks
// that overlap by the longest needle, so a string across a chunk boundary is found.
bool file_contains(const std::string& path, const std::vector<std::string>& needles) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return false;
  std::size_t longest = 0;
  for (const auto& n : needles) longest = std::max(longest, n.size());
  try {
    auto source = plugins::readers::open_byte_source(path);
    std::string window;
    std::vector<char> chunk(1u << 20);
    std::size_t total = 0;
    while (total < kContainsBytes) {
      const std::size_t got = source->read(chunk.data(), chunk.size());
      if (got == 0) break;
      total += got;
      window.append(chunk.data(), got);
      for (const auto& n : needles)
        if (window.find(n) != std::string::npos) return true;
      if (window.size() > longest) window.erase(0, window.size() - longest);
    }
  } catch (const std::exception&) {
    return false;  // unreadable or corrupt: it holds nothing the rule can see
  }
  return false;
}

void replace_all(std::string& text, std::string_view what, const std::string& with) {
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + with.size()))
    text.replace(at, what.size(), with);
}

std::string said(const MatchRule& rule, std::size_t count, const std::string& file,
                 const std::string& otherwise) {
  if (rule.says.empty()) return otherwise;
  std::string out = rule.says;
  replace_all(out, "{count}", std::to_string(count));
  replace_all(out, "{file}", file);
  return out;
}

}  // namespace

RunFolder::RunFolder(const PluginRegistry& registry, const std::string& path, std::size_t max_entries)
    : path_(path) {
  auto claim = [&](const std::string& entry) {
    const auto candidates = rank_readers(registry, entry);
    if (!candidates.empty()) claims_[candidates.front().entry->manifest().type].push_back(entry);
  };
  claim(path);
  std::error_code file_ec;
  if (fs::is_regular_file(path, file_ec)) {  // one file given: the "folder" is that file alone
    by_name_.emplace(fs::path(path).filename().string(), path);
    return;
  }
  // Breadth first, each level in name order: what is near the top is seen even in a large tree.
  std::vector<fs::path> entries;
  std::vector<fs::path> level{fs::path(path)};
  for (int depth = 0; depth < kDepth && !level.empty() && entries.size() < max_entries; ++depth) {
    std::vector<fs::path> next;
    for (const auto& dir : level) {
      std::vector<fs::path> children;
      std::error_code ec;
      for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        children.push_back(it->path());
      std::sort(children.begin(), children.end());
      for (auto& c : children) {
        if (entries.size() >= max_entries) break;
        std::error_code kind;
        if (fs::is_directory(c, kind) && !fs::is_symlink(c, kind)) next.push_back(c);
        entries.push_back(std::move(c));
      }
    }
    level = std::move(next);
  }
  for (const auto& e : entries) {
    std::error_code kind;
    if (fs::is_regular_file(e, kind)) by_name_.emplace(e.filename().string(), e.string());
    claim(e.string());
  }
}

std::size_t RunFolder::claimed_by(const std::string& reader) const {
  auto it = claims_.find(reader);
  return it == claims_.end() ? 0 : it->second.size();
}

std::vector<std::string> RunFolder::claimed_paths(const std::string& reader) const {
  auto it = claims_.find(reader);
  return it == claims_.end() ? std::vector<std::string>{} : it->second;
}

std::vector<std::string> RunFolder::named(const std::vector<std::string>& names) const {
  std::vector<std::string> out;
  for (const auto& n : names)
    for (auto [it, end] = by_name_.equal_range(n); it != end; ++it) out.push_back(it->second);
  return out;
}

std::optional<std::string> rule_holds(const MatchRule& rule, const RunFolder& folder) {
  // Files that hold one of the rule's strings, looked for in at most kContainsFiles of them.
  auto keep_containing = [&](std::vector<std::string>& paths) {
    if (rule.contains.empty()) return;
    std::vector<std::string> kept;
    for (std::size_t i = 0; i < paths.size() && i < kContainsFiles; ++i)
      if (file_contains(paths[i], rule.contains)) kept.push_back(paths[i]);
    paths = std::move(kept);
  };
  auto containing = [&]() {
    return rule.contains.empty() ? std::string()
                                 : fmt::format(" holding \"{}\"", fmt::join(rule.contains, "\" or \""));
  };
  if (!rule.reader.empty()) {
    std::vector<std::string> hits = folder.claimed_paths(rule.reader);
    if (hits.size() < rule.at_least) return std::nullopt;
    keep_containing(hits);
    const std::size_t n = hits.size();
    if (n < rule.at_least) return std::nullopt;
    return said(rule, n, fs::path(hits.front()).filename().string(),
                fmt::format("{} {} read by {}{}", n, n == 1 ? "file" : "files", rule.reader, containing()));
  }
  std::vector<std::string> hits = folder.named(rule.files);
  if (!rule.fields.empty() || !rule.equals.empty())
    std::erase_if(hits, [&](const std::string& p) { return !fields_hold(rule, first_record(p)); });
  if (hits.size() < rule.at_least) return std::nullopt;
  keep_containing(hits);
  if (hits.size() < rule.at_least) return std::nullopt;
  const std::string file = fs::path(hits.front()).filename().string();
  std::string what = file;
  if (!rule.fields.empty()) what += fmt::format(" has {}", fmt::join(rule.fields, " or "));
  if (!rule.equals.empty()) what += fmt::format(" has {}", rule.equals.dump());
  what += containing();
  return said(rule, hits.size(), file, what);
}

}  // namespace cann_debug::host
