// The part of NVML's C API (nvml.h, NVIDIA Management Library) the nvml sampler uses, declared here so the
// sampler builds without the CUDA toolkit and opens libnvidia-ml.so.1 with dlopen. Names, values and
// layouts are nvml.h's; only what is used is declared.
#pragma once

#include <cstdint>

extern "C" {

typedef struct nvmlDevice_st* nvmlDevice_t;  // opaque
typedef int nvmlReturn_t;                    // enum nvmlReturn_enum

typedef struct nvmlUtilization_st {
  unsigned int gpu;     // percent of time a kernel was running over the last sample period
  unsigned int memory;  // percent of time device memory was being read or written
} nvmlUtilization_t;

typedef struct nvmlMemory_st {
  unsigned long long total;  // bytes
  unsigned long long free;
  unsigned long long used;
} nvmlMemory_t;

typedef int nvmlValueType_t;  // enum nvmlValueType_enum

typedef union nvmlValue_st {
  double dVal;
  int siVal;
  unsigned int uiVal;
  unsigned long ulVal;
  unsigned long long ullVal;
  signed long long sllVal;
  unsigned short usVal;
} nvmlValue_t;

typedef struct nvmlFieldValue_st {
  unsigned int fieldId;
  unsigned int scopeId;  // e.g. an NVLink id; UINT_MAX = all links
  long long timestamp;   // CPU time of the value, microseconds since 1970
  long long latencyUsec;
  nvmlValueType_t valueType;
  nvmlReturn_t nvmlReturn;
  nvmlValue_t value;
} nvmlFieldValue_t;

typedef nvmlReturn_t (*nvmlInit_v2_fn)(void);
typedef nvmlReturn_t (*nvmlShutdown_fn)(void);
typedef const char* (*nvmlErrorString_fn)(nvmlReturn_t result);
typedef nvmlReturn_t (*nvmlDeviceGetCount_v2_fn)(unsigned int* deviceCount);
typedef nvmlReturn_t (*nvmlDeviceGetHandleByIndex_v2_fn)(unsigned int index, nvmlDevice_t* device);
typedef nvmlReturn_t (*nvmlDeviceGetName_fn)(nvmlDevice_t device, char* name, unsigned int length);
typedef nvmlReturn_t (*nvmlDeviceGetUUID_fn)(nvmlDevice_t device, char* uuid, unsigned int length);
typedef nvmlReturn_t (*nvmlDeviceGetUtilizationRates_fn)(nvmlDevice_t device, nvmlUtilization_t* utilization);
typedef nvmlReturn_t (*nvmlDeviceGetMemoryInfo_fn)(nvmlDevice_t device, nvmlMemory_t* memory);
typedef nvmlReturn_t (*nvmlDeviceGetPowerUsage_fn)(nvmlDevice_t device, unsigned int* power);
typedef nvmlReturn_t (*nvmlDeviceGetClockInfo_fn)(nvmlDevice_t device, int type, unsigned int* clock);
typedef nvmlReturn_t (*nvmlDeviceGetTemperature_fn)(nvmlDevice_t device, int sensorType, unsigned int* temp);
typedef nvmlReturn_t (*nvmlDeviceGetPcieThroughput_fn)(nvmlDevice_t device, int counter, unsigned int* value);
typedef nvmlReturn_t (*nvmlDeviceGetFieldValues_fn)(nvmlDevice_t device, int valuesCount,
                                                    nvmlFieldValue_t* values);

}  // extern "C"

namespace cann_debug::plugins::nvml_api {

// nvmlReturn_t
inline constexpr nvmlReturn_t kSuccess = 0;
inline constexpr nvmlReturn_t kErrorUninitialized = 1;
inline constexpr nvmlReturn_t kErrorInvalidArgument = 2;
inline constexpr nvmlReturn_t kErrorNotSupported = 3;
inline constexpr nvmlReturn_t kErrorNoPermission = 4;
inline constexpr nvmlReturn_t kErrorNotFound = 6;
inline constexpr nvmlReturn_t kErrorInsufficientSize = 7;
inline constexpr nvmlReturn_t kErrorDriverNotLoaded = 9;
inline constexpr nvmlReturn_t kErrorTimeout = 10;
inline constexpr nvmlReturn_t kErrorLibraryNotFound = 12;
inline constexpr nvmlReturn_t kErrorFunctionNotFound = 13;
inline constexpr nvmlReturn_t kErrorGpuIsLost = 15;
inline constexpr nvmlReturn_t kErrorResetRequired = 16;
inline constexpr nvmlReturn_t kErrorNoData = 21;
inline constexpr nvmlReturn_t kErrorUnknown = 999;

// nvmlClockType_t, nvmlTemperatureSensors_t, nvmlPcieUtilCounter_t
inline constexpr int kClockSm = 1;
inline constexpr int kTemperatureGpu = 0;
inline constexpr int kPcieUtilTxBytes = 0;
inline constexpr int kPcieUtilRxBytes = 1;

// nvmlValueType_t
inline constexpr nvmlValueType_t kValueDouble = 0;
inline constexpr nvmlValueType_t kValueUnsignedInt = 1;
inline constexpr nvmlValueType_t kValueUnsignedLong = 2;
inline constexpr nvmlValueType_t kValueUnsignedLongLong = 3;
inline constexpr nvmlValueType_t kValueSignedLongLong = 4;
inline constexpr nvmlValueType_t kValueSignedInt = 5;
inline constexpr nvmlValueType_t kValueUnsignedShort = 6;

// Field ids: NVLink data throughput (payload, no protocol overhead), cumulative KiB since the driver
// loaded; scopeId UINT_MAX sums all links.
inline constexpr unsigned int kFieldNvlinkThroughputDataTx = 138;
inline constexpr unsigned int kFieldNvlinkThroughputDataRx = 139;
inline constexpr unsigned int kScopeAllLinks = 0xFFFFFFFFu;

inline constexpr unsigned int kDeviceNameBufferSize = 96;  // NVML_DEVICE_NAME_V2_BUFFER_SIZE
inline constexpr unsigned int kDeviceUuidBufferSize = 96;  // NVML_DEVICE_UUID_V2_BUFFER_SIZE

/// The NVML_ERROR_* name of a return code ("NVML_ERROR_GPU_IS_LOST"), for messages.
const char* return_code_name(nvmlReturn_t code);

}  // namespace cann_debug::plugins::nvml_api
