// A numeric field of a JSON record (Ascend cluster files: communication.json, step_trace_time rows).
#pragma once

#include <nlohmann/json.hpp>

namespace cann_debug::plugins::distributed {

/// `object[key]` as a double when it is a number; 0 when it is missing or not a number.
inline double number_or_zero(const nlohmann::json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_number() ? it->get<double>() : 0.0;
}

}  // namespace cann_debug::plugins::distributed
