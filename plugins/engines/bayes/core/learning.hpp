// Learning the conditional probability tables of a causal graph from labelled cases: Dirichlet-smoothed
// (soft) counts, and leave-one-out figures that say how well the learnt tables generalise. The graph's
// structure and its hand-set tables come from the file; the hand-set tables are the prior means.
// Definitions: docs/bayes.md ("Learning the tables").
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "cann_debug/causal_graph/network.hpp"
#include "evidence.hpp"

namespace cann_debug::bayes {

struct LearnOptions {
  /// Equivalent sample size of the prior, per CPT row: alpha(row, state) = prior_strength x the graph's
  /// own probability of that state in that row.
  double prior_strength = 2.0;
  /// Variables whose tables are kept as the graph has them (e.g. the label's prior).
  std::vector<int> keep;
};

/// Soft counts of one variable: [row][state], same layout as Variable::cpt.
using CountTable = std::vector<double>;

struct Counts {
  std::vector<CountTable> of;  // per variable
};

/// Sets every variable the graph reads off `label` (Variable::from_label) to the state the case's label
/// maps it to, as hard evidence; a case without evidence on the label is left as it is, and so is a variable
/// the case already has evidence on (a case that knows its kind, e.g. a healthy run whose loader reads a
/// stored order, names it rather than take the label's default).
void read_off_label(const Network& net, int label, Likelihoods& observation);

/// Adds one case to `counts`. For every observed variable whose parents are all observed, each (parent
/// configuration, state) cell gets the product of the normalised likelihoods of the variable and of its
/// parents (1 for the observed cell of hard evidence). Variables with an unobserved parent are skipped.
void add_case(const Network& net, const Likelihoods& observation, Counts& counts, double sign = 1.0);

Counts empty_counts(const Network& net);

/// The tables of `prior` re-estimated from `counts`: (alpha + n) / sum over the row.
Network with_learnt_tables(const Network& prior, const Counts& counts, const LearnOptions& options);

struct LeaveOneOut {
  std::size_t cases = 0;
  double mean_log_likelihood = 0.0;  // mean over cases of ln P(all of its evidence) under the others' tables
  double mean_log_label = 0.0;       // mean of ln P(label | the rest of its evidence)
  double top1_accuracy = 0.0;        // share of cases whose label is the most probable state
  double top3_accuracy = 0.0;
  std::vector<std::vector<double>> label_posteriors;  // per case: P(label variable = s | rest)
  std::vector<int> labels;                            // per case: the label's state
};

/// Leave-one-out evaluation: each case is scored by tables learnt from all the other cases.
/// Cases without evidence on `label` are skipped. The label, and every variable read off it, is cleared
/// before a case's label is predicted.
LeaveOneOut leave_one_out(const Network& prior, const std::vector<Likelihoods>& cases, int label,
                          const LearnOptions& options);

}  // namespace cann_debug::bayes
