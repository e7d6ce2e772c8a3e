// report: collects the diagnosis, advice, features, log rows, trace events and posterior of a run and, at
// end of stream, writes report.json, report.md and report.html (docs/report.md) and emits the report
// document on `model`, which consoles (`cann-debug diagnose`) render.
#include "report.hpp"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "anomaly_marks.hpp"
#include "cann_debug/messages.hpp"
#include "cann_debug/whole_file.hpp"
#include "causal_graph_view.hpp"
#include "operator_table.hpp"
#include "output_folder.hpp"
#include "rank_bars.hpp"
#include "report_html.hpp"
#include "report_json.hpp"
#include "report_markdown.hpp"
#include "series_collector.hpp"

namespace cann_debug::plugins {
namespace {

using nlohmann::json;

constexpr const char* kFormats[] = {"json", "markdown", "html"};
constexpr std::size_t kTopOperators = 20;

enum Port : std::size_t { kDiagnosis, kAdvice, kFeatures, kRecords, kEvents, kPosterior, kEvidence };

Manifest make_manifest() {
  Manifest m;
  m.type = "report";
  m.kind = ComponentKind::kSink;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description =
      "Writes a run's diagnosis at end of stream as report.json, report.md and a self-contained report.html";
  m.inputs = {
      {"diagnosis",
       {std::string(Diagnosis::type_id)},
       true,
       "the analyzer's diagnosis (the last one counts)"},
      {"advice", {std::string(Advice::type_id)}, false, "suggestions (all are kept)"},
      {"features", {std::string(FeatureSet::type_id)}, false, "feature sets (all are kept)"},
      {"records",
       {std::string(RecordBatch::type_id)},
       false,
       "log rows: loss and grad_norm per step, latency_ms per request_id"},
      {"events", {std::string(EventBatch::type_id)}, false, "trace events, aggregated per operator name"},
      {"posterior", {std::string(Posterior::type_id)}, false, "engine posterior (the last one counts)"},
      {"evidence", {std::string(Evidence::type_id)}, false, "discretised evidence: observed graph states"},
  };
  m.outputs = {{"model", std::string(JsonMessage::type_id),
                "at end of stream, the report document (cann-debug.report/1) the files are written from"}};
  m.options = {
      {.name = "output",
       .type = OptionType::kString,
       .description =
           "folder to write the report files into (created if missing); needed when formats lists any",
       .default_value = "",
       .required = false,
       .min = {},
       .max = {},
       .enum_values = {}},
      {.name = "formats",
       .type = OptionType::kStringList,
       .description =
           "which files to write: json (report.json), markdown (report.md), html (report.html); [] = none, "
           "only the model output",
       .default_value = json::array({"json", "markdown", "html"}),
       .required = false,
       .min = {},
       .max = {},
       .enum_values = {}},
      {.name = "title",
       .type = OptionType::kString,
       .description = "title of the report",
       .default_value = "cann-debug report",
       .required = false,
       .min = {},
       .max = {},
       .enum_values = {}},
      {.name = "max_points",
       .type = OptionType::kInt,
       .description = "at most this many points per curve (min and max of each bucket are kept)",
       .default_value = 2000,
       .required = false,
       .min = 16,
       .max = 1000000,
       .enum_values = {}},
  };
  m.concurrency = Concurrency::serial();
  m.sample_yaml =
      "report/main:\n"
      "  output: \"${output}\"                 # required: report.json, report.md, report.html go here\n"
      "  formats: [json, markdown, html]\n"
      "  title: \"Training run diagnosis\"\n"
      "  max_points: 2000\n";
  return m;
}

class Report final : public Component {
 public:
  Report(const CreateContext& ctx, const Config& config)
      : host_(ctx.host),
        output_(config.str("output")),
        formats_(config.strings("formats")),
        title_(config.str("title")),
        max_points_(static_cast<std::size_t>(config.integer("max_points"))) {}

  void start() override {
    if (!formats_.empty()) report::prepare_output_folder(output_);
  }

