// read_elf_section reads a named section from a file without loading it.
#include <gtest/gtest.h>

#include <fstream>

#include "elf_section.hpp"

namespace cann_debug::host {
namespace {

TEST(ElfSection, ReadsASectionOfThisExecutable) {
  const auto r = read_elf_section("/proc/self/exe", ".comment");
  EXPECT_EQ(r.error, "");
  ASSERT_TRUE(r.bytes.has_value());
  EXPECT_FALSE(r.bytes->empty());
}

TEST(ElfSection, AbsentSectionIsNotAnError) {
  const auto r = read_elf_section("/proc/self/exe", ".cann_debug_abi");
  EXPECT_EQ(r.error, "");
  EXPECT_FALSE(r.bytes.has_value());
}

TEST(ElfSection, NonElfAndMissingFilesAreErrors) {
  EXPECT_EQ(read_elf_section(CANN_DEBUG_SOURCE_DIR "/CMakeLists.txt", ".text").error, "not an ELF file");
  EXPECT_NE(read_elf_section("/nonexistent.so", ".text").error.find("cannot open"), std::string::npos);
}

TEST(ElfSection, TruncatedElfIsAnErrorNotACrash) {
  std::ifstream in("/proc/self/exe", std::ios::binary);
  std::string head(64, '\0');
  in.read(head.data(), 64);  // the ELF header only: the section table lies beyond the end
  const std::string path = ::testing::TempDir() + "/truncated.so";
  std::ofstream(path, std::ios::binary).write(head.data(), 64);
  const auto r = read_elf_section(path, ".text");
  EXPECT_FALSE(r.bytes.has_value());
  EXPECT_NE(r.error.find("runs past the end"), std::string::npos) << r.error;
}

}  // namespace
}  // namespace cann_debug::host
