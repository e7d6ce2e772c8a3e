#include "ascend_files/json_walk.hpp"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "cann_debug/reader/numbers.hpp"
#include "cann_debug/reader/parse_error.hpp"
#include "cann_debug/reader/text.hpp"

namespace cann_debug::plugins::ascend {
namespace {

using readers::JsonDocument;
using readers::JsonPath;
using readers::OrderedJson;

bool digits_only(std::string_view s) {
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// "(0, 1, 2)" (a trailing comma allowed) -> its numbers.
bool rank_tuple(std::string_view s, std::vector<std::int64_t>& out) {
  s = readers::trim(s);
  if (s.size() < 3 || s.front() != '(' || s.back() != ')') return false;
  auto parts = readers::split(s.substr(1, s.size() - 2), ',');
  if (!parts.empty() && readers::trim(parts.back()).empty() && parts.size() > 1) parts.pop_back();
  for (auto p : parts) {
    p = readers::trim(p);
    if (p.empty() || p.size() > 12 || !digits_only(p)) return false;
    out.push_back(std::stoll(std::string(p)));
  }
  return true;
}

bool all_digits(std::string_view s) {
  if (s.empty() || s.size() > 9) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

}  // namespace

void classify_key(const std::string& key, CommContext& ctx) {
  // Hand-written matching: keys come from the file and can be huge, and std::regex recurses per character.
  std::vector<std::int64_t> ranks;
  if ((key.starts_with("step") || key.starts_with("Step")) && digits_only(std::string_view(key).substr(4))) {
    ctx.step = key;
    if (key.size() > 4 && key.size() < 4 + 18) ctx.step_id = std::stoll(key.substr(4));
  } else if (readers::iequals(key, "collective") || readers::iequals(key, "p2p")) {
    ctx.comm_kind = readers::iequals(key, "p2p") ? "p2p" : "collective";
  } else if (rank_tuple(key, ranks)) {
    ctx.group_ranks_text = key;
    ctx.group_ranks = std::move(ranks);
  } else if (all_digits(key)) {
    ctx.rank = static_cast<std::int32_t>(std::stol(key));
  } else if (key == "Total Op Info") {
    ctx.op = key;
    ctx.aggregate = true;
  } else if (auto at = key.rfind('@'); at != std::string::npos && ctx.op.empty()) {
    ctx.op = key.substr(0, at);
    ctx.group = key.substr(at + 1);
  } else if (ctx.op.empty()) {
    ctx.op = key;
  } else {
    ctx.other_keys.push_back(key);
  }
}

namespace {

void walk(const JsonDocument& doc, const OrderedJson& node, JsonPath& where, const CommContext& ctx,
          const LeafTest& is_leaf, const LeafVisit& visit, int depth, int max_depth) {
  for (const auto& [key, child] : node.items()) {
    if (!child.is_object()) continue;
    where.push_back(key);
    CommContext inner = ctx;
    if (is_leaf(child)) {
      visit(child, where, inner);
    } else {
      if (depth + 1 > max_depth)
        readers::fail_at(
            doc, where,
            fmt::format("expected a communication record within {} levels of nesting, got deeper "
                        "objects",
                        max_depth));
      classify_key(key, inner);
      walk(doc, child, where, inner, is_leaf, visit, depth + 1, max_depth);
    }
    where.pop_back();
  }
}

struct UnitRule {
  std::string_view suffix;  // as written, e.g. "(ms)"
  std::string_view name_suffix;
  std::string_view unit;
  int scale;           // power of ten to our unit
  bool exact_integer;  // time and size: exact integers from the decimal digits
};

constexpr UnitRule kUnits[] = {
    {"(ms)", "_ns", "ns", 6, true},
    {"(us)", "_ns", "ns", 3, true},
    {"(MB)", "_bytes", "bytes", 6, true},
    {"(KB)", "_bytes", "bytes", 3, true},
    {"(GB/s)", "_bytes_per_s", "bytes/s", 9, false},
    {"(MB/s)", "_bytes_per_s", "bytes/s", 6, false},
};

}  // namespace

void walk_leaves(const JsonDocument& doc, const LeafTest& is_leaf, const LeafVisit& visit, int max_depth) {
  if (!doc.root.is_object())
    readers::fail_at(doc, {},
                     fmt::format("expected a JSON object at the top, got {}", readers::json_kind(doc.root)));
  JsonPath where;
  walk(doc, doc.root, where, CommContext{}, is_leaf, visit, 0, max_depth);
}

double number_at(const JsonDocument& doc, const JsonPath& where, const OrderedJson& v,
                 std::string_view name) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
    readers::fail_at(doc, where,
                     fmt::format("expected a number for '{}', got the string \"{}\"",
                                 readers::printable(name), readers::printable(s, 40)));
  }
  readers::fail_at(
      doc, where,
      fmt::format("expected a number for '{}', got {}", readers::printable(name), readers::json_kind(v)));
}

Converted convert_field(const JsonDocument& doc, const JsonPath& where, const std::string& key,
                        const OrderedJson& value) {
  Converted c;
  for (const auto& rule : kUnits) {
    if (!key.ends_with(rule.suffix)) continue;
    c.name = readers::snake_case(std::string_view(key).substr(0, key.size() - rule.suffix.size())) +
             std::string(rule.name_suffix);
    c.unit = rule.unit;
    if (value.is_null()) {
      c.value = nullptr;
      c.number = std::numeric_limits<double>::quiet_NaN();
      return c;
    }
    const double v = number_at(doc, where, value, key);
    if (auto name = readers::nonfinite_name(v); !name.empty()) {
      c.value = std::string(name);
      c.number = v;
    } else if (rule.exact_integer) {
      auto scaled = readers::double_scaled(v, rule.scale);
      if (!scaled)
        readers::fail_at(doc, where, fmt::format("expected a number of reasonable size for '{}'", key));
      c.value = *scaled;
      c.number = static_cast<double>(*scaled);
    } else {
      c.number = v * std::pow(10.0, rule.scale);
      c.value = c.number;
    }
    return c;
  }
  c.name = readers::snake_case(key);
  if (c.name.ends_with("_ratio")) c.unit = "ratio";
  c.value = to_plain(value);
  c.number = std::numeric_limits<double>::quiet_NaN();
  if (value.is_number()) {
    c.number = value.get<double>();
  } else if (c.unit == "ratio" && !value.is_null()) {
    c.number = number_at(doc, where, value, key);
  }
  return c;
}

}  // namespace cann_debug::plugins::ascend
