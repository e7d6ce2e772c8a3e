// The files a reader reads when its path is a folder: those directly in it that its own sniff() claims
// (ReaderSpec::also_reads_directory readers).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "cann_debug/component.hpp"

namespace cann_debug::plugins::readers {

/// `path` itself when it is not a folder; else the regular files directly in it whose first 64 KiB
/// `sniff` scores at least readers::kClaimScore, sorted by name.
std::vector<std::string> claimed_files(const std::string& path,
                                       const std::function<int(const SniffInput&)>& sniff);

}  // namespace cann_debug::plugins::readers
