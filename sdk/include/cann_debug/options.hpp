// Typed component options: the schema a component declares, and the validated values it receives.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace cann_debug {

enum class OptionType {
  kString,
  kInt,
  kDouble,
  kBool,
  kDuration,  // "10ms", "2s", "1.5m" or an integer of nanoseconds; delivered as int64 ns
  kSize,      // "64KiB", "2MB", "1G" or an integer of bytes; delivered as int64 bytes
  kEnum,      // one of OptionSpec::enum_values; delivered as string
  kStringList,
  kDoubleList,
  kMap,  // a YAML mapping, delivered as a JSON object
};

std::string_view to_string(OptionType t);

struct OptionSpec {
  std::string name;
  OptionType type = OptionType::kString;
  std::string description;
  nlohmann::json default_value = nullptr;  // in the option's canonical form; null = no default
  bool required = false;
  std::optional<double> min;  // inclusive range for int/double/duration(ns)/size(bytes)
  std::optional<double> max;
  std::vector<std::string> enum_values;
};

/// Converts a raw value (from YAML or --set, as JSON) to the option's canonical form. On failure returns
/// nullopt and sets `error` to what was expected, e.g. "expected a duration like 10ms or 2s, got 'fast'".
std::optional<nlohmann::json> convert_option(const OptionSpec& spec, const nlohmann::json& raw,
                                             std::string& error);
/// Checks range and enum membership of a converted value; empty string when fine.
std::string check_option_bounds(const OptionSpec& spec, const nlohmann::json& value);

std::optional<std::int64_t> parse_duration_ns(std::string_view text);
std::optional<std::int64_t> parse_size_bytes(std::string_view text);

/// Validated option values of one component instance: every declared option with a value or default.
class Config {
 public:
  Config() = default;
  explicit Config(nlohmann::json values) : values_(std::move(values)) {}

  bool has(std::string_view key) const;
  std::string str(std::string_view key) const;
  std::int64_t integer(std::string_view key) const;
  double number(std::string_view key) const;
  bool boolean(std::string_view key) const;
  std::int64_t duration_ns(std::string_view key) const { return integer(key); }
  std::int64_t bytes(std::string_view key) const { return integer(key); }
  std::vector<std::string> strings(std::string_view key) const;
  std::vector<double> numbers(std::string_view key) const;
  const nlohmann::json& raw(std::string_view key) const;
  const nlohmann::json& json() const { return values_; }

 private:
  nlohmann::json values_ = nlohmann::json::object();
};

}  // namespace cann_debug

namespace cann_debug {

/// One problem with a raw option mapping. `key` is empty for a problem of the whole mapping.
struct OptionIssue {
  enum class Kind { kUnknown, kType, kRange, kMissing } kind;
  std::string key;
  std::string message;
};

/// Applies the schema to raw option values (JSON object from YAML or --set): converts each to its
/// canonical form, fills defaults, and reports unknown keys (with a did-you-mean), wrong types,
/// out-of-range values and missing required options. All issues are reported, not just the first.
Config resolve_config(const std::vector<OptionSpec>& schema, const nlohmann::json& raw,
                      std::vector<OptionIssue>& issues);

/// The closest candidate within a small edit distance, or "" if none is close.
std::string closest_match(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace cann_debug
