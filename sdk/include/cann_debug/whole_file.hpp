// Whole files: read at once, and replaced so that a reader sees either the old content or the new, never
// half of either (the bytes go to a temporary file beside it, PATH.tmp.<pid>, which is then renamed over
// PATH; an existing file keeps its permissions).
#pragma once

#include <string>
#include <string_view>

namespace cann_debug {

/// The bytes of `path`. Throws std::runtime_error "PATH: cannot read: REASON" (a folder, missing, ...).
std::string read_whole_file(const std::string& path);

/// Throws std::runtime_error naming the file when it cannot be written or replaced (the temporary file is
/// removed then).
void write_file_atomically(const std::string& path, std::string_view bytes);

}  // namespace cann_debug
