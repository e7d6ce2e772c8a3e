#include "report_test_inputs.hpp"
#include "cann_debug/causal_graph.hpp"

#include <unistd.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <system_error>
#include <vector>

namespace cann_debug::report::testdata {

using nlohmann::json;

std::string fixture_graph_path() {
  return std::string(CANN_DEBUG_TEST_DATA_DIR) + "/report/causal_graph.json";
}

namespace {

/// The folders fresh_folder made, removed when the test program exits (every test of the program may
/// still read its own until then).
struct MadeFolders {
  std::vector<std::filesystem::path> dirs;
  ~MadeFolders() {
    for (const auto& dir : dirs) {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    }
  }
};

}  // namespace

std::filesystem::path fresh_folder(const std::string& name) {
  static MadeFolders made;
  const auto dir = std::filesystem::temp_directory_path() /
                   ("cann_debug_report_test_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  made.dirs.push_back(dir);
  return dir;
}

std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

RecordBatch training_records(int steps) {
  RecordBatch batch;
  batch.source_path = "metrics.jsonl";
  for (int step = 0; step < steps; ++step) {
    json fields = {
        {"step", step}, {"loss", 2.3 * std::exp(-step / 60.0) + 0.1}, {"grad_norm", 1.0 + 0.01 * step}};
    if (step == 57) fields["loss"] = 9.5, fields["grad_norm"] = 250.0;
    if (step == 150) fields["loss"] = "nan", fields["grad_norm"] = "inf";
    Record r;
    r.line = step + 1;
    r.key.step_id = step;
    r.fields = std::move(fields);
    batch.records.push_back(std::move(r));
  }
  return batch;
}

Diagnosis training_diagnosis() {
  Diagnosis d;
  d.scenario = "training";
  d.healthy = false;
  RootCause top;
  top.id = "lr_too_high";
  top.confidence = 0.91;
  top.path = {"root_cause=lr_too_high", "grad_explosion=yes", "loss_spike=yes"};
  EvidenceRef step;
  step.kind = "step";
  step.id = "loss";
  step.first_step = step.last_step = 57;
  EvidenceRef range;
  range.kind = "steps";
  range.id = "grad_norm";
  range.first_step = 80;
  range.last_step = 84;
  EvidenceRef whole_run;  // context, not an anomaly: must not be marked
  whole_run.kind = "steps";
  whole_run.id = "loss";
  whole_run.first_step = 0;
  whole_run.last_step = 199;
  top.evidence = {step, range, whole_run};
  top.explanation = "P=0.91; loss_spike=yes: loss.max_over_initial = 4.1";
  RootCause healthy;
  healthy.id = "healthy";
  healthy.confidence = 0.06;
  d.root_causes = {top, healthy};
  d.details = {{"loss", {{"initial", 2.4}}}};
  return d;
}

FeatureSet training_features() {
  FeatureSet set;
  set.scope = "run";
  Feature max_over;
  max_over.name = "loss.max_over_initial";
  max_over.value = 4.1;
  max_over.unit = "ratio";
  EvidenceRef at;
  at.kind = "step";
  at.id = "loss";
  at.first_step = at.last_step = 57;
  max_over.evidence = {at};
  Feature hostile;
  hostile.name = "<script>alert('feature')</script>";
  hostile.value = 1.0;
  hostile.unit = "ratio";
  hostile.labels = {{"layer", "<img src=x onerror=alert(1)>"}};
  Feature op;
  op.name = "model.top_op_share";
  op.value = 0.42;
  op.unit = "ratio";
  op.labels = {{"operator", "aten::conv2d"}};
  Feature nonfinite;
  nonfinite.name = "loss.nonfinite_fraction";
  nonfinite.value = std::nan("");
  nonfinite.unit = "ratio";
  set.features = {max_over, hostile, op, nonfinite};
  return set;
}

Advice training_advice() {
  Advice a;
  a.for_root_cause = "lr_too_high";
  Suggestion s;
  s.id = "lower_lr";
  s.title = "Lower the learning rate";
  s.rationale = "The loss jumped at step 57 <b>";
  s.config_patch = {{"optimizer", {{"lr", 0.01}}}};
  s.code = {{"pytorch", "for g in optimizer.param_groups:\n    g['lr'] = 0.01  # ``` fence"}};
  s.risk = "slower convergence";
  s.priority = 1;
  s.expected_improvement = 0.3;
  s.improvement_source = "prior";
  s.target_metric = "loss.final_over_initial";
  a.suggestions = {s};
  return a;
}

Posterior training_posterior() {
  Posterior p;
  p.graph = "report_fixture";
  p.variables = bayes::graph_variables(bayes::load_graph(fixture_graph_path()));
  p.marginals = {{"root_cause", {{"healthy", 0.06}, {"lr_too_high", 0.91}, {"bad_data", 0.03}}},
                 {"grad_explosion", {{"no", 0.1}, {"yes", 0.9}}}};
  p.top_causes = {{"lr_too_high", 0.91, {"root_cause=lr_too_high", "grad_explosion=yes", "loss_spike=yes"}}};
  return p;
}

Evidence training_evidence() {
  Evidence e;
  e.hard = {{"loss_spike", "yes"}};
  return e;
}

std::vector<std::pair<std::size_t, Envelope>> training_inputs() {
  return {{kDiagnosis, Envelope::make(CorrelationKey{}, training_diagnosis())},
          {kAdvice, Envelope::make(CorrelationKey{}, training_advice())},
          {kFeatures, Envelope::make(CorrelationKey{}, training_features())},
          {kRecords, Envelope::make(CorrelationKey{}, training_records())},
          {kPosterior, Envelope::make(CorrelationKey{}, training_posterior())},
          {kEvidence, Envelope::make(CorrelationKey{}, training_evidence())}};
}

std::vector<std::pair<std::size_t, Envelope>> inference_inputs() {
  RecordBatch batch;
  batch.source_path = "metrics.jsonl";
  for (int id = 99; id >= 0; --id) {  // completion order differs from arrival order
    Record r;
    r.line = 100 - id;
    r.fields = {{"request_id", id}, {"latency_ms", id == 40 ? 480.0 : 12.0 + (id % 7)}, {"batch_size", 1}};
    batch.records.push_back(std::move(r));
  }
  Diagnosis d;
  d.scenario = "inference";
  d.healthy = false;
  RootCause c;
  c.id = "cold_start";
  c.confidence = 0.8;
  EvidenceRef spike;
  spike.kind = "requests";
  spike.id = "latency_ms";
  spike.first_step = spike.last_step = 40;
  c.evidence = {spike};
  d.root_causes = {c};
  return {{kDiagnosis, Envelope::make(CorrelationKey{}, d)},
          {kRecords, Envelope::make(CorrelationKey{}, batch)}};
}

std::vector<std::pair<std::size_t, Envelope>> distributed_inputs() {
  FeatureSet set;
  set.scope = "rank";
  auto add = [&](const char* rank, const char* name, double value) {
    Feature f;
    f.name = name;
    f.value = value;
    f.unit = "ms";
    f.labels = {{"rank", rank}};
    set.features.push_back(f);
  };
  add("0", "rank.step_time", 100);
  add("0", "rank.exposed_collective_time", 40);
  add("0", "rank.outside_model_time", 10);
  add("1", "rank.step_time", 100);
  add("1", "rank.exposed_collective_time", 5);
  add("1", "rank.outside_model_time", 45);
  Diagnosis d;
  d.scenario = "distributed";
  d.healthy = false;
  RootCause c;
  c.id = "straggler_rank";
  c.confidence = 0.7;
  d.root_causes = {c};
  return {{kDiagnosis, Envelope::make(CorrelationKey{}, d)},
          {kFeatures, Envelope::make(CorrelationKey{}, set)}};
}

}  // namespace cann_debug::report::testdata
