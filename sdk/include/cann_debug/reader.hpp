// Everything a reader of recorded data is written with, in one include:
//   cann_debug::reader::ReaderFactory / ReaderSpec  the component: `path` option, sniff(), batches on the
//       ports "records" and "metrics", and the bad-input contract (what was read goes out as a partial
//       batch, then the error names the file and the line or byte offset)
//   cann_debug::reader::ItemSource / QueuedSource   what a reader produces, a batch at a time
//   cann_debug::reader::open_byte_source, memory_byte_source  bytes of a file or of memory, plain or gzip
//   cann_debug::reader::LineReader                  capped lines with their number and byte offset
//   cann_debug::reader::CsvReader, csv cells        RFC 4180 with the quirks of real profiler output
//   cann_debug::reader::ParseError                  file + line/offset + what was expected
//   numbers, text, JSON with offsets, sniff helpers, the shared reader options
// docs/plugin-guide.md walks through one.
#pragma once

#include "cann_debug/component.hpp"
#include "cann_debug/messages.hpp"
#include "cann_debug/options.hpp"
#include "cann_debug/package.hpp"
#include "cann_debug/reader/byte_source.hpp"
#include "cann_debug/reader/csv_cells.hpp"
#include "cann_debug/reader/csv_reader.hpp"
#include "cann_debug/reader/item_source.hpp"
#include "cann_debug/reader/json_document.hpp"
#include "cann_debug/reader/line_reader.hpp"
#include "cann_debug/reader/numbers.hpp"
#include "cann_debug/reader/parse_error.hpp"
#include "cann_debug/reader/reader_component.hpp"
#include "cann_debug/reader/reader_options.hpp"
#include "cann_debug/reader/sniff_helpers.hpp"
#include "cann_debug/reader/text.hpp"

namespace cann_debug {
namespace reader = plugins::readers;
}  // namespace cann_debug
