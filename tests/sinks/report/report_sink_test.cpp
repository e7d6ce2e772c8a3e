// The report sink end to end through the SDK harness: each format's content, the formats option, atomic
// replacement, errors, downsampling, the latency timeline and the per-rank bars.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "cann_debug/testing.hpp"
#include "report.hpp"
#include "report_test_inputs.hpp"

namespace cann_debug::report {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testdata::fresh_folder;
using testdata::read_text;
using ::testing::HasSubstr;
using ::testing::Not;

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

fs::path run_training(const std::string& name, json options = json::object()) {
  const fs::path out = fresh_folder(name);
  options["output"] = out.string();
  testing::Harness h(plugins::report_factory(), options);
  h.run_processor(testdata::training_inputs());
  return out;
}

TEST(ReportSink, ManifestIsSound) {
  EXPECT_THAT(check_manifest(plugins::report_factory().manifest()), ::testing::IsEmpty());
}

TEST(ReportSink, JsonHoldsDiagnosisSuggestionsFeaturesAndSeries) {
  const fs::path out = run_training("json");
  const json report = json::parse(read_text(out / "report.json"));
  EXPECT_EQ(report["format"], "cann-debug.report/1");
  EXPECT_EQ(report["scenario"], "training");
  EXPECT_EQ(report["healthy"], false);
  ASSERT_EQ(report["diagnosis"]["root_causes"].size(), 2u);
  EXPECT_EQ(report["diagnosis"]["root_causes"][0]["id"], "lr_too_high");
  EXPECT_EQ(report["suggestions"][0]["id"], "lower_lr");
  EXPECT_EQ(report["suggestions"][0]["root_cause"], "lr_too_high");
  EXPECT_EQ(report["features"].size(), 4u);
  EXPECT_EQ(report["features"][3]["value"], "nan");  // non-finite feature values follow the corpus convention

  const json& loss = report["series"][0];
  EXPECT_EQ(loss["field"], "loss");
  EXPECT_EQ(loss["x_field"], "step");
  EXPECT_EQ(loss["curves"][0]["count"], 199);
  EXPECT_EQ(loss["curves"][0]["nonfinite_count"], 1);
  EXPECT_EQ(loss["curves"][0]["nonfinite"][0]["x"], 150.0);
  EXPECT_EQ(loss["curves"][0]["nonfinite"][0]["value"], "nan");
  EXPECT_EQ(loss["curves"][0]["max"]["x"], 57.0);
  std::vector<std::pair<double, double>> marks;
  for (const auto& a : loss["anomalies"])
    marks.emplace_back(a["first"].get<double>(), a["last"].get<double>());
  // Step 57 (id "loss") marks the loss; steps 80..84 (id "grad_norm") the gradient norm only; the whole-run
  // range 0..199 is context, not an anomaly.
  EXPECT_THAT(marks, ::testing::ElementsAre(std::pair{57.0, 57.0}));

  EXPECT_EQ(report["series"][1]["field"], "grad_norm");
  ASSERT_EQ(report["series"][1]["anomalies"].size(), 1u);
  EXPECT_EQ(report["series"][1]["anomalies"][0]["first"], 80.0);
  EXPECT_EQ(report["series"][1]["anomalies"][0]["last"], 84.0);
  EXPECT_EQ(report["series"][1]["curves"][0]["nonfinite"][0]["value"], "inf");
  EXPECT_EQ(report["causal_graph"]["path_cause"], "lr_too_high");
  EXPECT_EQ(report["operators"]["from_features"][0]["operator"], "aten::conv2d");
}

TEST(ReportSink, MarkdownHasTheRootCauseTableAndEscapesMarkup) {
  const std::string md = read_text(run_training("markdown") / "report.md");
  EXPECT_THAT(md, HasSubstr("| # | root cause | confidence | propagation path |"));
  EXPECT_THAT(
      md, HasSubstr("| 1 | lr\\_too\\_high | 91.0% | root\\_cause=lr\\_too\\_high → grad\\_explosion=yes"));
  EXPECT_THAT(md, HasSubstr("| loss | run | step | 199 | 1 |"));
  EXPECT_THAT(md, HasSubstr("\\<script\\>alert('feature')\\</script\\>"));
  EXPECT_THAT(md, Not(HasSubstr("<script>")));
  EXPECT_THAT(md, HasSubstr("````python\n"));  // the snippet holds ``` so the fence is longer
}

TEST(ReportSink, HtmlIsSelfContainedWithCurvesMarksGraphPathAndEscapedNames) {
  const std::string html = read_text(run_training("html") / "report.html");
  EXPECT_THAT(html, HasSubstr("<polyline class=\"curve\" data-series=\"loss\""));
  EXPECT_THAT(html, HasSubstr("<polyline class=\"curve\" data-series=\"grad_norm\""));
  EXPECT_THAT(html, HasSubstr("<circle class=\"anomaly\" data-x=\"57\""));
  EXPECT_THAT(html, HasSubstr("<rect class=\"anomaly-range\" data-first=\"80\" data-last=\"84\""));
  EXPECT_THAT(html, Not(HasSubstr("data-first=\"0\" data-last=\"199\"")));  // whole-run context is no anomaly
  EXPECT_THAT(html, HasSubstr("<path class=\"nonfinite\" data-x=\"150\""));
  EXPECT_THAT(html, HasSubstr("<g class=\"node on-path\" data-var=\"root_cause\""));
  EXPECT_THAT(html, HasSubstr("<g class=\"node on-path\" data-var=\"grad_explosion\""));
  EXPECT_THAT(html, HasSubstr("<g class=\"node on-path observed\" data-var=\"loss_spike\""));
  EXPECT_THAT(html, HasSubstr("class=\"edge on-path\" data-from=\"root_cause\" data-to=\"grad_explosion\""));
  EXPECT_THAT(html, HasSubstr("class=\"edge on-path\" data-from=\"grad_explosion\" data-to=\"loss_spike\""));
  // Hostile names from features, labels, suggestions and the graph file are text, never markup.
  EXPECT_THAT(html, HasSubstr("&lt;script&gt;alert(&#39;feature&#39;)&lt;/script&gt;"));
  EXPECT_THAT(html, HasSubstr("&lt;script&gt;alert(&#39;graph&#39;)&lt;/script&gt;"));
  EXPECT_THAT(html, HasSubstr("&lt;img src=x onerror=alert(1)&gt;"));
  EXPECT_THAT(html, HasSubstr("step 57 &lt;b&gt;"));
  EXPECT_THAT(html, Not(HasSubstr("<img")));
  EXPECT_THAT(html, Not(HasSubstr("\" onload=\"")));
  EXPECT_EQ(count_of(html, "<script"), 1u);  // only the report's own inline script
  // Self-contained: nothing is fetched (the only URL is the SVG namespace).
  EXPECT_THAT(html, Not(HasSubstr("src=\"http")));
  EXPECT_THAT(html, Not(HasSubstr("href=\"http")));
  EXPECT_EQ(count_of(html, "http://") + count_of(html, "https://"),
            count_of(html, "xmlns=\"http://www.w3.org/2000/svg\""));
  EXPECT_THAT(html, HasSubstr("Content-Security-Policy"));
  EXPECT_THAT(html, HasSubstr("<code>aten::conv2d</code>"));
}

TEST(ReportSink, WritesOnlyTheRequestedFormats) {
  const fs::path out = run_training("formats", {{"formats", {"markdown"}}});
  EXPECT_TRUE(fs::exists(out / "report.md"));
  EXPECT_FALSE(fs::exists(out / "report.json"));
  EXPECT_FALSE(fs::exists(out / "report.html"));
}

TEST(ReportSink, RejectsUnknownFormats) {
  try {
    testing::Harness h(plugins::report_factory(), {{"output", "/tmp/x"}, {"formats", {"pdf"}}});
    FAIL() << "an unknown format was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("unknown format 'pdf'"));
  }
}

TEST(ReportSink, UnwritableOutputFolderIsAClearErrorNamingThePath) {
  const fs::path dir = fresh_folder("unwritable");
  const fs::path blocker = dir / "a_file";
  std::ofstream(blocker) << "not a folder";
  const std::string output = (blocker / "reports").string();  // cannot be created below a regular file
  testing::Harness h(plugins::report_factory(), {{"output", output}});
  try {
    h.component().start();
    FAIL() << "start() accepted an output folder below a file";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr(output));
    EXPECT_THAT(e.what(), HasSubstr("cannot create the report folder"));
  }
}

