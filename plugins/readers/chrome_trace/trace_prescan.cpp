#include "trace_prescan.hpp"

#include <cstring>
#include <functional>

#include "event_decoder.hpp"

namespace cann_debug::plugins::chrome_trace {
namespace {

constexpr std::size_t kMaxMetadataBytes = 64 * 1024;

bool contains(const Slice& s, std::string_view needle) {
  return std::string_view(s.data, s.size).find(needle) != std::string_view::npos;
}

}  // namespace

Prescan prescan_trace(const std::string& path, const ScanLimits& limits) {
  Prescan result;
  auto source = open_byte_source(path);
  result.compressed = source->compressed();
  TraceScanner scanner(*source, limits);
  scanner.on_member([&](std::string_view key, const Slice& value) {
    if (value.size > kMaxMetadataBytes) {
      result.metadata["_skipped"].push_back(std::string(key));
      return;
    }
    try {
      result.metadata[std::string(key)] = nlohmann::json::parse(value.view());
    } catch (const nlohmann::json::exception&) {
      // The main pass does not parse members either; a malformed one is only left out.
    }
  });
  EventDecoder decoder;
  DecodedEvent decoded;
  try {
    Slice slice;
    bool first = true;
    while (scanner.next_event(slice)) {
      ++result.events;
      result.layout = scanner.layout();
      const bool step = contains(slice, "ProfilerStep");
      if (!step && result.first_ts_seen && !first) continue;
      if (!decoder.try_decode(slice, decoded)) continue;
      if (first) {
        result.string_pids = !decoded.pid_text.empty();
        first = false;
      }
      if (!result.first_ts_seen && decoded.has_ts) {
        result.first_ts_seen = true;
        result.first_ts_ns = decoded.event.start_ns;
        result.ts_strings = decoded.ts_was_string;
      }
      if (step && decoded.has_ts && decoded.event.phase == 'X') {
        if (const auto n = profiler_step_number(decoded.event.name))
          result.steps.add(pid_key(decoded), decoded.event.start_ns,
                           decoded.event.start_ns + decoded.event.duration_ns, *n);
      }
    }
  } catch (const std::exception& e) {  // TraceError, or an I/O / gzip error in the middle of the file
    result.error = e.what();
  }
  result.layout = scanner.layout();
  result.steps.finalize();
  return result;
}

}  // namespace cann_debug::plugins::chrome_trace
