// How a parameter value reads in text: numbers with a sensible number of digits, percentages, byte sizes.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace cann_debug::plugins::kb {

/// Plain number: integers without decimals, otherwise 3 significant digits (scientific below 0.001 and
/// from 1e6).
std::string format_number(double x);

/// `value` as text in `format` (number, integer, percent, bytes, ratio); strings as they are.
std::string format_value(const nlohmann::json& value, const std::string& format);

}  // namespace cann_debug::plugins::kb
