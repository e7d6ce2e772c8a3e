#include "exposition_parser.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "cann_debug/reader/numbers.hpp"
#include "cann_debug/reader/text.hpp"

namespace cann_debug::plugins::prometheus {
namespace {

using readers::printable;

bool name_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}
bool name_char(char c) {
  return name_start(c) || (c >= '0' && c <= '9');
}

[[noreturn]] void bad(std::size_t column, std::string_view what) {
  throw std::invalid_argument(fmt::format("{} at column {}", what, column + 1));
}

class Cursor {
 public:
  explicit Cursor(std::string_view s) : s_(s) {}
  bool done() const { return i_ >= s_.size(); }
  char peek() const { return done() ? '\0' : s_[i_]; }
  std::size_t pos() const { return i_; }
  void skip_blanks() {
    while (!done() && (s_[i_] == ' ' || s_[i_] == '\t')) ++i_;
  }
  void advance() { ++i_; }
  std::string_view rest() const { return s_.substr(i_); }
  std::string_view word() {
    const auto b = i_;
    while (!done() && s_[i_] != ' ' && s_[i_] != '\t') ++i_;
    return s_.substr(b, i_ - b);
  }
  std::string name(bool colons, std::string_view what) {
    if (done() || !name_start(peek()) || (!colons && peek() == ':'))
      bad(i_, fmt::format("expected {}, got '{}'", what, printable(rest().substr(0, 20))));
    const auto b = i_;
    while (!done() && name_char(s_[i_]) && (colons || s_[i_] != ':')) ++i_;
    return std::string(s_.substr(b, i_ - b));
  }

 private:
  std::string_view s_;
  std::size_t i_ = 0;
};

std::string label_value(Cursor& c) {
  if (c.peek() != '"') bad(c.pos(), "expected '\"' to open a label value");
  c.advance();
  std::string out;
  for (;;) {
    if (c.done()) bad(c.pos(), "expected '\"' to close the label value, got the end of the line");
    const char ch = c.peek();
    c.advance();
    if (ch == '"') return out;
    if (ch != '\\') {
      out += ch;
      continue;
    }
    const char e = c.peek();
    if (e == '\\' || e == '"')
      out += e;
    else if (e == 'n')
      out += '\n';
    else
      bad(c.pos() - 1, fmt::format("expected an escape \\\\, \\\" or \\n in a label value, got '\\{}'",
                                   printable(std::string_view(&e, c.done() ? 0 : 1))));
    c.advance();
  }
}

std::optional<double> sample_value(std::string_view t) {
  return readers::parse_double(t);
}

}  // namespace

std::string ExpositionParser::family_of(const std::string& sample_name) const {
  for (const char* suffix : {"_bucket", "_count", "_sum", "_total", "_created", "_info"}) {
    const std::string_view s(suffix);
    if (sample_name.size() > s.size() && sample_name.ends_with(s)) {
      const std::string base = sample_name.substr(0, sample_name.size() - s.size());
      if (types_.contains(base)) return base;
    }
  }
  return sample_name;
}

void ExpositionParser::comment(std::string_view text) {
  Cursor c(text);
  c.advance();  // '#'
  c.skip_blanks();
  const std::string_view keyword = c.word();
  if (keyword == "EOF") {
    ended_ = true;
    return;
  }
  if (keyword != "HELP" && keyword != "TYPE" && keyword != "UNIT") return;  // an ordinary comment
  c.skip_blanks();
  const std::string name = c.name(true, fmt::format("a metric name after # {}", keyword));
  if (!c.done() && c.peek() != ' ' && c.peek() != '\t')
    bad(c.pos(), fmt::format("expected a space after the metric name of # {}", keyword));
  c.skip_blanks();
  const std::string_view rest = c.rest();
  if (keyword == "TYPE") {
    static const std::set<std::string_view> kTypes = {"counter", "gauge",    "histogram",
                                                      "summary", "untyped",  "unknown",
                                                      "info",    "stateset", "gaugehistogram"};
    const std::string type(readers::trim(rest));
    if (!kTypes.contains(type))
      bad(c.pos(), fmt::format("expected a type (counter, gauge, histogram, summary, untyped), got '{}'",
                               printable(type, 40)));
    if (types_.contains(name)) bad(0, fmt::format("expected one # TYPE line for '{}', got a second", name));
    if (sampled_.contains(name)) bad(0, fmt::format("expected # TYPE of '{}' before its samples", name));
    types_[name] = type;
  } else if (keyword == "UNIT") {
    units_[name] = std::string(readers::trim(rest));
  }
}

