#include "trace_features.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "feature_builder.hpp"
#include "profiled_requests.hpp"
#include "sample_stats.hpp"

namespace cann_debug::plugins::inference {
namespace {

constexpr double kNoTraceValue = std::numeric_limits<double>::quiet_NaN();
constexpr double kMsPerNs = 1e-6;
constexpr std::size_t kMinLaterCalls = 3;  // profiled calls after the first ones, for their median

EvidenceRef steps_ref(const std::vector<ServedBatch>& batches) {
  EvidenceRef ref;
  ref.kind = "steps";
  ref.first_step = batches.front().index;
  ref.last_step = batches.back().index;
  ref.id = "served batches " + std::to_string(ref.first_step) + ".." + std::to_string(ref.last_step);
  return ref;
}

EvidenceRef operator_ref(const std::string& name, const std::vector<ServedBatch>& batches) {
  EvidenceRef ref = steps_ref(batches);
  ref.kind = "operator";
  ref.id = name;
  return ref;
}

// Median of a per-batch duration over the batches that have the range; NaN when none has it.
double median_ms(const std::vector<ServedBatch>& batches, std::int64_t ServedBatch::*field) {
  std::vector<double> values;
  for (const auto& b : batches)
    if (b.*field >= 0) values.push_back(static_cast<double>(b.*field) * kMsPerNs);
  return values.empty() ? kNoTraceValue : median(values);
}

void time_split(const std::vector<ServedBatch>& batches, FeatureBuilder& features, const EvidenceRef& where) {
  double pre = 0.0;
  double forward = 0.0;
  double post = 0.0;
  double pre_outside_operators = 0.0;
  bool complete = false;
  for (const auto& b : batches) {
    if (b.forward_ns < 0) continue;
    complete = true;
    forward += static_cast<double>(b.forward_ns);
    pre += static_cast<double>(std::max<std::int64_t>(b.preprocess_ns, 0));
    pre_outside_operators +=
        static_cast<double>(std::max<std::int64_t>(b.preprocess_ns - b.preprocess_operator_covered_ns, 0));
    post += static_cast<double>(std::max<std::int64_t>(b.postprocess_ns, 0));
  }
  const double total = pre + forward + post;
  if (!complete || total <= 0.0) return;
  features.add("request.preprocess_share", pre / total, "ratio", {where});
  // Preprocessing that no framework operator covers (per-request numpy, Python loops over rows or
  // pixels): the part batching and the operator library cannot speed up.
  features.add("request.preprocess_outside_operators_share", pre_outside_operators / total, "ratio", {where});
  features.add("request.preprocess_operator_share", (pre - pre_outside_operators) / total, "ratio", {where});
  features.add("request.model_share", forward / total, "ratio", {where});
  features.add("request.postprocess_share", post / total, "ratio", {where});
}

void operators(const std::vector<ServedBatch>& batches, FeatureBuilder& features, const EvidenceRef& where) {
  std::vector<double> op_counts;
  std::vector<double> batch_norms;
  std::map<std::string, std::int64_t> self_ns;
  double forward_ns = 0.0;
  double covered_ns = 0.0;
  for (const auto& b : batches) {
    if (b.forward_ns < 0) continue;
    op_counts.push_back(static_cast<double>(b.operator_count));
    batch_norms.push_back(static_cast<double>(b.batch_norm_count));
    forward_ns += static_cast<double>(b.forward_ns);
    covered_ns += static_cast<double>(b.operator_covered_ns);
    for (const auto& [name, ns] : b.operator_self_ns) self_ns[name] += ns;
  }
  if (op_counts.empty()) return;
  features.add("model.ops_per_batch", median(op_counts), "count", {where});
  features.add("model.batch_norm_per_batch", median(batch_norms), "count",
               {operator_ref("aten::batch_norm", batches)});
  if (forward_ns <= 0.0) return;
  features.add("model.op_gap_share", std::clamp(1.0 - covered_ns / forward_ns, 0.0, 1.0), "ratio", {where});
  if (self_ns.empty()) return;
  std::vector<std::pair<std::string, std::int64_t>> ranked(self_ns.begin(), self_ns.end());
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<EvidenceRef> top;
  for (std::size_t i = 0; i < ranked.size() && i < 3; ++i)
    top.push_back(operator_ref(ranked[i].first, batches));
  features.add("model.top_op_share", static_cast<double>(ranked.front().second) / forward_ns, "ratio", top);
}

// Under a profiler that recorded from the first served batch (ProfilerStep#0), the first calls' latencies
// carry the profiler's start-up and overhead, so the request log cannot say whether they were slow. The
// trace can: the profiled calls are compared with each other, each paying the same per-call overhead. The
// profiler's start-up lands on its first step only, like an ordinary one-off hiccup (a collection, a page
// fault), whereas a service that was not warmed up pays first-call costs on at least two of its first
// three calls (TorchScript's profiling executor profiles on the first call and builds its optimised plan on
// the next; a lazy initialisation adds to the first; every new batch size meets its own): the
// second-slowest of the first three calls over the median busy time of the later profiled calls.
void first_calls_in_trace(const std::vector<ServedBatch>& batches, FeatureBuilder& features) {
  std::vector<double> first;
  std::vector<double> later;
  for (const auto& b : batches) {
    if (b.busy_ns <= 0) continue;
    if (b.index >= 0 && b.index < static_cast<std::int64_t>(kFirstCalls))
      first.push_back(static_cast<double>(b.busy_ns));
    else if (b.index >= static_cast<std::int64_t>(kFirstCalls))
      later.push_back(static_cast<double>(b.busy_ns));
  }
  if (first.size() != kFirstCalls || later.size() < kMinLaterCalls) return;
  const double steady = median(later);
  if (!(steady > 0.0)) return;
  std::sort(first.begin(), first.end(), std::greater<>());
  EvidenceRef first_ref;
  first_ref.kind = "steps";
  first_ref.first_step = 0;
  first_ref.last_step = kFirstCalls - 1;
  first_ref.id = fmt::format("served batches 0..{} (profiled)", kFirstCalls - 1);
  EvidenceRef later_ref = steps_ref(batches);
  later_ref.first_step = kFirstCalls;
  later_ref.id = fmt::format("served batches {}..{} (profiled)", later_ref.first_step, later_ref.last_step);
  features.add("latency.first_calls_over_steady", first[1] / steady, "ratio", {first_ref, later_ref});
}

}  // namespace

double trace_features(const std::vector<ServedBatch>& batches, std::vector<Feature>& out) {
  if (batches.empty()) return kNoTraceValue;
  FeatureBuilder features(out);
  const EvidenceRef where = steps_ref(batches);
  features.add("trace.profiled_batches", static_cast<double>(batches.size()), "count", {where});
  features.add("request.preprocess_ms", median_ms(batches, &ServedBatch::preprocess_ns), "ms", {where});
  features.add("model.forward_ms", median_ms(batches, &ServedBatch::forward_ns), "ms", {where});
  features.add("request.postprocess_ms", median_ms(batches, &ServedBatch::postprocess_ns), "ms", {where});
  time_split(batches, features, where);
  operators(batches, features, where);
  first_calls_in_trace(batches, features);

  std::vector<double> service_ms;
  for (const auto& b : batches)
    if (b.forward_ns >= 0)
      service_ms.push_back(static_cast<double>(b.forward_ns + std::max<std::int64_t>(b.preprocess_ns, 0) +
                                               std::max<std::int64_t>(b.postprocess_ns, 0)) *
                           kMsPerNs);
  const double service = service_ms.empty() ? kNoTraceValue : median(service_ms);
  features.add("request.service_ms", service, "ms", {where});
  return service;
}

}  // namespace cann_debug::plugins::inference
