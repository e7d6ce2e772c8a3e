#include "cann_debug/component.hpp"

namespace cann_debug {

Availability ComponentFactory::probe_with_defaults() const {
  std::vector<OptionIssue> issues;  // required options without a value: left out, probe() decides
  return probe(resolve_config(manifest().options, nlohmann::json::object(), issues));
}

}  // namespace cann_debug
