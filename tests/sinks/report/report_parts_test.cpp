// The report sink's parts: downsampling, escaping, operator aggregation, graph layering, anomaly marks.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "anomaly_marks.hpp"
#include "causal_graph_view.hpp"
#include "operator_table.hpp"
#include "rank_bars.hpp"
#include "report_markdown.hpp"
#include "report_test_inputs.hpp"
#include "series_collector.hpp"
#include "text_escape.hpp"

namespace cann_debug::report {
namespace {

using ::testing::HasSubstr;

TEST(Downsample, KeepsEveryBucketsMinimumAndMaximum) {
  std::vector<CurvePoint> points;
  for (int i = 0; i < 10000; ++i) points.push_back({static_cast<double>(i), std::sin(i * 0.01)});
  points[7777].y = 1e6;
  points[1234].y = -1e6;
  const auto kept = downsample_min_max(points, 100);
  EXPECT_LE(kept.size(), 100u);
  EXPECT_GE(kept.size(), 90u);
  bool spike = false, dip = false;
  for (const auto& p : kept) {
    spike = spike || (p.x == 7777 && p.y == 1e6);
    dip = dip || (p.x == 1234 && p.y == -1e6);
  }
  EXPECT_TRUE(spike);
  EXPECT_TRUE(dip);
  for (std::size_t i = 1; i < kept.size(); ++i) EXPECT_LT(kept[i - 1].x, kept[i].x) << "x order is kept";
}

TEST(Downsample, ShortCurvesAreUnchanged) {
  const std::vector<CurvePoint> points = {{0, 1}, {1, 3}, {2, 2}};
  const auto kept = downsample_min_max(points, 100);
  ASSERT_EQ(kept.size(), 3u);
  EXPECT_EQ(kept[1].y, 3);
}

TEST(SeriesCollector, NonFiniteStringsAreMarkedNotPlotted) {
  SeriesCollector c;
  RecordBatch b;
  for (const char* v : {"nan", "inf", "-inf", "Infinity"}) {
    Record r;
    r.fields = {{"step", b.records.size()}, {"loss", v}};
    b.records.push_back(r);
  }
  Record text;
  text.fields = {{"step", 9}, {"loss", "oops"}};  // not a number at all: ignored
  b.records.push_back(text);
  c.add(b);
  const auto charts = c.charts();
  ASSERT_EQ(charts.size(), 1u);
  EXPECT_TRUE(charts[0].curves[0].points.empty());
  ASSERT_EQ(charts[0].curves[0].nonfinite.size(), 4u);
  EXPECT_EQ(charts[0].curves[0].nonfinite[2].text, "-inf");
}

TEST(SeriesCollector, DistributedRowsGetOneCurvePerRank) {
  SeriesCollector c;
  RecordBatch b;
  for (int step = 0; step < 3; ++step)
    for (int rank = 0; rank < 2; ++rank) {
      Record r;
      r.fields = {{"step", step}, {"rank", rank}, {"loss", 1.0 + rank}};
      b.records.push_back(r);
    }
  c.add(b);
  const auto charts = c.charts();
  ASSERT_EQ(charts[0].curves.size(), 2u);
  EXPECT_EQ(charts[0].curves[1].label, "rank 1");
  EXPECT_EQ(charts[0].curves[1].points.size(), 3u);
}

TEST(Escaping, HtmlEscapesEveryMarkupCharacter) {
  EXPECT_EQ(html_escape("<a href=\"x\" title='y'>&</a>"),
            "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;");
  EXPECT_EQ(html_escape(std::string("a\x01"
                                    "b",
                                    3)),
            "ab");
}

TEST(Escaping, MarkdownEscapesMarkupAndKeepsRowsOnOneLine) {
  EXPECT_EQ(markdown_escape("<script>|x_y\nz"), "\\<script\\>\\|x\\_y z");
  EXPECT_EQ(markdown_code_block("a ``` b", "json"), "````json\na ``` b\n````\n\n");
}

TEST(Escaping, IndicesPrintAsIntegers) {
  EXPECT_EQ(format_index(123456.0), "123456");
  EXPECT_EQ(format_index(2.5), "2.5");
  EXPECT_EQ(format_number(std::nan("")), "nan");
}

Event op(const char* name, std::int64_t start, std::int64_t dur, std::int64_t tid = 1) {
  Event e;
  e.name = name;
  e.start_ns = start;
  e.duration_ns = dur;
  e.pid = 1;
  e.tid = tid;
  return e;
}

TEST(OperatorAggregator, SelfTimeExcludesNestedOperatorsAndSharesSumToOne) {
  EventBatch b;
  b.events = {op("aten::conv2d", 0, 10'000'000), op("aten::mkldnn_convolution", 1'000'000, 8'000'000),
              op("aten::relu", 12'000'000, 2'000'000), op("aten::conv2d", 0, 4'000'000, /*tid=*/2),
              op("ProfilerStep#1", 0, 20'000'000)};  // not an operator
  OperatorAggregator agg;
  agg.add(b);
  const auto rows = agg.rows(10);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(agg.operator_events(), 4);
  EXPECT_EQ(rows[0].name, "aten::mkldnn_convolution");
  EXPECT_DOUBLE_EQ(rows[0].self_ms, 8.0);
  EXPECT_EQ(rows[1].name, "aten::conv2d");
  EXPECT_EQ(rows[1].count, 2);
  EXPECT_DOUBLE_EQ(rows[1].total_ms, 14.0);
  EXPECT_DOUBLE_EQ(rows[1].self_ms, 6.0);  // 10 - 8 on thread 1, plus 4 on thread 2
  double shares = 0;
  for (const auto& r : rows) shares += r.share;
  EXPECT_NEAR(shares, 1.0, 1e-12);
}

TEST(CausalGraphView, LayersFollowTheLongestChainOfParents) {
  const CausalGraphView g = causal_graph_view(testdata::training_posterior()).value();
  EXPECT_EQ(g.name, "report_fixture");
  ASSERT_EQ(g.nodes.size(), 4u);
  EXPECT_EQ(g.nodes[0].layer, 0);
  EXPECT_EQ(g.nodes[1].layer, 1);
  EXPECT_EQ(g.nodes[2].layer, 2);
  EXPECT_EQ(g.nodes[3].layer, 1);
  EXPECT_EQ(g.nodes[1].description, "gradient norm far above its median");
  EXPECT_EQ(g.edges.size(), 3u);
}

TEST(CausalGraphView, APosteriorWithoutVariablesHasNoView) {
  Posterior p = testdata::training_posterior();
  p.variables.clear();
  EXPECT_FALSE(causal_graph_view(p).has_value());
}

TEST(CausalGraphView, CyclesAndUnknownParentsAreErrorsNamingTheGraph) {
  Posterior cyclic;
  cyclic.graph = "loopy";
  cyclic.variables = {{.name = "a", .parents = {"b"}}, {.name = "b", .parents = {"a"}}};
  EXPECT_THAT([&] { causal_graph_view(cyclic); },
              ::testing::ThrowsMessage<std::runtime_error>(HasSubstr("graph 'loopy': the parents of")));
  Posterior unknown;
  unknown.variables = {{.name = "a", .parents = {"zz"}}};
  EXPECT_THAT([&] { causal_graph_view(unknown); },
              ::testing::ThrowsMessage<std::runtime_error>(HasSubstr("unknown parent 'zz'")));
}

TEST(CausalGraphView, PathAndObservedStatesAreAnnotated) {
  CausalGraphView g = causal_graph_view(testdata::training_posterior()).value();
  annotate_causal_graph(g, testdata::training_diagnosis(), testdata::training_posterior(),
                        testdata::training_evidence());
  EXPECT_TRUE(g.nodes[0].on_path);
  EXPECT_EQ(g.nodes[0].path_state, "lr_too_high");
  EXPECT_EQ(g.nodes[0].likeliest_state, "lr_too_high");
  EXPECT_EQ(g.nodes[2].observed_state, "yes");
  EXPECT_FALSE(g.nodes[3].on_path);
  EXPECT_EQ(g.path_edges.size(), 2u);
}

TEST(AnomalyMarks, RequestRefsDoNotMarkStepCharts) {
  SeriesCollector c;
  c.add(testdata::training_records());
  const auto chart = c.charts()[0];
  Diagnosis d = testdata::training_diagnosis();
  EvidenceRef req;
  req.kind = "requests";
  req.first_step = req.last_step = 3;
  d.root_causes[0].evidence = {req};
  EXPECT_TRUE(anomaly_marks(chart, d, {}).empty());
}

TEST(RankBars, WaitingForAStragglerCountsAsCommunication) {
  FeatureSet set;
  auto add = [&](const char* rank, const char* name, double value) {
    Feature f;
    f.name = name;
    f.value = value;
    f.labels = {{"rank", rank}};
    set.features.push_back(f);
  };
  for (const char* rank : {"0", "10", "2"}) {
    const bool straggler = std::string(rank) == "2";
    add(rank, "rank.step_time", 60);
    add(rank, "rank.forward_time", 9);
    add(rank, "rank.backward_compute_time", 11);
    add(rank, "rank.optimizer_time", 1);
    add(rank, "rank.exposed_collective_time", 0);  // DDP waits inside backward: not exposed
    add(rank, "rank.outside_model_time", straggler ? 40 : 0.5);
  }
  const auto bars = rank_bars({set});
  ASSERT_EQ(bars.size(), 3u);
  EXPECT_EQ(bars[2].rank, "10");  // numeric order
  EXPECT_DOUBLE_EQ(bars[0].compute_ms, 21.0);
  EXPECT_DOUBLE_EQ(bars[0].communication_ms, 38.5);  // rank 0 waits for rank 2
  EXPECT_DOUBLE_EQ(bars[1].free_ms, 40.0);
  EXPECT_DOUBLE_EQ(bars[1].communication_ms, 0.0);
}

// A GPU trace without the model's user ranges (forward, backward, ... at 0): the bars come from the device
// timeline, compute kernels against the GPU's idle time, not from the empty ranges.
TEST(RankBars, ADeviceTimedRankSplitsByItsKernels) {
  FeatureSet set;
  auto add = [&](const char* name, double value) {
    Feature f;
    f.name = name;
    f.value = value;
    f.labels = {{"rank", "1"}};
    set.features.push_back(f);
  };
  add("rank.step_time", 345.8);
  add("rank.forward_time", 0);
  add("rank.backward_compute_time", 0);
  add("rank.optimizer_time", 0);
  add("rank.collective_time", 59.6);
  add("rank.outside_model_time", 157.3);
  add("rank.kernel_compute_time", 124.1);
  const auto bars = rank_bars({set});
  ASSERT_EQ(bars.size(), 1u);
  EXPECT_DOUBLE_EQ(bars[0].free_ms, 157.3);
  EXPECT_DOUBLE_EQ(bars[0].compute_ms, 124.1);
  EXPECT_NEAR(bars[0].communication_ms, 345.8 - 157.3 - 124.1, 1e-9);
}

}  // namespace
}  // namespace cann_debug::report
