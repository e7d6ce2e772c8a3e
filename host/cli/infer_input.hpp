// `cann-debug infer --input DIR --scenario S`: a case folder through the scenario pipeline (readers ->
// features -> discretisation -> engine), answered as ranked root causes with their propagation paths and
// the evidence that supports them.
#pragma once

#include <string>

#include "cli_common.hpp"

namespace cann_debug::cli {

struct InferInputArgs {
  std::string input;
  std::string scenario;
  std::string graph;     // optional: replaces the pipeline's graph
  std::string pipeline;  // optional: replaces pipelines/<scenario>.yaml
  std::size_t top_k = 3;
  bool evidence = false;  // list the supporting evidence
  bool json = false;
};

int infer_input(const GlobalOptions& g, const InferInputArgs& a);

}  // namespace cann_debug::cli
