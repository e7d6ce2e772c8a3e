#include "ascend_console/metric_names.hpp"

#include <fmt/format.h>

#include <map>
#include <regex>

#include "cann_debug/reader/text.hpp"

namespace cann_debug::plugins::ascend_console {
namespace {

using readers::snake_case;

constexpr double kMiB = 1024.0 * 1024.0;

struct Entry {
  std::string_view name;
  std::string_view unit;
  double scale;
};

// Keyed by the snake_case of the printed name.
const std::map<std::string, Entry, std::less<>>& npu_smi_table() {
  static const std::map<std::string, Entry, std::less<>> table = {
      // npu-smi info -t usages / -t common / -t memory / -t power / -t temp
      {"ddr_capacity_mb", {"npu.ddr.capacity", "bytes", kMiB}},
      {"ddr_usage_rate_pct", {"npu.ddr.utilization", "ratio", 0.01}},
      {"ddr_hugepages_total_page", {"npu.ddr.hugepages_total", "count", 1}},
      {"ddr_hugepages_usage_rate_pct", {"npu.ddr.hugepages_utilization", "ratio", 0.01}},
      {"hbm_capacity_mb", {"npu.hbm.capacity", "bytes", kMiB}},
      {"hbm_usage_rate_pct", {"npu.hbm.utilization", "ratio", 0.01}},
      {"aicore_usage_rate_pct", {"npu.aicore.utilization", "ratio", 0.01}},
      {"aivector_usage_rate_pct", {"npu.aivector.utilization", "ratio", 0.01}},
      {"aicpu_usage_rate_pct", {"npu.aicpu.utilization", "ratio", 0.01}},
      {"ctrlcpu_usage_rate_pct", {"npu.ctrlcpu.utilization", "ratio", 0.01}},
      {"ddr_bandwidth_usage_rate_pct", {"npu.ddr.bandwidth_utilization", "ratio", 0.01}},
      {"hbm_bandwidth_usage_rate_pct", {"npu.hbm.bandwidth_utilization", "ratio", 0.01}},
      {"npu_utilization_pct", {"npu.utilization", "ratio", 0.01}},
      {"aicube_usage_rate_pct", {"npu.aicube.utilization", "ratio", 0.01}},
      {"memory_usage_rate_pct", {"npu.memory.utilization", "ratio", 0.01}},
      {"aicore_freq_mhz", {"npu.aicore.rated_frequency", "hertz", 1e6}},
      {"aicore_cur_freq_mhz", {"npu.aicore.frequency", "hertz", 1e6}},
      {"aicore_count", {"npu.aicore.count", "count", 1}},
      {"temperature_c", {"npu.temperature", "celsius", 1}},
      {"npu_temperature_c", {"npu.temperature", "celsius", 1}},
      {"npu_real_time_power_w", {"npu.power", "watts", 1}},
      {"real_time_power_w", {"npu.power", "watts", 1}},
      {"power_dissipation_w", {"npu.power", "watts", 1}},
      {"hbm_temperature_c", {"npu.hbm.temperature", "celsius", 1}},
      {"hbm_clock_speed_mhz", {"npu.hbm.frequency", "hertz", 1e6}},
      // npu-smi info watch
      {"pwr_w", {"npu.power", "watts", 1}},
      {"temp_c", {"npu.temperature", "celsius", 1}},
      {"ai_core_pct", {"npu.aicore.utilization", "ratio", 0.01}},
      {"ai_cpu_pct", {"npu.aicpu.utilization", "ratio", 0.01}},
      {"ctrl_cpu_pct", {"npu.ctrlcpu.utilization", "ratio", 0.01}},
      {"memory_pct", {"npu.memory.utilization", "ratio", 0.01}},
      {"memory_bw_pct", {"npu.memory.bandwidth_utilization", "ratio", 0.01}},
      {"npu_util_pct", {"npu.utilization", "ratio", 0.01}},
      {"ai_cube_pct", {"npu.aicube.utilization", "ratio", 0.01}},
      {"ai_vector_pct", {"npu.aivector.utilization", "ratio", 0.01}},
      // npu-smi info (table)
      {"power_w", {"npu.power", "watts", 1}},
      // sampled CSV series (time,dev_id,power,freq,temp)
      {"power", {"npu.power", "watts", 1}},
      {"freq", {"npu.aicore.frequency", "hertz", 1e6}},
      {"temp", {"npu.temperature", "celsius", 1}},
  };
  return table;
}

MetricName from_entry(const Entry& e) {
  return {std::string(e.name), std::string(e.unit), e.scale, {}};
}

}  // namespace

std::optional<MetricName> npu_smi_metric(std::string_view printed) {
  const std::string key = snake_case(printed);
  const auto& table = npu_smi_table();
  if (auto it = table.find(key); it != table.end()) return from_entry(it->second);
  // By the unit in parentheses.
  const auto open = printed.rfind('(');
  if (open == std::string_view::npos || !printed.ends_with(")")) return std::nullopt;
  const std::string base = snake_case(printed.substr(0, open));
  const std::string_view unit = printed.substr(open + 1, printed.size() - open - 2);
  if (base.empty()) return std::nullopt;
  if (unit == "%") return MetricName{fmt::format("npu.{}.utilization", base), "ratio", 0.01, {}};
  if (readers::iequals(unit, "W")) return MetricName{fmt::format("npu.{}", base), "watts", 1, {}};
  if (readers::iequals(unit, "C")) return MetricName{fmt::format("npu.{}", base), "celsius", 1, {}};
  if (readers::iequals(unit, "MHz")) return MetricName{fmt::format("npu.{}", base), "hertz", 1e6, {}};
  if (readers::iequals(unit, "MB")) return MetricName{fmt::format("npu.{}", base), "bytes", kMiB, {}};
  return std::nullopt;
}

std::optional<std::pair<MetricName, MetricName>> npu_smi_pair_metric(std::string_view printed) {
  const std::string key = snake_case(printed);
  if (key == "memory_usage_mb")
    return std::pair{MetricName{"npu.memory.used", "bytes", kMiB, {}},
                     MetricName{"npu.memory.capacity", "bytes", kMiB, {}}};
  if (key == "hbm_usage_mb")
    return std::pair{MetricName{"npu.hbm.used", "bytes", kMiB, {}},
                     MetricName{"npu.hbm.capacity", "bytes", kMiB, {}}};
  if (key == "hugepages_usage_page")
    return std::pair{MetricName{"npu.ddr.hugepages_used", "count", 1, {}},
                     MetricName{"npu.ddr.hugepages_total", "count", 1, {}}};
  return std::nullopt;
}

MetricName hccn_counter_metric(std::string_view counter) {
  static const std::map<std::string, std::string, std::less<>> table = {
      {"mac_tx_mac_pause_num", "mac_pause_sent"},
      {"mac_rx_mac_pause_num", "mac_pause_received"},
      {"mac_tx_pfc_pkt_num", "pfc_sent"},
      {"mac_rx_pfc_pkt_num", "pfc_received"},
      {"mac_tx_total_pkt_num", "mac_tx_packets"},
      {"mac_rx_total_pkt_num", "mac_rx_packets"},
      {"mac_tx_total_oct_num", "mac_tx_bytes"},
      {"mac_rx_total_oct_num", "mac_rx_bytes"},
      {"mac_tx_bad_pkt_num", "mac_tx_bad_packets"},
      {"mac_rx_bad_pkt_num", "mac_rx_bad_packets"},
      {"mac_tx_bad_oct_num", "mac_tx_bad_bytes"},
      {"mac_rx_bad_oct_num", "mac_rx_bad_bytes"},
      {"mac_rx_fcs_err_pkt_num", "fcs_errors"},
      {"roce_rx_rc_pkt_num", "rx_rc_packets"},
      {"roce_tx_rc_pkt_num", "tx_rc_packets"},
      {"roce_rx_all_pkt_num", "rx_packets"},
      {"roce_tx_all_pkt_num", "tx_packets"},
      {"roce_rx_err_pkt_num", "rx_errors"},
      {"roce_tx_err_pkt_num", "tx_errors"},
      {"roce_cqe_num", "cqe"},
      {"roce_rx_cnp_pkt_num", "cnp_received"},
      {"roce_tx_cnp_pkt_num", "cnp_sent"},
      {"roce_err_ack_num", "err_ack"},
      {"roce_err_psn_num", "err_psn"},
      {"roce_verification_err_num", "verification_errors"},
      {"roce_err_qp_status_num", "qp_status_errors"},
      {"roce_new_pkt_rty_num", "retransmissions"},
      {"roce_ecn_db_num", "ecn_marked"},
      {"roce_unexpected_ack_num", "unexpected_ack"},
      {"roce_out_of_order_num", "out_of_order"},
      {"nic_tx_all_pkg_num", "nic_tx_packets"},
      {"nic_rx_all_pkg_num", "nic_rx_packets"},
      {"nic_tx_all_oct_num", "nic_tx_bytes"},
      {"nic_rx_all_oct_num", "nic_rx_bytes"},
  };
  MetricName m;
  m.scale = 1;
  const std::string key = snake_case(counter);
  if (auto it = table.find(key); it != table.end()) {
    m.name = fmt::format("roce.port.{}", it->second);
  } else {
    static const std::regex pri_re(R"(^mac_(tx|rx)_pfc_pri(\d)_pkt_num$)");
    std::smatch sm;
    if (key.size() < 64 && std::regex_match(key, sm, pri_re)) {
      m.name = sm[1] == "tx" ? "roce.port.pfc_sent_by_priority" : "roce.port.pfc_received_by_priority";
      m.labels["priority"] = sm[2];
    } else {
      std::string base = key;
      if (base.ends_with("_num")) base.resize(base.size() - 4);
      m.name = fmt::format("roce.port.{}", base);
    }
  }
  m.unit = (key.find("_oct") != std::string::npos) ? "bytes" : "count";
  return m;
}

double health_state(std::string_view text) {
  const auto t = readers::trim(text);
  if (readers::iequals(t, "OK")) return 0;
  if (readers::iequals(t, "Warning")) return 1;
  if (readers::iequals(t, "Alarm")) return 2;
  if (readers::iequals(t, "Critical")) return 3;
  return -1;
}

double net_health_code(std::string_view text) {
  static constexpr std::pair<std::string_view, double> kCodes[] = {
      {"Success", 0}, {"Socket failed", 1}, {"Receive timeout", 2}, {"Unreachable", 3},  {"Time exceeded", 4},
      {"Fault", 5},   {"Init", 6},          {"Thread error", 7},    {"Detect ip set", 8}};
  const auto t = readers::trim(text);
  for (const auto& [name, code] : kCodes)
    if (readers::iequals(t, name)) return code;
  return -1;
}

}  // namespace cann_debug::plugins::ascend_console
