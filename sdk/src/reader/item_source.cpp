#include "cann_debug/reader/item_source.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>

#include "cann_debug/reader/parse_error.hpp"

namespace cann_debug::plugins::readers {

bool QueuedSource::next(Items& out, std::size_t max_items) {
  if (!filled_) {
    filled_ = true;
    try {
      fill();
    } catch (const ParseError& e) {
      error_ = e.what();
    }
  }
  for (std::size_t n = 0; n < max_items && !records_.empty(); ++n) {
    out.records.push_back(std::move(records_.front()));
    records_.pop_front();
  }
  // Metric points are small: hand out more of them per batch.
  for (std::size_t n = 0; n < max_items * 8 && !metrics_.empty(); ++n) {
    out.metrics.push_back(std::move(metrics_.front()));
    metrics_.pop_front();
  }
  const bool drained = records_.empty() && metrics_.empty();
  if (drained && !error_.empty()) {
    std::string e = std::move(error_);
    error_.clear();
    throw ParseError(e);
  }
  return !drained;
}

void open_input(const std::string& path, std::ifstream& in) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw std::runtime_error(fmt::format("{}: cannot open: {}", path, std::strerror(EISDIR)));
  errno = 0;
  in.open(path, std::ios::binary);
  if (!in.is_open()) {
    const int err = errno;
    throw std::runtime_error(
        fmt::format("{}: cannot open: {}", path, err ? std::strerror(err) : "unknown error"));
  }
}

}  // namespace cann_debug::plugins::readers
