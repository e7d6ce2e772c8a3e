// report.html: one self-contained page (inline CSS, inline JS, inline SVG; nothing fetched from a network).
#pragma once

#include <string>

#include "report_model.hpp"

namespace cann_debug::report {

/// The page: verdict, root causes with paths and evidence, suggestions, the loss / gradient-norm / latency
/// charts with anomalies marked, the top-operator table, the per-rank bars, the causal graph with the top
/// cause's path highlighted, and the feature table (filterable). Every user string is HTML-escaped and a
/// Content-Security-Policy forbids loading anything.
std::string report_html(const ReportModel& model);

}  // namespace cann_debug::report
