// A fake libdcmi.so for tests and benchmarks without an Ascend NPU: the DCMI functions the samplers call
// (signatures of the driver's dcmi_interface_api.h, C linkage) answer from a JSON script named by the
// environment variable CANN_DEBUG_FAKE_DCMI_SCRIPT. The script format is in README.md beside this file.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dcmi/dcmi_api.hpp"

using nlohmann::json;
namespace d = cann_debug::plugins::dcmi;

#define FAKE_DCMI_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

struct Device {
  int card = 0;
  int device = 0;
  int logic_id = 0;
  json values = json::object();
  json errors = json::object();
  std::map<std::string, std::int64_t> reads;  // value key -> times read
  std::map<std::string, std::int64_t> calls;  // function (and .arg) -> times called
};

struct Script {
  std::string path, text;
  int init_rc = 0;
  int card_list_rc = 0;
  std::vector<Device> devices;
  std::map<std::string, std::int64_t> total_calls;
};

std::mutex mu;
Script script;
bool loaded = false;

std::uint64_t splitmix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// Deterministic noise in [-1, 1] for (seed, key, call index).
double noise(std::uint64_t seed, const std::string& key, std::int64_t k) {
  std::uint64_t h = seed;
  for (unsigned char c : key) h = splitmix(h ^ c);
  h = splitmix(h ^ static_cast<std::uint64_t>(k));
  return static_cast<double>(h >> 11) / static_cast<double>(1ULL << 53) * 2.0 - 1.0;
}

double number(const json& j) {
  if (j.is_string()) return static_cast<double>(std::stoll(j.get<std::string>(), nullptr, 0));  // "0x7ffd"
  return j.get<double>();
}

// The value of `spec` at call index k; sets rc when the script makes this call fail.
double evaluate(const json& spec, const std::string& key, std::int64_t k, int& rc) {
  if (spec.is_number() || spec.is_string()) return number(spec);
  if (spec.is_array()) {
    if (spec.empty()) return 0;
    const json& e =
        spec[static_cast<std::size_t>(std::min<std::int64_t>(k, static_cast<std::int64_t>(spec.size()) - 1))];
    if (e.is_object() && e.contains("rc")) {
      rc = e["rc"].get<int>();
      return 0;
    }
    return number(e);
  }
  if (!spec.is_object()) return 0;
  if (spec.contains("errors"))
    if (auto it = spec["errors"].find(std::to_string(k)); it != spec["errors"].end()) {
      rc = it->get<int>();
      return 0;
    }
  double v = spec.value("base", 0.0) + spec.value("step", 0.0) * static_cast<double>(k);
  // A counter that grows with time, as a real one does (a per-call step grows with the sampling instead).
  if (spec.contains("per_second")) {
    static const auto start = std::chrono::steady_clock::now();
    v += spec["per_second"].get<double>() *
         std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  if (spec.contains("noise"))
    v += spec["noise"].get<double>() * noise(spec.value("seed", std::uint64_t{1}), key, k);
  if (spec.contains("anomalies"))
    for (const auto& a : spec["anomalies"]) {
      const std::int64_t from = a.value("from", std::int64_t{0});
      const std::int64_t to = a.value("to", INT64_MAX);
      if (k < from || k >= to) continue;
      if (a.contains("value")) v = number(a["value"]);
      if (a.contains("add")) v += number(a["add"]);
      if (a.contains("scale")) v *= number(a["scale"]);
    }
  return v;
}

bool load_script() {
  const char* path = std::getenv("CANN_DEBUG_FAKE_DCMI_SCRIPT");
  if (!path || !*path) {
    std::fprintf(stderr, "fake libdcmi: CANN_DEBUG_FAKE_DCMI_SCRIPT is not set\n");
    return false;
  }
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "fake libdcmi: cannot open %s\n", path);
    return false;
  }
  std::stringstream text;
  text << in.rdbuf();
  if (loaded && script.path == path && script.text == text.str()) return true;  // same script: keep state
  Script s;
  s.path = path;
  s.text = text.str();
  try {
    const json j = json::parse(s.text);
    s.init_rc = j.value("init", 0);
    s.card_list_rc = j.value("card_list", 0);
    for (const auto& dj : j.value("devices", json::array())) {
      Device dev;
      dev.card = dj.value("card", 0);
      dev.device = dj.value("device", 0);
      dev.logic_id = dj.value("logic_id", static_cast<int>(s.devices.size()));
      dev.values = dj.value("values", json::object());
      dev.errors = dj.value("errors", json::object());
      s.devices.push_back(std::move(dev));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fake libdcmi: %s: %s\n", path, e.what());
    return false;
  }
  script = std::move(s);
  loaded = true;
  return true;
}

