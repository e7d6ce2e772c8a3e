// run_config/1: typed lookups of dotted keys in the run's configuration.
#include <cmath>

#include "cann_debug/messages.hpp"

namespace cann_debug {

const nlohmann::json* RunConfiguration::find(std::string_view dotted_key) const {
  const nlohmann::json* at = &values;
  while (!dotted_key.empty()) {
    if (!at->is_object()) return nullptr;
    const auto dot = dotted_key.find('.');
    const std::string part(dotted_key.substr(0, dot));
    // A key that itself holds a dot ("optimizer.lr" written flat) wins over the nested path.
    if (dot != std::string_view::npos) {
      if (const auto whole = at->find(std::string(dotted_key)); whole != at->end()) return &*whole;
    }
    const auto it = at->find(part);
    if (it == at->end()) return nullptr;
    at = &*it;
    dotted_key = dot == std::string_view::npos ? std::string_view{} : dotted_key.substr(dot + 1);
  }
  return at;
}

std::optional<double> RunConfiguration::number(std::string_view dotted_key) const {
  const auto* v = find(dotted_key);
  if (!v || !v->is_number()) return std::nullopt;
  const double d = v->get<double>();
  return std::isfinite(d) ? std::optional<double>(d) : std::nullopt;
}

std::optional<std::int64_t> RunConfiguration::integer(std::string_view dotted_key) const {
  const auto* v = find(dotted_key);
  if (!v || !v->is_number()) return std::nullopt;
  if (v->is_number_integer()) return v->get<std::int64_t>();
  const double d = v->get<double>();
  if (!std::isfinite(d) || d != std::floor(d) || std::abs(d) > 9.0e15) return std::nullopt;
  return static_cast<std::int64_t>(d);
}

std::optional<std::string> RunConfiguration::text(std::string_view dotted_key) const {
  const auto* v = find(dotted_key);
  if (!v || !v->is_string()) return std::nullopt;
  return v->get<std::string>();
}

std::optional<bool> RunConfiguration::flag(std::string_view dotted_key) const {
  const auto* v = find(dotted_key);
  if (!v || !v->is_boolean()) return std::nullopt;
  return v->get<bool>();
}

}  // namespace cann_debug
