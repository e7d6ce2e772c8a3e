// Messages for the report sink tests: a diverging training run with a hostile feature name, an inference
// run with a latency spike, a distributed run's per-rank features, and a small nested trace.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "cann_debug/messages.hpp"

namespace cann_debug::report::testdata {

/// The input ports of the report sink, in manifest order.
enum Port : std::size_t { kDiagnosis, kAdvice, kFeatures, kRecords, kEvents, kPosterior, kEvidence };

/// tests/data/report/causal_graph.json (root_cause -> grad_explosion -> loss_spike, plus a hostile name).
std::string fixture_graph_path();

/// A fresh empty folder under the system temp folder, named after `name` and the process id.
std::filesystem::path fresh_folder(const std::string& name);
std::string read_text(const std::filesystem::path& file);

/// 200 training steps: loss decays, a spike at step 57, "nan" loss and "inf" grad_norm at step 150.
RecordBatch training_records(int steps = 200);
/// Diagnosis lr_too_high with path root_cause -> grad_explosion -> loss_spike, evidence step 57 and steps
/// 80..84; a feature set with a hostile feature name; advice; posterior; evidence.
Diagnosis training_diagnosis();
FeatureSet training_features();
Advice training_advice();
Posterior training_posterior();
Evidence training_evidence();

/// All training messages in port order (diagnosis, advice, features, records, posterior, evidence).
std::vector<std::pair<std::size_t, Envelope>> training_inputs();

/// 100 requests with a latency spike at request 40 (and the diagnosis naming it).
std::vector<std::pair<std::size_t, Envelope>> inference_inputs();

/// Two ranks' rank.* features (rank 1 is the straggler) and a diagnosis.
std::vector<std::pair<std::size_t, Envelope>> distributed_inputs();

}  // namespace cann_debug::report::testdata
