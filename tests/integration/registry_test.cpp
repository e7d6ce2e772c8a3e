// PluginRegistry against the fixture packages: good ones load, and each kind of bad package is refused
// (or skipped) with a message that says what is wrong and how to fix it.
#include <gmock/gmock.h>

#include <gtest/gtest.h>
#include <filesystem>

#include <fmt/format.h>

#include "cann_debug/abi.hpp"
#include "fixtures.hpp"

namespace cann_debug::itest {
namespace {

using ::testing::HasSubstr;

std::string only_problem(const host::PluginRegistry& r) {
  EXPECT_EQ(r.problems().size(), 1u);
  return r.problems().empty() ? std::string() : r.problems().front().message;
}

TEST(PluginRegistry, LoadsEveryComponentOfTheGoodPackages) {
  auto r = good_registry();
  const std::vector<std::string> expected = {"collect_sink", "counter_source", "flush_buffer",
                                             "needs_chip",   "passthrough",    "slow_sink",
                                             "tagger",       "throw_on",       "ticker"};
  EXPECT_EQ(r->types(), expected);
  ASSERT_EQ(r->packages().size(), 2u);
  // Files are loaded in name order: cdp_fixture_extra.so before cdp_fixture_good.so.
  EXPECT_EQ(r->packages()[0]->name, "fixture_extra");
  EXPECT_EQ(r->packages()[1]->name, "fixture_good");
  EXPECT_EQ(r->packages()[1]->version, "1.0.0");
  EXPECT_EQ(r->packages()[1]->stamp.abi_major, CANN_DEBUG_ABI_MAJOR);
  const auto* tagger = r->find("tagger");
  ASSERT_NE(tagger, nullptr);
  EXPECT_EQ(tagger->package->name, "fixture_extra");
  EXPECT_EQ(tagger->manifest().type, "tagger");
  EXPECT_EQ(r->find("counter_source")->package->name, "fixture_good");
  EXPECT_EQ(r->find("no_such_type"), nullptr);
}

TEST(PluginRegistry, LoadingAPackageTwiceKeepsOneCopy) {
  auto r = good_registry();
  EXPECT_TRUE(r->load_package(fixture_package("good", "fixture_good")));
  EXPECT_EQ(r->packages().size(), 2u);
  EXPECT_TRUE(r->problems().empty());
}

TEST(PluginRegistry, RefusesAWrongAbiMajorNamingBothVersionsAndTheFix) {
  host::PluginRegistry r;
  EXPECT_FALSE(r.load_package(fixture_package("bad_abi", "fixture_bad_abi")));
  const std::string msg = only_problem(r);
  EXPECT_THAT(msg, HasSubstr("ABI 99.0"));
  EXPECT_THAT(msg, HasSubstr(fmt::format("ABI {}.{}", CANN_DEBUG_ABI_MAJOR, CANN_DEBUG_ABI_MINOR)));
  EXPECT_THAT(msg, HasSubstr("rebuild"));
  EXPECT_TRUE(r.packages().empty());
  EXPECT_TRUE(r.types().empty());
}

TEST(PluginRegistry, DirectoryScanReportsAWrongAbiToo) {
  host::PluginRegistry r;
  r.load_from({fixture_dir("bad_abi")});
  EXPECT_THAT(only_problem(r), HasSubstr("99.0"));
  EXPECT_TRUE(r.packages().empty());
}

TEST(PluginRegistry, RefusesAPackageWithoutItsAccessorNamingTheSymbol) {
  host::PluginRegistry r;
  EXPECT_FALSE(r.load_package(fixture_package("no_accessor", "fixture_no_accessor")));
  const std::string msg = only_problem(r);
  EXPECT_THAT(msg, HasSubstr("cann_debug_package_v1"));
  EXPECT_THAT(msg, HasSubstr("CANN_DEBUG_PACKAGE"));
  EXPECT_TRUE(r.packages().empty());
}

TEST(PluginRegistry, SkipsAPlainSharedObjectInADirectoryScan) {
  host::PluginRegistry r;
  r.load_from({fixture_dir("no_stamp")});
  EXPECT_TRUE(r.problems().empty());
  EXPECT_TRUE(r.packages().empty());
  EXPECT_EQ(r.searched(), std::vector<std::string>{fixture_dir("no_stamp")});
}

TEST(PluginRegistry, RefusesAPlainSharedObjectLoadedExplicitly) {
  host::PluginRegistry r;
  EXPECT_FALSE(r.load_package(fixture_package("no_stamp", "fixture_no_stamp")));
  const std::string msg = only_problem(r);
  EXPECT_THAT(msg, HasSubstr("not a cann-debug package"));
  EXPECT_THAT(msg, HasSubstr(CANN_DEBUG_ABI_SECTION));
  EXPECT_TRUE(r.packages().empty());
}

TEST(PluginRegistry, AFileNamedInThePathIsLoadedEvenWhenItIsRefused) {
  host::PluginRegistry r;
  r.load_from({fixture_package("no_stamp", "fixture_no_stamp")});
  EXPECT_THAT(only_problem(r), HasSubstr("not a cann-debug package"));
}

TEST(PluginRegistry, RefusesAFileThatIsNotElf) {
  host::PluginRegistry r;
  EXPECT_FALSE(r.load_package((std::filesystem::path(CANN_DEBUG_SOURCE_DIR) / "CMakeLists.txt").string()));
  EXPECT_THAT(only_problem(r), HasSubstr("not an ELF file"));
}

TEST(PluginRegistry, MissingDirectoriesAreSkipped) {
  host::PluginRegistry r;
  r.load_from({fixture_dir("does_not_exist")});
  EXPECT_TRUE(r.problems().empty());
  EXPECT_TRUE(r.packages().empty());
}

TEST(PluginRegistry, GoodPackagesLoadNextToRefusedOnes) {
  host::PluginRegistry r;
  r.load_from(
      {fixture_dir("bad_abi"), fixture_dir("no_accessor"), fixture_dir("no_stamp"), fixture_dir("good")});
  EXPECT_EQ(r.problems().size(), 2u);  // bad_abi and no_accessor; the plain .so is skipped
  EXPECT_EQ(r.packages().size(), 2u);
  EXPECT_NE(r.find("counter_source"), nullptr);
}

}  // namespace
}  // namespace cann_debug::itest
