// What a file reader produces, a batch at a time: records and/or metric points of one source file.
#pragma once

#include <cstddef>
#include <deque>
#include <fstream>
#include <memory>
#include <string>

#include "cann_debug/messages.hpp"

namespace cann_debug::plugins::readers {

struct Items {
  std::string source_path;  // the file these came from ("" = the reader's path)
  std::string schema;       // the records' schema ("" = the ReaderSpec's)
  std::vector<Record> records;
  std::vector<MetricPoint> metrics;
  /// A fault that did not stop the reader (e.g. a bad file skipped inside a folder): the records batch
  /// carries it with partial=true.
  std::string error;
  /// Problems that cost nothing that was read (a ragged CSV row kept as a partial record): the reader
  /// component logs each as a warning of the component.
  std::vector<std::string> warnings;
  /// Following a file that is still being written: nothing more is there yet; the reader polls again
  /// after this long (0 = it is not waiting). next() then returns true.
  std::int64_t retry_after_ns = 0;

  bool empty() const { return records.empty() && metrics.empty() && error.empty() && warnings.empty(); }
};

/// Produces the items of a source incrementally. next() appends up to about `max_items` records (and
/// metric points) to `out` and returns false once the source is exhausted. On a fault it throws
/// ParseError, leaving in `out` what it read before the fault, which the reader then emits as a partial
/// batch before failing with the same message.
class ItemSource {
 public:
  virtual ~ItemSource() = default;
  virtual bool next(Items& out, std::size_t max_items) = 0;
};

/// A source whose items are all produced at once (a JSON document): fill() runs on the first next(),
/// then the queue is handed out in batches. An error raised by fill() after some items were queued is
/// thrown when the queue has been drained, so the items before it are delivered with it.
class QueuedSource : public ItemSource {
 public:
  bool next(Items& out, std::size_t max_items) final;

 protected:
  /// Appends everything to records_ / metrics_; may throw ParseError part-way.
  virtual void fill() = 0;

  std::deque<Record> records_;
  std::deque<MetricPoint> metrics_;

 private:
  bool filled_ = false;
  std::string error_;
};

/// Opens `path` for reading as a binary stream; throws std::runtime_error "<path>: cannot open: <why>"
/// (also for a directory).
void open_input(const std::string& path, std::ifstream& in);

}  // namespace cann_debug::plugins::readers
