#include "cann_debug/reader/json_document.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "cann_debug/reader/parse_error.hpp"
#include "cann_debug/reader/text.hpp"

namespace cann_debug::plugins::readers {
namespace {

constexpr int kMaxDepth = 512;

bool is_word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

// Replaces bare NaN / Infinity / -Infinity tokens outside strings with strings, recording the shifts.
void relax_nonfinite(JsonDocument& doc) {
  if (doc.text.find("NaN") == std::string::npos && doc.text.find("Infinity") == std::string::npos) return;
  static constexpr std::pair<std::string_view, std::string_view> kTokens[] = {
      {"-Infinity", "\"-inf\""}, {"Infinity", "\"inf\""}, {"NaN", "\"nan\""}};
  const std::string& in = doc.text;
  std::string out;
  out.reserve(in.size() + 64);
  bool in_string = false;
  bool escape = false;
  std::int64_t delta = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const char c = in[i];
    if (in_string) {
      out += c;
      if (escape)
        escape = false;
      else if (c == '\\')
        escape = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
      out += c;
      continue;
    }
    bool replaced = false;
    for (const auto& [token, replacement] : kTokens) {
      if (std::string_view(in).substr(i, token.size()) != token) continue;
      const std::size_t end = i + token.size();
      if ((i > 0 && is_word_char(in[i - 1])) || (end < in.size() && is_word_char(in[end]))) continue;
      out += replacement;
      delta += static_cast<std::int64_t>(replacement.size()) - static_cast<std::int64_t>(token.size());
      doc.shifts.push_back({out.size(), delta});
      i = end - 1;
      replaced = true;
      break;
    }
    if (!replaced) out += c;
  }
  doc.text = std::move(out);
}

// nlohmann's message without its "[json.exception.parse_error.101] parse error at line 1, column 7: ".
std::string parse_error_detail(const std::string& what) {
  auto pos = what.find(": ");
  if (pos != std::string::npos && what.find("parse error") < pos) return what.substr(pos + 2);
  return what;
}

}  // namespace

std::uint64_t JsonDocument::file_offset(std::uint64_t text_offset) const {
  auto it = std::upper_bound(shifts.begin(), shifts.end(), text_offset,
                             [](std::uint64_t off, const Shift& s) { return off < s.text_end; });
  if (it == shifts.begin()) return text_offset;
  const std::int64_t d = std::prev(it)->delta;
  const auto off = static_cast<std::int64_t>(text_offset) - d;
  return off < 0 ? 0 : static_cast<std::uint64_t>(off);
}

std::int64_t JsonDocument::line_of(std::uint64_t text_offset) const {
  const auto end = std::min<std::size_t>(text_offset, text.size());
  return 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(end), '\n');
}

JsonDocument parse_json_text(std::string path, std::string text) {
  JsonDocument doc;
  doc.path = std::move(path);
  doc.text = std::move(text);
  if (doc.text.starts_with("\xEF\xBB\xBF")) {  // byte-order mark
    doc.text.erase(0, 3);
    doc.shifts.push_back({0, -3});
  }
  if (trim(doc.text).empty()) {
    doc.empty = true;
    return doc;
  }
  // nlohmann reads a NUL byte as the end of the input: name it for what it is.
  if (auto nul = doc.text.find('\0'); nul != std::string::npos)
    fail_byte(doc.path, doc.line_of(nul), doc.file_offset(nul),
              "expected JSON text, got the control byte \\x00 (binary data?)");
  relax_nonfinite(doc);
  struct TooDeep {};
  auto limit_depth = [](int depth, OrderedJson::parse_event_t, OrderedJson&) {
    if (depth > kMaxDepth) throw TooDeep{};
    return true;
  };
  try {
    doc.root = OrderedJson::parse(doc.text, limit_depth);
  } catch (const OrderedJson::parse_error& e) {
    const std::uint64_t at = e.byte > 0 ? e.byte - 1 : 0;
    fail_byte(doc.path, doc.line_of(at), doc.file_offset(at),
              fmt::format("expected valid JSON, got {}", printable(parse_error_detail(e.what()), 200)));
  } catch (const OrderedJson::exception& e) {  // e.g. a number too large for a double
    fail_file(doc.path, fmt::format("expected JSON that can be represented: {}", printable(e.what(), 200)));
  } catch (const TooDeep&) {
    fail_file(doc.path, fmt::format("expected JSON nested at most {} levels deep", kMaxDepth));
  }
  return doc;
}

