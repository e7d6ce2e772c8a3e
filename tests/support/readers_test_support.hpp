// Helpers of the reader tests: fixture and shared-data paths, temporary files, running a reader to its
// end, and finding what it emitted.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cann_debug/messages.hpp"
#include "cann_debug/testing.hpp"

namespace cann_debug::readers_test {

namespace fs = std::filesystem;

/// tests/data/readers of the source tree.
inline fs::path data_dir() {
  return fs::path(CANN_DEBUG_SOURCE_DIR) / "tests" / "data" / "readers";
}
inline std::string fixture(std::string_view relative) {
  return (data_dir() / relative).string();
}

/// ../shared/real (empty when absent: callers GTEST_SKIP).
inline fs::path real_dir() {
  return fs::path(CANN_DEBUG_SHARED_DIR) / "real";
}
inline bool have_real(std::string_view relative) {
  std::error_code ec;
  return fs::exists(real_dir() / relative, ec);
}
inline std::string real(std::string_view relative) {
  return (real_dir() / relative).string();
}

class TempDir {
 public:
  explicit TempDir(std::string_view tag = "readers") {
    static std::atomic<int> counter{0};
    path_ = fs::temp_directory_path() /
            (std::string(tag) + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }
  std::string operator/(std::string_view name) const { return (path_ / name).string(); }

  /// Writes `content` to `name` (folders created) and returns the path.
  std::string write(std::string_view name, std::string_view content) const {
    const fs::path p = path_ / name;
    fs::create_directories(p.parent_path());
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    return p.string();
  }

 private:
  fs::path path_;
};

inline std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Runs a reader to its end; the error it threw ("" if none).
inline std::string run(testing::Harness& h) {
  try {
    h.run_source();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return {};
}

inline std::vector<RecordBatch> record_batches(const testing::Harness& h) {
  std::vector<RecordBatch> out;
  for (const auto& [port, env] : h.out.emitted)
    if (env.is<RecordBatch>()) out.push_back(env.as<RecordBatch>());
  return out;
}

inline std::vector<Record> records(const testing::Harness& h) {
  std::vector<Record> out;
  for (const auto& b : record_batches(h)) out.insert(out.end(), b.records.begin(), b.records.end());
  return out;
}

inline std::vector<MetricPoint> metrics(const testing::Harness& h) {
  std::vector<MetricPoint> out;
  for (const auto& [port, env] : h.out.emitted)
    if (env.is<MetricBatch>() || env.is<MetricFrame>())
      for (const auto& p : metric_points_of(env).points) out.push_back(p);
  return out;
}

/// Points named `name` whose labels include every one of `labels`.
inline std::vector<MetricPoint> find(const std::vector<MetricPoint>& points, std::string_view name,
                                     const Labels& labels = {}) {
  std::vector<MetricPoint> out;
  for (const auto& p : points) {
    if (p.name != name) continue;
    bool all = true;
    for (const auto& [k, v] : labels) {
      auto it = p.labels.find(k);
      all = all && it != p.labels.end() && it->second == v;
    }
    if (all) out.push_back(p);
  }
  return out;
}

/// The one point named `name` with `labels`; throws when there is not exactly one.
inline MetricPoint one(const std::vector<MetricPoint>& points, std::string_view name,
                       const Labels& labels = {}) {
  auto found = find(points, name, labels);
  if (found.size() != 1)
    throw std::runtime_error("expected one point " + std::string(name) + ", found " +
                             std::to_string(found.size()));
  return found.front();
}

/// A malformed input and the error it must give. `expected` is the message after "<path>:".
struct BadInput {
  std::string name;
  std::string content;
  std::string expected;
};

/// Runs `factory` on a file holding `bad.content` and checks the bad-input contract: the error is exactly
/// "<path>:<expected>", and a reader with a "records" port emitted a last batch with partial=true and the
/// same error. Returns "" when all holds, else what did not (for EXPECT_EQ(..., "") << bad.name).
inline std::string check_bad_input(const ComponentFactory& factory, nlohmann::json options,
                                   const BadInput& bad, const TempDir& dir, std::string_view file_name) {
  const std::string path = dir.write(bad.name + "/" + std::string(file_name), bad.content);
  options["path"] = path;
  testing::Harness h(factory, options);
  const std::string error = run(h);
  std::string problems;
  if (error != path + ":" + bad.expected)
    problems += "\n  error:    " + error + "\n  expected: " + path + ":" + bad.expected;
  if (factory.manifest().output_index("records") >= 0) {
    const auto batches = record_batches(h);
    if (batches.empty() || !batches.back().partial || batches.back().error != error)
      problems += "\n  the last record batch is not partial with the error";
  }
  for (const auto& b : record_batches(h)) (void)nlohmann::json(b).dump();  // the JSON form must be writable
  return problems;
}

}  // namespace cann_debug::readers_test
