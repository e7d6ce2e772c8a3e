// How sure the chrome_trace reader is that it can read a file, from its first bytes.
#pragma once

#include <string_view>

#include "cann_debug/component.hpp"

namespace cann_debug::plugins::chrome_trace {

/// 95: an object whose head names "traceEvents"; 90: a bare array whose first event has "ph" and "ts" (or is
/// a metadata event, "ph": "M" with a "name"; 70 when that event is cut off by the end of the head but shows
/// "ph" and "ts"); gzip: the same rules on the decompressed head, else 60 for a .json.gz name; 0 otherwise.
int sniff_chrome_trace(const SniffInput& in);

/// The score of uncompressed text (the rules above without gzip).
int sniff_trace_text(std::string_view head);

}  // namespace cann_debug::plugins::chrome_trace
