#include "host_services_impl.hpp"

#include <spdlog/spdlog.h>

namespace cann_debug::host {

RunClock::RunClock() : steady0_(std::chrono::steady_clock::now()), epoch0_ns_(wall_clock_ns()) {}

TimestampNs RunClock::now_ns() const {
  return epoch0_ns_ +
         std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - steady0_).count();
}

namespace {
spdlog::level::level_enum to_spd(LogLevel l) {
  switch (l) {
    case LogLevel::kTrace: return spdlog::level::trace;
    case LogLevel::kDebug: return spdlog::level::debug;
    case LogLevel::kInfo: return spdlog::level::info;
    case LogLevel::kWarn: return spdlog::level::warn;
    case LogLevel::kError: return spdlog::level::err;
  }
  return spdlog::level::info;
}
}  // namespace

void ComponentLogger::log(LogLevel level, std::string_view message) {
  spdlog::log(to_spd(level), "[{}] {}", id_, message);
}

bool ComponentLogger::enabled(LogLevel level) const { return spdlog::should_log(to_spd(level)); }

}  // namespace cann_debug::host
