// What every Ascend profiler file parser needs to know beyond the file itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "cann_debug/options.hpp"

namespace cann_debug::plugins::ascend {

struct AscendFileOptions {
  std::int32_t rank = -1;  // rank of a per-rank file, when the file does not say it (-1 = unknown)
  std::string node;        // node (host) label and node_id key ("" = none)
  std::size_t max_line_bytes = 16u << 20;
  std::size_t max_file_bytes = std::size_t{1} << 30;
};

/// From a reader's options: `rank`, `node`, `max_line_bytes`, `max_file_bytes` (each when declared).
inline AscendFileOptions file_options(const Config& config) {
  AscendFileOptions o;
  if (config.has("rank")) o.rank = static_cast<std::int32_t>(config.integer("rank"));
  if (config.has("node")) o.node = config.str("node");
  if (config.has("max_line_bytes"))
    o.max_line_bytes = static_cast<std::size_t>(config.bytes("max_line_bytes"));
  if (config.has("max_file_bytes"))
    o.max_file_bytes = static_cast<std::size_t>(config.bytes("max_file_bytes"));
  return o;
}

}  // namespace cann_debug::plugins::ascend
