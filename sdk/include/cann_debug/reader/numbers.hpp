// Strict number parsing for untrusted text, and exact decimal scaling (microseconds as decimal text -> ns).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cann_debug::plugins::readers {

/// The whole of `text` as a double: decimal or exponent notation with an optional sign, or a non-finite
/// spelling (nan, NaN, inf, +Inf, -inf, Infinity, -Infinity; any case). nullopt for anything else,
/// including empty text, hex, trailing garbage and values beyond the range of a double.
std::optional<double> parse_double(std::string_view text);

/// The whole of `text` as a decimal integer with an optional sign; nullopt when it does not fit.
std::optional<std::int64_t> parse_int(std::string_view text);
std::optional<std::uint64_t> parse_uint(std::string_view text);

/// value(text) * 10^scale as an exact integer, rounding half away from zero on the digits beyond it.
/// Accepts what parse_double accepts except non-finite spellings; exponent notation is exact too.
/// "1699529622790614.8" with scale 3 -> 1699529622790614800. nullopt on garbage or int64 overflow.
std::optional<std::int64_t> decimal_scaled(std::string_view text, int scale);

/// The shortest decimal text that reads back as `value` (what Python's repr writes).
std::string shortest_decimal(double value);

/// value * 10^scale as an exact integer from the shortest decimal text of `value`: a JSON number written
/// by Python (json.dump uses repr) keeps its exact decimal digits this way, although a double cannot
/// hold 1695054582707330.2 exactly. nullopt for non-finite values or int64 overflow.
std::optional<std::int64_t> double_scaled(double value, int scale);

/// Non-finite values as the strings the message JSON forms use ("nan", "inf", "-inf"); "" if finite.
std::string_view nonfinite_name(double value);

}  // namespace cann_debug::plugins::readers
