// What every console parser shares: a line with its position, the context a command gives its output
// (device, chip, port, time, node), building metric points, and reading vendor numbers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ascend_console/metric_names.hpp"
#include "cann_debug/messages.hpp"

namespace cann_debug::plugins::ascend_console {

struct Line {
  std::string_view text;
  std::int64_t number = 0;   // 1-based line in the capture (0 = not from a file)
  std::uint64_t offset = 0;  // byte offset of the line
};

struct ConsoleContext {
  std::string path;                      // for messages ("" for live command output)
  TimestampNs timestamp = kNoTimestamp;  // when the output was taken
  std::string node;                      // node label and node_id key ("" = none)
  std::int32_t device = -1;              // -i N of the command
  std::int32_t chip = -1;                // -c N
  std::int32_t port = -1;                // -p N (hccn_tool on Ascend 950)
};

/// A point of metric `m` from the vendor's value (scaled), with labels device, chip (when >= 0), node,
/// source_name and the metric's own labels.
MetricPoint make_point(const ConsoleContext& ctx, const MetricName& m, double vendor_value,
                       std::string_view source_name, std::int32_t device, std::int32_t chip = -1);

/// Throws ParseError "<path>:<line>: <what> (line starts at byte offset N)".
[[noreturn]] void fail(const ConsoleContext& ctx, const Line& line, std::string_view what);

enum class Value { kNumber, kNotAvailable, kBad };

/// A vendor number: the text, or its first word ("52 C", "3262.90 mV"). NA, N/A, "-", "--",
/// "not supported", "Unknown" -> kNotAvailable.
Value console_number(std::string_view text, double& out);

/// "2024-09-09 13:13:44.179645" (also with 'T' or '/' separators) as ns since the epoch, the text being
/// local time `utc_offset_s` seconds ahead of UTC; nullopt when it is not such a date.
std::optional<TimestampNs> parse_datetime(std::string_view text, std::int64_t utc_offset_s);

/// "+08:00", "-0530", "Z", "" -> seconds; nullopt when malformed.
std::optional<std::int64_t> parse_utc_offset(std::string_view text);

}  // namespace cann_debug::plugins::ascend_console
