// hccn_tool output (RoCE NIC of an Ascend NPU), a line at a time, whatever the command:
//
//   -stat -g       "packet statistics:" then "roce_rx_cnp_pkt_num:0" lines (cumulative counters)
//   -bandwidth -g  "Bandwidth TX: 0.00 MB/sec" / "Bandwidth RX: ..."
//   -link -g       "link status: UP"
//   -link_stat -g  "[devid 0]link up count       : 2" (+ history lines)
//   -speed -g      "Speed: 100000 Mb/s"
//   -net_health -g "net health status: Socket failed"
//   -optical -g    "optical info:" then "Vcc : 3262.90 mV", "Tx Power0 : 4.4035 mW", ...
// Lines of other commands (-ip, -fec, -tls, ...) are skipped.
#pragma once

#include <string>
#include <vector>

#include "ascend_console/console_line.hpp"

namespace cann_debug::plugins::ascend_console {

class HccnToolParser {
 public:
  explicit HccnToolParser(const ConsoleContext& ctx) : ctx_(ctx) {}

  /// Whether a line is one of the forms above (for captures without commands).
  static bool recognises(std::string_view text);

  /// roce.port.<counter> (count, or bytes for *_oct_*; cumulative), roce.port.tx_bandwidth /
  /// rx_bandwidth (bytes/s), roce.port.link_up (1 UP, 0 otherwise; label status), roce.port.link_up_count
  /// (count), roce.port.speed (bits/s), roce.port.net_health (DCMI code, label status),
  /// roce.optical.temperature (celsius), .vcc (volts), .tx_power / .rx_power (watts, label lane),
  /// .tx_bias (amperes, label lane), .media_snr / .host_snr (dB, label lane). Label device from -i or
  /// [devid N]; source_name is the vendor's name. Throws ParseError on a recognised line with a bad value.
  void feed(const Line& line, std::vector<MetricPoint>& out);

 private:
  void optical(const Line& line, std::string_view key, std::string_view value, std::vector<MetricPoint>& out);

  const ConsoleContext& ctx_;
  bool in_optical_ = false;
};

}  // namespace cann_debug::plugins::ascend_console