std::optional<Sample> ExpositionParser::line(std::string_view text) {
  const std::string_view t = readers::trim(text);
  if (t.empty()) return std::nullopt;
  if (ended_) bad(0, "expected nothing after # EOF");
  if (t.front() == '#') {
    comment(t);
    return std::nullopt;
  }
  Cursor c(t);
  Sample s;
  s.name = c.name(true, "a metric name");
  const std::size_t after_name = c.pos();
  c.skip_blanks();
  bool blank = c.pos() != after_name;
  if (c.peek() == '{') {
    c.advance();
    for (;;) {
      c.skip_blanks();
      if (c.peek() == '}') {
        c.advance();
        break;
      }
      const std::size_t at = c.pos();
      std::string label = c.name(false, "a label name or '}'");
      c.skip_blanks();
      if (c.peek() != '=') bad(c.pos(), fmt::format("expected '=' after the label name '{}'", label));
      c.advance();
      c.skip_blanks();
      std::string value = label_value(c);
      if (!s.labels.emplace(label, std::move(value)).second)
        bad(at, fmt::format("expected each label once, got '{}' twice", label));
      c.skip_blanks();
      if (c.peek() == ',') {
        c.advance();
      } else if (c.peek() != '}') {
        bad(c.pos(),
            fmt::format("expected ',' or '}}' after a label, got '{}'", printable(c.rest().substr(0, 20))));
      }
    }
    blank = c.peek() == ' ' || c.peek() == '\t';
    c.skip_blanks();
  }
  if (c.done()) bad(c.pos(), "expected a value after the metric, got the end of the line");
  if (!blank)
    bad(c.pos(), fmt::format("expected a space and a value after the metric, got '{}'",
                             printable(c.rest().substr(0, 20))));
  const std::size_t value_at = c.pos();
  const std::string_view value = c.word();
  if (value.empty()) bad(value_at, "expected a value after the metric, got the end of the line");
  auto v = sample_value(value);
  if (!v)
    bad(value_at,
        fmt::format("expected a number, NaN, +Inf or -Inf as the value, got '{}'", printable(value, 40)));
  s.value = *v;
  c.skip_blanks();
  if (!c.done()) {
    const std::size_t ts_at = c.pos();
    const std::string_view ts = c.word();
    auto ms = readers::parse_int(ts);
    if (!ms)
      bad(ts_at, fmt::format("expected a timestamp in integer milliseconds, got '{}'", printable(ts, 40)));
    s.timestamp_ms = *ms;
    c.skip_blanks();
    if (!c.done())
      bad(c.pos(), fmt::format("expected the end of the line after the timestamp, got '{}'",
                               printable(c.rest().substr(0, 20))));
  }
  sampled_.insert(family_of(s.name));
  return s;
}

std::string ExpositionParser::unit_of(const std::string& name) const {
  if (auto it = units_.find(family_of(name)); it != units_.end() && !it->second.empty()) return it->second;
  static constexpr std::pair<std::string_view, std::string_view> kSuffixes[] = {
      {"_bytes", "bytes"},   {"_seconds", "seconds"}, {"_total", "count"},     {"_count", "count"},
      {"_bucket", "count"},  {"_ratio", "ratio"},     {"_celsius", "celsius"}, {"_watts", "watts"},
      {"_joules", "joules"}, {"_hertz", "hertz"},     {"_percent", "percent"}};
  for (const auto& [suffix, unit] : kSuffixes)
    if (name.ends_with(suffix)) return std::string(unit);
  for (const auto& [suffix, unit] : kSuffixes)  // the family's own suffix: foo_bytes_sum
    if (family_of(name).ends_with(suffix)) return std::string(unit);
  return {};
}

std::string ExpositionParser::type_of(const std::string& name) const {
  auto it = types_.find(family_of(name));
  return it == types_.end() ? std::string() : it->second;
}

}  // namespace cann_debug::plugins::prometheus
