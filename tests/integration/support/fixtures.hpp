// Where the fixture packages and pipelines are, and the short paths from YAML text to a plan and a run.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "diagnostic.hpp"
#include "graph_runner.hpp"
#include "pipeline_document.hpp"
#include "pipeline_plan.hpp"
#include "plugin_registry.hpp"
#include "temp_dir.hpp"

namespace cann_debug::itest {

/// The build directory of one fixture group: "good" (fixture_good + fixture_extra), "bad_abi",
/// "no_accessor", "no_stamp".
std::string fixture_dir(std::string_view group);
/// The package file of fixture target `target` in `group`, e.g. ("bad_abi", "fixture_bad_abi").
std::string fixture_package(std::string_view group, std::string_view target);
/// tests/data/pipelines in the source tree.
std::string pipeline_data_dir();

/// A registry holding exactly the good fixture packages; the test fails if any was refused.
std::unique_ptr<host::PluginRegistry> good_registry();

/// Parses YAML text and plans it against `registry`; every problem lands in `diags`.
std::optional<host::PipelinePlan> plan_text(const std::string& yaml, const host::PluginRegistry& registry,
                                            host::Diagnostics& diags, const host::PipelineInputs& inputs = {},
                                            const std::string& file = "test.yaml");

/// plan_text() with ${tmp} set to `dir`; the test fails (and the plan may be empty) when there are errors.
std::optional<host::PipelinePlan> plan_in(const TempDir& dir, const std::string& yaml,
                                          const host::PluginRegistry& registry,
                                          const std::string& file = "test.yaml");

/// Runs a plan on a worker thread. If it has not finished within `deadline_s`, the test fails and the
/// process exits at once (a hung graph cannot be joined).
host::RunReport run_with_deadline(const host::PipelinePlan& plan, const host::RunOptions& options,
                                  double deadline_s = 10.0);

/// The stats of node `id`; the test fails (and this returns an empty record) when there is none.
host::NodeStats node_stats(const host::RunReport& report, std::string_view id);

}  // namespace cann_debug::itest
