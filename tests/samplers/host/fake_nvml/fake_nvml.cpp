// A fake libnvidia-ml.so: the NVML functions the nvml sampler calls, with exact C signatures, answering from
// a JSON script named by the environment variable CANN_DEBUG_FAKE_NVML_SCRIPT (format: README.md beside
// this file). Deterministic: the same script gives the same values call by call.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "nvml_api.hpp"

#define FAKE_NVML_EXPORT extern "C" __attribute__((visibility("default")))

struct nvmlDevice_st {
  unsigned int index;
};

namespace {

using nlohmann::json;

// An object spec of the script compiled on the metric's first read, so that a benchmark at 10 ms measures
// the sampler, not this fake's JSON lookups. Numbers, strings and arrays are answered from the JSON.
struct ObjectSpec {
  struct Window {
    unsigned from = 0, to = 0xFFFFFFFFu;  // calls from <= i < to
  };
  struct Anomaly : Window {
    std::optional<double> value, add, scale;
  };
  struct Error : Window {
    nvmlReturn_t code = 999;
  };
  std::optional<nvmlReturn_t> error;
  std::vector<Error> errors;
  double base = 0, step = 0, noise = 0;
  std::optional<double> per_second;
  std::uint64_t seed = 0, noise_stream = 0;  // noise_stream: from (device index, metric key)
  std::vector<Anomaly> anomalies;
};

// One metric of one device: its spec in the script (null: not named) and how often it was read.
struct Metric {
  const json* spec = nullptr;
  std::optional<ObjectSpec> object;
  unsigned calls = 0;
};

struct Device {
  nvmlDevice_st handle{};
  std::string name, uuid;
  json metrics = json::object();
  std::map<std::string, Metric, std::less<>> read;  // per metric key, filled on first read
};

struct State {
  std::mutex mu;
  int refcount = 0;
  std::vector<Device> devices;
};

State& state() {
  static State* s = new State();
  return *s;
}

const std::map<std::string, nvmlReturn_t>& code_names() {
  static const std::map<std::string, nvmlReturn_t> names = {
      {"SUCCESS", 0},
      {"UNINITIALIZED", 1},
      {"INVALID_ARGUMENT", 2},
      {"NOT_SUPPORTED", 3},
      {"NO_PERMISSION", 4},
      {"ALREADY_INITIALIZED", 5},
      {"NOT_FOUND", 6},
      {"INSUFFICIENT_SIZE", 7},
      {"INSUFFICIENT_POWER", 8},
      {"DRIVER_NOT_LOADED", 9},
      {"TIMEOUT", 10},
      {"IRQ_ISSUE", 11},
      {"LIBRARY_NOT_FOUND", 12},
      {"FUNCTION_NOT_FOUND", 13},
      {"CORRUPTED_INFOROM", 14},
      {"GPU_IS_LOST", 15},
      {"RESET_REQUIRED", 16},
      {"OPERATING_SYSTEM", 17},
      {"LIB_RM_VERSION_MISMATCH", 18},
      {"IN_USE", 19},
      {"MEMORY", 20},
      {"NO_DATA", 21},
      {"UNKNOWN", 999},
  };
  return names;
}

// "NOT_SUPPORTED", "NVML_ERROR_NOT_SUPPORTED", "3" or 3 -> 3; unknown text -> UNKNOWN.
nvmlReturn_t parse_code(const json& j) {
  if (j.is_number_integer()) return j.get<int>();
  std::string s = j.is_string() ? j.get<std::string>() : "UNKNOWN";
  for (const char* prefix : {"NVML_ERROR_", "NVML_"})
    if (s.rfind(prefix, 0) == 0) s = s.substr(std::strlen(prefix));
  if (auto it = code_names().find(s); it != code_names().end()) return it->second;
  char* end = nullptr;
  const long v = std::strtol(s.c_str(), &end, 10);
  return end && *end == '\0' && !s.empty() ? static_cast<nvmlReturn_t>(v) : 999;
}

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

// The per-(device, metric) part of the noise: uniform in [-1, 1] is then a pure function of (seed, device,
// metric, call).
std::uint64_t noise_stream(unsigned device, const std::string& metric) {
  return fnv1a(metric) + device * 0x100000001b3ull;
}
double noise_unit(std::uint64_t seed, std::uint64_t stream, unsigned call) {
  const std::uint64_t h = splitmix64(seed ^ splitmix64(stream + call));
  return static_cast<double>(h >> 11) / static_cast<double>(1ull << 52) - 1.0;
}

template <typename W>
W window(const json& w) {
  W x;
  x.from = w.value("from", 0u);
  x.to = w.value("to", 0xFFFFFFFFu);  // exclusive
  return x;
}
bool in(const ObjectSpec::Window& w, unsigned call) {
  return call >= w.from && call < w.to;
}

ObjectSpec compile(const json& spec, unsigned device, const std::string& metric) {
  ObjectSpec c;
  if (auto e = spec.find("error"); e != spec.end()) c.error = parse_code(*e);
  if (auto errors = spec.find("errors"); errors != spec.end())
    for (const auto& e : *errors) {
      auto x = window<ObjectSpec::Error>(e);
      x.code = parse_code(e.value("code", json("UNKNOWN")));
      c.errors.push_back(x);
    }
  c.base = spec.value("base", 0.0);
  c.step = spec.value("step", 0.0);
  if (auto per_second = spec.find("per_second"); per_second != spec.end())
    c.per_second = per_second->get<double>();
  c.noise = spec.value("noise", 0.0);
  c.seed = spec.value("seed", std::uint64_t{0});
  c.noise_stream = noise_stream(device, metric);
  if (auto anomalies = spec.find("anomalies"); anomalies != spec.end())
    for (const auto& a : *anomalies) {
      auto x = window<ObjectSpec::Anomaly>(a);
      if (auto v = a.find("value"); v != a.end()) x.value = v->get<double>();
      if (auto v = a.find("add"); v != a.end()) x.add = v->get<double>();
      if (auto v = a.find("scale"); v != a.end()) x.scale = v->get<double>();
      c.anomalies.push_back(x);
    }
  return c;
}

nvmlReturn_t evaluate(const ObjectSpec& spec, unsigned call, double& value) {
  if (spec.error) return *spec.error;
  for (const auto& e : spec.errors)
    if (in(e, call)) return e.code;
  value = spec.base + spec.step * call;
  // A counter that grows with time, as a real one does (a per-call step grows with the sampling instead).
  if (spec.per_second) {
    static const auto start = std::chrono::steady_clock::now();
    value +=
        *spec.per_second * std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  if (spec.noise != 0.0) value += spec.noise * noise_unit(spec.seed, spec.noise_stream, call);
  for (const auto& a : spec.anomalies) {
    if (!in(a, call)) continue;
    if (a.value) value = *a.value;
    if (a.add) value += *a.add;
    if (a.scale) value *= *a.scale;
  }
  if (value < 0) value = 0;
  return 0;
}

// The value (or error code) of `metric` at call index `call`. A metric the script does not name is not
// supported.
nvmlReturn_t evaluate(const Device& d, Metric& m, const std::string& metric, unsigned call, double& value) {
  if (!m.spec || m.spec->is_null()) return 3;
  const json* picked = m.spec;
  if (picked->is_array()) {
    if (picked->empty()) return 3;
    picked = &(*picked)[std::min<std::size_t>(call, picked->size() - 1)];
  }
  const json& spec = *picked;
  if (spec.is_string()) return parse_code(spec);
  if (spec.is_number()) {
    value = spec.get<double>();
    return 0;
  }
  if (!spec.is_object()) return 999;
  if (picked == m.spec) {
    if (!m.object) m.object = compile(spec, d.handle.index, metric);
    return evaluate(*m.object, call, value);
  }
  return evaluate(compile(spec, d.handle.index, metric), call, value);  // an object inside an array
}

// Reads `metric` for one call of a function, advancing its call counter.
nvmlReturn_t next(Device& d, std::string_view metric, double& value) {
  auto it = d.read.find(metric);
  if (it == d.read.end()) {
    Metric m;
    if (auto spec = d.metrics.find(std::string(metric)); spec != d.metrics.end()) m.spec = &*spec;
    it = d.read.emplace(std::string(metric), m).first;
  }
  const unsigned call = it->second.calls++;
  return evaluate(d, it->second, it->first, call, value);
}

template <typename T>
T as_unsigned(double v) {
  return static_cast<T>(std::llround(v));
}

Device* device_of(nvmlDevice_t h) {
  auto& s = state();
  if (s.refcount == 0 || !h || h->index >= s.devices.size()) return nullptr;
  return &s.devices[h->index];
}

nvmlReturn_t load_script() {
  auto& s = state();
  s.devices.clear();
  const char* path = std::getenv("CANN_DEBUG_FAKE_NVML_SCRIPT");
  if (!path || !*path) return 9;  // DRIVER_NOT_LOADED: no script, no GPUs
  std::ifstream in(path);
  if (!in.is_open()) {
    std::fprintf(stderr, "fake_nvml: cannot open script %s\n", path);
    return 9;
  }
  json script;
  try {
    script = json::parse(in);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fake_nvml: %s: %s\n", path, e.what());
    return 999;
  }
  if (script.contains("init")) {
    const nvmlReturn_t rc = parse_code(script["init"]);
    if (rc != 0) return rc;
  }
  unsigned index = 0;
  for (const auto& dj : script.value("devices", json::array())) {
    Device d;
    d.handle.index = index;
    d.name = dj.value("name", "Fake GPU");
    d.uuid = dj.value("uuid", "GPU-fake-" + std::to_string(index));
    d.metrics = dj.value("metrics", json::object());
    s.devices.push_back(std::move(d));
    ++index;
  }
  return 0;
}

nvmlReturn_t copy_string(const std::string& text, char* out, unsigned int length) {
  if (!out) return 2;
  if (text.size() + 1 > length) return 7;  // INSUFFICIENT_SIZE
  std::memcpy(out, text.c_str(), text.size() + 1);
  return 0;
}

}  // namespace

FAKE_NVML_EXPORT nvmlReturn_t nvmlInit_v2(void) {
  auto& s = state();
  std::lock_guard lock(s.mu);
  if (s.refcount == 0) {
    const nvmlReturn_t rc = load_script();
    if (rc != 0) return rc;
  }
  ++s.refcount;
  return 0;
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlShutdown(void) {
  auto& s = state();
  std::lock_guard lock(s.mu);
  if (s.refcount == 0) return 1;
  if (--s.refcount == 0) s.devices.clear();
  return 0;
}

FAKE_NVML_EXPORT const char* nvmlErrorString(nvmlReturn_t result) {
  switch (result) {
    case 0:
      return "Success";
    case 1:
      return "Uninitialized";
    case 2:
      return "Invalid Argument";
    case 3:
      return "Not Supported";
    case 4:
      return "Insufficient Permissions";
    case 9:
      return "Driver Not Loaded";
    case 15:
      return "GPU is lost";
    case 21:
      return "No data";
    default:
      return "Unknown Error";
  }
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* count) {
  auto& s = state();
  std::lock_guard lock(s.mu);
  if (s.refcount == 0) return 1;
  if (!count) return 2;
  *count = static_cast<unsigned int>(s.devices.size());
  return 0;
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t* device) {
  auto& s = state();
  std::lock_guard lock(s.mu);
  if (s.refcount == 0) return 1;
  if (!device || index >= s.devices.size()) return 2;
  *device = &s.devices[index].handle;
  return 0;
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char* name, unsigned int length) {
  std::lock_guard lock(state().mu);
  Device* d = device_of(device);
  return d ? copy_string(d->name, name, length) : 2;
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char* uuid, unsigned int length) {
  std::lock_guard lock(state().mu);
  Device* d = device_of(device);
  return d ? copy_string(d->uuid, uuid, length) : 2;
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t* u) {
  std::lock_guard lock(state().mu);
  Device* d = device_of(device);
  if (!d || !u) return 2;
  double gpu = 0, mem = 0;
  const nvmlReturn_t a = next(*d, "utilization.gpu", gpu);
  const nvmlReturn_t b = next(*d, "utilization.memory", mem);
  if (a != 0) return a;
  if (b != 0) return b;
  u->gpu = as_unsigned<unsigned int>(std::min(gpu, 100.0));
  u->memory = as_unsigned<unsigned int>(std::min(mem, 100.0));
  return 0;
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t* m) {
  std::lock_guard lock(state().mu);
  Device* d = device_of(device);
  if (!d || !m) return 2;
  double total = 0, used = 0;
  const nvmlReturn_t a = next(*d, "memory.total", total);
  const nvmlReturn_t b = next(*d, "memory.used", used);
  if (a != 0) return a;
  if (b != 0) return b;
  m->total = as_unsigned<unsigned long long>(total);
  m->used = std::min(m->total, as_unsigned<unsigned long long>(used));
  m->free = m->total - m->used;
  return 0;
}

namespace {
nvmlReturn_t unsigned_reading(nvmlDevice_t device, const char* metric, unsigned int* out) {
  std::lock_guard lock(state().mu);
  Device* d = device_of(device);
  if (!d || !out) return 2;
  double v = 0;
  const nvmlReturn_t rc = next(*d, metric, v);
  if (rc == 0) *out = as_unsigned<unsigned int>(v);
  return rc;
}
}  // namespace

FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int* power) {
  return unsigned_reading(device, "power", power);
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, int type, unsigned int* clock) {
  const char* names[] = {"clock.graphics", "clock.sm", "clock.mem", "clock.video"};
  if (type < 0 || type > 3) return 2;
  return unsigned_reading(device, names[type], clock);
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, int sensor, unsigned int* temp) {
  if (sensor != 0) return 2;
  return unsigned_reading(device, "temperature", temp);
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceGetPcieThroughput(nvmlDevice_t device, int counter,
                                                          unsigned int* value) {
  if (counter != 0 && counter != 1) return 2;
  return unsigned_reading(device, counter == 0 ? "pcie.tx" : "pcie.rx", value);
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device, int count,
                                                       nvmlFieldValue_t* values) {
  std::lock_guard lock(state().mu);
  Device* d = device_of(device);
  if (!d || count < 0 || (count > 0 && !values)) return 2;
  for (int i = 0; i < count; ++i) {
    nvmlFieldValue_t& f = values[i];
    const char* metric = f.fieldId == 138 ? "nvlink.tx" : f.fieldId == 139 ? "nvlink.rx" : nullptr;
    f.timestamp = 0;
    f.latencyUsec = 0;
    double v = 0;
    if (!metric) {
      f.nvmlReturn = 3;
      continue;
    }
    f.nvmlReturn = next(*d, metric, v);
    if (f.nvmlReturn == 15) return 15;  // a lost GPU fails the whole call
    f.valueType = 3;                    // NVML_VALUE_TYPE_UNSIGNED_LONG_LONG
    f.value.ullVal = as_unsigned<unsigned long long>(v);
  }
  return 0;
}

/// Test hook (not NVML): how many times `metric` of device `index` was read since nvmlInit_v2.
FAKE_NVML_EXPORT unsigned int fake_nvml_calls(unsigned int index, const char* metric) {
  auto& s = state();
  std::lock_guard lock(s.mu);
  if (index >= s.devices.size() || !metric) return 0;
  auto it = s.devices[index].read.find(std::string_view(metric));
  return it == s.devices[index].read.end() ? 0 : it->second.calls;
}
