#include "cann_debug/causal_graph/bif_parser.hpp"

#include <charconv>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>

#include "bif_lexer.hpp"
#include "cann_debug/causal_graph/graph_error.hpp"

namespace cann_debug::bayes {
namespace {

struct Where {
  int line = 0;
  int column = 0;
};

struct RawVariable {
  std::string name;
  Where at;
  std::vector<std::string> states;
  bool has_type = false;
};

struct RawRow {
  std::vector<std::string> key;
  std::vector<Where> key_at;
  std::vector<double> values;
  Where at;
};

struct RawTable {
  std::vector<double> values;
  Where at;
};

struct RawProbability {
  std::vector<std::string> names;  // child first, then the parents in table-layout order
  std::vector<Where> name_at;
  Where at;
  std::optional<RawTable> table;
  std::optional<RawTable> default_row;
  std::vector<RawRow> rows;
};

std::string describe(const BifToken& t) {
  switch (t.kind) {
    case BifToken::Kind::kEnd:
      return "end of file";
    case BifToken::Kind::kQuoted:
      return "\"" + t.text + "\"";
    default:
      return "'" + t.text + "'";
  }
}

class Parser {
 public:
  Parser(std::string_view text, const std::string& origin, double tolerance)
      : origin_(origin), tolerance_(tolerance), tokens_(tokenize_bif(text, origin)) {}

  Network run() {
    for (;;) {
      const BifToken& t = peek();
      if (t.kind == BifToken::Kind::kEnd) break;
      if (t.is_keyword("network")) {
        parse_network();
      } else if (t.is_keyword("variable")) {
        parse_variable();
      } else if (t.is_keyword("probability")) {
        parse_probability();
      } else {
        fail(t, fmt::format("expected 'network', 'variable' or 'probability', got {}", describe(t)));
      }
    }
    return build();
  }

 private:
  const BifToken& peek() const { return tokens_[pos_]; }
  const BifToken& take() {
    const BifToken& t = tokens_[pos_];
    if (t.kind != BifToken::Kind::kEnd) ++pos_;
    return t;
  }
  static Where where(const BifToken& t) { return {t.line, t.column}; }

  [[noreturn]] void fail(Where at, const std::string& message) const {
    throw GraphError(fmt::format("{}:{}:{}: {}", origin_, at.line, at.column, message));
  }
  [[noreturn]] void fail(const BifToken& t, const std::string& message) const { fail(where(t), message); }

  void expect(char c, std::string_view context) {
    const BifToken& t = take();
    if (!t.is_punct(c)) fail(t, fmt::format("expected '{}' {}, got {}", c, context, describe(t)));
  }

  std::string name(std::string_view what) {
    const BifToken& t = take();
    if (!t.is_name()) fail(t, fmt::format("expected {}, got {}", what, describe(t)));
    return t.text;
  }

  // `property ... ;` : skipped up to its ';' (pgmpy writes unquoted values with parentheses and commas).
  void skip_property() {
    const BifToken& start = take();
    for (;;) {
      const BifToken& t = take();
      if (t.is_punct(';')) return;
      if (t.kind == BifToken::Kind::kEnd || t.is_punct('}'))
        fail(start, fmt::format("property not ended by ';' (reached {})", describe(t)));
    }
  }

  double number(const BifToken& t) const {
    std::string_view s = t.text;
    if (!s.empty() && s.front() == '+') s.remove_prefix(1);
    double value = 0.0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (t.kind != BifToken::Kind::kWord || ec != std::errc() || end != s.data() + s.size() || s.empty())
      fail(t, fmt::format("expected a probability, got {}", describe(t)));
    return value;
  }

  std::vector<double> numbers_until_semicolon() {
    std::vector<double> out;
    for (;;) {
      const BifToken& t = take();
      if (t.is_punct(';')) return out;
      if (t.kind == BifToken::Kind::kEnd) fail(t, "expected ';' after the probabilities, got end of file");
      out.push_back(number(t));
    }
  }

  void parse_network() {
    take();
    if (peek().is_name()) network_name_ = take().text;
    expect('{', "after the network name");
    while (!peek().is_punct('}')) {
      const BifToken& t = peek();
      if (t.is_keyword("property")) {
        skip_property();
      } else {
        fail(t, fmt::format("expected 'property' or '}}' in the network block, got {}", describe(t)));
      }
    }
    take();
  }

  void parse_variable() {
    take();
    RawVariable v;
    v.at = where(peek());
    v.name = name("a variable name after 'variable'");
    expect('{', fmt::format("after variable '{}'", v.name));
    while (!peek().is_punct('}')) {
      const BifToken& t = peek();
      if (t.is_keyword("property")) {
        skip_property();
      } else if (t.is_keyword("type")) {
        take();
        parse_type(v);
      } else {
        fail(t, fmt::format("expected 'type', 'property' or '}}' in variable '{}', got {}", v.name,
                            describe(t)));
      }
    }
    take();
    if (!v.has_type)
      fail(v.at, fmt::format("variable '{}' has no 'type discrete [n] {{ ... }}' line", v.name));
    variables_.push_back(std::move(v));
  }

