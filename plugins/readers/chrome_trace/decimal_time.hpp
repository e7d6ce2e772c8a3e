// Exact conversion of decimal microsecond texts ("1704161511420306.491", "12.77012757357446", "3e2") to
// integer nanoseconds, without going through a double (which cannot hold epoch microseconds to the
// nanosecond).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cann_debug::plugins::chrome_trace {

/// Parses a JSON-style decimal number of microseconds into nanoseconds, rounding sub-nanosecond digits half
/// away from zero. Returns nullopt and sets `why` (what was expected) when the text is not a finite decimal
/// number or does not fit in signed 64-bit nanoseconds.
std::optional<std::int64_t> decimal_us_to_ns(std::string_view text, std::string& why);

}  // namespace cann_debug::plugins::chrome_trace
