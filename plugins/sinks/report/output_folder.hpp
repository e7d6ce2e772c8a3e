// The folder the report writes into (each file is then replaced atomically: cann_debug/whole_file.hpp).
#pragma once

#include <string>

namespace cann_debug::report {

/// Creates `folder` (and its parents) if needed; throws std::runtime_error naming the folder and the
/// reason when it cannot be created, is not a folder, or does not accept a new file.
void prepare_output_folder(const std::string& folder);

}  // namespace cann_debug::report
