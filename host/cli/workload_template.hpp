// The --workload of `cann-debug optimize`: a command template split into argv once, like a POSIX shell
// splits words (blanks separate; '...' literal; "..." with \" \\ \$ \` escapes; a backslash escapes the next
// character) but with nothing expanded and no shell ever run. Placeholders {KEY} (a suggestion's dotted
// config-patch key such as {lr} or {optimizer.lr}, or {output}, {config}, {here}) are substituted inside
// words, each word staying one argument whatever its value holds; {{ and }} are literal braces. Words
// between an unquoted '[' and ']' form an optional group, kept only when every placeholder in it has a
// value: `[--set lr={lr}]` passes the rate to the candidates that change it and leaves the baseline as it
// was.
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace cann_debug::cli {

/// A template that cannot be split; `offset` is the byte offset in the template text.
struct TemplateError : std::runtime_error {
  TemplateError(const std::string& what, std::size_t offset) : std::runtime_error(what), offset(offset) {}
  std::size_t offset;
};

class WorkloadTemplate {
 public:
  /// Throws TemplateError: an unterminated quote, a '[' inside a group, a ']' without '[', a group with no
  /// placeholder, an empty placeholder or one whose name is not [A-Za-z_][A-Za-z0-9_.-]*, no command.
  static WorkloadTemplate parse(std::string_view text);

  /// Every placeholder name the template uses.
  std::set<std::string> placeholders() const;
  /// The names used outside optional groups: each needs a value in every run.
  std::set<std::string> required() const;

  /// The argv of one run: placeholders replaced by value(name); a group with a placeholder value() has no
  /// value for is left out. Throws std::invalid_argument naming the placeholder when a required one has none.
  std::vector<std::string> expand(
      const std::function<std::optional<std::string>(const std::string&)>& value) const;

 private:
  struct Part {
    std::string text;  // literal text, or the placeholder's name
    bool placeholder = false;
  };
  struct Word {
    std::vector<Part> parts;
    int group = -1;  // index of the optional group it belongs to
  };
  std::vector<Word> words_;
  int groups_ = 0;
};

}  // namespace cann_debug::cli