  void parse_type(RawVariable& v) {
    const BifToken& kind = take();
    if (!kind.is_keyword("discrete"))
      fail(kind, fmt::format("variable '{}': only 'discrete' variables are supported, got {}", v.name,
                             describe(kind)));
    expect('[', "after 'discrete'");
    const BifToken& count = take();
    std::size_t declared = 0;
    const auto [end, ec] =
        std::from_chars(count.text.data(), count.text.data() + count.text.size(), declared);
    if (count.kind != BifToken::Kind::kWord || ec != std::errc() ||
        end != count.text.data() + count.text.size())
      fail(count, fmt::format("expected the number of states, got {}", describe(count)));
    expect(']', "after the number of states");
    expect('{', "before the state names");
    while (!peek().is_punct('}')) {
      const BifToken& s = take();
      if (!s.is_name()) fail(s, fmt::format("expected a state name of '{}', got {}", v.name, describe(s)));
      v.states.push_back(s.text);
    }
    take();
    if (peek().is_punct(';')) take();
    if (v.states.size() != declared)
      fail(count,
           fmt::format("variable '{}' declares {} states but lists {}", v.name, declared, v.states.size()));
    v.has_type = true;
  }

  void parse_probability() {
    const BifToken& keyword = take();
    RawProbability p;
    p.at = where(keyword);
    expect('(', "after 'probability'");
    while (!peek().is_punct(')')) {
      const BifToken& t = take();
      if (!t.is_name())
        fail(t, fmt::format("expected a variable name in 'probability ( ... )', got {}", describe(t)));
      p.names.push_back(t.text);
      p.name_at.push_back(where(t));
    }
    take();
    if (p.names.empty()) fail(keyword, "'probability ( )' names no variable");
    expect('{', "after 'probability ( ... )'");
    while (!peek().is_punct('}')) {
      const BifToken& t = peek();
      if (t.is_keyword("property")) {
        skip_property();
      } else if (t.is_keyword("table") || t.is_keyword("default")) {
        const bool is_table = t.is_keyword("table");
        const Where at = where(take());
        auto& slot = is_table ? p.table : p.default_row;
        if (slot)
          fail(at, fmt::format("second '{}' in the probability block of '{}'", is_table ? "table" : "default",
                               p.names[0]));
        slot = RawTable{numbers_until_semicolon(), at};
      } else if (t.is_punct('(')) {
        RawRow row;
        row.at = where(take());
        while (!peek().is_punct(')')) {
          const BifToken& s = take();
          if (!s.is_name())
            fail(s, fmt::format("expected a parent state name in the row key, got {}", describe(s)));
          row.key.push_back(s.text);
          row.key_at.push_back(where(s));
        }
        take();
        row.values = numbers_until_semicolon();
        p.rows.push_back(std::move(row));
      } else {
        fail(t,
             fmt::format("expected 'table', 'default', '(' or '}}' in the probability block of '{}', got {}",
                         p.names[0], describe(t)));
      }
    }
    take();
    probabilities_.push_back(std::move(p));
  }

  Network build() {
    Network net;
    net.name = network_name_;
    net.origin = origin_;
    std::unordered_map<std::string, int> index;
    for (const RawVariable& v : variables_) {
      auto [it, fresh] = index.emplace(v.name, static_cast<int>(net.variables.size()));
      if (!fresh)
        fail(v.at, fmt::format("variable '{}' is declared twice (first at line {})", v.name,
                               variables_[static_cast<std::size_t>(it->second)].at.line));
      Variable var;
      var.name = v.name;
      var.states = v.states;
      net.variables.push_back(std::move(var));
    }
    std::vector<const RawProbability*> block_of(net.variables.size(), nullptr);
    for (const RawProbability& p : probabilities_) {
      std::vector<int> ids;
      for (std::size_t i = 0; i < p.names.size(); ++i) {
        auto it = index.find(p.names[i]);
        if (it == index.end())
          fail(p.name_at[i], fmt::format("probability block names undeclared variable '{}'", p.names[i]));
        ids.push_back(it->second);
      }
      const auto child = static_cast<std::size_t>(ids[0]);
      if (block_of[child])
        fail(p.at, fmt::format("second probability block for '{}' (first at line {})", p.names[0],
                               block_of[child]->at.line));
      block_of[child] = &p;
      net.variables[child].parents.assign(ids.begin() + 1, ids.end());
    }
    for (std::size_t v = 0; v < net.variables.size(); ++v) {
      if (!block_of[v])
        fail(variables_[v].at, fmt::format("variable '{}' has no probability block", net.variables[v].name));
      fill_cpt(net, static_cast<int>(v), *block_of[v]);
    }
    net.finalize(tolerance_);
    return net;
  }

