#include "ascend_files/csv_record_source.hpp"

#include <fmt/format.h>
#include <cmath>

#include "cann_debug/reader/numbers.hpp"
#include "cann_debug/reader/parse_error.hpp"
#include "cann_debug/reader/text.hpp"

namespace cann_debug::plugins::ascend {

using readers::CellKind;
using readers::CsvColumn;
using readers::CsvRow;
using readers::printable;

RowContext::RowContext(const std::vector<CsvColumn>& columns, const CsvRow& row, const std::string& path_,
                       const AscendFileOptions& options_, Record& record_, std::vector<MetricPoint>& metrics_)
    : options(options_), record(record_), metrics(metrics_), path(path_), columns_(columns), row_(row) {}

bool RowContext::has(std::string_view column) const {
  return readers::column_index(columns_, column) >= 0;
}

std::string_view RowContext::text(std::string_view column) const {
  const int i = readers::column_index(columns_, column);
  if (i < 0) return {};
  std::string_view t = readers::trim(row_.cells[static_cast<std::size_t>(i)]);
  return t;
}

std::string RowContext::original(std::string_view column) const {
  const int i = readers::column_index(columns_, column);
  return i < 0 ? std::string(column) : columns_[static_cast<std::size_t>(i)].original;
}

std::optional<std::int64_t> RowContext::integer(std::string_view column, std::string_view what) const {
  const std::string_view t = text(column);
  if (readers::is_na(t) || t == "4294967295" || t == "18446744073709551615") return std::nullopt;
  if (auto v = readers::parse_int(t)) return v;
  // "3.0" from a spreadsheet round trip is still the integer 3.
  // (Within the range of int64 first: converting inf or 1e300 is undefined.)
  if (auto d = readers::parse_double(t); d && std::isfinite(*d) && std::fabs(*d) < 9.2e18 &&
                                         *d == static_cast<double>(static_cast<std::int64_t>(*d)))
    return static_cast<std::int64_t>(*d);
  fail(fmt::format("expected {} in '{}', got '{}'", what, printable(original(column)), printable(t)));
}

std::optional<std::int64_t> RowContext::scaled(std::string_view column, int scale,
                                               std::string_view what) const {
  const std::string_view t = text(column);
  if (readers::is_na(t)) return std::nullopt;
  if (auto v = readers::decimal_scaled(t, scale)) return v;
  fail(fmt::format("expected {} in '{}', got '{}'", what, printable(original(column)), printable(t)));
}

void RowContext::fail(std::string_view what) const {
  readers::fail_line(path, row_.line, row_.offset, what);
}

CsvRecordSource::CsvRecordSource(std::string path, CsvSchema schema, AscendFileOptions options)
    : path_(std::move(path)), schema_(std::move(schema)), options_(std::move(options)) {
  readers::open_input(path_, file_);
  csv_ = std::make_unique<readers::CsvReader>(file_, path_, options_.max_line_bytes);
}

CellKind CsvRecordSource::kind_of(const std::string& column) const {
  if (schema_.string_columns.contains(column)) return CellKind::kString;
  if (schema_.shape_columns.contains(column)) return CellKind::kShape;
  if (schema_.id_columns.contains(column)) return CellKind::kId;
  return CellKind::kAuto;
}

std::string CsvRecordSource::numeric_problem(std::size_t i, const nlohmann::json& value) const {
  if (!value.is_string()) return {};
  const std::string& name = columns_[i].name;
  const bool numeric = schema_.numeric_columns.contains(name) || name.ends_with("_us") ||
                       name.ends_with("_pct") || name.ends_with("_ratio") || name.ends_with("_cycles");
  if (!numeric) return {};
  const auto& s = value.get_ref<const std::string&>();
  if (s == "nan" || s == "inf" || s == "-inf") return {};
  return fmt::format("expected a number in '{}' (column {}), got '{}'", printable(columns_[i].original),
                     i + 1, printable(s));
}

bool CsvRecordSource::next(readers::Items& out, std::size_t max_items) {
  CsvRow row;
  if (!header_read_) {
    header_read_ = true;
    if (!csv_->next(row)) return false;  // an empty file has no rows
    columns_ = readers::read_header(row, path_, schema_.aliases);
    readers::require_columns(columns_, schema_.required, schema_.aliases, row, path_, schema_.file_kind);
  }
  while (out.records.size() < max_items) {
    if (!csv_->next(row)) {
      ragged_.finish(path_, out.warnings);
      return false;
    }
    Record record;
    record.line = row.line;
    record.fields = nlohmann::json::object();
    const std::size_t had = ragged_.fit(row, columns_.size(), path_, out.warnings);
    if (had != 0) record.fields["_cells"] = had;
    for (std::size_t i = 0; i < columns_.size(); ++i) {
      nlohmann::json value = readers::typed_cell(row.cells[i], kind_of(columns_[i].name));
      if (const std::string problem = numeric_problem(i, value); !problem.empty()) {
        // A row with a cell too few or too many has its cells shifted from some column on: text where a
        // number belongs is the shift, not a damaged file. The cell is left empty and the rest of the file
        // read (a real kernel_details.csv drops the duration of the odd FlashAttention task).
        if (had == 0) readers::fail_line(path_, row.line, row.offset, problem);
        out.warnings.push_back(
            readers::line_error(path_, row.line, row.offset,
                                problem + " in a row of " + std::to_string(had) + " cells: left empty"));
        value = nullptr;
      }
      record.fields[columns_[i].name] = std::move(value);
    }
    if (options_.rank >= 0) record.key.rank = options_.rank;
    if (!options_.node.empty()) record.key.node_id = options_.node;
    RowContext ctx(columns_, row, path_, options_, record, out.metrics);
    if (schema_.finish) {
      try {
        schema_.finish(ctx);
      } catch (const readers::ParseError& e) {
        if (had == 0) throw;
        out.warnings.push_back(std::string(e.what()) + "; the row had " + std::to_string(had) +
                               " cells: kept as read");
      }
    }
    out.records.push_back(std::move(record));
  }
  return true;
}

void add_common_labels(MetricPoint& p, const AscendFileOptions& options) {
  if (p.key.rank >= 0) p.labels["rank"] = std::to_string(p.key.rank);
  if (!options.node.empty()) {
    p.labels["node"] = options.node;
    p.key.node_id = options.node;
  }
}

}  // namespace cann_debug::plugins::ascend
