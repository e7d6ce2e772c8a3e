#include "kb_json.hpp"

#include <cmath>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace cann_debug::plugins::kb {
namespace {

// "~" and "/" are escaped in JSON pointer tokens (RFC 6901).
std::string escape_token(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

}  // namespace

void KbNode::fail(std::string_view expected) const {
  throw KbError(fmt::format("{}: {}: expected {}, got {}", file_, pointer_.empty() ? "/" : pointer_, expected,
                            value_.is_discarded() ? std::string("nothing") : value_.dump().substr(0, 80)));
}

KbNode KbNode::child(std::string_view key) const {
  const auto& obj = object();
  auto it = obj.find(key);
  if (it == obj.end())
    throw KbError(
        fmt::format("{}: {}: expected a member \"{}\"", file_, pointer_.empty() ? "/" : pointer_, key));
  return KbNode(*it, file_, pointer_ + "/" + escape_token(key));
}

KbNode KbNode::at(std::size_t index) const {
  return KbNode(array().at(index), file_, pointer_ + "/" + std::to_string(index));
}

const nlohmann::json& KbNode::object() const {
  if (!value_.is_object()) fail("an object");
  return value_;
}

const nlohmann::json& KbNode::array() const {
  if (!value_.is_array()) fail("an array");
  return value_;
}

std::string KbNode::string() const {
  if (!value_.is_string()) fail("a string");
  return value_.get<std::string>();
}

std::string KbNode::non_empty_string() const {
  std::string s = string();
  if (s.empty()) fail("a non-empty string");
  return s;
}

double KbNode::number() const {
  if (!value_.is_number() || !std::isfinite(value_.get<double>())) fail("a finite number");
  return value_.get<double>();
}

int KbNode::integer() const {
  if (!value_.is_number_integer()) fail("an integer");
  return value_.get<int>();
}

bool KbNode::boolean() const {
  if (!value_.is_boolean()) fail("true or false");
  return value_.get<bool>();
}

void KbNode::only_keys(std::initializer_list<std::string_view> allowed) const {
  for (const auto& [key, value] : object().items()) {
    bool known = false;
    for (auto a : allowed) known = known || a == key;
    if (known) continue;
    std::string list;
    for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
    throw KbError(fmt::format("{}: {}/{}: unknown member \"{}\" (expected one of: {})", file_, pointer_,
                              escape_token(key), key, list));
  }
}

nlohmann::json read_json_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw KbError(fmt::format("{}: cannot open the file", path));
  std::stringstream buffer;
  buffer << in.rdbuf();
  try {
    return nlohmann::json::parse(buffer.str());
  } catch (const nlohmann::json::parse_error& e) {
    throw KbError(fmt::format("{}: byte {}: not valid JSON: {}", path, e.byte, e.what()));
  }
}

}  // namespace cann_debug::plugins::kb
