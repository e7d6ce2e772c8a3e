#include "json_convert.hpp"

#include <charconv>
#include <cmath>
#include <string_view>

namespace cann_debug::plugins::chrome_trace {

std::string_view trim_token_end(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

namespace {

using simdjson::error_code;
using simdjson::ondemand::json_type;

error_code convert_object(simdjson::ondemand::value& value, nlohmann::json& out, std::string& why,
                          ArgsHooks* hooks);

error_code convert_number(simdjson::ondemand::value& value, nlohmann::json& out, std::string& why) {
  simdjson::ondemand::number number;
  error_code err = value.get_number().get(number);
  if (err == simdjson::SUCCESS) {
    switch (number.get_number_type()) {
      case simdjson::ondemand::number_type::signed_integer:
        out = number.get_int64();
        return simdjson::SUCCESS;
      case simdjson::ondemand::number_type::unsigned_integer:
        out = number.get_uint64();
        return simdjson::SUCCESS;
      case simdjson::ondemand::number_type::floating_point_number:
        if (!std::isfinite(number.get_double())) break;
        out = number.get_double();
        return simdjson::SUCCESS;
    }
  }
  // Integers beyond 64 bits are kept as the nearest double (as nlohmann's own parser does); anything that
  // does not give a finite double is an error.
  {
    const std::string_view raw = trim_token_end(value.raw_json_token());
    double d = 0;
    const auto [end, ec] = std::from_chars(raw.data(), raw.data() + raw.size(), d);
    if (ec == std::errc() && end == raw.data() + raw.size() && std::isfinite(d)) {
      out = d;
      return simdjson::SUCCESS;
    }
    why = "expected a finite number, got '" + std::string(raw.substr(0, 40)) + "'";
  }
  return err == simdjson::SUCCESS ? simdjson::NUMBER_ERROR : err;
}

error_code convert_object(simdjson::ondemand::value& value, nlohmann::json& out, std::string& why,
                          ArgsHooks* hooks) {
  simdjson::ondemand::object object;
  if (auto err = value.get_object().get(object)) return err;
  out = nlohmann::json::object();
  auto& members = out.get_ref<nlohmann::json::object_t&>();
  for (auto field : object) {
    std::string_view key;
    if (auto err = field.unescaped_key().get(key)) return err;
    nlohmann::json child;
    if (auto err = to_nlohmann(field.value(), child, why)) return err;
    auto [it, inserted] = members.try_emplace(std::string(key), std::move(child));
    if (!inserted) it->second = std::move(child);
    if (hooks != nullptr && (key.size() == 6 || key.size() == 9)) {
      if (key == "stream")
        hooks->stream = &it->second;
      else if (key == "device")
        hooks->device = &it->second;
      else if (key == "Stream Id")
        hooks->stream_id = &it->second;
      else if (key == "Device Id")
        hooks->device_id = &it->second;
    }
  }
  return simdjson::SUCCESS;
}

}  // namespace

error_code args_to_nlohmann(simdjson::ondemand::value value, nlohmann::json& out, std::string& why,
                            ArgsHooks& hooks) {
  // A repeated "args" member replaces the earlier one (the last wins, as in every JSON reader): the
  // earlier members' hooks point into the value about to be replaced.
  hooks = ArgsHooks{};
  json_type type;
  if (auto err = value.type().get(type)) return err;
  if (type == json_type::object) return convert_object(value, out, why, &hooks);
  return to_nlohmann(value, out, why);
}

error_code to_nlohmann(simdjson::ondemand::value value, nlohmann::json& out, std::string& why) {
  json_type type;
  if (auto err = value.type().get(type)) return err;
  switch (type) {
    case json_type::object:
      return convert_object(value, out, why, nullptr);
    case json_type::array: {
      simdjson::ondemand::array array;
      if (auto err = value.get_array().get(array)) return err;
      out = nlohmann::json::array();
      auto& items = out.get_ref<nlohmann::json::array_t&>();
      for (auto element : array) {
        simdjson::ondemand::value item;
        if (auto err = element.get(item)) return err;
        nlohmann::json child;
        if (auto err = to_nlohmann(item, child, why)) return err;
        items.push_back(std::move(child));
      }
      return simdjson::SUCCESS;
    }
    case json_type::number:
      return convert_number(value, out, why);
    case json_type::string: {
      std::string_view s;
      if (auto err = value.get_string().get(s)) return err;
      out = std::string(s);
      return simdjson::SUCCESS;
    }
    case json_type::boolean: {
      bool b = false;
      if (auto err = value.get_bool().get(b)) return err;
      out = b;
      return simdjson::SUCCESS;
    }
    case json_type::null: {
      bool is_null = false;
      if (auto err = value.is_null().get(is_null)) return err;
      if (!is_null) return simdjson::N_ATOM_ERROR;
      out = nullptr;
      return simdjson::SUCCESS;
    }
  }
  return simdjson::INCORRECT_TYPE;
}

}  // namespace cann_debug::plugins::chrome_trace
