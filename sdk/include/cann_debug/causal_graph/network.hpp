// The network model: discrete variables with named states, parents and conditional probability tables.
//
// CPT layout (the one every engine here reads): one row per configuration of the parents, in the order
// the parents are listed, the first parent varying slowest and the last fastest; within a row the child's
// states in declared order. Entry (row r, state s) is cpt[r * cardinality + s].
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace cann_debug::bayes {

/// How a numeric feature becomes evidence on one variable (see docs/bayes.md, "discretization").
struct Discretization {
  std::string feature;                        // feature name to read, e.g. "grad_norm.clip_ratio"
  std::map<std::string, std::string> labels;  // only features carrying these labels (empty = any)
  std::vector<double> thresholds;             // strictly ascending; bin i holds t[i-1] <= x < t[i]
  std::vector<int> bin_states;                // state index of each bin (thresholds.size() + 1 entries)
  double soft_width = 0.0;                    // > 0: soft evidence, logistic noise of this scale
  int nonfinite_state = -1;                   // state for NaN/inf values; -1 = ignore such values
  /// State observed when the run has no such feature at all (a log without timings says nothing of a
  /// throughput drop, so a cause that needs them gets its table's P(absent_state) as evidence, usually
  /// near 0); -1 = the variable stays unobserved.
  int absent_state = -1;
};

struct Variable {
  std::string name;
  std::string description;
  std::vector<std::string> states;
  std::vector<int> parents;  // indices into Network::variables, in table-layout order
  std::vector<double> cpt;   // see the layout note at the top of this file
  int default_state = -1;    // the "nothing wrong" state when the graph declares one; -1 = not declared
  /// false: learning keeps this table as written (domain knowledge bounded on purpose, e.g. how much a
  /// configuration value may weigh: config is extra evidence, never the verdict by itself).
  bool learn = true;
  /// Rows part of whose cases are of a kind the learning cases are known not to hold (docs/bayes.md,
  /// "Kinds the cases do not hold"): learning mixes `share` of `p` into the learnt row, so the row keeps
  /// room for that kind however many cases of the other kinds it counted. Keyed by row index; `p` holds
  /// one probability per state.
  struct UnseenKind {
    double share = 0.0;
    std::vector<double> p;
  };
  std::map<std::size_t, UnseenKind> unseen;
  /// A hidden variable (no feature observes it) whose state, in a labelled case, follows from the label
  /// (docs/bayes.md, "Hidden kinds read off the label"): learning sets it to `state_of[label's state]`, so
  /// its children learn one row per kind; diagnosis leaves it hidden and sums over the kinds its own
  /// (hand-set) table gives each label state, including kinds no labelled case holds.
  struct ReadOffLabel {
    int label = -1;             // index of the label variable
    std::vector<int> state_of;  // per state of the label: this variable's state
  };
  std::optional<ReadOffLabel> from_label;
  /// States whose rows learning copies from another state's (docs/bayes.md, "Causes that leave a symptom
  /// as it is"): for each pair (a, b), every learnt table with this variable as a parent gets, in each row
  /// where this variable is in state a, the learnt row of the same configuration with state b instead (a
  /// cause that does not act on a symptom shows it as the healthy runs do, however few runs it has).
  /// Tables that are not learnt (learn: false) keep their hand-set rows.
  std::vector<std::pair<int, int>> learn_like;
  std::optional<Discretization> discretization;

  std::size_t cardinality() const { return states.size(); }
  /// Index of a state name, or -1.
  int state_index(std::string_view state) const;
};

class Network {
 public:
  std::string name;    // as declared in the file (BIF "unknown" included)
  std::string origin;  // where it was read from, for messages
  std::string description;
  std::vector<Variable> variables;

  std::size_t size() const { return variables.size(); }
  /// Index of a variable, or -1. Valid after finalize().
  int find(std::string_view variable) const;
  /// Variables in an order where every parent comes before its children (ties by index).
  const std::vector<int>& topological_order() const { return topo_; }
  const std::vector<int>& children(int v) const { return children_[static_cast<std::size_t>(v)]; }
  /// Number of CPT rows of variable v (product of its parents' cardinalities).
  std::size_t rows(int v) const;
  /// The parent states of row r of variable v, as state indices in parent order (the CPT layout: the last
  /// parent varies fastest).
  std::vector<std::size_t> row_states(int v, std::size_t row) const;
  /// "a=x, b=y" for row r of variable v (for messages).
  std::string row_label(int v, std::size_t row) const;
  /// A display name: the declared name unless empty or "unknown", else the origin's file stem.
  std::string display_name() const;

  /// Checks a network assembled by a loader and builds its indexes: unique non-empty names, at least one
  /// state per variable and unique state names, valid parent indices without repeats, CPT sizes,
  /// finite non-negative entries, rows summing to 1 within `row_tolerance` (rows inside it are divided by
  /// their sum), no directed cycle. Throws GraphError naming `origin` and the variable.
  void finalize(double row_tolerance);

 private:
  std::unordered_map<std::string, int> index_;
  std::vector<int> topo_;
  std::vector<std::vector<int>> children_;
};

/// Default tolerance on |row sum - 1|: the published BIF files are off by up to 1e-6 (jb-alarm).
inline constexpr double kDefaultRowTolerance = 1e-4;

/// What is wrong with a CPT row ("entry 2 is -0.5", "sums to 0.9 (|sum - 1| > 0.0001)"), or "" when its
/// entries are finite, non-negative and sum to 1 within `tolerance`.
std::string check_row(const double* row, std::size_t n, double tolerance);

}  // namespace cann_debug::bayes