Device* find(int card, int device) {
  for (auto& d : script.devices)
    if (d.card == card && d.device == device) return &d;
  return nullptr;
}

// Counts a call of `function` (and of `function.arg` when arg is given) and returns the scripted error
// code for this call, 0 if none.
int call(Device& dev, const std::string& function, const std::string& arg = {}) {
  std::vector<std::string> names{function};
  if (!arg.empty()) names.insert(names.begin(), function + "." + arg);
  int rc = 0;
  bool decided = false;
  for (const auto& name : names) {
    const std::int64_t k = dev.calls[name]++;
    ++script.total_calls[name];
    if (decided) continue;
    auto it = dev.errors.find(name);
    if (it == dev.errors.end()) continue;
    decided = true;
    if (it->is_number())
      rc = it->get<int>();
    else if (it->is_array() && !it->empty())
      rc = (*it)[static_cast<std::size_t>(
                     std::min<std::int64_t>(k, static_cast<std::int64_t>(it->size()) - 1))]
               .get<int>();
    else if (it->is_object() && it->contains(std::to_string(k)))
      rc = (*it)[std::to_string(k)].get<int>();
  }
  return rc;
}

// The next value of `key` (0 or `fallback` when the script has none); rc set when the script says fail.
double read(Device& dev, const std::string& key, int& rc, double fallback = 0) {
  auto it = dev.values.find(key);
  const std::int64_t k = dev.reads[key]++;
  if (it == dev.values.end()) return fallback;
  return evaluate(*it, key, k, rc);
}

template <typename T>
T as(double v) {
  if constexpr (std::is_unsigned_v<T>) {
    if (v <= 0) return 0;
    // Values above the type's range wrap like a hardware register (a u32 counter scripted past 2^32).
    return static_cast<T>(
        static_cast<unsigned long long>(std::llround(std::fmod(v, 18446744073709551616.0))));
  } else {
    return static_cast<T>(std::llround(v));
  }
}

#define DEVICE_OR_FAIL(card, device) \
  std::lock_guard lock(mu);          \
  Device* dev = find(card, device);  \
  if (!dev) return d::kErrDeviceNotExist;

}  // namespace

FAKE_DCMI_EXPORT int dcmi_init(void) {
  std::lock_guard lock(mu);
  if (!load_script()) return d::kErrInnerError;
  return script.init_rc;
}

FAKE_DCMI_EXPORT int dcmi_get_card_list(int* card_num, int* card_list, int list_len) {
  std::lock_guard lock(mu);
  ++script.total_calls["dcmi_get_card_list"];
  if (script.card_list_rc != 0) return script.card_list_rc;
  std::vector<int> cards;
  for (const auto& dev : script.devices)
    if (std::find(cards.begin(), cards.end(), dev.card) == cards.end()) cards.push_back(dev.card);
  *card_num = static_cast<int>(cards.size());
  for (int i = 0; i < std::min(list_len, *card_num); ++i) card_list[i] = cards[static_cast<std::size_t>(i)];
  return 0;
}

FAKE_DCMI_EXPORT int dcmi_get_device_id_in_card(int card_id, int* device_id_max, int* mcu_id, int* cpu_id) {
  std::lock_guard lock(mu);
  int n = 0;
  for (const auto& dev : script.devices) n += dev.card == card_id;
  if (n == 0) return d::kErrInvalidParameter;
  *device_id_max = n;
  *mcu_id = -1;
  *cpu_id = -1;
  return 0;
}

