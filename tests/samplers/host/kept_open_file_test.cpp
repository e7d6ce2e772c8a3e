// Tests of the samplers' kept-open files (sampler_support/sysfs_files): a file read many times a second
// is opened once, and still follows the path when the file behind it goes away or is replaced; and of the
// directory listings that hold such files between re-listings (sampler_support/relisted).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "cann_debug/sampler/relisted.hpp"
#include "cann_debug/sampler/sysfs_files.hpp"
#include "plugin_test_support.hpp"

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

TEST(KeptOpenFile, TextLongerThanManyBuffersReadsWholeAndShorterTextAfterIt) {
  TempDir dir;
  const std::string long_text(70'000, 'x');
  write_file(dir.path() / "meminfo", long_text);
  KeptOpenFile f((dir.path() / "meminfo").string());
  EXPECT_EQ(f.read(), long_text);
  write_file(dir.path() / "meminfo", "short\n");
  EXPECT_EQ(f.read(), "short\n");
  write_file(dir.path() / "meminfo", "");
  EXPECT_EQ(f.read(), "");
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

// An entry that counts how it was made: a kept entry is the same object moved, not a new one.
struct Made {
  std::string name;
  int serial = 0;
};

TEST(Relisted, KeepsListedEntriesMakesNewOnesDropsGoneOnesAndListsOnlyWhenDue) {
  std::vector<std::string> there = {"mlx5_0", "mlx5_1"};
  int lists = 0, made = 0;
  Relisted<Made> r;
  auto refresh = [&](std::int64_t now_ns) {
    r.refresh(
        now_ns, [&] { return ++lists, there; },
        [&](const std::string& name) {
          return Made{name, ++made};
        });
  };
  auto names = [&] {
    std::vector<std::pair<std::string, int>> out;
    for (const auto& e : r.entries()) out.emplace_back(e.name, e.serial);
    return out;
  };
  using Got = std::vector<std::pair<std::string, int>>;
  refresh(1);
  EXPECT_EQ(names(), (Got{{"mlx5_0", 1}, {"mlx5_1", 2}}));
  there = {"mlx5_1", "mlx5_2"};
  refresh(1 + kRelistIntervalNs - 1);  // not due: the listing is not looked at
  EXPECT_EQ(lists, 1);
  EXPECT_EQ(names(), (Got{{"mlx5_0", 1}, {"mlx5_1", 2}}));
  refresh(1 + kRelistIntervalNs);
  EXPECT_EQ(lists, 2);
  EXPECT_EQ(names(), (Got{{"mlx5_1", 2}, {"mlx5_2", 3}})) << "mlx5_1 kept, mlx5_2 new, mlx5_0 dropped";
  there = {"mlx5_0"};
  refresh(1 + 2 * kRelistIntervalNs);
  EXPECT_EQ(names(), (Got{{"mlx5_0", 4}})) << "a name that comes back is a new entry";
  r.forget();
  EXPECT_TRUE(r.entries().empty());
  refresh(2 + 2 * kRelistIntervalNs);  // due again at once
  EXPECT_EQ(names(), (Got{{"mlx5_0", 5}}));
}

}  // namespace
}  // namespace cann_debug::plugins::sampler_support