TEST(ReportSink, AMalformedGraphInThePosteriorLeavesOnlyTheGraphViewOut) {
  const fs::path out = fresh_folder("badgraph");
  Posterior cyclic = testdata::training_posterior();
  cyclic.variables = {{.name = "a", .parents = {"b"}}, {.name = "b", .parents = {"a"}}};
  auto inputs = testdata::training_inputs();
  for (auto& [port, envelope] : inputs)
    if (port == testdata::kPosterior) envelope = Envelope::make(CorrelationKey{}, cyclic);
  testing::Harness h(plugins::report_factory(), {{"output", out.string()}, {"formats", {"json"}}});
  h.run_processor(inputs);
  const json report = json::parse(read_text(out / "report.json"));
  EXPECT_TRUE(report["causal_graph"].is_null());
  EXPECT_EQ(report["diagnosis"]["root_causes"][0]["id"], "lr_too_high");
  EXPECT_EQ(report["posterior"]["graph"], "report_fixture");
}

TEST(ReportSink, EmitsTheModelItsFilesAreWrittenFrom) {
  const fs::path out = fresh_folder("model");
  testing::Harness h(plugins::report_factory(), {{"output", out.string()}, {"formats", {"json"}}});
  h.run_processor(testdata::training_inputs());
  const auto models = h.outputs_of<JsonMessage>(0);
  ASSERT_EQ(models.size(), 1u);
  EXPECT_EQ(models[0].value, json::parse(read_text(out / "report.json")));
  EXPECT_EQ(models[0].value["format"], "cann-debug.report/1");
}

