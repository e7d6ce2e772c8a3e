// report.json: the machine-readable report (schema `cann-debug.report/1`, docs/report.md).
#pragma once

#include <nlohmann/json.hpp>

#include "report_model.hpp"

namespace cann_debug::report {

nlohmann::json report_json(const ReportModel& model);

/// A number for JSON: itself when finite, else the string "nan", "inf" or "-inf" (the corpus convention).
nlohmann::json json_number(double value);

}  // namespace cann_debug::report
