#include "cann_debug/atomic_file.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

namespace cann_debug {

void write_file_atomically(const std::string& path, std::string_view bytes) {
  namespace fs = std::filesystem;
  const std::string tmp = fmt::format("{}.tmp.{}", path, ::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) {
      std::error_code ignored;
      fs::remove(tmp, ignored);
      throw std::runtime_error(fmt::format("{}: cannot write", tmp));
    }
  }
  std::error_code ec;
  if (fs::exists(path, ec)) fs::permissions(tmp, fs::status(path, ec).permissions(), ec);
  fs::rename(tmp, path, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(tmp, ignored);
    throw std::runtime_error(fmt::format("{}: cannot replace: {}", path, ec.message()));
  }
}

}  // namespace cann_debug
