#include "request_log.hpp"

#include <charconv>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace cann_debug::plugins::inference {
namespace {

using nlohmann::json;

[[noreturn]] void fail(const RecordBatch& batch, const Record& record, std::string_view what) {
  const std::string where = batch.source_path.empty() ? "<records>" : batch.source_path;
  throw std::runtime_error(fmt::format("inference_features: {}:{}: {}", where, record.line, what));
}

// A numeric field: absent or null -> nullopt; a finite number -> it; anything else is an error.
std::optional<double> number_field(const RecordBatch& batch, const Record& record, const char* name) {
  const auto it = record.fields.find(name);
  if (it == record.fields.end() || it->is_null()) return std::nullopt;
  if (!it->is_number()) fail(batch, record, fmt::format("'{}' must be a number, got {}", name, it->dump()));
  const double value = it->get<double>();
  if (!std::isfinite(value)) fail(batch, record, fmt::format("'{}' must be finite", name));
  return value;
}

// request_id: an integer >= 0, as a number or as decimal text ("17"); absent or null -> nullopt.
std::optional<std::int64_t> request_id(const RecordBatch& batch, const Record& record) {
  const auto it = record.fields.find("request_id");
  if (it == record.fields.end() || it->is_null()) return std::nullopt;
  std::int64_t id = -1;
  if (it->is_number_integer()) {
    id = it->get<std::int64_t>();
  } else if (it->is_string()) {
    const auto& text = it->get_ref<const std::string&>();
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
    if (ec != std::errc{} || ptr != text.data() + text.size()) id = -1;
  }
  if (id < 0) fail(batch, record, fmt::format("'request_id' must be an integer >= 0, got {}", it->dump()));
  return id;
}

}  // namespace

void read_requests(const RecordBatch& batch, std::vector<Request>& out) {
  for (const Record& record : batch.records) {
    if (!record.fields.is_object() || !record.fields.contains("latency_ms")) continue;
    Request request;
    request.line = record.line;
    const auto latency = number_field(batch, record, "latency_ms");
    if (!latency || *latency < 0.0) fail(batch, record, "'latency_ms' must be a number >= 0");
    request.latency_ms = *latency;
    request.completion_s = number_field(batch, record, "time");
    request.batch_size = number_field(batch, record, "batch_size");
    if (request.batch_size && *request.batch_size < 1.0)
      fail(batch, record, fmt::format("'batch_size' must be >= 1, got {}", *request.batch_size));
    const auto id = request_id(batch, record);
    request.id = id ? *id : static_cast<std::int64_t>(out.size());
    out.push_back(request);
  }
}

}  // namespace cann_debug::plugins::inference
