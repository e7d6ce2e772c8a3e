// Small text helpers shared by the readers: printable excerpts of untrusted bytes, snake_case names,
// trimming, splitting, UTF-8 validation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cann_debug::plugins::readers {

/// Bytes of untrusted input made printable ASCII for an error message (others as \xNN), cut at max_chars.
std::string printable(std::string_view text, std::size_t max_chars = 80);

/// A header or key as a snake_case name: "Start Time(us)" -> "start_time_us", "Ratio(%)" -> "ratio_pct",
/// "Communication(Not Overlapped)" -> "communication_not_overlapped", "rxPacket/s" -> "rx_packet_s",
/// "NpuID(Idx)" -> "npu_id_idx". Empty when the text has no letter or digit.
std::string snake_case(std::string_view text);

/// Without leading and trailing spaces, tabs, CR and LF.
std::string_view trim(std::string_view text);

/// Split on runs of spaces and tabs.
std::vector<std::string_view> split_ws(std::string_view text);

/// "Sun Feb 23 16:24:18 2025" (C's ctime(), dmesg -T, nvidia-smi's timestamp; runs of spaces allowed) as
/// ns since the epoch, read as UTC; nullopt unless it is exactly that shape and a real date and time
/// between the years 1678 and 2261 (what int64 nanoseconds since 1970 hold).
std::optional<std::int64_t> ctime_utc_ns(std::string_view text);

/// Split on one separator character, keeping empty parts.
std::vector<std::string_view> split(std::string_view text, char separator);

bool iequals(std::string_view a, std::string_view b);
bool istarts_with(std::string_view text, std::string_view prefix);
bool icontains(std::string_view text, std::string_view needle);

/// Index of the first byte that is not part of valid UTF-8, or npos.
std::size_t invalid_utf8_at(std::string_view text);

/// Index of the first control byte other than tab, CR and LF (NUL, escape, ...), or npos.
std::size_t control_byte_at(std::string_view text);

/// Why `text` is not readable text ("" when it is): a control byte or invalid UTF-8, with its column.
std::string why_not_text(std::string_view text);

}  // namespace cann_debug::plugins::readers
