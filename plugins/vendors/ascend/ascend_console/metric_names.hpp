// From the names npu-smi and hccn_tool print to our metric names and units.
//
// Our names are <domain>.<quantity>[.<qualifier>] with the unit in MetricPoint::unit; the vendor's own
// name is kept in the label `source_name`. Values are converted to our units: % -> ratio (x0.01),
// MB -> bytes (x2^20: npu-smi memory sizes are binary), MHz -> hertz, mV -> volts, mW -> watts, mA ->
// amperes, hccn_tool MB/sec -> bytes/s (x10^6).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "cann_debug/messages.hpp"

namespace cann_debug::plugins::ascend_console {

struct MetricName {
  std::string name;  // e.g. "npu.aicore.utilization"
  std::string unit;  // e.g. "ratio"
  double scale = 1;  // our value = vendor value * scale
  Labels labels;     // extra labels (e.g. priority for per-priority PFC counters)
};

/// A numeric npu-smi field (a `-t` key, a `watch` column, a table column, a sampled-CSV column), by its
/// printed name: "Aicore Usage Rate(%)", "AI Core(%)", "AICore(%)", "Pwr(W)", "Temperature(C)", "power",
/// "freq", "temp", ... Known names map to fixed metrics; other names with a unit in parentheses map by the
/// unit (X(%) -> npu.x.utilization ratio, X(W) -> npu.x watts, X(C) -> npu.x celsius, X(MHz) -> npu.x
/// hertz, X(MB) -> npu.x bytes); nullopt for names without a unit (ids, versions, counts of things).
std::optional<MetricName> npu_smi_metric(std::string_view printed);

/// For a "used / total" pair column of the `npu-smi info` table ("Memory-Usage(MB)", "HBM-Usage(MB)",
/// "Hugepages-Usage(page)"): the metrics of the two numbers.
std::optional<std::pair<MetricName, MetricName>> npu_smi_pair_metric(std::string_view printed);

/// An hccn_tool -stat counter ("roce_rx_cnp_pkt_num", "mac_tx_pfc_pri3_pkt_num", ...): roce.port.<name>,
/// unit "count" (cumulative since the driver started; *_oct_* counters in "bytes"). Unknown counters map
/// to roce.port.<counter without _num>.
MetricName hccn_counter_metric(std::string_view counter);

/// npu-smi health text -> a state number: OK 0, Warning 1, Alarm 2, Critical 3, anything else -1.
double health_state(std::string_view text);

/// hccn_tool -net_health status text -> the DCMI code: Success 0, Socket failed 1, Receive timeout 2,
/// Unreachable 3, Time exceeded 4, Fault 5, Init 6, Thread error 7, Detect ip set 8, other -1.
double net_health_code(std::string_view text);

}  // namespace cann_debug::plugins::ascend_console
