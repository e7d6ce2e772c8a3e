// Every package this tree ships loads, and every component in it has a sound manifest with a one-line
// description, and its package has the README that `cann-debug inspect TYPE --readme` prints.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "cann_debug/manifest.hpp"
#include "plugin_registry.hpp"

namespace cann_debug::itest {
namespace {

namespace fs = std::filesystem;
using ::testing::IsEmpty;

TEST(ShippedPlugins, LoadWithSoundOneLineManifestsAndAReadmeEach) {
  const fs::path dir = fs::path(CANN_DEBUG_BINARY_DIR) / "lib/cann-debug/plugins";
  if (!fs::is_directory(dir)) GTEST_SKIP() << "no plugins built in " << dir;
  host::PluginRegistry registry;
  registry.load_from({dir.string()});
  for (const auto& p : registry.problems()) ADD_FAILURE() << p.path << ": " << p.message;
  ASSERT_GE(registry.components().size(), 30u);
  for (const auto& [type, entry] : registry.components()) {
    SCOPED_TRACE(type);
    EXPECT_THAT(check_manifest(entry.manifest()), IsEmpty());
    EXPECT_THAT(manifest_style_problems(entry.manifest()), IsEmpty());
    fs::path readme(entry.package->path);
    readme.replace_filename(readme.stem().string() + ".README.md");
    EXPECT_TRUE(fs::is_regular_file(readme)) << readme;
  }
}

}  // namespace
}  // namespace cann_debug::itest
