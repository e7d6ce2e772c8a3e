// simdjson on-demand values to nlohmann::json (the form Event::args travels in).
#pragma once

#include <string>
#include <string_view>

#include <simdjson.h>
#include <nlohmann/json.hpp>

namespace cann_debug::plugins::chrome_trace {

/// Converts `value` (and everything under it). Returns the simdjson error that stopped it, SUCCESS otherwise;
/// on NUMBER_ERROR-like failures `why` says what was expected (e.g. a finite number). A repeated key keeps
/// its last value, as nlohmann's own parser does.
simdjson::error_code to_nlohmann(simdjson::ondemand::value value, nlohmann::json& out, std::string& why);

/// Converts an event's "args" like to_nlohmann, and on the way notes the members the reader needs, so that it
/// does not have to look them up again: "stream" / "Stream Id" and "device" / "Device Id".
struct ArgsHooks {
  const nlohmann::json* stream = nullptr;
  const nlohmann::json* stream_id = nullptr;
  const nlohmann::json* device = nullptr;
  const nlohmann::json* device_id = nullptr;
};
simdjson::error_code args_to_nlohmann(simdjson::ondemand::value value, nlohmann::json& out, std::string& why,
                                      ArgsHooks& hooks);

/// `s` without the blanks (space, tab, CR, LF) that end a raw JSON token before its delimiter.
std::string_view trim_token_end(std::string_view s);

}  // namespace cann_debug::plugins::chrome_trace
