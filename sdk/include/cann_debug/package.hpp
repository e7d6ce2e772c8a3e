// One shared object = one package exporting one or more component factories.
//
// A plugin author writes, in exactly one .cpp of the package:
//
//   CANN_DEBUG_PACKAGE("my_vendor", "1.2.0", &my_sampler_factory, &my_reader_factory)
//
// which emits (1) the ABI stamp in its own ELF section, readable without loading the library, and
// (2) the package accessor `cann_debug_package_v1`, exported through Boost.DLL in section "cdplugin".
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include <boost/dll/alias.hpp>

#include "cann_debug/abi.hpp"
#include "cann_debug/component.hpp"

namespace cann_debug {

struct Package {
  std::string name;
  std::string version;
  std::vector<const ComponentFactory*> factories;
};

using PackageAccessor = const Package&();

}  // namespace cann_debug

#define CANN_DEBUG_PACKAGE(NAME, VERSION, ...)                                                              \
  extern "C" __attribute__((section(CANN_DEBUG_ABI_SECTION), used, visibility("default")))                  \
  const cann_debug_abi_stamp cann_debug_abi_stamp_v1 = ::cann_debug::current_abi_stamp(NAME, VERSION);     \
  namespace cann_debug_package_detail {                                                                     \
  const ::cann_debug::Package& get_package() {                                                              \
    static const ::cann_debug::Package package{NAME, VERSION, {__VA_ARGS__}};                               \
    return package;                                                                                         \
  }                                                                                                         \
  }                                                                                                         \
  BOOST_DLL_ALIAS_SECTIONED(cann_debug_package_detail::get_package, cann_debug_package_v1, cdplugin)
