#include "fixtures.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>

namespace cann_debug::itest {

std::string fixture_dir(std::string_view group) {
  return std::string(CANN_DEBUG_FIXTURE_PLUGIN_DIR) + "/" + std::string(group);
}

std::string fixture_package(std::string_view group, std::string_view target) {
  return fixture_dir(group) + "/cdp_" + std::string(target) + ".so";
}

std::string pipeline_data_dir() {
  return std::string(CANN_DEBUG_SOURCE_DIR) + "/tests/data/pipelines";
}

std::unique_ptr<host::PluginRegistry> good_registry() {
  auto registry = std::make_unique<host::PluginRegistry>();
  registry->load_from({fixture_dir("good")});
  for (const auto& p : registry->problems())
    ADD_FAILURE() << "fixture package refused: " << p.path << ": " << p.message;
  EXPECT_EQ(registry->packages().size(), 2u)
      << "expected fixture_good and fixture_extra in " << fixture_dir("good");
  return registry;
}

std::optional<host::PipelinePlan> plan_text(const std::string& yaml, const host::PluginRegistry& registry,
                                            host::Diagnostics& diags, const host::PipelineInputs& inputs,
                                            const std::string& file) {
  auto doc = host::parse_pipeline_text(yaml, file, inputs, diags);
  if (!doc) return std::nullopt;
  return host::plan_pipeline(*doc, registry, diags);
}

host::RunReport run_with_deadline(const host::PipelinePlan& plan, const host::RunOptions& options,
                                  double deadline_s) {
  auto future = std::async(std::launch::async, [&plan, options] {
    host::GraphRunner runner(plan, options);
    return runner.run();
  });
  if (future.wait_for(std::chrono::duration<double>(deadline_s)) != std::future_status::ready) {
    ADD_FAILURE() << "the run did not end within " << deadline_s << " s";
    std::fflush(nullptr);
    std::_Exit(1);
  }
  return future.get();
}

host::NodeStats node_stats(const host::RunReport& report, std::string_view id) {
  for (const auto& n : report.nodes)
    if (n.id == id) return n;
  ADD_FAILURE() << "no node '" << id << "' in the run report";
  return {};
}

std::optional<host::PipelinePlan> plan_in(const TempDir& dir, const std::string& yaml,
                                          const host::PluginRegistry& registry, const std::string& file) {
  host::Diagnostics diags;
  host::PipelineInputs inputs;
  inputs.variables["tmp"] = dir.path().string();
  auto plan = plan_text(yaml, registry, diags, inputs, file);
  EXPECT_FALSE(diags.has_errors()) << diags.to_string();
  return plan;
}

}  // namespace cann_debug::itest