FAKE_DCMI_EXPORT int dcmi_get_device_logic_id(int* device_logic_id, int card_id, int device_id) {
  DEVICE_OR_FAIL(card_id, device_id)
  *device_logic_id = dev->logic_id;
  return 0;
}

FAKE_DCMI_EXPORT int dcmi_get_device_utilization_rate(int card_id, int device_id, int input_type,
                                                      unsigned int* utilization_rate) {
  DEVICE_OR_FAIL(card_id, device_id)
  if (int rc = call(*dev, "dcmi_get_device_utilization_rate", std::to_string(input_type))) return rc;
  int rc = 0;
  const double v = read(*dev, "utilization." + std::to_string(input_type), rc);
  *utilization_rate = as<unsigned>(std::clamp(v, 0.0, 100.0));
  return rc;
}

FAKE_DCMI_EXPORT int dcmi_get_device_power_info(int card_id, int device_id, int* power) {
  DEVICE_OR_FAIL(card_id, device_id)
  if (int rc = call(*dev, "dcmi_get_device_power_info")) return rc;
  int rc = 0;
  *power = as<int>(read(*dev, "power", rc));
  return rc;
}

FAKE_DCMI_EXPORT int dcmi_get_device_temperature(int card_id, int device_id, int* temperature) {
  DEVICE_OR_FAIL(card_id, device_id)
  if (int rc = call(*dev, "dcmi_get_device_temperature")) return rc;
  int rc = 0;
  *temperature = as<int>(read(*dev, "temperature", rc));
  return rc;
}

FAKE_DCMI_EXPORT int dcmi_get_device_frequency(int card_id, int device_id, enum d::dcmi_freq_type input_type,
                                               unsigned int* frequency) {
  DEVICE_OR_FAIL(card_id, device_id)
  const std::string type = std::to_string(static_cast<int>(input_type));
  if (int rc = call(*dev, "dcmi_get_device_frequency", type)) return rc;
  int rc = 0;
  *frequency = as<unsigned>(read(*dev, "frequency." + type, rc));
  return rc;
}

FAKE_DCMI_EXPORT int dcmi_get_device_hbm_info(int card_id, int device_id, struct d::dcmi_hbm_info* hbm_info) {
  DEVICE_OR_FAIL(card_id, device_id)
  if (int rc = call(*dev, "dcmi_get_device_hbm_info")) return rc;
  int rc = 0;
  hbm_info->memory_size = as<unsigned long long>(read(*dev, "hbm.memory_size", rc));
  hbm_info->memory_usage = as<unsigned long long>(read(*dev, "hbm.memory_usage", rc));
  hbm_info->freq = as<unsigned>(read(*dev, "hbm.freq", rc));
  hbm_info->temp = as<int>(read(*dev, "hbm.temp", rc));
  hbm_info->bandwith_util_rate = as<unsigned>(read(*dev, "hbm.bandwith_util_rate", rc));
  return rc;
}

FAKE_DCMI_EXPORT int dcmi_get_device_health(int card_id, int device_id, unsigned int* health) {
  DEVICE_OR_FAIL(card_id, device_id)
  if (int rc = call(*dev, "dcmi_get_device_health")) return rc;
  int rc = 0;
  *health = as<unsigned>(read(*dev, "health", rc));
  return rc;
}

FAKE_DCMI_EXPORT int dcmi_get_device_errorcode_v2(int card_id, int device_id, int* error_count,
                                                  unsigned int* error_code_list, unsigned int list_len) {
  DEVICE_OR_FAIL(card_id, device_id)
  if (int rc = call(*dev, "dcmi_get_device_errorcode_v2")) return rc;
  const json codes = dev->values.value("error_codes", json::array());
  *error_count = static_cast<int>(codes.size());
  for (unsigned i = 0; i < std::min<unsigned>(list_len, static_cast<unsigned>(codes.size())); ++i)
    error_code_list[i] = as<unsigned>(number(codes[i]));
  return 0;
}

