// What a run's config.json says about the server (cases FORMAT.md "Inference" keys). Every key is optional.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cann_debug/messages.hpp"

namespace cann_debug::plugins::inference {

struct ConfigFacts {
  std::string path;  // the file it came from (for messages and evidence)
  std::optional<double> cpu_count;
  std::optional<double> num_threads;
  std::optional<double> max_batch_size;
  std::optional<double> warmup_requests;
  std::optional<std::string> model_format;
};

/// Reads the known keys of the run's configuration. A known key of the wrong type throws
/// std::runtime_error naming the file and the JSON pointer.
ConfigFacts read_config(const RunConfiguration& config);

/// config.* features (extra evidence; never a verdict on their own).
void config_features(const ConfigFacts& config, std::vector<Feature>& out);

}  // namespace cann_debug::plugins::inference
