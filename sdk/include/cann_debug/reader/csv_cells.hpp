// From CSV text to typed values: header names, N/A cells, numbers, sentinels and quoted shapes.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "cann_debug/reader/csv_reader.hpp"

namespace cann_debug::plugins::readers {

enum class CellKind {
  kAuto,    // a number when the cell is one (non-finite as "nan"/"inf"/"-inf"), else a string
  kString,  // always a string
  kId,      // like kAuto, but 4294967295 (and 2^64-1) mean "not applicable" -> null
  kShape,   // a string with literal surrounding quotes removed: "\"4,1025;2;2\"" -> "4,1025;2;2"
};

/// "", N/A, NA (any case) after trimming: the cell has no value.
bool is_na(std::string_view trimmed);

/// The cell as JSON: null when N/A, else by kind. Spaces and tabs around the cell are dropped first.
nlohmann::json typed_cell(std::string_view raw, CellKind kind = CellKind::kAuto);

struct CsvColumn {
  std::string original;  // the header cell, trimmed
  std::string name;      // snake_case, after aliases
};

/// The header row as columns. `aliases` maps snake_case spellings to the canonical name
/// ("block_dim" -> "block_num"). Throws ParseError when two columns end up with the same name.
std::vector<CsvColumn> read_header(const CsvRow& row, const std::string& path,
                                   const std::map<std::string, std::string>& aliases = {});

/// Index of the column named `name`, or -1.
int column_index(const std::vector<CsvColumn>& columns, std::string_view name);

/// The canonical column name of a header spelling: snake_case, then `aliases`.
std::string column_name(std::string_view original, const std::map<std::string, std::string>& aliases = {});

/// Throws ParseError (at the header row) unless every column of `required` (header spellings, e.g.
/// "Start Time(us)") is there under one of its spellings.
void require_columns(const std::vector<CsvColumn>& columns, const std::vector<std::string>& required,
                     const std::map<std::string, std::string>& aliases, const CsvRow& header,
                     const std::string& path, std::string_view file_kind);

/// Throws ParseError unless the row has as many cells as the header (extra empty cells at the end, from a
/// trailing delimiter, are dropped).
void check_cell_count(CsvRow& row, const std::vector<CsvColumn>& columns, const std::string& path);

/// A row with another number of cells than the header (a "ragged" row), kept instead of refused: extra
/// empty cells at the end are dropped first; missing cells become empty (null values), extra ones are
/// left out. Returns the number of cells the row had when it was ragged (0 when it was not).
std::size_t fit_cell_count(CsvRow& row, std::size_t columns);

/// Counts a file's ragged rows and says what was done with them, without flooding the log: the first
/// `kWarned` rows are a warning each ("<path>:<line>: expected N cells as in the header, got M; kept as a
/// partial record (line starts at byte offset B)"), then one count at the end of the file. Readers of
/// records mark a ragged row's record with the field "_cells" = M.
class RaggedRows {
 public:
  static constexpr std::size_t kWarned = 10;
  /// Fits the row (fit_cell_count) and may add a warning; returns M when it was ragged, else 0.
  std::size_t fit(CsvRow& row, std::size_t columns, const std::string& path,
                  std::vector<std::string>& warnings);
  /// Call at the end of the file: the count of rows beyond the warned ones, if any.
  void finish(const std::string& path, std::vector<std::string>& warnings);

 private:
  std::size_t rows_ = 0;
  std::size_t ragged_ = 0;
};

}  // namespace cann_debug::plugins::readers