TEST(ReportSink, WithNoFormatsItWritesNothingAndStillEmitsTheModel) {
  const fs::path out = fresh_folder("no_formats") / "never_made";
  testing::Harness h(plugins::report_factory(), {{"output", out.string()}, {"formats", json::array()}});
  h.run_processor(testdata::training_inputs());
  EXPECT_FALSE(fs::exists(out));
  const auto models = h.outputs_of<JsonMessage>(0);
  ASSERT_EQ(models.size(), 1u);
  EXPECT_EQ(models[0].value["diagnosis"]["root_causes"][0]["id"], "lr_too_high");
  EXPECT_FALSE(models[0].value["causal_graph"].is_null());
  // Without an output folder only `formats: []` is valid.
  testing::Harness none(plugins::report_factory(), {{"formats", json::array()}});
  EXPECT_THROW(testing::Harness(plugins::report_factory(), {{"formats", {"json"}}}), std::invalid_argument);
}

TEST(ReportSink, ReplacesAnExistingReportAndLeavesNoTemporaryFiles) {
  const fs::path out = fresh_folder("replace");
  std::ofstream(out / "report.json") << "old";
  std::ofstream(out / "keep.txt") << "other file";
  testing::Harness h(plugins::report_factory(), {{"output", out.string()}, {"formats", {"json"}}});
  h.run_processor(testdata::training_inputs());
  const json report = json::parse(read_text(out / "report.json"));
  EXPECT_EQ(report["format"], "cann-debug.report/1");
  EXPECT_EQ(read_text(out / "keep.txt"), "other file");
  for (const auto& entry : fs::directory_iterator(out))
    EXPECT_THAT(entry.path().filename().string(), Not(HasSubstr(".tmp"))) << entry.path();
}

TEST(ReportSink, DownsamplingKeepsTheSpikeAndTheNonFiniteMarker) {
  const fs::path out = fresh_folder("downsample");
  testing::Harness h(plugins::report_factory(), {{"output", out.string()}, {"max_points", 50}});
  RecordBatch records = testdata::training_records(5000);
  h.run_processor({{testdata::kDiagnosis, Envelope::make(CorrelationKey{}, testdata::training_diagnosis())},
                   {testdata::kRecords, Envelope::make(CorrelationKey{}, std::move(records))}});
  const json report = json::parse(read_text(out / "report.json"));
  const json& curve = report["series"][0]["curves"][0];
  EXPECT_EQ(curve["count"], 4999);
  EXPECT_LE(curve["points"].size(), 50u);
  bool spike = false;
  for (const auto& p : curve["points"]) spike = spike || (p[0] == 57.0 && p[1] == 9.5);
  EXPECT_TRUE(spike) << "the loss spike at step 57 was dropped by downsampling";
  EXPECT_LT(curve["min"]["y"].get<double>(), 0.11);  // the loss decays to 0.1
  EXPECT_EQ(curve["nonfinite"][0]["x"], 150.0);
}

TEST(ReportSink, LatencyTimelineIsOrderedByRequestAndMarksTheSpike) {
  const fs::path out = fresh_folder("latency");
  testing::Harness h(plugins::report_factory(), {{"output", out.string()}});
  h.run_processor(testdata::inference_inputs());
  const json report = json::parse(read_text(out / "report.json"));
  const json& chart = report["series"][0];
  EXPECT_EQ(chart["field"], "latency_ms");
  EXPECT_EQ(chart["x_field"], "request_id");
  EXPECT_EQ(chart["curves"][0]["first"]["x"], 0.0);
  EXPECT_EQ(chart["curves"][0]["max"]["x"], 40.0);
  const std::string html = read_text(out / "report.html");
  EXPECT_THAT(html, HasSubstr("<polyline class=\"curve\" data-series=\"latency_ms\""));
  EXPECT_THAT(html, HasSubstr("<circle class=\"anomaly\" data-x=\"40\""));
}

