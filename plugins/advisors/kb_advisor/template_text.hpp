// Placeholders in knowledge-base text: "{{name}}" where name is [a-z][a-z0-9_]*.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cann_debug::plugins::kb {

/// The placeholder names in `text`, in order. Throws std::invalid_argument on an unclosed "{{" or a name
/// that is not [a-z][a-z0-9_]*.
std::vector<std::string> placeholder_names(std::string_view text);

/// The name when `text` is exactly one placeholder ("{{name}}"), else nullopt.
std::optional<std::string> whole_placeholder(std::string_view text);

/// `text` with every placeholder replaced by lookup(name); nullopt when a lookup gives nullopt.
std::optional<std::string> substitute(
    std::string_view text, const std::function<std::optional<std::string>(const std::string&)>& lookup);

}  // namespace cann_debug::plugins::kb
