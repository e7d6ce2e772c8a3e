// One Record per CSV row with typed fields: the common part of the Ascend CSV parsers (kernel_details,
// op_statistic, step_trace_time, cluster_step_trace_time). A schema says which columns must be there,
// which spellings are the same column, which cells are strings, ids (4294967295 = N/A) or shapes, and
// finishes each row (correlation keys, derived fields, metric points).
#pragma once

#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "ascend_files/options.hpp"
#include "cann_debug/reader/csv_cells.hpp"
#include "cann_debug/reader/csv_reader.hpp"
#include "cann_debug/reader/item_source.hpp"

namespace cann_debug::plugins::ascend {

class RowContext;

struct CsvSchema {
  std::string file_kind;                       // e.g. "kernel_details.csv", for messages
  std::vector<std::string> required;           // header spellings that must be there
  std::map<std::string, std::string> aliases;  // snake_case spelling -> canonical column name
  std::set<std::string> string_columns;        // canonical names whose cells stay strings
  std::set<std::string> id_columns;            // 4294967295 means N/A
  std::set<std::string> shape_columns;         // literal quotes around the value are dropped
  std::set<std::string> numeric_columns;       // must hold numbers (also every *_us, *_pct, *_ratio column)
  std::function<void(RowContext&)> finish;     // keys, derived fields, metrics
};

/// What a schema's finish() sees of one row.
class RowContext {
 public:
  RowContext(const std::vector<readers::CsvColumn>& columns, const readers::CsvRow& row,
             const std::string& path, const AscendFileOptions& options, Record& record,
             std::vector<MetricPoint>& metrics);

  bool has(std::string_view column) const;
  /// The trimmed text of a cell ("" when the column is absent).
  std::string_view text(std::string_view column) const;
  /// The header spelling of a column (for messages), or the name itself.
  std::string original(std::string_view column) const;
  /// An integer cell (N/A and 4294967295 -> nullopt); throws ParseError naming the column when it is text.
  std::optional<std::int64_t> integer(std::string_view column, std::string_view what) const;
  /// A decimal cell times 10^scale, exactly (N/A -> nullopt); throws ParseError when it is not a number.
  std::optional<std::int64_t> scaled(std::string_view column, int scale, std::string_view what) const;
  [[noreturn]] void fail(std::string_view what) const;

  const AscendFileOptions& options;
  Record& record;
  std::vector<MetricPoint>& metrics;
  const std::string& path;

 private:
  const std::vector<readers::CsvColumn>& columns_;
  const readers::CsvRow& row_;
};

class CsvRecordSource final : public readers::ItemSource {
 public:
  /// Opens the file (std::runtime_error when it cannot be opened).
  CsvRecordSource(std::string path, CsvSchema schema, AscendFileOptions options);
  bool next(readers::Items& out, std::size_t max_items) override;

 private:
  readers::CellKind kind_of(const std::string& column) const;
  /// The message when column i must hold a number and `value` is text; "" when it is fine.
  std::string numeric_problem(std::size_t i, const nlohmann::json& value) const;

  std::string path_;
  CsvSchema schema_;
  AscendFileOptions options_;
  std::ifstream file_;
  std::unique_ptr<readers::CsvReader> csv_;
  std::vector<readers::CsvColumn> columns_;
  readers::RaggedRows ragged_;
  bool header_read_ = false;
};

/// Labels every Ascend metric point carries: rank (when known), node (when set).
void add_common_labels(MetricPoint& p, const AscendFileOptions& options);

}  // namespace cann_debug::plugins::ascend
