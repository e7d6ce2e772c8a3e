// `--scenario auto`: which scenario pipeline fits a run's folder. Each pipeline on the search path says
// itself, in its `match:` rules, which folders it is for (docs/pipelines.md, "match"); the rules are
// evaluated with the readers' sniff() over the folder's files, and the matching rule of highest priority
// over every pipeline wins. The router knows no file format.
#pragma once

#include <optional>
#include <string>

#include "cli_common.hpp"

namespace cann_debug::cli {

struct Route {
  std::string scenario;  // the pipeline's file name without .yaml
  std::string pipeline;  // its path
  std::string reason;    // which files said so, for the user
};

/// The pipeline for `folder`, or nullopt with `why_not` set when no pipeline's rules hold.
std::optional<Route> route_scenario(const GlobalOptions& g, const std::string& folder, std::string& why_not);

}  // namespace cann_debug::cli
