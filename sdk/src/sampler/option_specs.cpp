#include "cann_debug/sampler/option_specs.hpp"

namespace cann_debug::plugins::sampler_support {

OptionSpec option_spec(std::string name, OptionType type, std::string description,
                       nlohmann::json default_value, std::optional<double> min, std::optional<double> max,
                       std::vector<std::string> enum_values) {
  return {.name = std::move(name),
          .type = type,
          .description = std::move(description),
          .default_value = std::move(default_value),
          .required = false,
          .min = min,
          .max = max,
          .enum_values = std::move(enum_values)};
}

OptionSpec string_option(std::string name, std::string description, std::string default_value) {
  return option_spec(std::move(name), OptionType::kString, std::move(description), std::move(default_value));
}

OptionSpec devices_option(std::string description) {
  return option_spec("devices", OptionType::kStringList, std::move(description), nlohmann::json::array());
}

OptionSpec command_timeout_option(const std::string& program) {
  return option_spec("command_timeout", OptionType::kDuration,
                     "how long one " + program + " run may take before it is killed", "5s", 1e6);
}

OptionSpec dcmi_library_option() {
  return string_option("library",
                       "the DCMI library to dlopen (libdcmi.so is also looked for in "
                       "/usr/local/Ascend/driver/lib64/driver and /usr/local/dcmi)",
                       "libdcmi.so");
}

OptionSpec slow_interval_option(const std::string& readings) {
  return option_spec(
      "slow_interval", OptionType::kDuration,
      "read " + readings + " at most this often (they change slowly or rarely; 0 = every sample)", "1s", 0);
}

}  // namespace cann_debug::plugins::sampler_support
