// Decides whether a package built against some SDK may be loaded by this host.
#pragma once

#include <string>
#include <vector>

#include "cann_debug/abi.hpp"

namespace cann_debug::host {

/// Parses the raw bytes of a package's ABI section into a stamp; empty error when readable.
bool parse_abi_stamp(const std::vector<unsigned char>& bytes, cann_debug_abi_stamp& out, std::string& error);

/// "" when compatible; otherwise a message naming both versions and how to fix it. The rule
/// (GStreamer's): same ABI major, package minor <= host minor, same C++ runtime.
std::string abi_incompatibility(const cann_debug_abi_stamp& package, const cann_debug_abi_stamp& host);

std::string describe(const cann_debug_abi_stamp& s);

}  // namespace cann_debug::host
