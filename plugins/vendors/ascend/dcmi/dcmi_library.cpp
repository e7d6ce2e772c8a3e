#include "dcmi_api.hpp"

#include <map>
#include <memory>
#include <mutex>

#include <fmt/format.h>

namespace cann_debug::plugins::dcmi {
namespace {

template <typename F>
void look_up(const sampler_support::DynamicLibrary& lib, F*& fn, const char* name) {
  fn = lib.function<F>(name);
}

// Libraries are opened once per candidate list and never closed (see DcmiLibrary).
std::shared_ptr<sampler_support::DynamicLibrary> open_shared(const std::vector<std::string>& candidates,
                                                             std::string& error) {
  static std::mutex mu;
  static std::map<std::vector<std::string>, std::shared_ptr<sampler_support::DynamicLibrary>> open;
  std::lock_guard lock(mu);
  if (auto it = open.find(candidates); it != open.end()) return it->second;
  auto lib = std::make_shared<sampler_support::DynamicLibrary>();
  if (!lib->open(candidates)) {
    error = lib->error();
    return nullptr;
  }
  open.emplace(candidates, lib);
  return lib;
}

}  // namespace

const std::vector<NetdevCounterField>& netdev_counter_fields() {
  using S = dcmi_network_pkt_stats_info;
  static const std::vector<NetdevCounterField> fields = {
      {"mac_tx_mac_pause_num", &S::mac_tx_mac_pause_num},
      {"mac_rx_mac_pause_num", &S::mac_rx_mac_pause_num},
      {"mac_tx_pfc_pkt_num", &S::mac_tx_pfc_pkt_num},
      {"mac_tx_pfc_pri0_pkt_num", &S::mac_tx_pfc_pri0_pkt_num},
      {"mac_tx_pfc_pri1_pkt_num", &S::mac_tx_pfc_pri1_pkt_num},
      {"mac_tx_pfc_pri2_pkt_num", &S::mac_tx_pfc_pri2_pkt_num},
      {"mac_tx_pfc_pri3_pkt_num", &S::mac_tx_pfc_pri3_pkt_num},
      {"mac_tx_pfc_pri4_pkt_num", &S::mac_tx_pfc_pri4_pkt_num},
      {"mac_tx_pfc_pri5_pkt_num", &S::mac_tx_pfc_pri5_pkt_num},
      {"mac_tx_pfc_pri6_pkt_num", &S::mac_tx_pfc_pri6_pkt_num},
      {"mac_tx_pfc_pri7_pkt_num", &S::mac_tx_pfc_pri7_pkt_num},
      {"mac_rx_pfc_pkt_num", &S::mac_rx_pfc_pkt_num},
      {"mac_rx_pfc_pri0_pkt_num", &S::mac_rx_pfc_pri0_pkt_num},
      {"mac_rx_pfc_pri1_pkt_num", &S::mac_rx_pfc_pri1_pkt_num},
      {"mac_rx_pfc_pri2_pkt_num", &S::mac_rx_pfc_pri2_pkt_num},
      {"mac_rx_pfc_pri3_pkt_num", &S::mac_rx_pfc_pri3_pkt_num},
      {"mac_rx_pfc_pri4_pkt_num", &S::mac_rx_pfc_pri4_pkt_num},
      {"mac_rx_pfc_pri5_pkt_num", &S::mac_rx_pfc_pri5_pkt_num},
      {"mac_rx_pfc_pri6_pkt_num", &S::mac_rx_pfc_pri6_pkt_num},
      {"mac_rx_pfc_pri7_pkt_num", &S::mac_rx_pfc_pri7_pkt_num},
      {"mac_tx_total_pkt_num", &S::mac_tx_total_pkt_num},
      {"mac_tx_total_oct_num", &S::mac_tx_total_oct_num},
      {"mac_tx_bad_pkt_num", &S::mac_tx_bad_pkt_num},
      {"mac_tx_bad_oct_num", &S::mac_tx_bad_oct_num},
      {"mac_rx_total_pkt_num", &S::mac_rx_total_pkt_num},
      {"mac_rx_total_oct_num", &S::mac_rx_total_oct_num},
      {"mac_rx_bad_pkt_num", &S::mac_rx_bad_pkt_num},
      {"mac_rx_bad_oct_num", &S::mac_rx_bad_oct_num},
      {"mac_rx_fcs_err_pkt_num", &S::mac_rx_fcs_err_pkt_num},
      {"roce_rx_rc_pkt_num", &S::roce_rx_rc_pkt_num},
      {"roce_rx_all_pkt_num", &S::roce_rx_all_pkt_num},
      {"roce_rx_err_pkt_num", &S::roce_rx_err_pkt_num},
      {"roce_tx_rc_pkt_num", &S::roce_tx_rc_pkt_num},
      {"roce_tx_all_pkt_num", &S::roce_tx_all_pkt_num},
      {"roce_tx_err_pkt_num", &S::roce_tx_err_pkt_num},
      {"roce_cqe_num", &S::roce_cqe_num},
      {"roce_rx_cnp_pkt_num", &S::roce_rx_cnp_pkt_num},
      {"roce_tx_cnp_pkt_num", &S::roce_tx_cnp_pkt_num},
      {"roce_err_ack_num", &S::roce_err_ack_num},
      {"roce_err_psn_num", &S::roce_err_psn_num},
      {"roce_verification_err_num", &S::roce_verification_err_num},
      {"roce_err_qp_status_num", &S::roce_err_qp_status_num},
      {"roce_new_pkt_rty_num", &S::roce_new_pkt_rty_num},
      {"roce_ecn_db_num", &S::roce_ecn_db_num},
      {"nic_tx_all_pkg_num", &S::nic_tx_all_pkg_num},
      {"nic_tx_all_oct_num", &S::nic_tx_all_oct_num},
      {"nic_rx_all_pkg_num", &S::nic_rx_all_pkg_num},
      {"nic_rx_all_oct_num", &S::nic_rx_all_oct_num},
  };
  return fields;
}

std::string error_text(int rc) {
  static const std::map<int, const char*> names = {
      {-8001, "DCMI_ERR_CODE_INVALID_PARAMETER"},
      {-8002, "DCMI_ERR_CODE_OPER_NOT_PERMITTED"},
      {-8003, "DCMI_ERR_CODE_MEM_OPERATE_FAIL"},
      {-8004, "DCMI_ERR_CODE_SECURE_FUN_FAIL"},
      {-8005, "DCMI_ERR_CODE_INNER_ERR"},
      {-8006, "DCMI_ERR_CODE_TIME_OUT"},
      {-8007, "DCMI_ERR_CODE_INVALID_DEVICE_ID"},
      {-8008, "DCMI_ERR_CODE_DEVICE_NOT_EXIST"},
      {-8009, "DCMI_ERR_CODE_IOCTL_FAIL"},
      {-8010, "DCMI_ERR_CODE_SEND_MSG_FAIL"},
      {-8011, "DCMI_ERR_CODE_RECV_MSG_FAIL"},
      {-8012, "DCMI_ERR_CODE_NOT_REDAY"},
      {-8013, "DCMI_ERR_CODE_NOT_SUPPORT_IN_CONTAINER"},
      {-8015, "DCMI_ERR_CODE_RESET_FAIL"},
      {-8017, "DCMI_ERR_CODE_IS_UPGRADING"},
      {-8020, "DCMI_ERR_CODE_RESOURCE_OCCUPIED"},
      {-8255, "DCMI_ERR_CODE_NOT_SUPPORT"},
  };
  if (auto it = names.find(rc); it != names.end()) return fmt::format("{} ({})", rc, it->second);
  return std::to_string(rc);
}

std::vector<std::string> DcmiLibrary::candidates(const std::string& library) {
  std::vector<std::string> c{library};
  if (library == "libdcmi.so") {
    c.push_back("/usr/local/Ascend/driver/lib64/driver/libdcmi.so");
    c.push_back("/usr/local/dcmi/libdcmi.so");
  }
  return c;
}

bool DcmiLibrary::open(const std::string& library) {
  api_ = {};
  error_.clear();
  std::string why;
  auto lib = open_shared(candidates(library), why);
  if (!lib) {
    error_ = fmt::format("{} not found: {}", library, why);
    return false;
  }
  path_ = lib->path();
  look_up(*lib, api_.init, "dcmi_init");
  look_up(*lib, api_.get_card_list, "dcmi_get_card_list");
  look_up(*lib, api_.get_device_id_in_card, "dcmi_get_device_id_in_card");
  look_up(*lib, api_.get_device_logic_id, "dcmi_get_device_logic_id");
  look_up(*lib, api_.get_device_utilization_rate, "dcmi_get_device_utilization_rate");
  look_up(*lib, api_.get_device_power_info, "dcmi_get_device_power_info");
  look_up(*lib, api_.get_device_temperature, "dcmi_get_device_temperature");
  look_up(*lib, api_.get_device_frequency, "dcmi_get_device_frequency");
  look_up(*lib, api_.get_device_hbm_info, "dcmi_get_device_hbm_info");
  look_up(*lib, api_.get_device_health, "dcmi_get_device_health");
  look_up(*lib, api_.get_device_errorcode_v2, "dcmi_get_device_errorcode_v2");
  look_up(*lib, api_.get_hccs_link_bandwidth_info, "dcmi_get_hccs_link_bandwidth_info");
  look_up(*lib, api_.get_device_info, "dcmi_get_device_info");
  look_up(*lib, api_.get_netdev_pkt_stats_info, "dcmi_get_netdev_pkt_stats_info");
  for (auto [fn, name] :
       {std::pair{reinterpret_cast<void*>(api_.init), "dcmi_init"},
        {reinterpret_cast<void*>(api_.get_card_list), "dcmi_get_card_list"},
        {reinterpret_cast<void*>(api_.get_device_id_in_card), "dcmi_get_device_id_in_card"}}) {
    if (!fn) {
      error_ = fmt::format("{} does not export {}: not a DCMI library", path_, name);
      return false;
    }
  }
  if (const int rc = api_.init(); rc != kDcmiOk) {
    error_ = fmt::format("dcmi_init failed: {} (is the Ascend driver loaded?)", error_text(rc));
    return false;
  }
  return true;
}

bool DcmiLibrary::enumerate(std::vector<DcmiDevice>& out) {
  out.clear();
  constexpr int kMaxCards = 64;
  int cards[kMaxCards] = {};
  int card_num = 0;
  if (const int rc = api_.get_card_list(&card_num, cards, kMaxCards); rc != kDcmiOk) {
    error_ = fmt::format("dcmi_get_card_list failed: {}", error_text(rc));
    return false;
  }
  if (card_num <= 0) {
    error_ = "no NPU: dcmi_get_card_list returned 0 cards";
    return false;
  }
  for (int i = 0; i < std::min(card_num, kMaxCards); ++i) {
    int device_max = 0, mcu = -1, cpu = -1;
    if (const int rc = api_.get_device_id_in_card(cards[i], &device_max, &mcu, &cpu); rc != kDcmiOk) {
      error_ = fmt::format("dcmi_get_device_id_in_card({}) failed: {}", cards[i], error_text(rc));
      return false;
    }
    for (int d = 0; d < device_max; ++d) {
      DcmiDevice dev{cards[i], d, -1, {}};
      if (api_.get_device_logic_id) {
        int logic = -1;
        if (api_.get_device_logic_id(&logic, cards[i], d) == kDcmiOk) dev.logic_id = logic;
      }
      dev.label = std::to_string(dev.logic_id >= 0 ? dev.logic_id : static_cast<int>(out.size()));
      out.push_back(std::move(dev));
    }
  }
  if (out.empty()) {
    error_ = fmt::format("no NPU: dcmi_get_card_list returned {} cards without devices", card_num);
    return false;
  }
  return true;
}

}  // namespace cann_debug::plugins::dcmi
