// The causal graph every Bayesian component reads: one model (discrete variables with states, parents,
// conditional probability tables, descriptions and the discretization of a feature into evidence) and one
// loader for its two file forms (`cann-debug.bayes-graph/1` JSON and BIF 0.15), schema in docs/bayes.md.
// Engines, discretizers and learners load a graph with load_graph(); components downstream of an engine
// read what they need of it (variable notes, the feature map, edges) from posterior/1, so a pipeline names
// its graph once.
#pragma once

#include "cann_debug/causal_graph/bif_parser.hpp"
#include "cann_debug/causal_graph/graph_error.hpp"
#include "cann_debug/causal_graph/graph_loader.hpp"
#include "cann_debug/causal_graph/graph_variables.hpp"
#include "cann_debug/causal_graph/json_graph.hpp"
#include "cann_debug/causal_graph/network.hpp"
