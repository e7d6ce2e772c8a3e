#include "ascend_files/profiler_tree.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cann_debug/reader/parse_error.hpp"
#include "cann_debug/reader/text.hpp"

namespace cann_debug::plugins::ascend {
namespace fs = std::filesystem;
namespace {

constexpr std::string_view kOutputDir = "ASCEND_PROFILER_OUTPUT";
constexpr std::string_view kClusterDir = "cluster_analysis_output";

bool is_worker_name(std::string_view name) {
  return name.ends_with("_ascend_pt") || name.ends_with("_ascend_ms");
}

void add_files_of(const fs::path& dir, bool cluster, std::int32_t rank, const std::string& worker,
                  std::vector<ProfilerFile>& out) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, fs::directory_options::skip_permission_denied, ec)) {
    if (!entry.is_regular_file(ec)) continue;
    const std::string name = entry.path().filename().string();
    if (cluster != name.starts_with("cluster_")) continue;
    if (auto kind = kind_from_file_name(name))
      out.push_back({entry.path().string(), *kind, rank, cluster, worker});
  }
}

int kind_order(AscendFileKind k) {
  return static_cast<int>(k);
}

}  // namespace

std::int32_t worker_rank(const std::string& worker_dir) {
  static const std::regex info_re(R"(^profiler_info_(\d{1,7})\.json$)");
  static const std::regex name_re(R"((?:^|[^a-z])rank[_-]?(\d{1,7})(?:[^0-9]|$))", std::regex::icase);
  std::error_code ec;
  std::vector<fs::path> infos;
  for (const auto& entry :
       fs::directory_iterator(worker_dir, fs::directory_options::skip_permission_denied, ec)) {
    const std::string name = entry.path().filename().string();
    std::smatch m;
    if (std::regex_match(name, m, info_re)) return static_cast<std::int32_t>(std::stol(m[1].str()));
    if (name.starts_with("profiler_info") && name.ends_with(".json")) infos.push_back(entry.path());
  }
  for (const auto& info : infos) {
    std::ifstream in(info, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    const auto j = nlohmann::json::parse(s.str(), nullptr, false);
    if (j.is_object())
      if (auto it = j.find("rank_id");
          it != j.end() && it->is_number_integer() && it->get<std::int64_t>() >= 0)
        return static_cast<std::int32_t>(it->get<std::int64_t>());
  }
  std::smatch m;
  const std::string name = fs::path(worker_dir).filename().string();
  if (std::regex_search(name, m, name_re)) return static_cast<std::int32_t>(std::stol(m[1].str()));
  return -1;
}

std::vector<ProfilerFile> find_profiler_files(const std::string& root, int max_depth, bool none_is_fine) {
  std::vector<ProfilerFile> files;
  std::map<std::int32_t, std::string> rank_owner;
  auto add_worker = [&](const fs::path& worker, const fs::path& output) {
    const std::int32_t rank = worker_rank(worker.string());
    if (rank >= 0) {
      auto [it, fresh] = rank_owner.emplace(rank, worker.string());
      if (!fresh)
        readers::fail_file(
            root, fmt::format("expected one profiler folder per rank, but rank {} is claimed by {} and {}",
                              rank, it->second, worker.string()));
    }
    add_files_of(output, false, rank, worker.string(), files);
  };

  std::error_code ec;
  const fs::path top(root);
  if (fs::is_regular_file(top, ec)) {
    // One profiler file named on its own (diagnose --input .../kernel_details.csv): its worker folder, when
    // it sits in one, still gives the rank.
    const std::string name = top.filename().string();
    if (const auto kind = kind_from_file_name(name)) {
      const bool cluster = name.starts_with("cluster_");
      const fs::path parent = top.parent_path();
      const bool in_output = !cluster && parent.filename() == kOutputDir;
      files.push_back({top.string(), *kind, in_output ? worker_rank(parent.parent_path().string()) : -1,
                       cluster, in_output ? parent.parent_path().string() : ""});
    } else if (!none_is_fine) {
      readers::fail_file(root,
                         "expected an Ascend profiler file (kernel_details.csv, step_trace_time.csv, "
                         "communication.json, ...) or a folder holding them");
    }
  } else if (top.filename() == kOutputDir) {
    add_worker(top.parent_path(), top);
  } else if (top.filename() == kClusterDir) {
    add_files_of(top, true, -1, "", files);
  } else {
    fs::recursive_directory_iterator it(top, fs::directory_options::skip_permission_denied, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
      const auto& entry = *it;
      if (!entry.is_directory(ec)) continue;
      const std::string name = entry.path().filename().string();
      if (name == kOutputDir) {
        add_worker(entry.path().parent_path(), entry.path());
        it.disable_recursion_pending();
      } else if (name == kClusterDir) {
        add_files_of(entry.path(), true, -1, "", files);
        it.disable_recursion_pending();
      } else if (name.starts_with("PROF_") || name == "FRAMEWORK" || name == "logs" ||
                 it.depth() >= max_depth) {
        it.disable_recursion_pending();  // msprof raw data: not ours, and large
      }
    }
  }
  if (files.empty() && !none_is_fine)
    readers::fail_file(
        root, fmt::format("expected *_ascend_pt/{}/ or {}/ folders with profiler files (kernel_details.csv, "
                          "step_trace_time.csv, communication.json, ...), found none",
                          kOutputDir, kClusterDir));
  std::stable_sort(files.begin(), files.end(), [](const ProfilerFile& a, const ProfilerFile& b) {
    if (a.cluster != b.cluster) return !a.cluster;
    if (a.rank != b.rank) return a.rank < b.rank;
    if (a.worker != b.worker) return a.worker < b.worker;
    if (a.kind != b.kind) return kind_order(a.kind) < kind_order(b.kind);
    return a.path < b.path;
  });
  return files;
}

int sniff_profiler_dir(const std::string& dir) {
  std::error_code ec;
  const fs::path top(dir);
  if (top.filename() == kOutputDir) return 90;
  if (top.filename() == kClusterDir) return 85;
  if (fs::is_directory(top / kOutputDir, ec)) return 95;
  int budget = 2000;  // entries looked at, so a huge folder costs little
  int best = 0;
  for (const auto& entry : fs::directory_iterator(top, fs::directory_options::skip_permission_denied, ec)) {
    if (--budget < 0) break;
    if (!entry.is_directory(ec)) continue;
    const auto name = entry.path().filename().string();
    if (name == kClusterDir) best = std::max(best, 90);
    if (fs::is_directory(entry.path() / kOutputDir, ec)) {
      best = std::max(best, is_worker_name(name) ? 95 : 90);
      continue;
    }
    for (const auto& sub :
         fs::directory_iterator(entry.path(), fs::directory_options::skip_permission_denied, ec)) {
      if (--budget < 0) break;
      if (sub.is_directory(ec) && fs::is_directory(sub.path() / kOutputDir, ec)) best = std::max(best, 85);
    }
  }
  return best;
}

}  // namespace cann_debug::plugins::ascend
