#include "template_text.hpp"

#include <stdexcept>

namespace cann_debug::plugins::kb {
namespace {

bool valid_name(std::string_view name) {
  if (name.empty() || name[0] < 'a' || name[0] > 'z') return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

// Calls on_text for literal pieces and on_name for placeholder names, left to right.
template <typename OnText, typename OnName>
void scan(std::string_view text, OnText on_text, OnName on_name) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t open = text.find("{{", pos);
    if (open == std::string_view::npos) {
      on_text(text.substr(pos));
      return;
    }
    on_text(text.substr(pos, open - pos));
    const std::size_t close = text.find("}}", open + 2);
    if (close == std::string_view::npos)
      throw std::invalid_argument("an unclosed '{{' at character " + std::to_string(open));
    const std::string_view name = text.substr(open + 2, close - open - 2);
    if (!valid_name(name))
      throw std::invalid_argument("a placeholder name [a-z][a-z0-9_]* at character " + std::to_string(open) +
                                  ", got '" + std::string(name) + "'");
    on_name(std::string(name));
    pos = close + 2;
  }
}

}  // namespace

std::vector<std::string> placeholder_names(std::string_view text) {
  std::vector<std::string> names;
  scan(
      text, [](std::string_view) {}, [&](std::string name) { names.push_back(std::move(name)); });
  return names;
}

std::optional<std::string> whole_placeholder(std::string_view text) {
  if (text.size() < 5 || !text.starts_with("{{") || !text.ends_with("}}")) return std::nullopt;
  const std::string_view name = text.substr(2, text.size() - 4);
  return valid_name(name) ? std::optional<std::string>(std::string(name)) : std::nullopt;
}

std::optional<std::string> substitute(
    std::string_view text, const std::function<std::optional<std::string>(const std::string&)>& lookup) {
  std::string out;
  bool complete = true;
  scan(
      text, [&](std::string_view piece) { out += piece; },
      [&](const std::string& name) {
        if (auto value = lookup(name))
          out += *value;
        else
          complete = false;
      });
  if (!complete) return std::nullopt;
  return out;
}

}  // namespace cann_debug::plugins::kb
