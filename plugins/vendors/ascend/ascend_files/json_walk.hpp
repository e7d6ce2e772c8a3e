// Walking the nested communication JSON files of the Ascend profiler and msprof-analyze.
//
// Their nesting differs by producer and version:
//   communication.json               step<N> / collective|p2p / <op>@<group> / {leaf}   (+ "Total Op Info")
//   cluster_communication.json       (<ranks>) / step / <op>@<group> / <rank> / {leaf}
//   communication_matrix.json        step<N> / collective|p2p / <optype>-top1@<group> / <src>-<dst> / {leaf}
//   cluster_communication_matrix.json (<ranks>) / step<N> / <op>@<group> / <src>-<dst> / {leaf}
// so the walker does not assume a depth: it descends until an object is a leaf and classifies every key
// on the way by its shape.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cann_debug/messages.hpp"
#include "cann_debug/reader/json_document.hpp"

namespace cann_debug::plugins::ascend {

/// What the keys above a leaf said.
struct CommContext {
  std::string step;           // "step3", "step" ("" = none)
  std::int64_t step_id = -1;  // 3 for "step3"
  std::string comm_kind;      // "collective" | "p2p"
  std::string group_ranks_text;
  std::vector<std::int64_t> group_ranks;  // from "(0, 1)"
  std::string op;                         // the key before '@' ("hcom_broadcast__501_0", "allreduce-top1")
  std::string group;                      // the key after '@' (group name or hash)
  bool aggregate = false;                 // "Total Op Info"
  std::int32_t rank = -1;                 // a key of digits only
  std::vector<std::string> other_keys;    // keys of no known shape
};

/// Records what a key says in `ctx`: step<N>, collective/p2p, a rank tuple, a rank (digits), an op key
/// (<op>@<group>, "Total Op Info"); other keys are kept in other_keys. The walker does this for the keys
/// above a leaf; a visitor calls it for the leaf's own key when that key is an op or a rank.
void classify_key(const std::string& key, CommContext& ctx);

using LeafTest = std::function<bool(const readers::OrderedJson&)>;
using LeafVisit = std::function<void(const readers::OrderedJson& leaf, const readers::JsonPath& where,
                                     const CommContext& context)>;

/// Calls `visit` for every object below the root for which `is_leaf` holds, in document order (the leaf's
/// own key is the last element of `where` and is not classified). Values that
/// are neither leaves nor objects are skipped. Throws ParseError when the root is not an object or the
/// nesting goes deeper than `max_depth` without a leaf.
void walk_leaves(const readers::JsonDocument& doc, const LeafTest& is_leaf, const LeafVisit& visit,
                 int max_depth = 8);

/// A number (or "nan"/"inf"/"-inf", how non-finite values are read) for messages; throws ParseError at
/// `where` when the value is neither.
double number_at(const readers::JsonDocument& doc, const readers::JsonPath& where,
                 const readers::OrderedJson& v, std::string_view name);

/// A value in a unit of the source converted to ours. Keys with a unit suffix become snake_case with our
/// unit: "(ms)", "(us)" -> _ns (exact integers from the decimal digits), "(MB)" -> _bytes (1 MB = 10^6 B,
/// exact), "(KB)" -> _bytes (10^3), "(GB/s)" -> _bytes_per_s (10^9), "(MB/s)" -> _bytes_per_s (10^6).
/// Others keep their value under the snake_case key and an empty unit.
struct Converted {
  std::string name;  // e.g. "elapse_time_ns"
  std::string unit;  // "ns", "bytes", "bytes/s", "ratio" (for *Ratio keys) or ""
  nlohmann::json value;
  double number = 0.0;  // value as a double (NaN when not a number)
};
Converted convert_field(const readers::JsonDocument& doc, const readers::JsonPath& where,
                        const std::string& key, const readers::OrderedJson& value);

using readers::to_plain;

}  // namespace cann_debug::plugins::ascend
