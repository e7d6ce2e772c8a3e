// What the host offers a component: logging, a clock, and the cancellation flag. Plugins never link
// against host symbols; they call through this interface.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "cann_debug/time.hpp"

namespace cann_debug {

enum class LogLevel { kTrace, kDebug, kInfo, kWarn, kError };

class Logger {
 public:
  virtual ~Logger() = default;
  virtual void log(LogLevel level, std::string_view message) = 0;
  virtual bool enabled(LogLevel level) const = 0;

  template <typename... Args>
  void debug(fmt::format_string<Args...> f, Args&&... args) {
    if (enabled(LogLevel::kDebug)) log(LogLevel::kDebug, fmt::format(f, std::forward<Args>(args)...));
  }
  template <typename... Args>
  void info(fmt::format_string<Args...> f, Args&&... args) {
    if (enabled(LogLevel::kInfo)) log(LogLevel::kInfo, fmt::format(f, std::forward<Args>(args)...));
  }
  template <typename... Args>
  void warn(fmt::format_string<Args...> f, Args&&... args) {
    if (enabled(LogLevel::kWarn)) log(LogLevel::kWarn, fmt::format(f, std::forward<Args>(args)...));
  }
  template <typename... Args>
  void error(fmt::format_string<Args...> f, Args&&... args) {
    if (enabled(LogLevel::kError)) log(LogLevel::kError, fmt::format(f, std::forward<Args>(args)...));
  }
};

class HostServices {
 public:
  virtual ~HostServices() = default;
  /// A logger whose lines are prefixed with the component id.
  virtual Logger& logger() = 0;
  /// Wall-clock time, ns since the epoch, from one monotonic clock mapped to the epoch at host start.
  virtual TimestampNs now_ns() const = 0;
  /// True once the run is being cancelled (Ctrl-C, or another component failed). Long loops check it.
  virtual bool cancelled() const = 0;
};

}  // namespace cann_debug
