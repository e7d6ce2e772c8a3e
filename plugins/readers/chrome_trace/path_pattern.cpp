#include "path_pattern.hpp"

#include <glob.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>

namespace cann_debug::plugins::chrome_trace {
namespace {

bool is_digit(char c) {
  return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

}  // namespace

bool is_glob_pattern(const std::string& path) {
  return path.find_first_of("*?[") != std::string::npos;
}

bool natural_less(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (is_digit(a[i]) && is_digit(b[j])) {
      std::size_t ei = i, ej = j;
      while (ei < a.size() && is_digit(a[ei])) ++ei;
      while (ej < b.size() && is_digit(b[ej])) ++ej;
      // Compare by value: skip leading zeros, then the longer run is larger, then digit by digit.
      std::size_t si = i, sj = j;
      while (si + 1 < ei && a[si] == '0') ++si;
      while (sj + 1 < ej && b[sj] == '0') ++sj;
      if (ei - si != ej - sj) return ei - si < ej - sj;
      const int c = a.compare(si, ei - si, b, sj, ej - sj);
      if (c != 0) return c < 0;
      if (ei - i != ej - j) return ei - i < ej - j;  // fewer leading zeros first
      i = ei;
      j = ej;
    } else {
      if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

std::vector<std::string> expand_trace_pattern(const std::string& pattern) {
  glob_t found{};
  const int rc = ::glob(pattern.c_str(), GLOB_NOSORT, nullptr, &found);
  std::vector<std::string> files;
  if (rc == 0)
    for (std::size_t i = 0; i < found.gl_pathc; ++i) {
      std::error_code ec;
      if (std::filesystem::is_regular_file(found.gl_pathv[i], ec)) files.emplace_back(found.gl_pathv[i]);
    }
  ::globfree(&found);
  if (rc == GLOB_NOSPACE || rc == GLOB_ABORTED)
    throw std::runtime_error(
        fmt::format("{}: cannot expand the pattern (read error or out of memory)", pattern));
  if (files.empty()) throw std::runtime_error(fmt::format("{}: no trace file matches this pattern", pattern));
  std::sort(files.begin(), files.end(), natural_less);
  return files;
}

}  // namespace cann_debug::plugins::chrome_trace
