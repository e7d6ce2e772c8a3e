// The ABI stamp every cann-debug plugin package carries.
//
// The stamp is a plain C struct placed in its own ELF section (`.cann_debug_abi`), so the host can read
// it straight from the file, without loading the library or running any of its code. It is filled from
// the SDK headers by CANN_DEBUG_PACKAGE, so it cannot disagree with the headers the plugin was built with.
#pragma once

#include <cstdint>

#define CANN_DEBUG_ABI_MAGIC 0x43444247u /* "CDBG" */
#define CANN_DEBUG_ABI_MAJOR 2
#define CANN_DEBUG_ABI_MINOR 0
#define CANN_DEBUG_SDK_VERSION "0.2.0"
#define CANN_DEBUG_ABI_SECTION ".cann_debug_abi"

#define CANN_DEBUG_STR2(x) #x
#define CANN_DEBUG_STR(x) CANN_DEBUG_STR2(x)

#if defined(__clang__)
#define CANN_DEBUG_COMPILER "clang " CANN_DEBUG_STR(__clang_major__)
#elif defined(__GNUC__)
#define CANN_DEBUG_COMPILER "gcc " CANN_DEBUG_STR(__GNUC__)
#else
#define CANN_DEBUG_COMPILER "unknown"
#endif

// The C++ runtime is what must match: objects, strings and exceptions cross the package boundary.
#if defined(_LIBCPP_VERSION)
#define CANN_DEBUG_STDLIB "libc++ " CANN_DEBUG_STR(_LIBCPP_ABI_VERSION)
#elif defined(__GLIBCXX__)
#define CANN_DEBUG_STDLIB "libstdc++ cxx11abi=" CANN_DEBUG_STR(_GLIBCXX_USE_CXX11_ABI)
#else
#define CANN_DEBUG_STDLIB "unknown"
#endif

extern "C" {
// Layout is frozen for magic/abi_major/abi_minor/struct_size: a host can always read those four fields.
struct cann_debug_abi_stamp {
  std::uint32_t magic;        // CANN_DEBUG_ABI_MAGIC
  std::uint16_t abi_major;    // must equal the host's
  std::uint16_t abi_minor;    // must be <= the host's
  std::uint32_t struct_size;  // sizeof(cann_debug_abi_stamp) when built
  std::uint32_t reserved;
  char sdk_version[16];  // CANN_DEBUG_SDK_VERSION, NUL-terminated
  char compiler[32];     // e.g. "gcc 12"
  char stdlib[48];       // e.g. "libstdc++ cxx11abi=1"
  char package[64];      // package name given to CANN_DEBUG_PACKAGE
  char package_version[32];
};
}

namespace cann_debug {

/// The stamp these headers would write; the host compares packages against its own.
inline constexpr cann_debug_abi_stamp current_abi_stamp(const char* package = "",
                                                        const char* package_version = "") {
  cann_debug_abi_stamp s{};
  s.magic = CANN_DEBUG_ABI_MAGIC;
  s.abi_major = CANN_DEBUG_ABI_MAJOR;
  s.abi_minor = CANN_DEBUG_ABI_MINOR;
  s.struct_size = sizeof(cann_debug_abi_stamp);
  auto copy = [](char* dst, const char* src, unsigned cap) {
    for (unsigned i = 0; i + 1 < cap && src[i] != '\0'; ++i) dst[i] = src[i];
  };
  copy(s.sdk_version, CANN_DEBUG_SDK_VERSION, sizeof s.sdk_version);
  copy(s.compiler, CANN_DEBUG_COMPILER, sizeof s.compiler);
  copy(s.stdlib, CANN_DEBUG_STDLIB, sizeof s.stdlib);
  copy(s.package, package, sizeof s.package);
  copy(s.package_version, package_version, sizeof s.package_version);
  return s;
}

}  // namespace cann_debug
