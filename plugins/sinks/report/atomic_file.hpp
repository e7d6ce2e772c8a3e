// Writing a report file so that readers see either the previous file or the complete new one.
#pragma once

#include <string>

namespace cann_debug::report {

/// Creates `folder` (and its parents) if needed; throws std::runtime_error naming the folder and the
/// reason when it cannot be created, is not a folder, or does not accept a new file.
void prepare_output_folder(const std::string& folder);

/// Writes `content` to `<folder>/<name>.tmp.<pid>`, flushes it, and renames it over `<folder>/<name>`
/// (atomic on POSIX file systems). On failure the temporary file is removed and std::runtime_error names
/// the path and the reason.
void write_file_atomically(const std::string& folder, const std::string& name, const std::string& content);

}  // namespace cann_debug::report
