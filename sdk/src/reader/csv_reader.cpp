#include "cann_debug/reader/csv_reader.hpp"

#include <fmt/format.h>

#include "cann_debug/reader/parse_error.hpp"
#include "cann_debug/reader/text.hpp"

namespace cann_debug::plugins::readers {

CsvReader::CsvReader(std::istream& in, std::string path, std::size_t max_row_bytes, char delimiter)
    : lines_(in, max_row_bytes), path_(std::move(path)), delimiter_(delimiter) {}

bool CsvReader::read_line(bool inside_row, const CsvRow& row) {
  const auto status = lines_.next(line_);
  if (status == LineReader::Status::kEnd) {
    if (lines_.read_error())
      fail_line(path_, lines_.line_number(), lines_.line_offset(), "read error after this line");
    if (inside_row)
      fail_line(path_, row.line, row.offset,
                "expected a closing quote for a field opened in the row starting on this line, got the end "
                "of the file");
    return false;
  }
  if (status == LineReader::Status::kTooLong)
    fail_line(
        path_, lines_.line_number(), lines_.line_offset(),
        fmt::format("expected a line of at most max_line_bytes = {} bytes, got a longer one (binary data "
                    "or a missing newline?)",
                    lines_.max_line_bytes()));
  if (first_line_) {
    first_line_ = false;
    if (line_.starts_with("\xEF\xBB\xBF")) line_.erase(0, 3);  // UTF-8 byte-order mark (Excel, utf-8-sig)
  }
  if (auto why = why_not_text(line_); !why.empty())
    fail_line(path_, lines_.line_number(), lines_.line_offset(), why);
  return true;
}

bool CsvReader::next(CsvRow& row) {
  do {
    if (!read_line(false, row)) return false;
  } while (trim(line_).empty());
  row.cells.clear();
  row.line = lines_.line_number();
  row.offset = lines_.line_offset();

  std::string cell;
  bool in_quotes = false;
  bool after_close = false;
  std::size_t row_bytes = line_.size();
  for (;;) {
    const std::string_view s = line_;
    for (std::size_t i = 0; i < s.size(); ++i) {
      const char c = s[i];
      if (in_quotes) {
        if (c != '"') {
          cell += c;
        } else if (i + 1 < s.size() && s[i + 1] == '"') {
          cell += '"';
          ++i;
        } else {
          in_quotes = false;
          after_close = true;
        }
      } else if (c == delimiter_) {
        row.cells.push_back(std::move(cell));
        cell.clear();
        after_close = false;
      } else if (after_close) {
        if (c == ' ' || c == '\t') continue;
        fail_line(
            path_, lines_.line_number(), lines_.line_offset(),
            fmt::format("expected '{}' or the end of the row after the closing quote of field {}, got '{}' "
                        "at column {}",
                        delimiter_, row.cells.size() + 1, printable(std::string_view(&c, 1)), i + 1));
      } else if (c == '"' && trim(cell).empty()) {
        cell.clear();
        in_quotes = true;
      } else {
        cell += c;
      }
    }
    if (!in_quotes) break;
    // A quoted field goes on over the line break.
    cell += '\n';
    if (!read_line(true, row)) return false;  // not reached: read_line throws inside a row
    row_bytes += line_.size() + 1;
    if (row_bytes > lines_.max_line_bytes())
      fail_line(path_, row.line, row.offset,
                fmt::format("expected a row of at most max_line_bytes = {} bytes, got a longer one (an "
                            "unterminated quote?)",
                            lines_.max_line_bytes()));
  }
  row.cells.push_back(std::move(cell));
  return true;
}

}  // namespace cann_debug::plugins::readers
