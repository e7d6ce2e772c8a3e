#include "abi_check.hpp"

#include <cstring>
#include <fmt/format.h>

namespace cann_debug::host {

namespace {
std::string field(const char* p, std::size_t cap) { return std::string(p, strnlen(p, cap)); }
}  // namespace

bool parse_abi_stamp(const std::vector<unsigned char>& bytes, cann_debug_abi_stamp& out, std::string& error) {
  constexpr std::size_t kFrozen = 12;  // magic, abi_major, abi_minor, struct_size
  if (bytes.size() < kFrozen) {
    error = fmt::format("ABI stamp is {} bytes, expected at least {}", bytes.size(), kFrozen);
    return false;
  }
  out = {};
  std::memcpy(&out, bytes.data(), std::min(bytes.size(), sizeof out));
  if (out.magic != CANN_DEBUG_ABI_MAGIC) {
    error = fmt::format("ABI stamp has magic 0x{:08x}, expected 0x{:08x}", out.magic, CANN_DEBUG_ABI_MAGIC);
    return false;
  }
  return true;
}

std::string describe(const cann_debug_abi_stamp& s) {
  return fmt::format("ABI {}.{} (SDK {}, {}, {})", s.abi_major, s.abi_minor, field(s.sdk_version, sizeof s.sdk_version),
                     field(s.compiler, sizeof s.compiler), field(s.stdlib, sizeof s.stdlib));
}

std::string abi_incompatibility(const cann_debug_abi_stamp& package, const cann_debug_abi_stamp& host) {
  std::string why;
  if (package.abi_major != host.abi_major) {
    why = "ABI major versions differ";
  } else if (package.abi_minor > host.abi_minor) {
    why = "the package needs a newer host";
  } else if (field(package.stdlib, sizeof package.stdlib) != field(host.stdlib, sizeof host.stdlib)) {
    why = "it uses another C++ runtime";
  } else {
    return {};
  }
  std::string fix = package.abi_major > host.abi_major || (package.abi_major == host.abi_major && package.abi_minor > host.abi_minor)
                        ? fmt::format("upgrade cann-debug to a release with ABI {}.{}, or rebuild the package against "
                                      "SDK {} (ABI {}.x)",
                                      package.abi_major, package.abi_minor, field(host.sdk_version, sizeof host.sdk_version),
                                      host.abi_major)
                        : fmt::format("rebuild the package against cann-debug SDK {} (ABI {}.x) with the same C++ runtime",
                                      field(host.sdk_version, sizeof host.sdk_version), host.abi_major);
  return fmt::format("{}: package built for {}, host is {}; {}", why, describe(package), describe(host), fix);
}

}  // namespace cann_debug::host
