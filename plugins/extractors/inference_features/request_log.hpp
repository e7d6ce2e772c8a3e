// The request log of a model server (metrics.jsonl: one record per request) as plain request facts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cann_debug/messages.hpp"

namespace cann_debug::plugins::inference {

struct Request {
  std::int64_t id = 0;                 // request_id (arrival order)
  double latency_ms = 0.0;             // response ready minus arrival
  std::optional<double> completion_s;  // Unix time the response was ready ("time")
  std::optional<double> batch_size;    // requests in the model call that served it
  std::int64_t line = 0;               // line in the source file, for messages

  std::optional<double> arrival_s() const {
    if (!completion_s) return std::nullopt;
    return *completion_s - latency_ms / 1000.0;
  }
};

/// Reads the request rows of a record batch. A record without `latency_ms` is not a request row and is
/// skipped; a request row whose `latency_ms`, `time`, `batch_size` or `request_id` has the wrong type or an
/// impossible value throws std::runtime_error naming the file and line. Rows without `request_id` are
/// numbered in the order read. request_id may be a number or decimal text.
void read_requests(const RecordBatch& batch, std::vector<Request>& out);

}  // namespace cann_debug::plugins::inference
