// A fake libdcmi.so for tests and benchmarks without an Ascend NPU: the DCMI functions the samplers call
// (signatures of the driver's dcmi_interface_api.h, C linkage) answer from a JSON script named by the
// environment variable CANN_DEBUG_FAKE_DCMI_SCRIPT. The script format is in README.md beside this file.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "dcmi/dcmi_api.hpp"

using nlohmann::json;
namespace d = cann_debug::plugins::dcmi;

#define FAKE_DCMI_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

// A value spec of the script compiled once, so that a benchmark at 10 ms measures the sampler, not this
// fake's JSON lookups.
struct Spec {
  enum Kind { kAbsent, kConstant, kList, kModel } kind = kAbsent;
  double constant = 0;
  std::vector<std::pair<bool, double>> list;  // (is an error code, value or code)
  double base = 0, step = 0, per_second = 0, noise = 0;
  bool has_per_second = false, has_noise = false;
  std::uint64_t seed = 1;
  std::uint64_t noise_stream = 0;  // noise_seed(seed, key)
  struct Anomaly {
    std::int64_t from = 0, to = INT64_MAX;
    std::optional<double> value, add, scale;
  };
  std::vector<Anomaly> anomalies;
  std::map<std::int64_t, int> errors;  // call index -> error code
};

struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

struct Value {
  Spec spec;
  std::int64_t reads = 0;
};
struct Call {
  std::int64_t count = 0;
  const json* errors = nullptr;   // the script's error spec for this function, if any
  std::int64_t* total = nullptr;  // its count over all devices (a node of Script::total_calls)
};

// Entries of a map in the order the samplers asked for them: samplers ask for the same keys in the same
// order every sample, so the next key is almost always the one after the last, found without hashing.
template <typename Map>
class SequenceCache {
 public:
  using Entry = typename Map::value_type;
  /// The entry of `key` if the sequence predicts it, else null (look it up, then call record()).
  Entry* predict(std::string_view key) {
    if (next_ < order_.size() && order_[next_]->first == key) return order_[next_++];
    if (!order_.empty() && order_[0]->first == key) {  // a new round of samples
      next_ = 1;
      return order_[0];
    }
    return nullptr;
  }
  void record(Entry& e) {
    order_.resize(std::min(next_, order_.size()));  // the sequence changed here
    if (order_.size() < kMax) {
      order_.push_back(&e);
      ++next_;
    }
  }

 private:
  static constexpr std::size_t kMax = 4096;
  std::vector<Entry*> order_;
  std::size_t next_ = 0;
};

using Values = std::unordered_map<std::string, Value, StringHash, std::equal_to<>>;
using Calls = std::unordered_map<std::string, Call, StringHash, std::equal_to<>>;

struct Device {
  int card = 0;
  int device = 0;
  int logic_id = 0;
  json values = json::object();
  json errors = json::object();
  Values reads;  // value key -> spec, reads
  Calls calls;   // function (and .arg)
  SequenceCache<Values> read_order;
  SequenceCache<Calls> call_order;
};