  void process(const Envelope& message, std::size_t port, Emitter& /*out*/) override {
    switch (port) {
      case kDiagnosis:
        diagnosis_ = message.as<Diagnosis>();
        break;
      case kAdvice:
        advice_.push_back(message.as<Advice>());
        break;
      case kFeatures:
        features_.push_back(message.as<FeatureSet>());
        break;
      case kRecords:
        series_.add(message.as<RecordBatch>());
        break;
      case kEvents:
        operators_.add(message.as<EventBatch>());
        break;
      case kPosterior:
        posterior_ = message.as<Posterior>();
        break;
      case kEvidence:
        evidence_ = message.as<Evidence>();
        break;
      default:
        throw std::logic_error(fmt::format("report: message on unknown input port {}", port));
    }
  }

  void flush(Emitter& out) override {
    if (!diagnosis_)
      host_.logger().log(LogLevel::kWarn,
                         fmt::format("report: no diagnosis arrived; {} shows the inputs only",
                                     formats_.empty() ? "the model" : output_));
    const report::ReportModel model = build_model();
    json document = report::report_json(model);
    const auto file = [this](const char* name) { return (std::filesystem::path(output_) / name).string(); };
    for (const auto& format : formats_) {
      if (format == "json")
        write_file_atomically(file("report.json"),
                              document.dump(2, ' ', false, json::error_handler_t::replace) + "\n");
      else if (format == "markdown")
        write_file_atomically(file("report.md"), report::report_markdown(model));
      else if (format == "html")
        write_file_atomically(file("report.html"), report::report_html(model));
    }
    out.emit(0, CorrelationKey{}, JsonMessage{std::move(document)});
  }

 private:
  report::ReportModel build_model() const {
    report::ReportModel m;
    m.title = title_;
    m.diagnosis = diagnosis_;
    m.advice = advice_;
    m.feature_sets = features_;
    m.posterior = posterior_;
    m.max_points = max_points_;
    for (const auto& chart : series_.charts()) {
      m.chart_marks.push_back(report::anomaly_marks(chart, diagnosis_, features_));
      m.charts.push_back(report::downsampled(chart, max_points_));
    }
    m.operators = operators_.rows(kTopOperators);
    m.operator_events = operators_.operator_events();
    for (const auto& set : features_)
      for (const auto& f : set.features)
        if (f.labels.contains("operator")) m.operator_features.push_back(f);
    m.ranks = report::rank_bars(features_);
    if (posterior_) {
      try {
        m.graph = report::causal_graph_view(*posterior_);
      } catch (const std::runtime_error& e) {
        // The rest of the report still stands; only the drawing of a malformed graph is left out.
        host_.logger().log(LogLevel::kWarn, fmt::format("report: no causal graph view: {}", e.what()));
      }
      if (m.graph) report::annotate_causal_graph(*m.graph, diagnosis_, posterior_, evidence_);
    }
    return m;
  }

  HostServices& host_;
  std::string output_;
  std::vector<std::string> formats_;
  std::string title_;
  std::size_t max_points_;
  std::optional<Diagnosis> diagnosis_;
  std::vector<Advice> advice_;
  std::vector<FeatureSet> features_;
  std::optional<Posterior> posterior_;
  std::optional<Evidence> evidence_;
  report::SeriesCollector series_;
  report::OperatorAggregator operators_;
};

class ReportFactory final : public SimpleFactory<Report> {
 public:
  using SimpleFactory::SimpleFactory;
  std::vector<ConfigProblem> validate(const Config& config) const override {
    std::vector<ConfigProblem> problems;
    const auto formats = config.strings("formats");
    if (!formats.empty() && config.str("output").empty())
      problems.push_back(
          {"output", "must name a folder for the report files (or set formats: [] to write none)"});
    {
      for (const auto& f : formats)
        if (std::find(std::begin(kFormats), std::end(kFormats), f) == std::end(kFormats))
          problems.push_back(
              {"formats", fmt::format("unknown format '{}' (known: json, markdown, html)", f)});
    }
    return problems;
  }
};

}  // namespace

const ComponentFactory& report_factory() {
  static const ReportFactory factory(make_manifest());
  return factory;
}

}  // namespace cann_debug::plugins
