// Which steps or requests of a chart are anomalous, according to the diagnosis and the features.
#pragma once

#include <optional>
#include <vector>

#include "cann_debug/messages.hpp"
#include "report_model.hpp"

namespace cann_debug::report {

/// The marks of one chart (full-resolution curves); none when the diagnosis says the run is healthy. From:
///  * the evidence references of every non-healthy root cause of the diagnosis;
///  * the evidence references of the features of the chart's domain (`loss.*` for loss; `grad_norm.*` and
///    `grad.*` for the gradient norm; `latency.*` and `request.*` for latency).
/// References of kind `step`/`steps` apply to step-indexed charts, `request`/`requests` to request-indexed
/// ones; first_step/last_step give the range. A reference whose id names another chart's series (id
/// "grad_norm" on the loss chart) is left to that chart. A range covering half of the chart's x extent or
/// more is the context a feature was computed over (e.g. "all loss rows"), not an anomaly, and is not marked.
/// Duplicates are merged; at most `max_marks` are kept (narrowest first). A single-point mark gets the y
/// of the chart's first curve that has a finite sample at that x.
std::vector<AnomalyMark> anomaly_marks(const SeriesChart& chart, const std::optional<Diagnosis>& diagnosis,
                                       const std::vector<FeatureSet>& features, std::size_t max_marks = 200);

}  // namespace cann_debug::report
