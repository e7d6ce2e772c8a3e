// Strict reading of the knowledge-base JSON files: every error names the file, the JSON pointer of the
// offending value and what was expected there.
#pragma once

#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace cann_debug::plugins::kb {

class KbError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A value of a knowledge-base file with its location, for error messages.
class KbNode {
 public:
  KbNode(const nlohmann::json& value, std::string file, std::string pointer)
      : value_(value), file_(std::move(file)), pointer_(std::move(pointer)) {}

  const nlohmann::json& json() const { return value_; }
  const std::string& file() const { return file_; }
  /// The JSON pointer of this value ("" = the document).
  const std::string& pointer() const { return pointer_; }

  [[noreturn]] void fail(std::string_view expected) const;

  KbNode child(std::string_view key) const;  // member of an object (must exist)
  KbNode at(std::size_t index) const;        // element of an array
  bool has(std::string_view key) const { return value_.is_object() && value_.contains(key); }

  const nlohmann::json& object() const;  // fails unless an object
  const nlohmann::json& array() const;   // fails unless an array
  std::string string() const;            // fails unless a string
  std::string non_empty_string() const;
  double number() const;  // fails unless a finite number
  int integer() const;    // fails unless an integer
  bool boolean() const;

  /// Fails on any member not in `allowed` (catches misspelt keys).
  void only_keys(std::initializer_list<std::string_view> allowed) const;

 private:
  const nlohmann::json& value_;
  std::string file_;
  std::string pointer_;
};

/// Reads and parses a JSON file; a syntax error names the byte offset.
nlohmann::json read_json_file(const std::string& path);

}  // namespace cann_debug::plugins::kb
