// Finds the byte offset of a value by parsing the text again with a SAX handler that knows its path.
// nlohmann's SAX interface has no positions, so the input iterator counts the bytes the lexer consumed.
#include <cstddef>

#include <fmt/format.h>
#include <iterator>
#include <string>

#include "cann_debug/reader/json_document.hpp"

namespace cann_debug::plugins::readers {
namespace {

struct CountingIterator {
  using iterator_category = std::forward_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  const char* p = nullptr;
  std::size_t* consumed = nullptr;

  reference operator*() const { return *p; }
  CountingIterator& operator++() {
    ++p;
    ++*consumed;
    return *this;
  }
  CountingIterator operator++(int) {
    CountingIterator old = *this;
    ++*this;
    return old;
  }
  bool operator==(const CountingIterator& o) const { return p == o.p; }
};

class Locator {
 public:
  using number_integer_t = OrderedJson::number_integer_t;
  using number_unsigned_t = OrderedJson::number_unsigned_t;
  using number_float_t = OrderedJson::number_float_t;
  using string_t = OrderedJson::string_t;
  using binary_t = OrderedJson::binary_t;

  Locator(std::string_view text, const JsonPath& target, const std::size_t& consumed)
      : text_(text), target_(target), consumed_(consumed) {}

  bool null() { return scalar(literal_start(4)); }
  bool boolean(bool b) { return scalar(literal_start(b ? 4 : 5)); }
  bool number_integer(number_integer_t) { return scalar(number_start()); }
  bool number_unsigned(number_unsigned_t) { return scalar(number_start()); }
  bool number_float(number_float_t, const string_t&) { return scalar(number_start()); }
  bool string(string_t&) { return scalar(string_start()); }
  bool binary(binary_t&) { return scalar(consumed_ > 0 ? consumed_ - 1 : 0); }
  bool start_object(std::size_t) { return open(false); }
  bool start_array(std::size_t) { return open(true); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(string_t& k) {
    stack_.back().key = k;
    if (matches()) {
      const std::size_t end = consumed_;
      const std::string quoted = fmt::format("\"{}\"", k);
      const auto at = text_.rfind(quoted, end);
      found_ = at != std::string_view::npos ? at : (end > 0 ? end - 1 : 0);
      return false;
    }
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) { return false; }

  std::optional<std::size_t> found() const { return found_; }

 private:
  struct Frame {
    bool array = false;
    std::size_t index = 0;
    std::string key;
  };

  bool matches() const {
    if (stack_.size() != target_.size()) return false;
    for (std::size_t i = 0; i < stack_.size(); ++i) {
      const auto& f = stack_[i];
      if (f.array ? std::to_string(f.index) != target_[i] : f.key != target_[i]) return false;
    }
    return true;
  }
  // Where the scalar just read starts: the lexer has consumed a number and one byte after it, a string up
  // to its closing quote, a literal exactly.
  std::size_t literal_start(std::size_t length) const { return consumed_ >= length ? consumed_ - length : 0; }
  std::size_t number_start() const {
    std::size_t i = consumed_ >= 2 ? consumed_ - 2 : 0;  // the number's last byte
    while (i > 0 && std::string_view("0123456789+-.eE").find(text_[i - 1]) != std::string_view::npos) --i;
    return i;
  }
  std::size_t string_start() const {
    if (consumed_ < 2) return 0;
    std::size_t i = consumed_ - 2;  // before the closing quote
    while (i > 0) {
      if (text_[i] == '"') {
        std::size_t backslashes = 0;
        while (i > backslashes && text_[i - 1 - backslashes] == '\\') ++backslashes;
        if (backslashes % 2 == 0) return i;
      }
      --i;
    }
    return 0;
  }
  bool start_value(std::size_t at) {
    if (matches()) {
      found_ = at;
      return false;
    }
    return true;
  }
  void end_value() {
    if (!stack_.empty() && stack_.back().array) ++stack_.back().index;
  }
  bool scalar(std::size_t at) {
    if (!start_value(at)) return false;
    end_value();
    return true;
  }
  bool open(bool array) {
    if (!start_value(consumed_ > 0 ? consumed_ - 1 : 0)) return false;
    stack_.push_back({array, 0, {}});
    return true;
  }
  bool close() {
    stack_.pop_back();
    end_value();
    return true;
  }

  std::string_view text_;
  const JsonPath& target_;
  const std::size_t& consumed_;
  std::vector<Frame> stack_;
  std::optional<std::size_t> found_;
};

}  // namespace

std::optional<std::size_t> locate_json_value(std::string_view text, const JsonPath& where) {
  std::size_t consumed = 0;
  Locator sax(text, where, consumed);
  CountingIterator first{text.data(), &consumed};
  CountingIterator last{text.data() + text.size(), &consumed};
  try {
    OrderedJson::sax_parse(first, last, &sax);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  return sax.found();
}

}  // namespace cann_debug::plugins::readers
