// The `path` option of chrome_trace may be a glob pattern ("${input}/rank*.trace.json"): one reader then
// reads every matching file, one after the other, in natural sort order (rank2 before rank10).
#pragma once

#include <string>
#include <vector>

namespace cann_debug::plugins::chrome_trace {

/// Whether `path` holds a glob(3) wildcard: '*', '?' or '['.
bool is_glob_pattern(const std::string& path);

/// Natural order: runs of digits compare by value, everything else byte by byte.
bool natural_less(const std::string& a, const std::string& b);

/// The regular files matching `pattern` (glob(3), no tilde or brace expansion) in natural sort order.
/// Throws std::runtime_error "<pattern>: no trace file matches this pattern" when nothing matches.
std::vector<std::string> expand_trace_pattern(const std::string& pattern);

}  // namespace cann_debug::plugins::chrome_trace
