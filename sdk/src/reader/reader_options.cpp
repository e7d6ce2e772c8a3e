#include "cann_debug/reader/reader_options.hpp"

namespace cann_debug::plugins::readers {

OptionSpec path_option(std::string description) {
  return {
      .name = "path", .type = OptionType::kString, .description = std::move(description), .required = true};
}

OptionSpec batch_size_option() {
  return {.name = "batch_size",
          .type = OptionType::kInt,
          .description = "records per emitted batch (metric points: 8 times as many); one batch per poll",
          .default_value = 512,
          .min = 1,
          .max = 1e6};
}

OptionSpec max_line_bytes_option() {
  return {.name = "max_line_bytes",
          .type = OptionType::kSize,
          .description = "longest accepted line (CSV: row); a longer one stops the reader with an error",
          .default_value = "16MiB",
          .min = 1,
          .max = 1024.0 * 1024 * 1024};
}

OptionSpec max_file_bytes_option() {
  return {.name = "max_file_bytes",
          .type = OptionType::kSize,
          .description = "largest JSON document read into memory; a larger one is an error",
          .default_value = "1GiB",
          .min = 1,
          .max = 64.0 * 1024 * 1024 * 1024};
}

OptionSpec rank_option() {
  return {.name = "rank",
          .type = OptionType::kInt,
          .description = "rank of the process that wrote a per-rank file, for the rank key (-1 = unknown)",
          .default_value = -1,
          .min = -1,
          .max = 1e7};
}

OptionSpec node_option() {
  return {
      .name = "node",
      .type = OptionType::kString,
      .description = "node (host) the data came from: sets the node_id key and a `node` label (\"\" = none)",
      .default_value = ""};
}

OptionSpec optional_option() {
  return {.name = "optional",
          .type = OptionType::kBool,
          .description =
              "a missing input is not an error: the reader emits nothing (for pipelines that take "
              "whatever a run's folder holds)",
          .default_value = false};
}

}  // namespace cann_debug::plugins::readers
