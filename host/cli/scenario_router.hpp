// `--scenario auto`: which scenario pipeline fits a run's folder, decided from the files it holds (the
// rules are in docs/diagnose.md, "How the scenario is chosen"). The config's own `scenario` key is only
// the last resort, after every signal in the data.
#pragma once

#include <optional>
#include <string>

namespace cann_debug::cli {

struct Route {
  std::string scenario;  // "training", "inference" or "distributed"
  std::string reason;    // which files said so, for the user
};

/// The scenario of `folder`, or nullopt with `why_not` set when nothing in it says which.
std::optional<Route> route_scenario(const std::string& folder, std::string& why_not);

}  // namespace cann_debug::cli
