// Tests that drive the real cann-debug binary: each test gets a scratch folder of its own (removed after
// it) and runs the binary there as a child process.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "child_process.hpp"

namespace cann_debug::testing {

inline const std::string kCannDebugBinary = std::string(CANN_DEBUG_BINARY_DIR) + "/bin/cann-debug";

/// Every line of a JSON-lines file, parsed (blank lines skipped).
/// The complete lines of a JSON-lines file. A last line without its newline is one a running writer is
/// still writing (its buffer flushed mid-line): it is left out, not parsed.
inline std::vector<nlohmann::json> read_jsonl(const std::filesystem::path& file) {
  std::vector<nlohmann::json> rows;
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (in.eof()) break;  // no newline after it: incomplete
    if (!line.empty()) rows.push_back(nlohmann::json::parse(line));
  }
  return rows;
}

class CliTest : public ::testing::Test {
 protected:
  /// `prefix` names the scratch folders of this fixture: <tmp>/cann_debug_<prefix>_<test>_<pid>.
  explicit CliTest(std::string prefix) : prefix_(std::move(prefix)) {}

  void SetUp() override {
    scratch_ = std::filesystem::temp_directory_path() /
               ("cann_debug_" + prefix_ + "_" +
                std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
                std::to_string(getpid()));
    std::filesystem::remove_all(scratch_);
    std::filesystem::create_directories(scratch_);
  }
  void TearDown() override { std::filesystem::remove_all(scratch_); }

  /// Starts cann-debug with `args` in the scratch folder (child_ keeps it and its output).
  ChildProcess& start(std::vector<std::string> args) {
    args.insert(args.begin(), kCannDebugBinary);
    child_ = std::make_unique<ChildProcess>(args, scratch_);
    EXPECT_TRUE(child_->started());
    return *child_;
  }
  /// Runs cann-debug with `args` to its end; returns the exit code.
  int run(std::vector<std::string> args, std::chrono::seconds timeout = std::chrono::seconds(60)) {
    return start(std::move(args)).wait(timeout);
  }

  std::filesystem::path scratch_;
  std::unique_ptr<ChildProcess> child_;

 private:
  std::string prefix_;
};

}  // namespace cann_debug::testing
