// One trace event (a JSON object's bytes) to a cann_debug::Event, with simdjson's on-demand API.
//
// Times stay on the file's own clock here (ns, exact from the decimal text); the reader adds the clock
// origin, the rank and the step. Reader-made facts that have no Event field go to args["_trace"].
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <simdjson.h>

#include "cann_debug/messages.hpp"
#include "trace_scanner.hpp"

namespace cann_debug::plugins::chrome_trace {

/// String pids and tids ("CPU functions", "Spans", "Trace PyTorch Profiler") become kStringIdBase + the order
/// of first appearance in the file: stable for a file, and clear of every numeric pid (Linux pids are < 2^22,
/// Ascend's synthetic ones < 2^36).
inline constexpr std::int64_t kStringIdBase = std::int64_t{1} << 40;

struct DecodedEvent {
  Event event;  // start_ns / duration_ns on the file clock (start_ns = kNoTimestamp without ts)
  bool has_ts = false;
  bool is_device = false;      // has a stream (args.stream or args["Stream Id"]) >= 0: tid is the stream
  bool ts_was_string = false;  // Ascend writes ts as a string
  std::string pid_text;        // the original pid when it was a (non-numeric) string
};

/// The process an event belongs to, as a key that does not depend on the order string pids were mapped in.
std::string pid_key(const DecodedEvent& d);

/// Consecutive events copied into one JSON array, so that simdjson indexes them in one pass instead of one
/// document per event (which costs more than the event itself). Holds at most the events of one batch.
class EventWindow {
 public:
  EventWindow() { clear(); }
  void clear();
  void add(const Slice& event);
  std::size_t events() const { return events_.size(); }
  std::size_t bytes() const { return bytes_.size(); }
  std::size_t capacity() const { return bytes_.capacity(); }

 private:
  friend class EventDecoder;
  struct Entry {
    std::size_t position;  // in bytes_
    std::size_t size;
    std::uint64_t offset;  // in the stream
  };
  std::vector<char> bytes_;
  std::vector<Entry> events_;
};

class EventDecoder {
 public:
  /// Decodes one event object. Throws TraceError (offset = the event's first byte) naming what was expected.
  void decode(const Slice& slice, DecodedEvent& out);
  /// Decodes the events of a window in order, giving each to `sink`; throws TraceError at the first bad one,
  /// after the ones before it went to `sink`. The window is spent afterwards (clear() it).
  void decode_window(EventWindow& window, const std::function<void(DecodedEvent&)>& sink);

  /// Like decode(), but returns false instead of throwing (for the pre-scan).
  bool try_decode(const Slice& slice, DecodedEvent& out);

  std::size_t parser_capacity() const { return parser_.capacity(); }

 private:
  void decode_object(simdjson::ondemand::object& object, std::uint64_t offset, DecodedEvent& out);
  std::int64_t map_id(std::unordered_map<std::string, std::int64_t>& table, std::string_view text);

  simdjson::ondemand::parser parser_;
  DecodedEvent decoded_;
  std::unordered_map<std::string, std::int64_t> pid_ids_;
  std::unordered_map<std::string, std::int64_t> tid_ids_;
};

}  // namespace cann_debug::plugins::chrome_trace
