#include "workload_template.hpp"

#include <fmt/format.h>

namespace cann_debug::cli {
namespace {

bool blank(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

bool name_char(char c, bool first) {
  const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  return first ? alpha : alpha || (c >= '0' && c <= '9') || c == '.' || c == '-';
}

/// The length of a placeholder name starting at `i` when "{NAME}" starts at i - 1, else 0.
std::size_t placeholder_length(std::string_view text, std::size_t i) {
  std::size_t n = 0;
  while (i + n < text.size() && name_char(text[i + n], n == 0)) ++n;
  return n > 0 && i + n < text.size() && text[i + n] == '}' ? n : 0;
}

}  // namespace

WorkloadTemplate WorkloadTemplate::parse(std::string_view text) {
  WorkloadTemplate t;
  Word word;
  bool in_word = false;
  bool in_group = false;
  bool group_has_placeholder = false;
  std::size_t group_start = 0;
  auto literal = [&](char c) {
    in_word = true;
    if (word.parts.empty() || word.parts.back().placeholder) word.parts.push_back({});
    word.parts.back().text += c;
  };
  auto end_word = [&] {
    if (!in_word) return;
    word.group = in_group ? t.groups_ : -1;
    t.words_.push_back(std::move(word));
    word = {};
    in_word = false;
  };
  auto close_group = [&](std::size_t at) {
    if (!in_group) throw TemplateError(fmt::format("byte {}: ']' without an opening '['", at), at);
    if (!group_has_placeholder)
      throw TemplateError(fmt::format("byte {}: the optional group opened at byte {} has no {{placeholder}}",
                                      group_start, group_start),
                          group_start);
    in_group = false;
    ++t.groups_;
  };
  // Reads a placeholder or a doubled brace at text[i] ('{' or '}'); returns the bytes consumed.
  auto brace = [&](std::size_t i) -> std::size_t {
    if (i + 1 < text.size() && text[i + 1] == text[i]) {
      literal(text[i]);
      return 2;
    }
    if (text[i] == '{') {
      if (const std::size_t n = placeholder_length(text, i + 1)) {
        in_word = true;
        word.parts.push_back({std::string(text.substr(i + 1, n)), true});
        group_has_placeholder = group_has_placeholder || in_group;
        return n + 2;
      }
      if (i + 1 < text.size() && text[i + 1] == '}')
        throw TemplateError(fmt::format("byte {}: an empty placeholder {{}}", i), i);
    }
    literal(text[i]);
    return 1;
  };

  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (blank(c)) {
      end_word();
      ++i;
    } else if (c == '[' && !in_word) {
      if (in_group) throw TemplateError(fmt::format("byte {}: optional groups cannot nest", i), i);
      in_group = true;
      group_has_placeholder = false;
      group_start = i;
      ++i;
    } else if (c == ']' && (i + 1 == text.size() || blank(text[i + 1]))) {
      end_word();
      close_group(i);
      ++i;
    } else if (c == '\\') {
      if (i + 1 == text.size()) throw TemplateError(fmt::format("byte {}: a '\\' at the end", i), i);
      literal(text[i + 1]);
      i += 2;
    } else if (c == '\'') {
      const std::size_t end = text.find('\'', i + 1);
      if (end == std::string_view::npos)
        throw TemplateError(fmt::format("byte {}: the ' opened here is not closed", i), i);
      in_word = true;
      for (std::size_t j = i + 1; j < end;) {
        if (text[j] == '{' || text[j] == '}') {
          j += brace(j);
        } else {
          literal(text[j++]);
        }
      }
      i = end + 1;
    } else if (c == '"') {
      std::size_t j = i + 1;
      in_word = true;
      while (j < text.size() && text[j] != '"') {
        if (text[j] == '\\' && j + 1 < text.size() &&
            std::string_view("\"\\$`").find(text[j + 1]) != std::string_view::npos) {
          literal(text[j + 1]);
          j += 2;
        } else if (text[j] == '{' || text[j] == '}') {
          j += brace(j);
        } else {
          literal(text[j++]);
        }
      }
      if (j == text.size())
        throw TemplateError(fmt::format("byte {}: the \" opened here is not closed", i), i);
      i = j + 1;
    } else if (c == '{' || c == '}') {
      i += brace(i);
    } else {
      literal(c);
      ++i;
    }
  }
  end_word();
  if (in_group)
    throw TemplateError(fmt::format("byte {}: the '[' opened here is not closed", group_start), group_start);
  if (t.words_.empty()) throw TemplateError("byte 0: no command", 0);
  if (t.words_.front().group >= 0)
    throw TemplateError("byte 0: the command itself cannot be in an optional group", 0);
  return t;
}

std::set<std::string> WorkloadTemplate::placeholders() const {
  std::set<std::string> out;
  for (const auto& w : words_)
    for (const auto& p : w.parts)
      if (p.placeholder) out.insert(p.text);
  return out;
}

std::set<std::string> WorkloadTemplate::required() const {
  std::set<std::string> out;
  for (const auto& w : words_)
    if (w.group < 0)
      for (const auto& p : w.parts)
        if (p.placeholder) out.insert(p.text);
  return out;
}

std::vector<std::string> WorkloadTemplate::expand(
    const std::function<std::optional<std::string>(const std::string&)>& value) const {
  std::vector<bool> dropped(static_cast<std::size_t>(groups_), false);
  for (const auto& w : words_)
    if (w.group >= 0)
      for (const auto& p : w.parts)
        if (p.placeholder && !value(p.text)) dropped[static_cast<std::size_t>(w.group)] = true;
  std::vector<std::string> argv;
  for (const auto& w : words_) {
    if (w.group >= 0 && dropped[static_cast<std::size_t>(w.group)]) continue;
    std::string arg;
    for (const auto& p : w.parts) {
      if (!p.placeholder) {
        arg += p.text;
        continue;
      }
      auto v = value(p.text);
      if (!v)
        throw std::invalid_argument(
            fmt::format("the workload's {{{}}} has no value for this run (put it in an optional group, "
                        "[--set {}={{{}}}], to "
                        "leave it out, or give --baseline {}=VALUE)",
                        p.text, p.text, p.text, p.text));
      arg += *v;
    }
    argv.push_back(std::move(arg));
  }
  return argv;
}

}  // namespace cann_debug::cli
