// The console table of `nvidia-smi` (no options): the "NVIDIA-SMI ... Driver Version ..." banner, then per
// GPU a block of rows of three |-separated cells (index, name, persistence | bus id, display | volatile
// uncorrectable ECC; fan, temperature, performance state, power usage / cap | memory usage | utilisation,
// compute mode), up to the MIG and Processes tables, which are not read. Both the older layout (<= 525) and
// the wider one of 530+ are read by cell, not by column position.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cann_debug/messages.hpp"
#include "gpu_state.hpp"

namespace cann_debug::plugins::nvidia_smi {

struct TableCapture {
  TimestampNs time = kNoTimestamp;  // the ctime line nvidia-smi prints above the table, read as UTC
  std::string driver_version;
  std::vector<GpuState> gpus;
};

/// Throws readers::ParseError naming `path`, the line and its byte offset of a GPU row that is not three
/// cells, or what is missing (no banner, no GPU rows).
TableCapture parse_table(std::string_view text, const std::string& path);

/// True when `head` holds the banner line of the table.
bool looks_like_table(std::string_view head);

}  // namespace cann_debug::plugins::nvidia_smi
