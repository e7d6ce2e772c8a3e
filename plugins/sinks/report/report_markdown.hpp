// report.md: the report as Markdown (diagnosis, suggestions, series, operators, ranks, graph, features).
#pragma once

#include <string>

#include "report_model.hpp"

namespace cann_debug::report {

std::string report_markdown(const ReportModel& model);

/// A fenced code block whose fence is longer than any backtick run of `code`, so the content cannot end it.
std::string markdown_code_block(const std::string& code, const std::string& language);

}  // namespace cann_debug::report
