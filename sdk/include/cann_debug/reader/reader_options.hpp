// The options the file readers share, spelled once.
#pragma once

#include <string>

#include "cann_debug/options.hpp"

namespace cann_debug::plugins::readers {

/// `path` (required string).
OptionSpec path_option(std::string description);
/// `batch_size`: records (and metric points / 8) per emitted batch.
OptionSpec batch_size_option();
/// `max_line_bytes`: the longest accepted line or CSV row (default 16MiB).
OptionSpec max_line_bytes_option();
/// `max_file_bytes`: the largest JSON document read into memory (default 1GiB).
OptionSpec max_file_bytes_option();
/// `rank`: the rank of a per-rank file when the file does not say it (-1 = unknown).
OptionSpec rank_option();
/// `node`: the node (host) the data came from, for the node_id key and the `node` label ("" = none).
OptionSpec node_option();
/// `optional` (bool, default false): a missing input is not an error; the reader emits nothing.
OptionSpec optional_option();

}  // namespace cann_debug::plugins::readers
