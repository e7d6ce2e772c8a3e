// What every DCMI sampler does with a return code: DCMI_OK gives a point; any other code skips the
// reading, counts it in sampler.skipped_readings with the code as reason and logs the first of each kind;
// a call the driver does not support on a device (-8255) is not made again.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>

#include "cann_debug/host_services.hpp"
#include "cann_debug/sampler/counter_points.hpp"
#include "dcmi/dcmi_api.hpp"

namespace cann_debug::plugins::dcmi {

class DcmiCalls {
 public:
  // Both run for every call a sampler makes (hundreds a second per device): views, nothing allocated
  // unless a call fails.

  /// Whether `call` is still worth making on `device` (not answered "not supported" before).
  bool can_call(std::string_view device, std::string_view call) const {
    if (unsupported_.empty()) return true;
    const auto it = unsupported_.find(device);
    return it == unsupported_.end() || !it->second.contains(call);
  }

  /// True for DCMI_OK; otherwise counts and (once) logs the skipped reading.
  bool ok(std::string_view device, std::string_view call, int rc) {
    if (rc == kDcmiOk) return true;
    const std::string d(device), c(call);
    if (rc == kErrNotSupport) unsupported_[d].insert(c);
    skip(d, c, error_text(rc), rc == kErrNotSupport ? " (not asked again)" : "");
    return false;
  }

  /// Counts a reading that gave no point for another reason (an invalid value), logging the first.
  void skip(const std::string& device, const std::string& source, const std::string& reason,
            const std::string& note = {}) {
    if (skipped_.count(device, source, reason) && log_)
      log_->warn("device {}: {} gave {}; no point{}", device, source, reason, note);
  }

  void set_logger(Logger* log) { log_ = log; }
  sampler_support::SkippedReadings& skipped() { return skipped_; }
  void clear() {
    unsupported_.clear();
    skipped_.clear();
  }

 private:
  std::map<std::string, std::set<std::string, std::less<>>, std::less<>> unsupported_;  // device -> calls
  sampler_support::SkippedReadings skipped_;
  Logger* log_ = nullptr;
};

}  // namespace cann_debug::plugins::dcmi