TEST(ReportSink, PerRankBarsSplitTheStep) {
  const fs::path out = fresh_folder("ranks");
  testing::Harness h(plugins::report_factory(), {{"output", out.string()}});
  h.run_processor(testdata::distributed_inputs());
  const json report = json::parse(read_text(out / "report.json"));
  ASSERT_EQ(report["ranks"].size(), 2u);
  EXPECT_EQ(report["ranks"][1]["rank"], "1");
  EXPECT_DOUBLE_EQ(report["ranks"][1]["compute_ms"].get<double>(), 50.0);
  EXPECT_DOUBLE_EQ(report["ranks"][1]["communication_ms"].get<double>(), 5.0);
  EXPECT_DOUBLE_EQ(report["ranks"][1]["free_ms"].get<double>(), 45.0);
  const std::string html = read_text(out / "report.html");
  EXPECT_THAT(html, HasSubstr("<g class=\"rank-bar\" data-rank=\"1\">"));
  EXPECT_THAT(read_text(out / "report.md"), HasSubstr("| 1 | 100 | 50 | 5 | 45 |"));
}

TEST(ReportSink, HealthyRunHasNoAnomalyMarks) {
  const fs::path out = fresh_folder("healthy");
  Diagnosis d = testdata::training_diagnosis();
  d.healthy = true;
  std::swap(d.root_causes[0], d.root_causes[1]);
  testing::Harness h(plugins::report_factory(), {{"output", out.string()}});
  h.run_processor({{testdata::kDiagnosis, Envelope::make(CorrelationKey{}, d)},
                   {testdata::kFeatures, Envelope::make(CorrelationKey{}, testdata::training_features())},
                   {testdata::kRecords, Envelope::make(CorrelationKey{}, testdata::training_records())}});
  const std::string html = read_text(out / "report.html");
  EXPECT_THAT(html, HasSubstr("verdict healthy"));
  EXPECT_THAT(html, Not(HasSubstr("class=\"anomaly")));
}

// The diagnosis' observations (details.observations) are stated under the verdict in both human formats,
// escaped, with where they happened.
TEST(ReportSink, ObservationsAreStatedUnderTheVerdict) {
  const fs::path out = fresh_folder("observed");
  Diagnosis d = testdata::training_diagnosis();
  d.details["observations"] =
      json::array({{{"kind", "profiler_stop"}, {"text", "22 requests queued behind the profiler's <stop>"}},
                   {{"kind", "warmup_spike"},
                    {"text", "the loss rose 40% during the warm-up"},
                    {"where", "iterations 3-15"}}});
  testing::Harness h(plugins::report_factory(), {{"output", out.string()}});
  h.run_processor({{testdata::kDiagnosis, Envelope::make(CorrelationKey{}, d)}});
  const std::string html = read_text(out / "report.html");
  EXPECT_THAT(html,
              HasSubstr("<li>Observed: 22 requests queued behind the profiler&#39;s &lt;stop&gt;</li>"));
  EXPECT_THAT(html, HasSubstr("during the warm-up (iterations 3-15)</li>"));
  const std::string md = read_text(out / "report.md");
  EXPECT_THAT(md, HasSubstr("- Observed: the loss rose 40% during the warm-up (iterations 3-15)"));
  // Without observations there is no list.
  EXPECT_THAT(read_text(run_training("no-observations") / "report.html"),
              Not(HasSubstr("id=\"observations\"")));
}

TEST(ReportSink, WithoutADiagnosisTheReportStillShowsTheInputs) {
  const fs::path out = fresh_folder("nodiag");
  testing::Harness h(plugins::report_factory(), {{"output", out.string()}});
  h.run_processor({{testdata::kRecords, Envelope::make(CorrelationKey{}, testdata::training_records())}});
  const json report = json::parse(read_text(out / "report.json"));
  EXPECT_TRUE(report["diagnosis"].is_null());
  EXPECT_EQ(report["series"].size(), 2u);
  EXPECT_THAT(read_text(out / "report.html"), HasSubstr("No diagnosis arrived"));
}

}  // namespace
}  // namespace cann_debug::report
