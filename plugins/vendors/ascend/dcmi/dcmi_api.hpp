// The part of Huawei's DCMI C API (libdcmi.so, header dcmi_interface_api.h of the Ascend driver; layouts
// as in Ascend/mind-cluster component/ascend-common/devmanager/dcmi/) that the Ascend samplers use, and
// DcmiLibrary, which opens libdcmi.so with dlopen so nothing links against it. Only declarations we call
// are copied; the structs must keep the driver's exact layout (checked by static_asserts below).
//
// Every function returns 0 (DCMI_OK) or a negative error code (kErr*). A device is addressed by
// (card_id, device_id): cards from dcmi_get_card_list, devices 0..device_id_max-1 within a card.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "cann_debug/sampler/dynamic_library.hpp"

namespace cann_debug::plugins::dcmi {

// ---- C types (layout of dcmi_interface_api.h) --------------------------------------------------------
extern "C" {

struct dcmi_hbm_info {
  unsigned long long memory_size;   // MB
  unsigned int freq;                // MHz
  unsigned long long memory_usage;  // MB
  int temp;                         // celsius
  unsigned int bandwith_util_rate;  // % (sic: the driver's spelling)
};

enum dcmi_freq_type {
  DCMI_FREQ_DDR = 1,
  DCMI_FREQ_CTRLCPU = 2,
  DCMI_FREQ_HBM = 6,
  DCMI_FREQ_AICORE_CURRENT_ = 7,
  DCMI_FREQ_AICORE_MAX = 9,
  DCMI_FREQ_VECTORCORE_CURRENT = 12
};

enum dcmi_main_cmd { DCMI_MAIN_CMD_HCCS = 16 };

#define CANN_DEBUG_HCCS_MAX_PCS_NUM 16
#define CANN_DEBUG_HCCS_RES_PCS_NUM 64

struct dcmi_hccs_statistic_info {  // DCMI_MAIN_CMD_HCCS sub command 3; cumulative, 32-bit
  unsigned int tx_cnt[CANN_DEBUG_HCCS_MAX_PCS_NUM];
  unsigned int rx_cnt[CANN_DEBUG_HCCS_MAX_PCS_NUM];
  unsigned int crc_err_cnt[CANN_DEBUG_HCCS_MAX_PCS_NUM];
  unsigned int retry_cnt[CANN_DEBUG_HCCS_MAX_PCS_NUM];
  unsigned int reserved_field_cnt[CANN_DEBUG_HCCS_RES_PCS_NUM];
};

struct dcmi_hccs_statues {  // DCMI_MAIN_CMD_HCCS sub command 0 (sic: the driver's spelling)
  unsigned int pcs_status;
  unsigned int hdlc_status;  // DCMI_HDLC_STATUS_OK = 0x3
  unsigned char reserve[4];
};

struct dcmi_hccs_bandwidth_info {
  int profiling_time;  // input: measuring window in ms (1..1000); the call takes that long
  double total_txbw;   // GB/s
  double total_rxbw;
  double tx_bandwidth[CANN_DEBUG_HCCS_MAX_PCS_NUM];  // GB/s per HCCS link
  double rx_bandwidth[CANN_DEBUG_HCCS_MAX_PCS_NUM];
};

struct dcmi_network_pkt_stats_info {  // cumulative since the driver started, 64-bit
  unsigned long long mac_tx_mac_pause_num;
  unsigned long long mac_rx_mac_pause_num;
  unsigned long long mac_tx_pfc_pkt_num;
  unsigned long long mac_tx_pfc_pri0_pkt_num;
  unsigned long long mac_tx_pfc_pri1_pkt_num;
  unsigned long long mac_tx_pfc_pri2_pkt_num;
  unsigned long long mac_tx_pfc_pri3_pkt_num;
  unsigned long long mac_tx_pfc_pri4_pkt_num;
  unsigned long long mac_tx_pfc_pri5_pkt_num;
  unsigned long long mac_tx_pfc_pri6_pkt_num;
  unsigned long long mac_tx_pfc_pri7_pkt_num;
  unsigned long long mac_rx_pfc_pkt_num;
  unsigned long long mac_rx_pfc_pri0_pkt_num;
  unsigned long long mac_rx_pfc_pri1_pkt_num;
  unsigned long long mac_rx_pfc_pri2_pkt_num;
  unsigned long long mac_rx_pfc_pri3_pkt_num;
  unsigned long long mac_rx_pfc_pri4_pkt_num;
  unsigned long long mac_rx_pfc_pri5_pkt_num;
  unsigned long long mac_rx_pfc_pri6_pkt_num;
  unsigned long long mac_rx_pfc_pri7_pkt_num;
  unsigned long long mac_tx_total_pkt_num;
  unsigned long long mac_tx_total_oct_num;
  unsigned long long mac_tx_bad_pkt_num;
  unsigned long long mac_tx_bad_oct_num;
  unsigned long long mac_rx_total_pkt_num;
  unsigned long long mac_rx_total_oct_num;
  unsigned long long mac_rx_bad_pkt_num;
  unsigned long long mac_rx_bad_oct_num;
  unsigned long long mac_rx_fcs_err_pkt_num;
  unsigned long long roce_rx_rc_pkt_num;
  unsigned long long roce_rx_all_pkt_num;
  unsigned long long roce_rx_err_pkt_num;
  unsigned long long roce_tx_rc_pkt_num;
  unsigned long long roce_tx_all_pkt_num;
  unsigned long long roce_tx_err_pkt_num;
  unsigned long long roce_cqe_num;
  unsigned long long roce_rx_cnp_pkt_num;
  unsigned long long roce_tx_cnp_pkt_num;
  unsigned long long roce_err_ack_num;
  unsigned long long roce_err_psn_num;
  unsigned long long roce_verification_err_num;
  unsigned long long roce_err_qp_status_num;
  unsigned long long roce_new_pkt_rty_num;
  unsigned long long roce_ecn_db_num;
  unsigned long long nic_tx_all_pkg_num;
  unsigned long long nic_tx_all_oct_num;
  unsigned long long nic_rx_all_pkg_num;
  unsigned long long nic_rx_all_oct_num;
  long tv_sec;
  long tv_usec;
  unsigned char reserved[64];
};

}  // extern "C"

static_assert(sizeof(dcmi_hbm_info) == 32);
static_assert(sizeof(dcmi_hccs_statistic_info) == 128 * 4);
static_assert(sizeof(dcmi_hccs_statues) == 12);
static_assert(offsetof(dcmi_hccs_bandwidth_info, total_txbw) == 8);
static_assert(sizeof(dcmi_hccs_bandwidth_info) == 8 + 8 * 34);
static_assert(sizeof(dcmi_network_pkt_stats_info) == 48 * 8 + 16 + 64);

inline constexpr int kDcmiOk = 0;
inline constexpr int kErrInvalidParameter = -8001;
inline constexpr int kErrInnerError = -8005;
inline constexpr int kErrDeviceNotExist = -8008;
inline constexpr int kErrNotSupport = -8255;

inline constexpr unsigned kHccsSubCmdStatus = 0;
inline constexpr unsigned kHccsSubCmdStatistics = 3;
inline constexpr unsigned kHdlcStatusOk = 0x3;
inline constexpr int kHccsMaxLinks = CANN_DEBUG_HCCS_MAX_PCS_NUM;

// dcmi_get_device_utilization_rate input_type
inline constexpr int kUtilAiCore = 2;
inline constexpr int kUtilAiCpu = 3;
inline constexpr int kUtilHbmBandwidth = 10;
inline constexpr int kUtilVectorCore = 12;

// Temperatures the MCU reports instead of a value.
inline constexpr int kTemperatureInvalid = 0x7ffd;
inline constexpr int kTemperatureReadFailed = 0x7fff;

/// The function pointers of libdcmi.so; nullptr for what this driver does not export (only dcmi_init,
/// dcmi_get_card_list and dcmi_get_device_id_in_card are required).
struct DcmiApi {
  int (*init)(void) = nullptr;
  int (*get_card_list)(int* card_num, int* card_list, int list_len) = nullptr;
  int (*get_device_id_in_card)(int card_id, int* device_id_max, int* mcu_id, int* cpu_id) = nullptr;
  int (*get_device_logic_id)(int* device_logic_id, int card_id, int device_id) = nullptr;
  int (*get_device_utilization_rate)(int card_id, int device_id, int input_type,
                                     unsigned int* rate) = nullptr;
  int (*get_device_power_info)(int card_id, int device_id, int* power) = nullptr;
  int (*get_device_temperature)(int card_id, int device_id, int* temperature) = nullptr;
  int (*get_device_frequency)(int card_id, int device_id, enum dcmi_freq_type input_type,
                              unsigned int* frequency) = nullptr;
  int (*get_device_hbm_info)(int card_id, int device_id, struct dcmi_hbm_info* hbm_info) = nullptr;
  int (*get_device_health)(int card_id, int device_id, unsigned int* health) = nullptr;
  int (*get_device_errorcode_v2)(int card_id, int device_id, int* error_count, unsigned int* error_code_list,
                                 unsigned int list_len) = nullptr;
  int (*get_hccs_link_bandwidth_info)(int card_id, int device_id,
                                      struct dcmi_hccs_bandwidth_info* info) = nullptr;
  int (*get_device_info)(int card_id, int device_id, enum dcmi_main_cmd main_cmd, unsigned int sub_cmd,
                         void* buf, unsigned int* size) = nullptr;
  int (*get_netdev_pkt_stats_info)(int card_id, int device_id, int port_id,
                                   struct dcmi_network_pkt_stats_info* info) = nullptr;
};

/// The cumulative counters of dcmi_network_pkt_stats_info by their driver name (the same names
/// `hccn_tool -i N -stat -g` prints).
struct NetdevCounterField {
  const char* name;
  unsigned long long dcmi_network_pkt_stats_info::*member;
};
const std::vector<NetdevCounterField>& netdev_counter_fields();

/// One NPU as DCMI addresses it, and the logical id users see (ASCEND_RT_VISIBLE_DEVICES, torch_npu).
struct DcmiDevice {
  int card = 0;
  int device = 0;
  int logic_id = -1;  // -1 when dcmi_get_device_logic_id is missing or failed
  /// The `device` label: the logical id, or the index in enumeration order when there is none.
  std::string label;
};

/// "-8005 (DCMI_ERR_CODE_INNER_ERR)" for known codes, the number otherwise.
std::string error_text(int rc);

/// libdcmi.so opened (and kept open for the life of the process: the driver library starts threads),
/// its functions looked up, dcmi_init called.
class DcmiLibrary {
 public:
  /// Where to look for `library` (the option value): the value itself, and for the default
  /// "libdcmi.so" also the driver's usual install paths.
  static std::vector<std::string> candidates(const std::string& library);

  /// Opens, looks up and initialises. On failure returns false and sets error(), e.g.
  /// "libdcmi.so not found: <dlerror>" or "dcmi_init failed: -8005 (...)".
  bool open(const std::string& library);
  const std::string& error() const { return error_; }
  const std::string& path() const { return path_; }
  const DcmiApi& api() const { return api_; }

  /// Every NPU (card, device) with its logical id. On failure returns false and sets error(), e.g.
  /// "no NPU: dcmi_get_card_list returned 0 cards".
  bool enumerate(std::vector<DcmiDevice>& out);

 private:
  DcmiApi api_;
  std::string path_;
  std::string error_;
};

}  // namespace cann_debug::plugins::dcmi
