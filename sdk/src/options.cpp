#include "cann_debug/options.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fmt/format.h>
#include <stdexcept>

namespace cann_debug {

std::string_view to_string(OptionType t) {
  switch (t) {
    case OptionType::kString: return "string";
    case OptionType::kInt: return "int";
    case OptionType::kDouble: return "double";
    case OptionType::kBool: return "bool";
    case OptionType::kDuration: return "duration";
    case OptionType::kSize: return "size";
    case OptionType::kEnum: return "enum";
    case OptionType::kStringList: return "list<string>";
    case OptionType::kDoubleList: return "list<double>";
    case OptionType::kMap: return "map";
  }
  return "?";
}

namespace {

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

// Splits "12.5ms" into 12.5 and "ms". Returns false if no leading number.
bool split_number_unit(std::string_view text, double& number, std::string& unit) {
  std::string t = trim(text);
  size_t i = 0;
  if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
  bool digits = false;
  while (i < t.size() && (std::isdigit(static_cast<unsigned char>(t[i])) || t[i] == '.')) {
    digits = digits || std::isdigit(static_cast<unsigned char>(t[i]));
    ++i;
  }
  if (!digits) return false;
  try {
    number = std::stod(t.substr(0, i));
  } catch (...) {
    return false;
  }
  unit = trim(std::string_view(t).substr(i));
  return std::isfinite(number);
}

std::string describe(const nlohmann::json& raw) {
  if (raw.is_string()) return "'" + raw.get<std::string>() + "'";
  return raw.dump();
}

// Integers given as doubles with no fraction are accepted (YAML "1e3").
std::optional<std::int64_t> as_integer(const nlohmann::json& raw) {
  if (raw.is_number_integer()) return raw.get<std::int64_t>();
  if (raw.is_number_float()) {
    double d = raw.get<double>();
    if (std::isfinite(d) && std::floor(d) == d && std::fabs(d) < 9.2e18) return static_cast<std::int64_t>(d);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::int64_t> parse_duration_ns(std::string_view text) {
  double n = 0;
  std::string unit;
  if (!split_number_unit(text, n, unit)) return std::nullopt;
  double scale = 0;
  if (unit == "ns") scale = 1;
  else if (unit == "us" || unit == "µs") scale = 1e3;
  else if (unit == "ms") scale = 1e6;
  else if (unit == "s" || unit.empty()) scale = 1e9;  // a bare number in text is seconds
  else if (unit == "m" || unit == "min") scale = 60e9;
  else if (unit == "h") scale = 3600e9;
  else return std::nullopt;
  double v = n * scale;
  if (std::fabs(v) > 9.2e18) return std::nullopt;
  return static_cast<std::int64_t>(std::llround(v));
}

std::optional<std::int64_t> parse_size_bytes(std::string_view text) {
  double n = 0;
  std::string unit;
  if (!split_number_unit(text, n, unit)) return std::nullopt;
  std::string u;
  for (char c : unit) u += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  double scale = 0;
  if (u.empty() || u == "b") scale = 1;
  else if (u == "k" || u == "kb") scale = 1e3;
  else if (u == "kib") scale = 1024.0;
  else if (u == "m" || u == "mb") scale = 1e6;
  else if (u == "mib") scale = 1024.0 * 1024;
  else if (u == "g" || u == "gb") scale = 1e9;
  else if (u == "gib") scale = 1024.0 * 1024 * 1024;
  else return std::nullopt;
  double v = n * scale;
  if (v < 0 || v > 9.2e18) return std::nullopt;
  return static_cast<std::int64_t>(std::llround(v));
}

std::optional<nlohmann::json> convert_option(const OptionSpec& spec, const nlohmann::json& raw,
                                             std::string& error) {
  using nlohmann::json;
  switch (spec.type) {
    case OptionType::kString:
      if (raw.is_string()) return raw;
      if (raw.is_number() || raw.is_boolean()) return json(raw.dump());
      error = fmt::format("expected a string, got {}", describe(raw));
      return std::nullopt;
    case OptionType::kEnum: {
      if (!raw.is_string()) {
        error = fmt::format("expected one of [{}], got {}", fmt::join(spec.enum_values, ", "), describe(raw));
        return std::nullopt;
      }
      return raw;
    }
    case OptionType::kInt: {
      if (auto v = as_integer(raw)) return json(*v);
      if (raw.is_string()) {
        try {
          size_t used = 0;
          std::string s = trim(raw.get<std::string>());
          long long v = std::stoll(s, &used, 0);
          if (used == s.size()) return json(static_cast<std::int64_t>(v));
        } catch (...) {
        }
      }
      error = fmt::format("expected an integer, got {}", describe(raw));
      return std::nullopt;
    }
    case OptionType::kDouble: {
      if (raw.is_number()) return json(raw.get<double>());
      if (raw.is_string()) {
        try {
          size_t used = 0;
          std::string s = trim(raw.get<std::string>());
          double v = std::stod(s, &used);
          if (used == s.size() && std::isfinite(v)) return json(v);
        } catch (...) {
        }
      }
      error = fmt::format("expected a number, got {}", describe(raw));
      return std::nullopt;
    }
    case OptionType::kBool: {
      if (raw.is_boolean()) return raw;
      if (raw.is_string()) {
        std::string s = raw.get<std::string>();
        if (s == "true" || s == "yes" || s == "on") return json(true);
        if (s == "false" || s == "no" || s == "off") return json(false);
      }
      error = fmt::format("expected true or false, got {}", describe(raw));
      return std::nullopt;
    }
    case OptionType::kDuration: {
      if (auto v = as_integer(raw)) return json(*v);
      if (raw.is_string()) {
        if (auto v = parse_duration_ns(raw.get<std::string>())) return json(*v);
      }
      error = fmt::format("expected a duration like 10ms, 2s or 5m, got {}", describe(raw));
      return std::nullopt;
    }
    case OptionType::kSize: {
      if (auto v = as_integer(raw); v && *v >= 0) return json(*v);
      if (raw.is_string()) {
        if (auto v = parse_size_bytes(raw.get<std::string>())) return json(*v);
      }
      error = fmt::format("expected a size like 4096, 64KiB or 2MB, got {}", describe(raw));
      return std::nullopt;
    }
    case OptionType::kStringList: {
      json out = json::array();
      if (raw.is_string()) {
        out.push_back(raw);
        return out;
      }
      if (raw.is_array()) {
        for (const auto& e : raw) {
          if (e.is_string()) out.push_back(e);
          else if (e.is_number() || e.is_boolean()) out.push_back(e.dump());
          else {
            error = fmt::format("expected a list of strings, got an element {}", describe(e));
            return std::nullopt;
          }
        }
        return out;
      }
      error = fmt::format("expected a list of strings, got {}", describe(raw));
      return std::nullopt;
    }
    case OptionType::kDoubleList: {
      json out = json::array();
      json items = raw.is_array() ? raw : json::array({raw});
      for (const auto& e : items) {
        OptionSpec one{.name = spec.name, .type = OptionType::kDouble};
        std::string err;
        auto v = convert_option(one, e, err);
        if (!v) {
          error = fmt::format("expected a list of numbers, got an element {}", describe(e));
          return std::nullopt;
        }
        out.push_back(*v);
      }
      return out;
    }
    case OptionType::kMap:
      if (raw.is_object()) return raw;
      error = fmt::format("expected a mapping, got {}", describe(raw));
      return std::nullopt;
  }
  error = "unknown option type";
  return std::nullopt;
}

std::string check_option_bounds(const OptionSpec& spec, const nlohmann::json& value) {
  if (spec.type == OptionType::kEnum) {
    const std::string v = value.get<std::string>();
    for (const auto& e : spec.enum_values)
      if (e == v) return {};
    return fmt::format("'{}' is not one of [{}]", v, fmt::join(spec.enum_values, ", "));
  }
  auto check = [&](double v) -> std::string {
    if (spec.min && v < *spec.min) return fmt::format("{} is below the minimum {}", v, *spec.min);
    if (spec.max && v > *spec.max) return fmt::format("{} is above the maximum {}", v, *spec.max);
    return {};
  };
  if (value.is_number()) return check(value.get<double>());
  if (value.is_array() && spec.type == OptionType::kDoubleList) {
    for (const auto& e : value)
      if (auto m = check(e.get<double>()); !m.empty()) return m;
  }
  return {};
}

// ---- Config ----------------------------------------------------------------------------------------

bool Config::has(std::string_view key) const {
  auto it = values_.find(key);
  return it != values_.end() && !it->is_null();
}

const nlohmann::json& Config::raw(std::string_view key) const {
  auto it = values_.find(key);
  if (it == values_.end()) throw std::out_of_range(fmt::format("option '{}' is not set", key));
  return *it;
}

std::string Config::str(std::string_view key) const { return raw(key).get<std::string>(); }
std::int64_t Config::integer(std::string_view key) const { return raw(key).get<std::int64_t>(); }
double Config::number(std::string_view key) const { return raw(key).get<double>(); }
bool Config::boolean(std::string_view key) const { return raw(key).get<bool>(); }
std::vector<std::string> Config::strings(std::string_view key) const {
  return raw(key).get<std::vector<std::string>>();
}
std::vector<double> Config::numbers(std::string_view key) const { return raw(key).get<std::vector<double>>(); }

}  // namespace cann_debug

namespace cann_debug {

std::string closest_match(std::string_view word, const std::vector<std::string>& candidates) {
  auto distance = [](std::string_view a, std::string_view b) {
    std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
      cur[0] = i;
      for (size_t j = 1; j <= b.size(); ++j) {
        size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
        cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
      }
      std::swap(prev, cur);
    }
    return prev[b.size()];
  };
  std::string best;
  size_t best_d = std::max<size_t>(2, word.size() / 3) + 1;
  for (const auto& c : candidates) {
    size_t d = distance(word, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

Config resolve_config(const std::vector<OptionSpec>& schema, const nlohmann::json& raw,
                      std::vector<OptionIssue>& issues) {
  nlohmann::json values = nlohmann::json::object();
  std::vector<std::string> names;
  for (const auto& o : schema) names.push_back(o.name);
  if (!raw.is_null() && !raw.is_object()) {
    issues.push_back({OptionIssue::Kind::kType, "", "options must be a mapping of option: value"});
    return Config(values);
  }
  if (raw.is_object()) {
    for (const auto& [key, value] : raw.items()) {
      const OptionSpec* spec = nullptr;
      for (const auto& o : schema)
        if (o.name == key) spec = &o;
      if (!spec) {
        std::string hint = closest_match(key, names);
        std::string msg = fmt::format("unknown option '{}'", key);
        if (!hint.empty()) msg += fmt::format(" (did you mean '{}'?)", hint);
        else if (!names.empty()) msg += fmt::format(" (valid options: {})", fmt::join(names, ", "));
        else msg += " (this component takes no options)";
        issues.push_back({OptionIssue::Kind::kUnknown, key, msg});
        continue;
      }
      std::string err;
      auto converted = convert_option(*spec, value, err);
      if (!converted) {
        issues.push_back({OptionIssue::Kind::kType, key, fmt::format("option '{}': {}", key, err)});
        continue;
      }
      if (auto b = check_option_bounds(*spec, *converted); !b.empty()) {
        issues.push_back({OptionIssue::Kind::kRange, key, fmt::format("option '{}': {}", key, b)});
        continue;
      }
      values[key] = *converted;
    }
  }
  for (const auto& o : schema) {
    if (values.contains(o.name)) continue;
    if (raw.is_object() && raw.contains(o.name)) continue;  // present but invalid: already reported
    if (o.required) {
      issues.push_back({OptionIssue::Kind::kMissing, o.name,
                        fmt::format("missing required option '{}' ({}: {})", o.name, to_string(o.type), o.description)});
      continue;
    }
    if (!o.default_value.is_null()) {
      std::string err;
      if (auto v = convert_option(o, o.default_value, err)) values[o.name] = *v;
    } else {
      values[o.name] = nullptr;
    }
  }
  return Config(values);
}

}  // namespace cann_debug
