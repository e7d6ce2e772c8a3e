// A streaming CSV reader: RFC 4180 (quoted fields with "" escapes and embedded newlines, CRLF or LF) with
// the quirks of real profiler output: a UTF-8 byte-order mark, blank lines, whitespace after a closing
// quote, and quotes inside unquoted fields kept as they are. Rows are capped in size and must be UTF-8
// text; every error names the file, the row's line and its byte offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include "cann_debug/reader/line_reader.hpp"

namespace cann_debug::plugins::readers {

struct CsvRow {
  std::vector<std::string> cells;  // as written, quotes removed, not trimmed
  std::int64_t line = 0;           // 1-based line the row starts on
  std::uint64_t offset = 0;        // byte offset of that line
};

class CsvReader {
 public:
  CsvReader(std::istream& in, std::string path, std::size_t max_row_bytes, char delimiter = ',');

  /// The next non-blank row; false at the end of the file. Throws ParseError on a bad row.
  bool next(CsvRow& row);

  const std::string& path() const { return path_; }
  std::size_t max_row_bytes() const { return lines_.max_line_bytes(); }

 private:
  // Reads one physical line into line_; false at the end of the file.
  bool read_line(bool inside_row, const CsvRow& row);

  LineReader lines_;
  std::string path_;
  char delimiter_;
  std::string line_;
  bool first_line_ = true;
};

}  // namespace cann_debug::plugins::readers
