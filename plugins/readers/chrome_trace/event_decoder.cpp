#include "event_decoder.hpp"

#include <charconv>
#include <cmath>
#include <functional>

#include <fmt/format.h>

#include "decimal_time.hpp"
#include "json_convert.hpp"

namespace cann_debug::plugins::chrome_trace {
namespace {

using simdjson::ondemand::json_type;

const char* type_name(json_type t) {
  switch (t) {
    case json_type::array:
      return "an array";
    case json_type::object:
      return "an object";
    case json_type::number:
      return "a number";
    case json_type::string:
      return "a string";
    case json_type::boolean:
      return "a boolean";
    case json_type::null:
      return "null";
  }
  return "an unknown JSON value";
}

// Printable (and valid UTF-8) excerpt of untrusted bytes for messages.
std::string excerpt(std::string_view s, std::size_t max = 40) {
  std::string out;
  for (char c : s) {
    if (out.size() >= max) {
      out += "...";
      break;
    }
    const auto u = static_cast<unsigned char>(c);
    out += (u >= 0x20 && u < 0x7f) ? std::string(1, c) : fmt::format("\\x{:02x}", u);
  }
  return out;
}

std::string raw_text(simdjson::ondemand::value& v) {
  return excerpt(trim_token_end(v.raw_json_token()));
}

std::string simdjson_problem(simdjson::error_code err) {
  switch (err) {
    case simdjson::UTF8_ERROR:
      return "expected UTF-8 text in the event, got invalid bytes";
    case simdjson::TAPE_ERROR:  // the scanner checked brackets and strings: a literal, ',' or ':' is wrong
      return "expected valid JSON: values (true, false, null, numbers, strings, arrays, objects) "
             "separated by ',' and ':', got something else (e.g. NaN, Infinity, a missing comma)";
    case simdjson::T_ATOM_ERROR:
    case simdjson::F_ATOM_ERROR:
    case simdjson::N_ATOM_ERROR:
      return "expected a JSON value (true, false, null, a number, a string, an array or an object), got an "
             "invalid literal";
    case simdjson::NUMBER_ERROR:
      return "expected a valid JSON number";
    case simdjson::STRING_ERROR:
    case simdjson::UNCLOSED_STRING:
      return "expected a valid JSON string";
    case simdjson::UNESCAPED_CHARS:
      return "expected control characters in strings to be escaped";
    default:
      return fmt::format("expected valid JSON in the event ({})", simdjson::error_message(err));
  }
}

// Errors point at the event's first byte.
[[noreturn]] void fail(std::uint64_t offset, const std::string& what) {
  throw TraceError(offset, what);
}

void check(std::uint64_t offset, simdjson::error_code err) {
  if (err) fail(offset, simdjson_problem(err));
}

[[noreturn]] void wrong_type(std::uint64_t offset, simdjson::ondemand::value& v, std::string_view member,
                             const char* expected) {
  json_type t;
  if (v.type().get(t) != simdjson::SUCCESS)
    fail(offset, fmt::format("expected \"{}\" to be {}, got '{}'", member, expected, raw_text(v)));
  fail(offset, fmt::format("expected \"{}\" to be {}, got {}", member, expected, type_name(t)));
}

// A time member: a JSON number, or a decimal string (Ascend), in microseconds. The number's own text is
// parsed, so no precision is lost to a double.
std::int64_t read_time(std::uint64_t offset, simdjson::ondemand::value& v, std::string_view member,
                       bool* was_string) {
  std::string_view text = trim_token_end(v.raw_json_token());
  const char first = text.empty() ? '\0' : text.front();
  if (first == '"') {
    if (v.get_string().get(text) != simdjson::SUCCESS)
      wrong_type(offset, v, member, "a number or a decimal string of microseconds");
    if (was_string) *was_string = true;
  } else if (first == '-' || (first >= '0' && first <= '9')) {
    if (was_string) *was_string = false;
  } else {
    if (first == '{' || first == '[' || first == 't' || first == 'f' || first == 'n')
      wrong_type(offset, v, member, "a number or a decimal string of microseconds");
    fail(offset,
         fmt::format("expected \"{}\" to be a finite number or a decimal string of microseconds, got '{}'",
                     member, excerpt(text)));
  }
  std::string why;
  const auto ns = decimal_us_to_ns(text, why);
  if (!ns) fail(offset, fmt::format("\"{}\": {}", member, why));
  return *ns;
}

// A pid or tid: an integer, or a string (numeric strings are numbers; others are returned in `text` for the
// caller to map).
void read_id(std::uint64_t offset, simdjson::ondemand::value& v, std::string_view member, std::int64_t& id,
             std::string& text) {
  const std::string_view raw = trim_token_end(v.raw_json_token());
  const char first = raw.empty() ? '\0' : raw.front();
  if (first == '-' || (first >= '0' && first <= '9')) {
    const auto [end, ec] = std::from_chars(raw.data(), raw.data() + raw.size(), id);
    if (ec == std::errc() && end == raw.data() + raw.size()) return;
    double d = 0;
    if (v.get_double().get(d) == simdjson::SUCCESS && std::isfinite(d) && std::floor(d) == d &&
        std::fabs(d) < 9e18) {
      id = static_cast<std::int64_t>(d);
      return;
    }
    fail(offset, fmt::format("expected \"{}\" to be an integer, got {}", member, excerpt(raw)));
  }
  if (first == '"') {
    std::string_view sv;
    if (v.get_string().get(sv) != simdjson::SUCCESS) wrong_type(offset, v, member, "an integer or a string");
    const auto [end, ec] = std::from_chars(sv.data(), sv.data() + sv.size(), id);
    if (ec == std::errc() && end == sv.data() + sv.size() && !sv.empty()) return;
    text = std::string(sv);
    return;
  }
  if (first == 'n') {
    bool is_null = false;
    if (v.is_null().get(is_null) == simdjson::SUCCESS && is_null) {
      id = -1;
      return;
    }
  }
  wrong_type(offset, v, member, "an integer or a string");
}

void read_string(std::uint64_t offset, simdjson::ondemand::value& v, std::string_view member, bool allow_null,
                 std::string& out) {
  std::string_view sv;
  if (v.get_string().get(sv) == simdjson::SUCCESS) {
    out.assign(sv.data(), sv.size());
    return;
  }
  bool is_null = false;
  if (allow_null && v.is_null().get(is_null) == simdjson::SUCCESS && is_null) {
    out.clear();
    return;
  }
  wrong_type(offset, v, member, "a string");
}

enum class Member { kName, kCat, kPh, kTs, kDur, kPid, kTid, kArgs, kOther };

Member member_of(std::string_view key) {
  switch (key.size()) {
    case 2:
      if (key == "ph") return Member::kPh;
      if (key == "ts") return Member::kTs;
      break;
    case 3:
      if (key == "cat") return Member::kCat;
      if (key == "dur") return Member::kDur;
      if (key == "pid") return Member::kPid;
      if (key == "tid") return Member::kTid;
      break;
    case 4:
      if (key == "name") return Member::kName;
      if (key == "args") return Member::kArgs;
      break;
    default:
      break;
  }
  return Member::kOther;
}

// A stream or device index from args: an integer or a numeric string (as HTA reads it); -1 if none.
std::int64_t index_arg(const nlohmann::json* value) {
  if (value == nullptr) return -1;
  const auto* it = value;
  if (it->is_number_unsigned()) return -1;  // only values >= 2^63 stay unsigned: sentinels, not indexes
  if (it->is_number_integer()) return it->get<std::int64_t>();
  if (it->is_number_float()) {
    const double d = it->get<double>();
    return std::isfinite(d) && std::floor(d) == d && std::fabs(d) < 9e18 ? static_cast<std::int64_t>(d) : -1;
  }
  if (it->is_string()) {
    const auto& sv = it->get_ref<const std::string&>();
    std::int64_t i = 0;
    const auto [end, ec] = std::from_chars(sv.data(), sv.data() + sv.size(), i);
    if (ec == std::errc() && end == sv.data() + sv.size() && !sv.empty()) return i;
  }
  return -1;
}

}  // namespace

std::int64_t EventDecoder::map_id(std::unordered_map<std::string, std::int64_t>& table,
                                  std::string_view text) {
  const auto it = table.find(std::string(text));
  if (it != table.end()) return it->second;
  const std::int64_t id = kStringIdBase + static_cast<std::int64_t>(table.size());
  table.emplace(std::string(text), id);
  return id;
}

void EventDecoder::decode_object(simdjson::ondemand::object& object, std::uint64_t offset,
                                 DecodedEvent& out) {
  out.event = Event{};
  out.has_ts = false;
  out.is_device = false;
  out.ts_was_string = false;
  out.pid_text.clear();
  Event& e = out.event;
  nlohmann::json trace_extra;  // null until needed: most events need none
  std::string ph, tid_text;
  bool has_ph = false;
  bool has_args = false;
  ArgsHooks hooks;
  for (auto field : object) {
    std::string_view key;
    check(offset, field.unescaped_key().get(key));
    simdjson::ondemand::value v;
    check(offset, field.value().get(v));
    switch (member_of(key)) {
      case Member::kName:
        read_string(offset, v, key, true, e.name);
        break;
      case Member::kCat:
        read_string(offset, v, key, true, e.category);
        break;
      case Member::kPh:
        read_string(offset, v, key, false, ph);
        has_ph = true;
        break;
      case Member::kTs:
        e.start_ns = read_time(offset, v, key, &out.ts_was_string);
        out.has_ts = true;
        break;
      case Member::kDur:
        e.duration_ns = read_time(offset, v, key, nullptr);
        if (e.duration_ns < 0)
          fail(offset,
               fmt::format("expected \"dur\" >= 0, got {} us", static_cast<double>(e.duration_ns) / 1000.0));
        break;
      case Member::kPid:
        read_id(offset, v, key, e.pid, out.pid_text);
        break;
      case Member::kTid:
        read_id(offset, v, key, e.tid, tid_text);
        break;
      case Member::kArgs: {
        std::string why;
        const auto err = args_to_nlohmann(v, e.args, why, hooks);
        if (err) fail(offset, why.empty() ? "\"args\": " + simdjson_problem(err) : "\"args\": " + why);
        has_args = true;
        break;
      }
      case Member::kOther: {
        nlohmann::json extra;
        std::string why;
        const auto err = to_nlohmann(v, extra, why);
        if (err)
          fail(offset, why.empty() ? fmt::format("\"{}\": {}", key, simdjson_problem(err))
                                   : fmt::format("\"{}\": {}", key, why));
        trace_extra[std::string(key)] = std::move(extra);
        break;
      }
    }
  }
  if (!has_ph) fail(offset, "expected a \"ph\" member (the event's phase)");
  if (ph.empty()) fail(offset, "expected \"ph\" to be a phase such as \"X\", got \"\"");
  e.phase = ph[0];
  if (ph.size() != 1) trace_extra["ph"] = ph;  // an unknown phase is kept as it was
  if (!out.has_ts && e.phase != 'M')
    fail(offset, fmt::format("expected a \"ts\" member in a \"{}\" event", ph));
  if (!out.pid_text.empty()) {
    e.pid = map_id(pid_ids_, out.pid_text);
    trace_extra["pid"] = out.pid_text;
  }
  if (!tid_text.empty()) {
    e.tid = map_id(tid_ids_, tid_text);
    trace_extra["tid"] = tid_text;
  }
  std::int64_t stream = index_arg(hooks.stream);
  if (stream < 0) stream = index_arg(hooks.stream_id);
  if (stream >= 0) {
    out.is_device = true;
    if (e.tid != stream)
      trace_extra["tid"] = tid_text.empty() ? nlohmann::json(e.tid) : nlohmann::json(tid_text);
    e.tid = stream;
    std::int64_t device = index_arg(hooks.device);
    if (device < 0) device = index_arg(hooks.device_id);
    if (device >= 0 && device <= INT32_MAX) e.key.device = static_cast<std::int32_t>(device);
  }
  if (!trace_extra.is_null()) {
    if (!e.args.is_object()) {
      nlohmann::json wrapped = nlohmann::json::object();
      if (has_args) wrapped["value"] = std::move(e.args);
      e.args = std::move(wrapped);
    }
    e.args["_trace"] = std::move(trace_extra);
  }
}

void EventDecoder::decode(const Slice& s, DecodedEvent& out) {
  simdjson::ondemand::document doc;
  check(s.offset, parser_.iterate(s.data, s.size, s.readable).get(doc));
  simdjson::ondemand::object object;
  check(s.offset, doc.get_object().get(object));
  decode_object(object, s.offset, out);
}

void EventWindow::clear() {
  bytes_.clear();
  bytes_.push_back('[');
  events_.clear();
}

void EventWindow::add(const Slice& s) {
  if (!events_.empty()) bytes_.push_back(',');
  events_.push_back({bytes_.size(), s.size, s.offset});
  bytes_.insert(bytes_.end(), s.data, s.data + s.size);
}

void EventDecoder::decode_window(EventWindow& w, const std::function<void(DecodedEvent&)>& sink) {
  if (w.events_.empty()) return;
  const std::size_t length = w.bytes_.size() + 1;  // with the closing ']'
  w.bytes_.push_back(']');
  w.bytes_.resize(length + simdjson::SIMDJSON_PADDING, '\0');
  std::size_t k = 0;
  simdjson::ondemand::document doc;
  simdjson::ondemand::array array;
  simdjson::error_code err = parser_.iterate(w.bytes_.data(), length, w.bytes_.size()).get(doc);
  if (!err) err = doc.get_array().get(array);
  if (!err) {
    for (auto element : array) {
      simdjson::ondemand::object object;
      if ((err = element.get_object().get(object))) break;
      decode_object(object, w.events_[k].offset, decoded_);
      sink(decoded_);
      ++k;
    }
  }
  // simdjson refused the window as a whole (e.g. invalid UTF-8 somewhere in it): decode the rest one event at
  // a time, so the error names the event it is in.
  for (; err && k < w.events_.size(); ++k) {
    const auto& ev = w.events_[k];
    decode(Slice{w.bytes_.data() + ev.position, ev.size, w.bytes_.size() - ev.position, ev.offset}, decoded_);
    sink(decoded_);
  }
}

bool EventDecoder::try_decode(const Slice& s, DecodedEvent& out) {
  try {
    decode(s, out);
    return true;
  } catch (const TraceError&) {
    return false;
  }
}

std::string pid_key(const DecodedEvent& d) {
  return d.pid_text.empty() ? std::to_string(d.event.pid) : "\"" + d.pid_text + "\"";
}

}  // namespace cann_debug::plugins::chrome_trace