struct Script {
  std::string path, text;
  int init_rc = 0;
  int card_list_rc = 0;
  std::vector<Device> devices;
  std::map<std::string, std::int64_t, std::less<>> total_calls;
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

// The noise stream of one value key: hashed once, when the key is first read.
std::uint64_t noise_seed(std::uint64_t seed, std::string_view key) {
  std::uint64_t h = seed;
  for (unsigned char c : key) h = splitmix(h ^ c);
  return h;
}

// Deterministic noise in [-1, 1] for (stream, call index).
double noise(std::uint64_t stream, std::int64_t k) {
  const std::uint64_t h = splitmix(stream ^ static_cast<std::uint64_t>(k));
  return static_cast<double>(h >> 11) / static_cast<double>(1ULL << 53) * 2.0 - 1.0;
}

double number(const json& j) {
  if (j.is_string()) return static_cast<double>(std::stoll(j.get<std::string>(), nullptr, 0));  // "0x7ffd"
  return j.get<double>();
}

Spec compile(const json& spec, std::string_view key) {
  Spec c;
  if (spec.is_number() || spec.is_string()) {
    c.kind = Spec::kConstant;
    c.constant = number(spec);
  } else if (spec.is_array()) {
    c.kind = Spec::kList;
    for (const auto& e : spec)
      if (e.is_object() && e.contains("rc"))
        c.list.emplace_back(true, e["rc"].get<int>());
      else
        c.list.emplace_back(false, number(e));
  } else if (spec.is_object()) {
    c.kind = Spec::kModel;
    if (spec.contains("errors"))
      for (const auto& [k, v] : spec["errors"].items()) c.errors[std::stoll(k)] = v.get<int>();
    c.base = spec.value("base", 0.0);
    c.step = spec.value("step", 0.0);
    if ((c.has_per_second = spec.contains("per_second"))) c.per_second = spec["per_second"].get<double>();
    if ((c.has_noise = spec.contains("noise"))) c.noise = spec["noise"].get<double>();
    c.seed = spec.value("seed", std::uint64_t{1});
    c.noise_stream = noise_seed(c.seed, key);
    if (spec.contains("anomalies"))
      for (const auto& a : spec["anomalies"]) {
        Spec::Anomaly x;
        x.from = a.value("from", std::int64_t{0});
        x.to = a.value("to", INT64_MAX);
        if (a.contains("value")) x.value = number(a["value"]);
        if (a.contains("add")) x.add = number(a["add"]);
        if (a.contains("scale")) x.scale = number(a["scale"]);
        c.anomalies.push_back(x);
      }
  }
  return c;
}

// The value of `spec` at call index k; sets rc when the script makes this call fail.
double evaluate(const Spec& spec, std::int64_t k, int& rc) {
  switch (spec.kind) {
    case Spec::kAbsent:
      return 0;
    case Spec::kConstant:
      return spec.constant;
    case Spec::kList: {
      if (spec.list.empty()) return 0;
      const auto& [is_rc, v] = spec.list[static_cast<std::size_t>(
          std::min<std::int64_t>(k, static_cast<std::int64_t>(spec.list.size()) - 1))];
      if (is_rc) {
        rc = static_cast<int>(v);
        return 0;
      }
      return v;
    }
    case Spec::kModel:
      break;
  }
  if (auto it = spec.errors.find(k); it != spec.errors.end()) {
    rc = it->second;
    return 0;
  }
  double v = spec.base + spec.step * static_cast<double>(k);
  // A counter that grows with time, as a real one does (a per-call step grows with the sampling instead).
  if (spec.has_per_second) {
    static const auto start = std::chrono::steady_clock::now();
    v += spec.per_second * std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  if (spec.has_noise) v += spec.noise * noise(spec.noise_stream, k);
  for (const auto& a : spec.anomalies) {
    if (k < a.from || k >= a.to) continue;
    if (a.value) v = *a.value;
    if (a.add) v += *a.add;
    if (a.scale) v *= *a.scale;
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

// A value key built without allocating ("hccs.tx_cnt." + 3): the fake is called hundreds of times a tick.
class Key {
 public:
  Key(std::string_view prefix, long long n) {
    const std::size_t p = std::min(prefix.size(), sizeof buf_ - 24);
    std::copy_n(prefix.data(), p, buf_);
    size_ = static_cast<std::size_t>(std::to_chars(buf_ + p, buf_ + sizeof buf_, n).ptr - buf_);
  }
  Key(std::string_view prefix, std::string_view suffix) {
    const std::size_t p = std::min(prefix.size(), sizeof buf_);
    std::copy_n(prefix.data(), p, buf_);
    const std::size_t q = std::min(suffix.size(), sizeof buf_ - p);
    std::copy_n(suffix.data(), q, buf_ + p);
    size_ = p + q;
  }
  operator std::string_view() const { return {buf_, size_}; }

 private:
  char buf_[96];
  std::size_t size_ = 0;
};

// Counts a call of `function` (and of `function.arg` when arg is given) and returns the scripted error
// code for this call, 0 if none.
int call(Device& dev, std::string_view function, std::string_view arg = {}) {
  const Key with_dot(function, ".");
  const Key with_arg(with_dot, arg);
  int rc = 0;
  bool decided = false;
  for (const std::string_view name :
       {arg.empty() ? std::string_view() : std::string_view(with_arg), function}) {
    if (name.empty()) continue;
    Calls::value_type* entry = dev.call_order.predict(name);
    if (!entry) {
      auto it = dev.calls.find(name);
      if (it == dev.calls.end()) {
        Call c;
        if (auto e = dev.errors.find(std::string(name)); e != dev.errors.end()) c.errors = &*e;
        auto total = script.total_calls.find(name);
        if (total == script.total_calls.end()) total = script.total_calls.emplace(std::string(name), 0).first;
        c.total = &total->second;
        it = dev.calls.emplace(std::string(name), c).first;
      }
      entry = &*it;
      dev.call_order.record(*entry);
    }
    Call& called = entry->second;
    const std::int64_t k = called.count++;
    ++*called.total;
    if (decided || !called.errors) continue;
    decided = true;
    const json& e = *called.errors;
    if (e.is_number())
      rc = e.get<int>();
    else if (e.is_array() && !e.empty())
      rc = e[static_cast<std::size_t>(std::min<std::int64_t>(k, static_cast<std::int64_t>(e.size()) - 1))]
               .get<int>();
    else if (e.is_object() && e.contains(std::to_string(k)))
      rc = e[std::to_string(k)].get<int>();
  }
  return rc;
}

// The next value of `key` (0 or `fallback` when the script has none); rc set when the script says fail.
double read(Device& dev, std::string_view key, int& rc, double fallback = 0) {
  Values::value_type* entry = dev.read_order.predict(key);
  if (!entry) {
    auto it = dev.reads.find(key);
    if (it == dev.reads.end()) {
      Value v;
      if (auto spec = dev.values.find(std::string(key)); spec != dev.values.end())
        v.spec = compile(*spec, key);
      it = dev.reads.emplace(std::string(key), std::move(v)).first;
    }
    entry = &*it;
    dev.read_order.record(*entry);
  }
  Value& value = entry->second;
  const std::int64_t k = value.reads++;
  if (value.spec.kind == Spec::kAbsent) return fallback;
  return evaluate(value.spec, k, rc);
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
  if (int rc = call(*dev, "dcmi_get_device_utilization_rate", Key("", input_type))) return rc;
  int rc = 0;
  const double v = read(*dev, Key("utilization.", input_type), rc);
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
  if (int rc = call(*dev, "dcmi_get_device_frequency", Key("", static_cast<int>(input_type)))) return rc;
  int rc = 0;
  *frequency = as<unsigned>(read(*dev, Key("frequency.", static_cast<int>(input_type)), rc));
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
  static const json kNone = json::array();
  const auto it = dev->values.find("error_codes");
  const json& codes = it == dev->values.end() ? kNone : *it;
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
    tx += info->tx_bandwidth[i] = read(*dev, Key("hccs.tx_bandwidth.", i), rc);
    rx += info->rx_bandwidth[i] = read(*dev, Key("hccs.rx_bandwidth.", i), rc);
  }
  info->total_txbw = read(*dev, "hccs.total_txbw", rc, tx);
  info->total_rxbw = read(*dev, "hccs.total_rxbw", rc, rx);
  return rc;
}

FAKE_DCMI_EXPORT int dcmi_get_device_info(int card_id, int device_id, enum d::dcmi_main_cmd main_cmd,
                                          unsigned int sub_cmd, void* buf, unsigned int* size) {
  DEVICE_OR_FAIL(card_id, device_id)
  const Key arg(Key(Key("", static_cast<int>(main_cmd)), "."), static_cast<long long>(sub_cmd));
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
      s->tx_cnt[i] = static_cast<unsigned>(as<unsigned long long>(read(*dev, Key("hccs.tx_cnt.", i), rc)));
      s->rx_cnt[i] = static_cast<unsigned>(as<unsigned long long>(read(*dev, Key("hccs.rx_cnt.", i), rc)));
      s->crc_err_cnt[i] =
          static_cast<unsigned>(as<unsigned long long>(read(*dev, Key("hccs.crc_err_cnt.", i), rc)));
      s->retry_cnt[i] =
          static_cast<unsigned>(as<unsigned long long>(read(*dev, Key("hccs.retry_cnt.", i), rc)));
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
    info->*f.member = as<unsigned long long>(read(*dev, Key("netdev.", std::string_view(f.name)), rc));
  return rc;
}

// Test hook (not part of DCMI): how many times `function` (or "function.arg") was called since the
// script was loaded, over all devices.
FAKE_DCMI_EXPORT long long fake_dcmi_calls(const char* function) {
  std::lock_guard lock(mu);
  auto it = script.total_calls.find(function);
  return it == script.total_calls.end() ? 0 : it->second;
}
