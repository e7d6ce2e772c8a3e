// plan_pipeline on valid pipelines: resolved factories, converted options with defaults, typed links, a
// topological order; the probe stage can be skipped; to_dot renders the plan.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fixtures.hpp"
#include "graph_dot.hpp"

namespace cann_debug::itest {
namespace {

using ::testing::HasSubstr;

// Declared consumer-first, so the topological order differs from the declaration order.
constexpr const char* kPipeline = R"(version: 1
name: plan test
components:
  collect_sink/out: { path: /tmp/out.jsonl }
  passthrough/p: {}
  counter_source/src: { count: 7, payload_bytes: 2KiB }
  slow_sink/metrics: {}
links:
  - passthrough/p.out -> collect_sink/out.in
  - counter_source/src.out -> passthrough/p.in
  - counter_source/src.metrics -> slow_sink/metrics.in
)";

class PlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    registry_ = good_registry();
    plan_ = plan_text(kPipeline, *registry_, diags_);
    ASSERT_TRUE(plan_) << diags_.to_string();
  }
  std::size_t index_of(const std::string& id) const {
    for (std::size_t i = 0; i < plan_->components.size(); ++i)
      if (plan_->components[i].id == id) return i;
    ADD_FAILURE() << "no component " << id;
    return 0;
  }
  std::unique_ptr<host::PluginRegistry> registry_;
  host::Diagnostics diags_;
  std::optional<host::PipelinePlan> plan_;
};

TEST_F(PlanTest, ComponentsKeepDeclarationOrderAndResolveToTheirFactories) {
  ASSERT_EQ(plan_->components.size(), 4u);
  EXPECT_EQ(plan_->components[0].id, "collect_sink/out");
  EXPECT_EQ(plan_->components[0].manifest().type, "collect_sink");
  EXPECT_EQ(plan_->components[2].entry, registry_->find("counter_source"));
  EXPECT_EQ(plan_->components[2].where.line, 6);
}

TEST_F(PlanTest, ConfigHoldsConvertedValuesAndDefaults) {
  const Config& c = plan_->components[index_of("counter_source/src")].config;
  EXPECT_EQ(c.integer("count"), 7);
  EXPECT_EQ(c.bytes("payload_bytes"), 2048);
  EXPECT_EQ(c.integer("batch"), 1);  // default
  EXPECT_EQ(c.str("format"), "json");
  EXPECT_EQ(plan_->components[index_of("slow_sink/metrics")].config.duration_ns("delay"), 0);
}

TEST_F(PlanTest, LinksCarryPortIndicesAndTheMessageType) {
  ASSERT_EQ(plan_->links.size(), 3u);
  const host::PlannedLink& metrics = plan_->links[2];
  EXPECT_EQ(metrics.from, index_of("counter_source/src"));
  EXPECT_EQ(metrics.from_port, 1u);
  EXPECT_EQ(metrics.to, index_of("slow_sink/metrics"));
  EXPECT_EQ(metrics.to_port, 0u);
  EXPECT_EQ(metrics.message_type, "metric.batch/1");
  EXPECT_EQ(plan_->links[0].message_type, "json/1");
  EXPECT_EQ(metrics.where.line, 11);
}

TEST_F(PlanTest, TopologicalOrderPutsProducersFirst) {
  const auto& order = plan_->topological_order;
  ASSERT_EQ(order.size(), 4u);
  auto pos = [&](const std::string& id) {
    return std::find(order.begin(), order.end(), index_of(id)) - order.begin();
  };
  EXPECT_LT(pos("counter_source/src"), pos("passthrough/p"));
  EXPECT_LT(pos("passthrough/p"), pos("collect_sink/out"));
  EXPECT_LT(pos("counter_source/src"), pos("slow_sink/metrics"));
}

TEST_F(PlanTest, DotRendersNodesShapesAndTypedEdges) {
  const std::string dot = host::to_dot(*plan_);
  EXPECT_THAT(dot, ::testing::StartsWith("digraph \"plan test\" {"));
  EXPECT_THAT(dot, HasSubstr(R"("counter_source/src" [label="counter_source/src\nreader", shape=cds];)"));
  EXPECT_THAT(dot, HasSubstr(R"("collect_sink/out" [label="collect_sink/out\nsink", shape=folder];)"));
  EXPECT_THAT(
      dot,
      HasSubstr(R"("counter_source/src" -> "slow_sink/metrics" [label="metrics -> in\nmetric.batch/1"];)"));
  EXPECT_EQ(dot.back(), '\n');
}

TEST(Plan, ProbeCanBeSkipped) {
  auto registry = good_registry();
  host::Diagnostics diags;
  auto doc = host::parse_pipeline_text(R"(version: 1
components:
  needs_chip/npu: {}
  collect_sink/out: { path: /tmp/out.jsonl }
links:
  - needs_chip/npu.out -> collect_sink/out.in
)",
                                       "probe.yaml", {}, diags);
  ASSERT_TRUE(doc);
  EXPECT_FALSE(host::plan_pipeline(*doc, *registry, diags, {.probe = true}));
  EXPECT_THAT(diags.to_string(), HasSubstr("cannot run on this machine"));
  host::Diagnostics no_probe;
  EXPECT_TRUE(host::plan_pipeline(*doc, *registry, no_probe, {.probe = false})) << no_probe.to_string();
}

TEST(Plan, AnEmptyRegistrySaysWhereToLook) {
  host::PluginRegistry empty;
  host::Diagnostics diags;
  EXPECT_FALSE(plan_text("version: 1\ncomponents:\n  counter_source/src: {}\n", empty, diags));
  EXPECT_THAT(diags.to_string(), HasSubstr("(valid types: none loaded; check --plugin-path)"));
}

}  // namespace
}  // namespace cann_debug::itest
