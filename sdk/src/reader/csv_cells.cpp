#include "cann_debug/reader/csv_cells.hpp"

#include <cstdint>

#include <fmt/format.h>

#include "cann_debug/reader/numbers.hpp"
#include "cann_debug/reader/parse_error.hpp"
#include "cann_debug/reader/text.hpp"

namespace cann_debug::plugins::readers {
namespace {

constexpr std::string_view kSpaces = " \t";

std::string_view strip(std::string_view s) {
  const auto b = s.find_first_not_of(kSpaces);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(kSpaces) - b + 1);
}

bool looks_integer(std::string_view t) {
  std::size_t i = (!t.empty() && (t[0] == '-' || t[0] == '+')) ? 1 : 0;
  if (i >= t.size()) return false;
  for (; i < t.size(); ++i)
    if (t[i] < '0' || t[i] > '9') return false;
  return true;
}

nlohmann::json number_or_string(std::string_view t) {
  if (looks_integer(t)) {
    if (auto i = parse_int(t)) return *i;
    if (auto u = parse_uint(t)) return *u;
  }
  if (auto d = parse_double(t)) {
    if (auto name = nonfinite_name(*d); !name.empty()) return std::string(name);
    return *d;
  }
  return std::string(t);
}

}  // namespace

bool is_na(std::string_view trimmed) {
  return trimmed.empty() || iequals(trimmed, "N/A") || iequals(trimmed, "NA");
}

nlohmann::json typed_cell(std::string_view raw, CellKind kind) {
  std::string_view t = strip(raw);
  if (kind == CellKind::kShape) {
    while (t.size() >= 2 && t.front() == '"' && t.back() == '"') t = strip(t.substr(1, t.size() - 2));
  }
  if (is_na(t)) return nullptr;
  switch (kind) {
    case CellKind::kString:
    case CellKind::kShape:
      return std::string(t);
    case CellKind::kId:
      if (t == "4294967295" || t == "18446744073709551615") return nullptr;
      return number_or_string(t);
    case CellKind::kAuto:
      break;
  }
  return number_or_string(t);
}

std::vector<CsvColumn> read_header(const CsvRow& row, const std::string& path,
                                   const std::map<std::string, std::string>& aliases) {
  std::vector<CsvColumn> columns;
  std::map<std::string, std::size_t> seen;
  for (std::size_t i = 0; i < row.cells.size(); ++i) {
    CsvColumn c;
    c.original = std::string(strip(trim(row.cells[i])));
    c.name = column_name(c.original, aliases);
    if (c.name.empty()) c.name = fmt::format("column_{}", i + 1);
    if (auto [it, fresh] = seen.emplace(c.name, i); !fresh)
      fail_line(path, row.line, row.offset,
                fmt::format("expected unique column names, but '{}' (column {}) and '{}' (column {}) both "
                            "mean '{}'",
                            printable(columns[it->second].original), it->second + 1, printable(c.original),
                            i + 1, c.name));
    columns.push_back(std::move(c));
  }
  return columns;
}

int column_index(const std::vector<CsvColumn>& columns, std::string_view name) {
  for (std::size_t i = 0; i < columns.size(); ++i)
    if (columns[i].name == name) return static_cast<int>(i);
  return -1;
}

std::string column_name(std::string_view original, const std::map<std::string, std::string>& aliases) {
  std::string name = snake_case(original);
  if (auto it = aliases.find(name); it != aliases.end()) name = it->second;
  return name;
}

void require_columns(const std::vector<CsvColumn>& columns, const std::vector<std::string>& required,
                     const std::map<std::string, std::string>& aliases, const CsvRow& header,
                     const std::string& path, std::string_view file_kind) {
  std::vector<std::string> missing;
  for (const auto& r : required)
    if (column_index(columns, column_name(r, aliases)) < 0) missing.push_back(fmt::format("'{}'", r));
  if (missing.empty()) return;
  std::string got;
  for (const auto& c : columns) got += (got.empty() ? "" : ", ") + printable(c.original, 40);
  fail_line(path, header.line, header.offset,
            fmt::format("expected the {} column(s) {} in the header, got: {}", file_kind,
                        fmt::join(missing, ", "), got.size() > 300 ? got.substr(0, 300) + "..." : got));
}

void check_cell_count(CsvRow& row, const std::vector<CsvColumn>& columns, const std::string& path) {
  while (row.cells.size() > columns.size() && strip(row.cells.back()).empty()) row.cells.pop_back();
  if (row.cells.size() != columns.size())
    fail_line(path, row.line, row.offset,
              fmt::format("expected {} cells as in the header, got {}", columns.size(), row.cells.size()));
}

std::size_t fit_cell_count(CsvRow& row, std::size_t columns) {
  while (row.cells.size() > columns && strip(row.cells.back()).empty()) row.cells.pop_back();
  const std::size_t had = row.cells.size();
  if (had == columns) return 0;
  row.cells.resize(columns);
  return had;
}

std::size_t RaggedRows::fit(CsvRow& row, std::size_t columns, const std::string& path,
                            std::vector<std::string>& warnings) {
  ++rows_;
  const std::size_t had = fit_cell_count(row, columns);
  if (had == 0) return 0;
  if (++ragged_ <= kWarned)
    warnings.push_back(line_error(
        path, row.line, row.offset,
        fmt::format("expected {} cells as in the header, got {}; kept as a partial record", columns, had)));
  return had;
}

void RaggedRows::finish(const std::string& path, std::vector<std::string>& warnings) {
  if (ragged_ > kWarned)
    warnings.push_back(fmt::format("{}: {} of {} rows had another number of cells than the header ({} shown)",
                                   path, ragged_, rows_, kWarned));
}

}  // namespace cann_debug::plugins::readers