JsonDocument load_json(const std::string& path, std::size_t max_file_bytes) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (!ec && size > max_file_bytes)
    fail_file(path, fmt::format("expected a file of at most max_file_bytes = {} bytes, got {} bytes",
                                max_file_bytes, size));
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in.is_open()) {
    const int err = errno;
    throw std::runtime_error(
        fmt::format("{}: cannot open: {}", path, err ? std::strerror(err) : "unknown error"));
  }
  std::string text;
  text.resize(static_cast<std::size_t>(ec ? 0 : size));
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  if (in.bad()) fail_file(path, "read error");
  return parse_json_text(path, std::move(text));
}

std::string parse_json_line(std::string line, OrderedJson& out) {
  if (auto nul = line.find('\0'); nul != std::string::npos)
    return fmt::format("expected JSON text, got the control byte \\x00 at byte {} of the line (binary data?)",
                       nul);
  JsonDocument doc;
  doc.text = std::move(line);
  relax_nonfinite(doc);
  struct TooDeep {};
  auto limit_depth = [](int depth, OrderedJson::parse_event_t, OrderedJson&) {
    if (depth > kMaxDepth) throw TooDeep{};
    return true;
  };
  try {
    out = OrderedJson::parse(doc.text, limit_depth);
  } catch (const OrderedJson::parse_error& e) {
    const std::uint64_t at = e.byte > 0 ? e.byte - 1 : 0;
    return fmt::format(
        "expected one JSON object per line, got invalid or truncated JSON at byte {} of the line: {}",
        doc.file_offset(at), printable(parse_error_detail(e.what()), 200));
  } catch (const OrderedJson::exception& e) {
    return fmt::format("expected one JSON object per line, got JSON that cannot be represented: {}",
                       printable(e.what(), 200));
  } catch (const TooDeep&) {
    return fmt::format("expected a JSON object nested at most {} levels deep", kMaxDepth);
  }
  return {};
}

std::string pointer_text(const JsonPath& where) {
  std::string out;
  for (const auto& token : where) {
    out += '/';
    for (char c : token) {
      if (c == '~')
        out += "~0";
      else if (c == '/')
        out += "~1";
      else
        out += c;
    }
  }
  return out.empty() ? "/" : out;
}

void fail_at(const JsonDocument& doc, const JsonPath& where, std::string_view what) {
  const std::string message = fmt::format("in {}: {}", printable(pointer_text(where), 200), what);
  if (auto at = locate_json_value(doc.text, where))
    fail_byte(doc.path, doc.line_of(*at), doc.file_offset(*at), message);
  fail_file(doc.path, message);
}

std::string_view json_kind(const OrderedJson& j) {
  switch (j.type()) {
    case OrderedJson::value_t::object:
      return "an object";
    case OrderedJson::value_t::array:
      return "an array";
    case OrderedJson::value_t::string:
      return "a string";
    case OrderedJson::value_t::boolean:
      return "a boolean";
    case OrderedJson::value_t::null:
      return "null";
    case OrderedJson::value_t::number_integer:
    case OrderedJson::value_t::number_unsigned:
    case OrderedJson::value_t::number_float:
      return "a number";
    default:
      return "another JSON value";
  }
}

nlohmann::json to_plain(const OrderedJson& j) {
  switch (j.type()) {
    case OrderedJson::value_t::object: {
      nlohmann::json out = nlohmann::json::object();
      for (const auto& [k, v] : j.items()) out[k] = to_plain(v);
      return out;
    }
    case OrderedJson::value_t::array: {
      nlohmann::json out = nlohmann::json::array();
      for (const auto& v : j) out.push_back(to_plain(v));
      return out;
    }
    case OrderedJson::value_t::string:
      return j.get<std::string>();
    case OrderedJson::value_t::boolean:
      return j.get<bool>();
    case OrderedJson::value_t::number_integer:
      return j.get<std::int64_t>();
    case OrderedJson::value_t::number_unsigned:
      return j.get<std::uint64_t>();
    case OrderedJson::value_t::number_float:
      return j.get<double>();
    default:
      return nullptr;
  }
}

}  // namespace cann_debug::plugins::readers
