// Tokens of BIF 0.15 (both the bnlearn/pgmpy and the JavaBayes layouts): words (bare or double-quoted)
// and the punctuation { } [ ] ( ) ;. Commas and '|' only separate tokens; comments (// and /* */),
// whitespace, tabs and CR are skipped.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cann_debug::bayes {

struct BifToken {
  enum class Kind { kWord, kQuoted, kPunct, kEnd };
  Kind kind = Kind::kEnd;
  std::string text;  // word text (quotes removed) or the punctuation character
  int line = 0;      // 1-based
  int column = 0;    // 1-based

  bool is_punct(char c) const { return kind == Kind::kPunct && text.size() == 1 && text[0] == c; }
  bool is_name() const { return kind == Kind::kWord || kind == Kind::kQuoted; }
  bool is_keyword(std::string_view word) const { return kind == Kind::kWord && text == word; }
};

/// Splits BIF text into tokens; the last token is kEnd. Throws GraphError "<origin>:<line>:<col>: ..." for
/// an unterminated string or comment.
std::vector<BifToken> tokenize_bif(std::string_view text, const std::string& origin);

}  // namespace cann_debug::bayes
