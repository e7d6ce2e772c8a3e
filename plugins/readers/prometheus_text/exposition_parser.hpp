// The Prometheus text exposition format (0.0.4), a line at a time:
//
//   # HELP npu_chip_info_power the npu power
//   # TYPE npu_chip_info_power gauge
//   npu_chip_info_power{id="0",model_name="Ascend910B3"} 98.2 1700000000000
//
// Label values may hold \\, \" and \n escapes; values may be NaN, +Inf, -Inf; the timestamp (integer
// milliseconds since the epoch) is optional. OpenMetrics' "# UNIT" and "# EOF" lines are understood.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "cann_debug/messages.hpp"

namespace cann_debug::plugins::prometheus {

struct Sample {
  std::string name;
  Labels labels;
  double value = 0;
  std::optional<std::int64_t> timestamp_ms;
};

class ExpositionParser {
 public:
  /// Parses one line. Returns a sample for a sample line, nullopt for comments, HELP/TYPE/UNIT and blank
  /// lines. Throws std::invalid_argument with what was expected (and the column) on a malformed line.
  std::optional<Sample> line(std::string_view text);

  /// The unit of a metric: its # UNIT, else from its name (_bytes -> bytes, _seconds -> seconds,
  /// _total / _count / _bucket -> count, _ratio -> ratio, _celsius -> celsius, _watts -> watts, _joules ->
  /// joules, _hertz -> hertz, _percent -> percent), else "".
  std::string unit_of(const std::string& name) const;
  /// The # TYPE of a metric family ("" if none was given).
  std::string type_of(const std::string& name) const;
  bool ended() const { return ended_; }  // "# EOF" seen

 private:
  void comment(std::string_view text);
  std::string family_of(const std::string& sample_name) const;

  std::map<std::string, std::string> types_;
  std::map<std::string, std::string> units_;
  std::set<std::string> sampled_;  // families that already had samples
  bool ended_ = false;
};

}  // namespace cann_debug::plugins::prometheus
