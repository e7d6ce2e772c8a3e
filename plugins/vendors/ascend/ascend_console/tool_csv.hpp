// CSV series sampled from npu-smi and hccn_tool by monitoring scripts (mind-cluster fault diagnosis):
//
//   time,dev_id,power,freq,temp                                   npu-smi: W, MHz (AI Core), C
//   timestamp,npu_index,report_time,host_ip,mac_tx_mac_pause_num,...,roce_tx_cnp_pkt_num   hccn_tool -stat
//
// time / timestamp: Unix seconds (decimal allowed); dev_id / npu_index / device: the NPU; report_time is a
// minute-resolution local time and is ignored; host_ip labels the node unless it is the placeholder
// "host_ip". Every other column becomes a metric: npu-smi names through npu_smi_metric(), *_num counters
// through hccn_counter_metric(), anything else npu.<column> with an empty unit.
#pragma once

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "cann_debug/component.hpp"
#include "cann_debug/reader/csv_cells.hpp"
#include "cann_debug/reader/csv_reader.hpp"
#include "cann_debug/reader/item_source.hpp"

namespace cann_debug::plugins::ascend_console {

class ToolCsvSource final : public readers::ItemSource {
 public:
  ToolCsvSource(std::string path, std::size_t max_line_bytes, std::string node);
  bool next(readers::Items& out, std::size_t max_items) override;

 private:
  struct Column {
    enum class Role { kTime, kDevice, kNode, kIgnored, kMetric } role = Role::kIgnored;
    std::string original;
    std::string name;
    std::string unit;
    double scale = 1;
    Labels labels;
  };
  void read_header(const readers::CsvRow& row);

  std::string path_;
  std::string node_;
  std::ifstream file_;
  std::unique_ptr<readers::CsvReader> csv_;
  std::vector<Column> columns_;
  readers::RaggedRows ragged_;
  bool header_read_ = false;
};

/// Sniff score of such a CSV: a time column plus a device column or hccn counter columns.
int sniff_tool_csv(const SniffInput& in);

}  // namespace cann_debug::plugins::ascend_console
