#include "bif_lexer.hpp"

#include <fmt/format.h>

#include "cann_debug/causal_graph/graph_error.hpp"

namespace cann_debug::bayes {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}
bool is_punct(char c) {
  return c == '{' || c == '}' || c == '[' || c == ']' || c == '(' || c == ')' || c == ';';
}
bool is_separator(char c) {
  return c == ',' || c == '|';
}

class Lexer {
 public:
  Lexer(std::string_view text, const std::string& origin) : text_(text), origin_(origin) {
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = line_start_ = 3;  // UTF-8 byte order mark
  }

  std::vector<BifToken> run() {
    std::vector<BifToken> tokens;
    for (;;) {
      skip_blanks();
      BifToken t;
      t.line = line_;
      t.column = column();
      if (pos_ >= text_.size()) {
        tokens.push_back(std::move(t));
        return tokens;
      }
      const char c = text_[pos_];
      if (is_punct(c)) {
        t.kind = BifToken::Kind::kPunct;
        t.text = std::string(1, c);
        ++pos_;
      } else if (c == '"') {
        t.kind = BifToken::Kind::kQuoted;
        t.text = quoted(t.line, t.column);
      } else {
        t.kind = BifToken::Kind::kWord;
        const std::size_t start = pos_;
        while (pos_ < text_.size() && !ends_word()) ++pos_;
        t.text = std::string(text_.substr(start, pos_ - start));
      }
      tokens.push_back(std::move(t));
    }
  }

 private:
  int column() const { return static_cast<int>(pos_ - line_start_) + 1; }

  [[noreturn]] void fail(int line, int col, const std::string& message) const {
    throw GraphError(fmt::format("{}:{}:{}: {}", origin_, line, col, message));
  }

  void newline() {
    ++line_;
    line_start_ = pos_ + 1;
  }

  bool ends_word() const {
    const char c = text_[pos_];
    if (is_space(c) || is_punct(c) || is_separator(c) || c == '"') return true;
    return c == '/' && pos_ + 1 < text_.size() && (text_[pos_ + 1] == '/' || text_[pos_ + 1] == '*');
  }

  void skip_blanks() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '\n') {
        newline();
        ++pos_;
      } else if (is_space(c) || is_separator(c)) {
        ++pos_;
      } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '*') {
        const int line = line_, col = column();
        pos_ += 2;
        for (;;) {
          if (pos_ + 1 >= text_.size()) fail(line, col, "unterminated /* comment");
          if (text_[pos_] == '*' && text_[pos_ + 1] == '/') break;
          if (text_[pos_] == '\n') newline();
          ++pos_;
        }
        pos_ += 2;
      } else {
        return;
      }
    }
  }

  std::string quoted(int line, int col) {
    ++pos_;  // opening quote
    std::string out;
    for (;;) {
      if (pos_ >= text_.size()) fail(line, col, "unterminated quoted name");
      const char c = text_[pos_++];
      if (c == '"') return out;
      if (c == '\\' && pos_ < text_.size()) {
        out += text_[pos_++];
        continue;
      }
      if (c == '\n') fail(line, col, "unterminated quoted name (end of line inside quotes)");
      out += c;
    }
  }

  std::string_view text_;
  const std::string& origin_;
  std::size_t pos_ = 0;
  std::size_t line_start_ = 0;
  int line_ = 1;
};

}  // namespace

std::vector<BifToken> tokenize_bif(std::string_view text, const std::string& origin) {
  return Lexer(text, origin).run();
}

}  // namespace cann_debug::bayes