FAKE_DCMI_EXPORT int dcmi_get_hccs_link_bandwidth_info(int card_id, int device_id,
                                                       struct d::dcmi_hccs_bandwidth_info* info) {
  DEVICE_OR_FAIL(card_id, device_id)
  if (int rc = call(*dev, "dcmi_get_hccs_link_bandwidth_info")) return rc;
  if (info->profiling_time < 1 || info->profiling_time > 1000) return d::kErrInvalidParameter;
  int rc = 0;
  double tx = 0, rx = 0;
  for (int i = 0; i < d::kHccsMaxLinks; ++i) {
    tx += info->tx_bandwidth[i] = read(*dev, "hccs.tx_bandwidth." + std::to_string(i), rc);
    rx += info->rx_bandwidth[i] = read(*dev, "hccs.rx_bandwidth." + std::to_string(i), rc);
  }
  info->total_txbw = read(*dev, "hccs.total_txbw", rc, tx);
  info->total_rxbw = read(*dev, "hccs.total_rxbw", rc, rx);
  return rc;
}

FAKE_DCMI_EXPORT int dcmi_get_device_info(int card_id, int device_id, enum d::dcmi_main_cmd main_cmd,
                                          unsigned int sub_cmd, void* buf, unsigned int* size) {
  DEVICE_OR_FAIL(card_id, device_id)
  const std::string arg = std::to_string(static_cast<int>(main_cmd)) + "." + std::to_string(sub_cmd);
  if (int rc = call(*dev, "dcmi_get_device_info", arg)) return rc;
  if (main_cmd != d::DCMI_MAIN_CMD_HCCS) return d::kErrNotSupport;
  int rc = 0;
  if (sub_cmd == d::kHccsSubCmdStatus) {
    if (*size < sizeof(d::dcmi_hccs_statues)) return d::kErrInvalidParameter;
    auto* s = static_cast<d::dcmi_hccs_statues*>(buf);
    s->pcs_status = as<unsigned>(read(*dev, "hccs.pcs_status", rc));
    s->hdlc_status = as<unsigned>(read(*dev, "hccs.hdlc_status", rc, d::kHdlcStatusOk));
    *size = sizeof(d::dcmi_hccs_statues);
    return rc;
  }
  if (sub_cmd == d::kHccsSubCmdStatistics) {
    if (*size < sizeof(d::dcmi_hccs_statistic_info)) return d::kErrInvalidParameter;
    auto* s = static_cast<d::dcmi_hccs_statistic_info*>(buf);
    for (int i = 0; i < d::kHccsMaxLinks; ++i) {
      const std::string link = std::to_string(i);
      s->tx_cnt[i] = static_cast<unsigned>(as<unsigned long long>(read(*dev, "hccs.tx_cnt." + link, rc)));
      s->rx_cnt[i] = static_cast<unsigned>(as<unsigned long long>(read(*dev, "hccs.rx_cnt." + link, rc)));
      s->crc_err_cnt[i] =
          static_cast<unsigned>(as<unsigned long long>(read(*dev, "hccs.crc_err_cnt." + link, rc)));
      s->retry_cnt[i] =
          static_cast<unsigned>(as<unsigned long long>(read(*dev, "hccs.retry_cnt." + link, rc)));
    }
    *size = sizeof(d::dcmi_hccs_statistic_info);
    return rc;
  }
  return d::kErrNotSupport;
}

FAKE_DCMI_EXPORT int dcmi_get_netdev_pkt_stats_info(int card_id, int device_id, int port_id,
                                                    struct d::dcmi_network_pkt_stats_info* info) {
  DEVICE_OR_FAIL(card_id, device_id)
  if (int rc = call(*dev, "dcmi_get_netdev_pkt_stats_info")) return rc;
  if (port_id != 0) return d::kErrInvalidParameter;
  int rc = 0;
  for (const auto& f : d::netdev_counter_fields())
    info->*f.member = as<unsigned long long>(read(*dev, std::string("netdev.") + f.name, rc));
  return rc;
}

// Test hook (not part of DCMI): how many times `function` (or "function.arg") was called since the
// script was loaded, over all devices.
FAKE_DCMI_EXPORT long long fake_dcmi_calls(const char* function) {
  std::lock_guard lock(mu);
  auto it = script.total_calls.find(function);
  return it == script.total_calls.end() ? 0 : it->second;
}
