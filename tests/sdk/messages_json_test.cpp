// JSON round trips of every SDK message type (through text, as recordings do), non-finite numbers included.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>

#include "cann_debug/messages.hpp"

namespace cann_debug {
namespace {

using nlohmann::json;

CorrelationKey full_key() {
  return {.timestamp_ns = 1'700'000'000'123'456'789,
          .step_id = 42,
          .request_id = "req-7",
          .node_id = "node-a",
          .rank = 3,
          .device = 1};
}

EvidenceRef full_ref() {
  return {.kind = "steps", .id = "loss", .start_ns = 1000, .end_ns = 2000, .first_step = 10, .last_step = 20};
}

/// to_json -> text -> parse -> from_json -> to_json must give back the same JSON: every field survives.
template <typename T>
T round_trip(const T& value) {
  const json first = value;
  const json parsed = json::parse(first.dump());
  T back = parsed.get<T>();
  EXPECT_EQ(json(back), first) << T::type_id;
  return back;
}

TEST(MessageJson, MetricBatchWithNonFiniteValues) {
  MetricBatch b;
  b.points.push_back({.name = "host.cpu.utilization",
                      .unit = "ratio",
                      .value = 0.25,
                      .key = full_key(),
                      .labels = {{"cpu", "0"}, {"node", "a"}}});
  b.points.push_back({.name = "x.nan", .unit = "count", .value = std::nan("")});
  b.points.push_back({.name = "x.inf", .unit = "count", .value = std::numeric_limits<double>::infinity()});
  b.points.push_back({.name = "x.ninf", .unit = "count", .value = -std::numeric_limits<double>::infinity()});
  const json j = b;
  EXPECT_EQ(j["points"][1]["value"], "nan");
  EXPECT_EQ(j["points"][2]["value"], "inf");
  EXPECT_EQ(j["points"][3]["value"], "-inf");
  const MetricBatch back = round_trip(b);
  ASSERT_EQ(back.points.size(), 4u);
  EXPECT_EQ(back.points[0].key, full_key());
  EXPECT_EQ(back.points[0].labels.at("cpu"), "0");
  EXPECT_TRUE(std::isnan(back.points[1].value));
  EXPECT_EQ(back.points[2].value, std::numeric_limits<double>::infinity());
  EXPECT_EQ(back.points[3].value, -std::numeric_limits<double>::infinity());
}

TEST(MessageJson, MetricFrameCarriesItsSeriesAndExpandsIntoPoints) {
  auto schema = std::make_shared<MetricSchema>();
  schema->series.push_back({"npu.power", "watts", {{"device", "0"}}, 0});
  schema->series.push_back({"npu.temperature", "celsius", {{"device", "1"}}, 1});
  schema->series.push_back({"host.memory.used", "bytes", {}, -1});
  MetricFrame f;
  f.schema = schema;
  f.key = full_key();
  f.values = {280.5, std::nan(""), 1e9};
  const MetricFrame back = round_trip(f);
  ASSERT_EQ(back.schema->series.size(), 3u);
  EXPECT_EQ(back.schema->series[1].device, 1);
  EXPECT_TRUE(std::isnan(back.values[1]));

  const MetricBatch batch = to_metric_batch(f);
  ASSERT_EQ(batch.points.size(), 2u);  // NaN = no reading this time
  EXPECT_EQ(batch.points[0].name, "npu.power");
  EXPECT_EQ(batch.points[0].key.device, 0);
  EXPECT_EQ(batch.points[0].key.timestamp_ns, full_key().timestamp_ns);
  EXPECT_EQ(batch.points[1].name, "host.memory.used");
  EXPECT_EQ(batch.points[1].key.device, -1);
  EXPECT_EQ(metric_points_of(Envelope::make(f.key, f)).points.size(), 2u);
  EXPECT_THROW(metric_points_of(Envelope::make(f.key, EventBatch{})), MessageTypeError);

  json bad = f;
  bad["values"].push_back(1.0);  // more values than series
  EXPECT_ANY_THROW((void)bad.get<MetricFrame>());
}

TEST(MessageJson, NonFiniteSpellingsFromOtherWritersAreRead) {
  const json j = {{"points",
                   {{{"name", "a"}, {"value", "NaN"}},
                    {{"name", "b"}, {"value", "-Infinity"}},
                    {{"name", "c"}, {"value", "1.5"}}}}};
  const auto b = j.get<MetricBatch>();
  EXPECT_TRUE(std::isnan(b.points[0].value));
  EXPECT_EQ(b.points[1].value, -std::numeric_limits<double>::infinity());
  EXPECT_EQ(b.points[2].value, 1.5);
  EXPECT_THROW((json{{"points", {{{"name", "a"}, {"value", true}}}}}.get<MetricBatch>()), json::type_error);
}

TEST(MessageJson, EventBatch) {
  EventBatch b;
  b.source_path = "/traces/rank0.json";
  b.events.push_back({.name = "MatMul",
                      .category = "kernel",
                      .phase = 'X',
                      .start_ns = 5000,
                      .duration_ns = 250,
                      .key = full_key(),
                      .pid = 1,
                      .tid = 7,
                      .args = {{"grid", {1, 2, 3}}}});
  b.events.push_back({.name = "step", .category = "user_annotation", .phase = 'i'});
  const EventBatch back = round_trip(b);
  ASSERT_EQ(back.events.size(), 2u);
  EXPECT_EQ(back.events[0].phase, 'X');
  EXPECT_EQ(back.events[0].duration_ns, 250);
  EXPECT_EQ(back.events[0].args["grid"][2], 3);
  EXPECT_EQ(back.events[1].phase, 'i');
  EXPECT_EQ(back.events[1].start_ns, kNoTimestamp);  // absent stays absent
  EXPECT_EQ(back.events[1].pid, -1);
}

TEST(MessageJson, RecordBatchIncludingAPartialOne) {
  RecordBatch b;
  b.source_path = "metrics.jsonl";
  b.records.push_back({.key = full_key(), .line = 3, .fields = {{"loss", 1.25}, {"extra", "kept"}}});
  b.partial = true;
  b.error = "metrics.jsonl:4: unterminated string";
  const RecordBatch back = round_trip(b);
  EXPECT_TRUE(back.partial);
  EXPECT_EQ(back.error, b.error);
  EXPECT_EQ(back.records[0].line, 3);
  EXPECT_EQ(back.records[0].fields["extra"], "kept");
  EXPECT_FALSE(json(RecordBatch{}).contains("partial"));
}

TEST(MessageJson, FeatureSetWithNonFiniteValue) {
  FeatureSet f;
  f.scope = "run";
  f.features.push_back({.name = "grad_norm.clip_ratio",
                        .value = 0.5,
                        .unit = "ratio",
                        .evidence = {full_ref()},
                        .labels = {{"rank", "3"}}});
  f.features.push_back(
      {.name = "loss.robust_z", .value = std::numeric_limits<double>::infinity(), .unit = "1"});
  const FeatureSet back = round_trip(f);
  EXPECT_EQ(back.features[0].evidence[0].last_step, 20);
  EXPECT_EQ(back.features[1].value, std::numeric_limits<double>::infinity());
}

TEST(MessageJson, Evidence) {
  Evidence e;
  e.hard = {{"loss_spike", "yes"}};
  e.soft = {{"lr", {{"high", 0.8}, {"normal", 0.2}}}};
  e.provenance = {{"loss_spike", {full_ref()}}};
  const Evidence back = round_trip(e);
  EXPECT_EQ(back.soft.at("lr").at("high"), 0.8);
  EXPECT_EQ(back.provenance.at("loss_spike")[0].id, "loss");
}

TEST(MessageJson, Posterior) {
  Posterior p;
  p.graph = "training";
  p.marginals = {{"lr_too_high", {{"yes", 0.7}, {"no", 0.3}}}};
  p.top_causes = {
      {.id = "lr_too_high", .probability = 0.7, .path = {"lr_too_high", "grad_explosion", "loss_spike"}}};
  p.evidence_ranking = {{"loss_spike", 2.5}, {"grad_norm", 1.0}};
  const Posterior back = round_trip(p);
  EXPECT_EQ(back.top_causes[0].path.size(), 3u);
  EXPECT_EQ(back.evidence_ranking, p.evidence_ranking);  // order kept
}

TEST(MessageJson, Diagnosis) {
  Diagnosis d;
  d.scenario = "training";
  d.healthy = false;
  d.root_causes = {{.id = "lr_too_high",
                    .confidence = 0.9,
                    .path = {"a", "b"},
                    .evidence = {full_ref()},
                    .explanation = "loss spikes follow lr warmup"}};
  d.details = {{"steps", 100}};
  const Diagnosis back = round_trip(d);
  EXPECT_FALSE(back.healthy);
  EXPECT_EQ(back.root_causes[0].explanation, "loss spikes follow lr warmup");
  EXPECT_EQ(back.details["steps"], 100);
}

TEST(MessageJson, Advice) {
  Advice a;
  a.for_root_cause = "lr_too_high";
  a.suggestions = {{.id = "lower_lr",
                    .title = "Lower the learning rate",
                    .rationale = "spikes",
                    .config_patch = {{"optimizer", {{"lr", 1e-4}}}},
                    .code = {{"pytorch", "opt.param_groups[0]['lr'] = 1e-4"}},
                    .risk = "slower convergence",
                    .priority = 1,
                    .expected_improvement = 0.3,
                    .improvement_source = "prior",
                    .target_metric = "loss.robust_z"}};
  const Advice back = round_trip(a);
  EXPECT_EQ(back.suggestions[0].code.at("pytorch"), "opt.param_groups[0]['lr'] = 1e-4");
  EXPECT_EQ(back.suggestions[0].config_patch["optimizer"]["lr"], 1e-4);
  EXPECT_EQ(back.suggestions[0].priority, 1);
}

TEST(MessageJson, JsonMessageIsItsValue) {
  const JsonMessage m{json{{"anything", {1, "two", nullptr}}}};
  EXPECT_EQ(json(m), m.value);
  EXPECT_EQ(round_trip(m).value, m.value);
}

TEST(MessageJson, CoreTypeIdsAreVersionedAndUnique) {
  std::set<std::string_view> ids(std::begin(kCoreMessageTypes), std::end(kCoreMessageTypes));
  EXPECT_EQ(ids.size(), std::size(kCoreMessageTypes));
  for (auto id : kCoreMessageTypes) EXPECT_NE(id.find('/'), std::string_view::npos) << id;
}

}  // namespace
}  // namespace cann_debug

namespace cann_debug {
namespace {

TEST(MessagesJsonNonFinite, ProbabilitiesAndScoresRoundTrip) {
  Posterior p;
  p.marginals["x"]["a"] = std::nan("");
  p.top_causes.push_back({"c", INFINITY, {}});
  p.evidence_ranking.emplace_back("x", -INFINITY);
  nlohmann::json j = p;
  EXPECT_EQ(j["marginals"]["x"]["a"], "nan");
  Posterior back = j.get<Posterior>();
  EXPECT_TRUE(std::isnan(back.marginals["x"]["a"]));
  EXPECT_TRUE(std::isinf(back.top_causes[0].probability));
  EXPECT_LT(back.evidence_ranking[0].second, 0);
  Evidence e;
  e.soft["v"]["s"] = INFINITY;
  EXPECT_TRUE(std::isinf(nlohmann::json(e).get<Evidence>().soft["v"]["s"]));
}

}  // namespace
}  // namespace cann_debug
