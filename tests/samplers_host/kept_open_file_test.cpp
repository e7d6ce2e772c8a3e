// Tests of the samplers' kept-open files (sampler_support/sysfs_files): a file read many times a second
// is opened once, and still follows the path when the file behind it goes away or is replaced.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "sampler_support/sysfs_files.hpp"
#include "test_support.hpp"

namespace cann_debug::plugins::sampler_support {
namespace {

namespace fs = std::filesystem;
using test::TempDir;
using test::write_file;

TEST(KeptOpenFile, ReadsTheWholeTextAgainAfterItGrew) {
  TempDir dir;
  write_file(dir.path() / "stat", "cpu 1 2 3\n");
  KeptOpenFile f((dir.path() / "stat").string());
  ASSERT_EQ(f.read().value(), "cpu 1 2 3\n");
  const std::string big(10000, 'x');  // past the first buffer: the read goes on until a short one
  write_file(dir.path() / "stat", big);
  ASSERT_EQ(f.read().value(), big);
}

TEST(KeptOpenFile, ReplaceableFileFollowsThePathWhenTheFileIsReplacedOrRemoved) {
  TempDir dir;
  const fs::path path = dir.path() / "proc/42/stat";
  write_file(path, "42 (old) S\n");
  KeptOpenFile plain(path.string()), replaceable(path.string(), true);
  ASSERT_EQ(plain.read().value(), "42 (old) S\n");
  ASSERT_EQ(replaceable.read().value(), "42 (old) S\n");

  // Another process took the pid: a new file at the same path (the old one unlinked).
  fs::remove(path);
  write_file(path, "42 (new) R\n");
  EXPECT_EQ(replaceable.read().value(), "42 (new) R\n");
  EXPECT_EQ(plain.read().value(), "42 (old) S\n") << "without the flag the open file is read, as documented";

  fs::remove_all(dir.path() / "proc/42");  // the process exited
  EXPECT_FALSE(replaceable.read().has_value());
}

TEST(KeptOpenFile, ProcfsFileOfAProcessThatExitedCannotBeRead) {
  if (!fs::exists("/proc/self/stat")) GTEST_SKIP() << "no /proc here";
  const pid_t child = ::fork();
  if (child == 0) {
    ::pause();
    ::_exit(0);
  }
  ASSERT_GT(child, 0);
  KeptOpenFile f("/proc/" + std::to_string(child) + "/stat", true);
  const auto first = f.read();
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->substr(0, std::to_string(child).size()), std::to_string(child));
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  EXPECT_FALSE(f.read().has_value()) << "the kept descriptor of a reaped process must not give its old text";
}

TEST(AttributeFile, ReadsOneNumberAgainAndGivesNothingForText) {
  TempDir dir;
  write_file(dir.path() / "rx_bytes", "123\n");
  AttributeFile f((dir.path() / "rx_bytes").string());
  EXPECT_EQ(f.read_u64(), 123u);
  write_file(dir.path() / "rx_bytes", "0x10\n");
  EXPECT_EQ(f.read_u64(), 16u);
  write_file(dir.path() / "rx_bytes", "N/A\n");
  EXPECT_FALSE(f.read_u64().has_value());
  AttributeFile missing((dir.path() / "nothing").string());
  EXPECT_FALSE(missing.read_u64().has_value());
}

}  // namespace
}  // namespace cann_debug::plugins::sampler_support
