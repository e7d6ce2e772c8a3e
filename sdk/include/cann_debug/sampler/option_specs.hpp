// Option declarations samplers share, so each manifest lists what is particular to it: a generic builder
// and the options several samplers have (a string, the devices to sample, a command's time limit, the
// DCMI library).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cann_debug/options.hpp"

namespace cann_debug::plugins::sampler_support {

/// An optional option (not required) with a default, and a range or enum where given.
OptionSpec option_spec(std::string name, OptionType type, std::string description,
                       nlohmann::json default_value, std::optional<double> min = {},
                       std::optional<double> max = {}, std::vector<std::string> enum_values = {});

OptionSpec string_option(std::string name, std::string description, std::string default_value);

/// `devices`: labels of the devices to sample (string list, default [] = all).
OptionSpec devices_option(std::string description);

/// `command_timeout`: how long one run of `program` may take before it is killed (default 5s).
OptionSpec command_timeout_option(const std::string& program);

/// `slow_interval` (duration, default 1s, 0 = every sample): how often the readings that change slowly are
/// taken (SlowReadings); `readings` says which readings of this sampler it governs.
OptionSpec slow_interval_option(const std::string& readings);

/// `library`: the DCMI library to dlopen (default libdcmi.so, also looked for in the driver's folders).
OptionSpec dcmi_library_option();

}  // namespace cann_debug::plugins::sampler_support