  void check_row(const Network& net, int v, std::size_t row, const double* values, Where at) const {
    const Variable& var = net.variables[static_cast<std::size_t>(v)];
    const std::string problem = bayes::check_row(values, var.cardinality(), tolerance_);
    if (!problem.empty())
      fail(at, fmt::format("variable '{}', CPT row {}: {}", var.name, net.row_label(v, row), problem));
  }

  void fill_cpt(Network& net, int v, const RawProbability& p) {
    Variable& var = net.variables[static_cast<std::size_t>(v)];
    const std::size_t card = var.cardinality();
    const std::size_t rows = net.rows(v);
    var.cpt.assign(rows * card, 0.0);
    // A `default` as long as the whole table is a table (pgmpy); one row long, it fills unlisted rows.
    std::optional<RawTable> table = p.table;
    std::optional<RawTable> default_row = p.default_row;
    if (default_row && default_row->values.size() == rows * card && rows > 1 && !table) {
      table = std::move(default_row);
      default_row.reset();
    }
    if (table) {
      if (!p.rows.empty())
        fail(p.rows.front().at, fmt::format("'{}' has both a 'table' and keyed rows", var.name));
      if (table->values.size() != rows * card)
        fail(table->at,
             fmt::format(
                 "table of '{}' has {} probabilities, expected {} ({} states x {} parent configurations)",
                 var.name, table->values.size(), rows * card, card, rows));
      // Child slowest, last parent fastest: value (s, r) is at s * rows + r.
      for (std::size_t s = 0; s < card; ++s)
        for (std::size_t r = 0; r < rows; ++r) var.cpt[r * card + s] = table->values[s * rows + r];
      for (std::size_t r = 0; r < rows; ++r) check_row(net, v, r, var.cpt.data() + r * card, table->at);
      return;
    }
    if (default_row && default_row->values.size() != card)
      fail(default_row->at,
           fmt::format("default row of '{}' has {} probabilities, expected {} (or {} for a whole table)",
                       var.name, default_row->values.size(), card, rows * card));
    std::vector<int> seen_at(rows, 0);
    for (const RawRow& row : p.rows) {
      if (row.key.size() != var.parents.size())
        fail(row.at, fmt::format("row key of '{}' has {} states, expected {} (one per parent)", var.name,
                                 row.key.size(), var.parents.size()));
      std::size_t r = 0;
      for (std::size_t i = 0; i < row.key.size(); ++i) {
        const Variable& parent = net.variables[static_cast<std::size_t>(var.parents[i])];
        const int s = parent.state_index(row.key[i]);
        if (s < 0)
          fail(row.key_at[i], fmt::format("'{}' is not a state of '{}' (states: {})", row.key[i], parent.name,
                                          fmt::join(parent.states, ", ")));
        r = r * parent.cardinality() + static_cast<std::size_t>(s);
      }
      if (row.values.size() != card)
        fail(row.at, fmt::format("row {} of '{}' has {} probabilities, expected {}", net.row_label(v, r),
                                 var.name, row.values.size(), card));
      if (seen_at[r] != 0)
        fail(row.at, fmt::format("row {} of '{}' is given twice (first at line {})", net.row_label(v, r),
                                 var.name, seen_at[r]));
      seen_at[r] = row.at.line;
      std::copy(row.values.begin(), row.values.end(),
                var.cpt.begin() + static_cast<std::ptrdiff_t>(r * card));
      check_row(net, v, r, row.values.data(), row.at);
    }
    for (std::size_t r = 0; r < rows; ++r) {
      if (seen_at[r] != 0) continue;
      if (!default_row) {
        if (p.rows.empty())
          fail(p.at, fmt::format("probability block of '{}' has no 'table' and no rows", var.name));
        fail(p.at, fmt::format("probability block of '{}' has no row for {} and no 'default'", var.name,
                               net.row_label(v, r)));
      }
      std::copy(default_row->values.begin(), default_row->values.end(),
                var.cpt.begin() + static_cast<std::ptrdiff_t>(r * card));
      check_row(net, v, r, default_row->values.data(), default_row->at);
    }
  }

  const std::string& origin_;
  double tolerance_;
  std::vector<BifToken> tokens_;
  std::size_t pos_ = 0;
  std::string network_name_;
  std::vector<RawVariable> variables_;
  std::vector<RawProbability> probabilities_;
};

}  // namespace

Network parse_bif(std::string_view text, const std::string& origin, double row_tolerance) {
  return Parser(text, origin, row_tolerance).run();
}

}  // namespace cann_debug::bayes
