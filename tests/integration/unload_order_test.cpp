// The unload-order regression: objects from two packages destroyed in the dangerous order (the registry
// first, then package 2's components, then package 1's, payloads allocated in package 2 last) must not
// crash, because packages stay resident for the life of the process. Run it under the ASan build too.
#include <gtest/gtest.h>

#include "cann_debug/messages.hpp"
#include "cann_debug/testing.hpp"
#include "fixtures.hpp"
#include "temp_dir.hpp"

namespace cann_debug::itest {
namespace {

std::unique_ptr<Component> create(const host::ComponentEntry& entry, const std::string& id,
                                  HostServices& host) {
  std::vector<OptionIssue> issues;
  Config config = resolve_config(entry.manifest().options, nlohmann::json::object(), issues);
  EXPECT_TRUE(issues.empty());
  return entry.factory->create(CreateContext{id, host}, config);
}

TEST(UnloadOrder, ComponentsAndPayloadsOutliveTheRegistry) {
  auto registry = good_registry();
  testing::FakeHost host;
  auto pass = create(*registry->find("passthrough"), "passthrough/p", host);  // package 1 (fixture_good)
  auto tag = create(*registry->find("tagger"), "tagger/t", host);             // package 2 (fixture_extra)
  testing::CapturingEmitter out;
  pass->start();
  tag->start();
  tag->process(Envelope::make(CorrelationKey{}, JsonMessage{nlohmann::json{{"n", 1}}}), 0, out);
  ASSERT_EQ(out.emitted.size(), 1u);
  pass->process(out.emitted[0].second, 0, out);  // shares the payload allocated by package 2
  ASSERT_EQ(out.emitted.size(), 2u);

  registry.reset();  // registry-side objects first
  tag->stop();
  tag.reset();  // package 2's component before package 1's
  pass->stop();
  pass.reset();
  // Payloads from package 2 are still readable and are destroyed last.
  EXPECT_EQ(out.emitted[1].second.as<JsonMessage>().value, (nlohmann::json{{"n", 1}, {"tag", "extra"}}));
  out.emitted.clear();
}

TEST(UnloadOrder, APipelineMixingBothPackagesCanBeDroppedRegistryFirst) {
  for (int round = 0; round < 2; ++round) {  // the second round loads the (resident) packages again
    TempDir dir;
    auto registry = good_registry();
    host::Diagnostics diags;
    host::PipelineInputs inputs;
    inputs.variables["tmp"] = dir.path().string();
    auto planned = plan_text(R"(version: 1
components:
  counter_source/src: { count: 50 }
  tagger/t: { tag: mixed }
  passthrough/p: {}
  collect_sink/out: { path: "${tmp}/out.jsonl" }
links:
  - counter_source/src.out -> tagger/t.in
  - tagger/t.out -> passthrough/p.in
  - passthrough/p.out -> collect_sink/out.in
)",
                             *registry, diags, inputs);
    ASSERT_TRUE(planned) << diags.to_string();
    auto plan = std::make_unique<host::PipelinePlan>(std::move(*planned));
    auto runner = std::make_unique<host::GraphRunner>(*plan, host::RunOptions{});
    const host::RunReport report = runner->run();
    EXPECT_TRUE(report.ok);
    registry.reset();  // the registry first, while the runner still owns components of both packages
    runner.reset();
    plan.reset();
    const auto lines = read_lines(dir.file("out.jsonl"));
    ASSERT_EQ(lines.size(), 51u);
    EXPECT_EQ(lines[0], R"({"n":1,"tag":"mixed"})");
    EXPECT_EQ(lines[50], "#flush");
  }
}

}  // namespace
}  // namespace cann_debug::itest
