// A whole JSON file in memory, parsed in document order, with the means to point at any value of it.
//
// Python's json module writes NaN, Infinity and -Infinity as bare tokens (allow_nan=True is its default),
// which strict JSON parsers refuse. They are read as the strings "nan", "inf" and "-inf" (the convention of
// our message JSON forms); byte offsets in errors still refer to the file as written.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace cann_debug::plugins::readers {

using OrderedJson = nlohmann::ordered_json;

/// Keys and array indices from the root to a value.
using JsonPath = std::vector<std::string>;

struct JsonDocument {
  std::string path;
  std::string text;  // as parsed (non-finite tokens replaced)
  OrderedJson root;
  bool empty = false;  // the file held nothing but whitespace

  /// Byte offset in the file as written of a byte offset in `text`.
  std::uint64_t file_offset(std::uint64_t text_offset) const;
  /// 1-based line of a byte offset in `text`.
  std::int64_t line_of(std::uint64_t text_offset) const;

  struct Shift {
    std::size_t text_end;  // offset in `text` just after a replacement
    std::int64_t delta;    // total growth of `text` over the file up to there
  };
  std::vector<Shift> shifts;
};

/// Reads `path` (at most max_file_bytes) and parses it. Throws std::runtime_error when the file cannot be
/// opened, ParseError naming the line and byte offset when it is not JSON (or nests deeper than 512).
JsonDocument load_json(const std::string& path, std::size_t max_file_bytes);

/// Parses text already in memory (`path` is only used in messages).
JsonDocument parse_json_text(std::string path, std::string text);

/// Parses one line of a JSON-lines file (bare NaN / Infinity accepted as above). Returns "" and sets `out`,
/// or what was expected instead, naming the byte of the line where parsing stopped.
std::string parse_json_line(std::string line, OrderedJson& out);

/// "/a/b/0" with JSON-pointer escaping.
std::string pointer_text(const JsonPath& where);

/// Byte offset in `text` of the value at `where` (of its key, for an object member), by reading the text
/// again; nullopt when the path does not exist.
std::optional<std::size_t> locate_json_value(std::string_view text, const JsonPath& where);

/// Throws ParseError: "<path>:<line>: in <pointer>: <what> (at byte offset N)".
[[noreturn]] void fail_at(const JsonDocument& doc, const JsonPath& where, std::string_view what);

/// Ordered JSON (document order) to the SDK's json, for Record::fields.
nlohmann::json to_plain(const OrderedJson& j);

/// "a string", "an array", ... for messages.
std::string_view json_kind(const OrderedJson& j);

}  // namespace cann_debug::plugins::readers
