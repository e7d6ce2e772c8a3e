// abi_incompatibility (GStreamer's rule: same major, package minor <= host minor, same C++ runtime),
// parse_abi_stamp and describe.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

#include <fmt/format.h>

#include "abi_check.hpp"

namespace cann_debug::host {
namespace {

using ::testing::HasSubstr;

cann_debug_abi_stamp host_stamp() {
  return current_abi_stamp();
}
std::string abi(int major, int minor) {
  return fmt::format("ABI {}.{}", major, minor);
}
const std::string kHostAbi = abi(CANN_DEBUG_ABI_MAJOR, CANN_DEBUG_ABI_MINOR);

cann_debug_abi_stamp package(std::uint16_t major, std::uint16_t minor,
                             const char* stdlib = CANN_DEBUG_STDLIB) {
  cann_debug_abi_stamp s = current_abi_stamp("pkg", "2.0.0");
  s.abi_major = major;
  s.abi_minor = minor;
  std::memset(s.stdlib, 0, sizeof s.stdlib);
  std::strncpy(s.stdlib, stdlib, sizeof s.stdlib - 1);
  return s;
}

TEST(AbiCheck, SameStampIsCompatible) {
  EXPECT_EQ(abi_incompatibility(host_stamp(), host_stamp()), "");
}

TEST(AbiCheck, OlderMinorIsCompatible) {
  cann_debug_abi_stamp host = host_stamp();
  host.abi_minor = 3;
  EXPECT_EQ(abi_incompatibility(package(CANN_DEBUG_ABI_MAJOR, 2), host), "");
}

TEST(AbiCheck, MajorMismatchNamesBothVersionsAndTheFix) {
  const std::string newer = abi_incompatibility(package(CANN_DEBUG_ABI_MAJOR + 1, 0), host_stamp());
  EXPECT_THAT(newer, HasSubstr("ABI major versions differ"));
  EXPECT_THAT(newer, HasSubstr("package built for " + abi(CANN_DEBUG_ABI_MAJOR + 1, 0)));
  EXPECT_THAT(newer, HasSubstr("host is " + kHostAbi));
  EXPECT_THAT(newer, HasSubstr("upgrade cann-debug"));
  EXPECT_THAT(newer, HasSubstr("rebuild the package against SDK " CANN_DEBUG_SDK_VERSION));

  const std::string older = abi_incompatibility(package(0, 9), host_stamp());
  EXPECT_THAT(older, HasSubstr("package built for ABI 0.9"));
  EXPECT_THAT(older, HasSubstr(fmt::format("rebuild the package against cann-debug SDK {} (ABI {}.x)",
                                           CANN_DEBUG_SDK_VERSION, CANN_DEBUG_ABI_MAJOR)));
  EXPECT_THAT(older, ::testing::Not(HasSubstr("upgrade")));
}

TEST(AbiCheck, APackageOfTheLastAbi1ReleaseIsToldToRebuild) {
  // ABI 2 (probe(const Config&), HostServices&) changed the factory's vtable: a 1.2 package cannot load.
  const std::string why = abi_incompatibility(package(1, 2), host_stamp());
  EXPECT_THAT(why, HasSubstr("ABI major versions differ: package built for ABI 1.2"));
  EXPECT_THAT(why, HasSubstr(fmt::format("rebuild the package against cann-debug SDK {} (ABI {}.x)",
                                         CANN_DEBUG_SDK_VERSION, CANN_DEBUG_ABI_MAJOR)));
}

TEST(AbiCheck, NewerMinorNeedsANewerHost) {
  const std::string why =
      abi_incompatibility(package(CANN_DEBUG_ABI_MAJOR, CANN_DEBUG_ABI_MINOR + 1), host_stamp());
  EXPECT_THAT(why, HasSubstr("the package needs a newer host"));
  EXPECT_THAT(why, HasSubstr(abi(CANN_DEBUG_ABI_MAJOR, CANN_DEBUG_ABI_MINOR + 1)));
  EXPECT_THAT(why, HasSubstr("host is " + kHostAbi));
}

TEST(AbiCheck, OtherStandardLibraryIsRefused) {
  const std::string why = abi_incompatibility(package(CANN_DEBUG_ABI_MAJOR, 0, "libc++ 1"), host_stamp());
  EXPECT_THAT(why, HasSubstr("it uses another C++ runtime"));
  EXPECT_THAT(why, HasSubstr("libc++ 1"));
  EXPECT_THAT(why, HasSubstr(CANN_DEBUG_STDLIB));
  EXPECT_THAT(why, HasSubstr("with the same C++ runtime"));
}

TEST(AbiCheck, CompilerAloneDoesNotMatter) {
  cann_debug_abi_stamp p = host_stamp();
  std::strcpy(p.compiler, "clang 99");
  EXPECT_EQ(abi_incompatibility(p, host_stamp()), "");
}

TEST(AbiCheck, DescribeNamesEveryField) {
  EXPECT_EQ(describe(host_stamp()),
            kHostAbi + " (SDK " CANN_DEBUG_SDK_VERSION ", " CANN_DEBUG_COMPILER ", " CANN_DEBUG_STDLIB ")");
}

std::vector<unsigned char> bytes_of(const cann_debug_abi_stamp& s,
                                    std::size_t n = sizeof(cann_debug_abi_stamp)) {
  const auto* p = reinterpret_cast<const unsigned char*>(&s);
  return {p, p + n};
}

TEST(ParseAbiStamp, ReadsAStamp) {
  cann_debug_abi_stamp out{};
  std::string err;
  ASSERT_TRUE(parse_abi_stamp(bytes_of(package(1, 0)), out, err)) << err;
  EXPECT_EQ(out.abi_major, 1);
  EXPECT_STREQ(out.package, "pkg");
  EXPECT_STREQ(out.package_version, "2.0.0");
}

TEST(ParseAbiStamp, AShorterStampFromAnOlderSdkKeepsTheFrozenFields) {
  cann_debug_abi_stamp out{};
  std::string err;
  ASSERT_TRUE(parse_abi_stamp(bytes_of(package(1, 0), 16), out, err)) << err;
  EXPECT_EQ(out.abi_major, 1);
  EXPECT_STREQ(out.sdk_version, "");
}

TEST(ParseAbiStamp, RefusesTruncatedOrForeignBytes) {
  cann_debug_abi_stamp out{};
  std::string err;
  EXPECT_FALSE(parse_abi_stamp(bytes_of(package(1, 0), 8), out, err));
  EXPECT_EQ(err, "ABI stamp is 8 bytes, expected at least 12");
  cann_debug_abi_stamp foreign = package(1, 0);
  foreign.magic = 0x12345678;
  EXPECT_FALSE(parse_abi_stamp(bytes_of(foreign), out, err));
  EXPECT_EQ(err, "ABI stamp has magic 0x12345678, expected 0x43444247");
}

}  // namespace
}  // namespace cann_debug::host
