// The top level of a Chrome trace: either an object with a "traceEvents" array (Kineto, torch.profiler) or a
// bare array of events (Ascend trace_view.json, PyTorch's legacy exporter). Hands out one event at a time as
// a byte slice of the stream; other top-level members go to a callback. Never holds more than one value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "scan_buffer.hpp"
#include "value_scanner.hpp"

namespace cann_debug::plugins::chrome_trace {

/// A problem in the input at a byte offset of the (decompressed) stream.
class TraceError : public std::runtime_error {
 public:
  TraceError(std::uint64_t offset, const std::string& what) : std::runtime_error(what), offset_(offset) {}
  std::uint64_t offset() const { return offset_; }

 private:
  std::uint64_t offset_;
};

/// Bytes of one JSON value in the stream. `data` stays valid until the scanner is called again; `readable`
/// bytes from `data` may be read (the value plus padding), as simdjson requires.
struct Slice {
  const char* data = nullptr;
  std::size_t size = 0;
  std::size_t readable = 0;
  std::uint64_t offset = 0;
  std::string_view view() const { return {data, size}; }
};

struct ScanLimits {
  std::size_t max_value_bytes = 8u << 20;  // one event, or one other top-level member
  int max_depth = 128;                     // nesting inside one event
};

class TraceScanner {
 public:
  enum class Layout { kUnknown, kObject, kArray };
  using MemberCallback = std::function<void(std::string_view key, const Slice& value)>;

  TraceScanner(ByteSource& source, ScanLimits limits, std::size_t chunk_bytes = 256 << 10);

  /// Called for each top-level member other than "traceEvents" (object layout only), in file order.
  void on_member(MemberCallback callback) { on_member_ = std::move(callback); }

  /// The next event of the trace, or false at the end of the file. Throws TraceError on malformed input.
  bool next_event(Slice& event);
  /// Scans to the end of the file, reporting the remaining members (and skipping the remaining events).
  void finish();

  Layout layout() const { return layout_; }
  /// True when a bare array ended without its closing ']' (the Chrome trace format allows it).
  bool unterminated_array() const { return unterminated_; }
  std::uint64_t offset() const { return buf_.offset(); }
  std::size_t buffer_capacity() const { return buf_.capacity(); }

 private:
  enum class State {
    kStart,
    kMemberOrEnd,
    kMember,
    kAfterMember,
    kEventOrEnd,
    kEvent,
    kAfterEvent,
    kTrailing,
    kDone
  };

  int peek();  // next non-whitespace byte (not consumed), or -1 at the end of the stream
  Slice scan_value(const char* what);
  [[noreturn]] void fail(std::uint64_t offset, const std::string& message) const;
  void end_of_events();

  ScanBuffer buf_;
  ScanLimits limits_;
  ValueScanner scanner_;
  MemberCallback on_member_;
  State state_ = State::kStart;
  Layout layout_ = Layout::kUnknown;
  std::size_t pending_ = 0;  // bytes of the last returned event, consumed on the next call
  bool seen_events_ = false;
  bool unterminated_ = false;
  std::string key_;
};

/// "'x'", "byte 0x1f" or "the end of the file", for messages about an unexpected byte.
std::string describe_byte(int c);

}  // namespace cann_debug::plugins::chrome_trace
