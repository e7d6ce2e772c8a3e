#include "output_folder.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>

namespace cann_debug::report {

void prepare_output_folder(const std::string& folder) {
  namespace fs = std::filesystem;
  if (folder.empty()) throw std::runtime_error("report: option 'output' names no folder");
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec)
    throw std::runtime_error(fmt::format("{}: cannot create the report folder: {}", folder, ec.message()));
  if (!fs::is_directory(folder, ec))
    throw std::runtime_error(fmt::format("{}: the report folder exists but is not a folder", folder));
  if (::access(folder.c_str(), W_OK | X_OK) != 0)
    throw std::runtime_error(fmt::format("{}: the report folder is not writable: {}", folder,
                                         errno ? std::strerror(errno) : "unknown error"));
}

}  // namespace cann_debug::report
