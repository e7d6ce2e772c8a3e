#include "trace_scanner.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace cann_debug::plugins::chrome_trace {

std::string describe_byte(int c) {
  if (c < 0) return "the end of the file";
  if (c >= 0x20 && c < 0x7f) return fmt::format("'{}'", static_cast<char>(c));
  return fmt::format("byte 0x{:02x}", c);
}

namespace {

bool is_space(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

const char* kind_of(int c) {
  switch (c) {
    case '{':
      return "an object";
    case '[':
      return "an array";
    case '"':
      return "a string";
    case 't':
    case 'f':
      return "a boolean";
    case 'n':
      return "null";
    default:
      return (c == '-' || (c >= '0' && c <= '9')) ? "a number" : "something that is not JSON";
  }
}

}  // namespace

TraceScanner::TraceScanner(ByteSource& source, ScanLimits limits, std::size_t chunk_bytes)
    : buf_(source, chunk_bytes), limits_(limits), scanner_(limits.max_depth) {}

void TraceScanner::fail(std::uint64_t offset, const std::string& message) const {
  throw TraceError(offset, message);
}

int TraceScanner::peek() {
  for (;;) {
    const char* p = buf_.data();
    const std::size_t n = buf_.available();
    std::size_t i = 0;
    while (i < n && is_space(p[i])) ++i;
    buf_.advance(i);
    if (i < n) return static_cast<unsigned char>(p[i]);
    if (!buf_.more()) return -1;
  }
}

Slice TraceScanner::scan_value(const char* what) {
  scanner_.reset();
  std::size_t length = 0;
  for (;;) {
    const auto status = scanner_.scan(buf_.data(), buf_.available(), &length, /*padded=*/true);
    if (status == ValueScanner::Status::kComplete) break;
    if (status == ValueScanner::Status::kError)
      fail(buf_.offset() + scanner_.error_position(),
           fmt::format("{} (in {} that starts at byte {})", scanner_.error(), what, buf_.offset()));
    if (buf_.available() >= limits_.max_value_bytes)
      fail(buf_.offset(), fmt::format("expected {} of at most {} bytes (max_event_bytes), got a longer one",
                                      what, limits_.max_value_bytes));
    if (!buf_.more()) {
      if (scanner_.complete_at_eof(buf_.available(), &length)) break;
      fail(buf_.offset() + buf_.available(),
           fmt::format("expected the rest of {} that starts at byte {}, got the end of the file (truncated?)",
                       what, buf_.offset()));
    }
  }
  if (length == 0)
    fail(buf_.offset(), fmt::format("expected {}, got {}", what, describe_byte(buf_.data()[0])));
  return Slice{buf_.data(), length, buf_.readable(), buf_.offset()};
}

void TraceScanner::end_of_events() {
  state_ = layout_ == Layout::kArray ? State::kTrailing : State::kAfterMember;
}

bool TraceScanner::next_event(Slice& event) {
  if (pending_ > 0) {
    buf_.advance(pending_);
    pending_ = 0;
  }
  for (;;) {
    switch (state_) {
      case State::kStart: {
        int c = peek();
        if (c == 0xef && buf_.available() >= 3 && buf_.data()[1] == '\xbb' && buf_.data()[2] == '\xbf') {
          buf_.advance(3);  // a UTF-8 byte order mark
          c = peek();
        }
        if (c < 0)
          fail(buf_.offset(),
               "expected a JSON object with a \"traceEvents\" array or a JSON array of events, got an empty "
               "file");
        if (c == '{') {
          layout_ = Layout::kObject;
          state_ = State::kMemberOrEnd;
        } else if (c == '[') {
          layout_ = Layout::kArray;
          state_ = State::kEventOrEnd;
        } else {
          fail(buf_.offset(),
               fmt::format("expected '{{' (a Kineto trace object) or '[' (an array of trace events) "
                           "at the start of a Chrome trace, got {}",
                           describe_byte(c)));
        }
        buf_.advance(1);
        break;
      }
      case State::kMemberOrEnd:
      case State::kMember: {
        const int c = peek();
        if (c == '}' && state_ == State::kMemberOrEnd) {
          buf_.advance(1);
          if (!seen_events_)
            fail(buf_.offset() - 1, "expected a \"traceEvents\" array in the top-level object, found none");
          state_ = State::kTrailing;
          break;
        }
        if (c != '"')
          fail(buf_.offset(), fmt::format("expected a member name (a string) in the top-level object, got {}",
                                          describe_byte(c)));
        const Slice key = scan_value("a member name");
        key_ = std::string(key.data + 1, key.size - 2);
        if (key_.find('\\') != std::string::npos) {  // rare: decode the escapes properly
          try {
            key_ = nlohmann::json::parse(key.view()).get<std::string>();
          } catch (const nlohmann::json::exception&) {
            fail(key.offset, "expected a valid JSON string as member name");
          }
        }
        buf_.advance(key.size);
        int d = peek();
        if (d != ':')
          fail(buf_.offset(),
               fmt::format("expected ':' after member name \"{}\", got {}", key_, describe_byte(d)));
        buf_.advance(1);
        d = peek();
        if (d < 0 || d == ',' || d == '}' || d == ']')
          fail(buf_.offset(),
               fmt::format("expected a value for member \"{}\", got {}", key_, describe_byte(d)));
        if (key_ == "traceEvents") {
          if (seen_events_) fail(buf_.offset(), "expected one \"traceEvents\" array, found a second one");
          seen_events_ = true;
          if (d != '[')
            fail(buf_.offset(), fmt::format("expected \"traceEvents\" to be an array, got {}", kind_of(d)));
          buf_.advance(1);
          state_ = State::kEventOrEnd;
          break;
        }
        const Slice value = scan_value(fmt::format("the value of member \"{}\"", key_).c_str());
        if (on_member_) on_member_(key_, value);
        buf_.advance(value.size);
        state_ = State::kAfterMember;
        break;
      }
      case State::kAfterMember: {
        const int c = peek();
        if (c == ',') {
          buf_.advance(1);
          state_ = State::kMember;
        } else if (c == '}') {
          buf_.advance(1);
          if (!seen_events_)
            fail(buf_.offset() - 1, "expected a \"traceEvents\" array in the top-level object, found none");
          state_ = State::kTrailing;
        } else {
          fail(buf_.offset(), fmt::format("expected ',' or '}}' after member \"{}\", got {}{}", key_,
                                          describe_byte(c), c < 0 ? " (truncated?)" : ""));
        }
        break;
      }
      case State::kEventOrEnd:
      case State::kEvent: {
        const int c = peek();
        if (c == ']' && state_ == State::kEventOrEnd) {
          buf_.advance(1);
          end_of_events();
          break;
        }
        if (c < 0 && layout_ == Layout::kArray && state_ == State::kEvent) {
          unterminated_ = true;  // "[{...},{...}," : allowed by the Chrome trace format
          state_ = State::kDone;
          return false;
        }
        if (c != '{')
          fail(buf_.offset(),
               fmt::format(
                   "expected an event (a JSON object), got {}{}",
                   c < 0 ? "the end of the file (truncated?)" : kind_of(c),
                   c >= 0 && kind_of(c)[0] == 's' ? fmt::format(" ({})", describe_byte(c)) : std::string()));
        event = scan_value("the event");
        pending_ = event.size;
        state_ = State::kAfterEvent;
        return true;
      }
      case State::kAfterEvent: {
        const int c = peek();
        if (c == ',') {
          buf_.advance(1);
          state_ = State::kEvent;
        } else if (c == ']') {
          buf_.advance(1);
          end_of_events();
        } else if (c < 0 && layout_ == Layout::kArray) {
          unterminated_ = true;  // "[{...},{...}" : allowed by the Chrome trace format
          state_ = State::kDone;
          return false;
        } else {
          fail(buf_.offset(), fmt::format("expected ',' or ']' after an event, got {}{}", describe_byte(c),
                                          c < 0 ? " (truncated?)" : ""));
        }
        break;
      }
      case State::kTrailing: {
        const int c = peek();
        if (c >= 0)
          fail(buf_.offset(), fmt::format("expected the end of the file after the top-level value, got {}",
                                          describe_byte(c)));
        state_ = State::kDone;
        return false;
      }
      case State::kDone:
        return false;
    }
  }
}

void TraceScanner::finish() {
  Slice ignored;
  while (next_event(ignored)) {
  }
}

}  // namespace cann_debug::plugins::chrome_trace
