// jsonl reader: one JSON object per line -> record.batch/1, with correlation keys taken from known fields.
#include "jsonl.hpp"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cann_debug/messages.hpp"
#include "cann_debug/reader/line_reader.hpp"
#include "cann_debug/reader/reader_options.hpp"
#include "cann_debug/reader/text.hpp"

namespace cann_debug::plugins {
namespace {

using nlohmann::json;

// Deeper nesting is refused: serialising it again (reports, recordings) recurses once per level.
constexpr int kMaxDepth = 512;

Manifest make_manifest() {
  Manifest m;
  m.type = "jsonl";
  m.kind = ComponentKind::kReader;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description = "Reads a JSON-lines file: one record per line, correlation keys from known fields";
  m.outputs = {{"records", std::string(RecordBatch::type_id), "rows of the file, in file order"}};
  m.options = {
      {.name = "path",
       .type = OptionType::kString,
       .description = "the JSON-lines file to read",
       .default_value = nullptr,
       .required = true,
       .min = {},
       .max = {},
       .enum_values = {}},
      {.name = "batch_size",
       .type = OptionType::kInt,
       .description = "rows per emitted batch (one batch per poll)",
       .default_value = 512,
       .required = false,
       .min = 1,
       .max = 1e6,
       .enum_values = {}},
      {.name = "max_line_bytes",
       .type = OptionType::kSize,
       .description = "longest accepted line; a longer one stops the reader with an error",
       .default_value = "16MiB",
       .required = false,
       .min = 1,
       .max = 1024.0 * 1024 * 1024,
       .enum_values = {}},
      readers::optional_option(),
  };
  m.concurrency = Concurrency::serial();
  m.sample_yaml =
      "# A training log with one JSON object per optimizer step.\n"
      "jsonl/train:\n"
      "  path: \"${input}/metrics.jsonl\"   # required\n"
      "  batch_size: 512                    # rows per batch\n"
      "  max_line_bytes: 16MiB              # longer lines are an error\n";
  return m;
}

using readers::printable;

std::string_view json_kind(const json& j) {
  switch (j.type()) {
    case json::value_t::array:
      return "an array";
    case json::value_t::string:
      return "a string";
    case json::value_t::boolean:
      return "a boolean";
    case json::value_t::null:
      return "null";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float:
      return "a number";
    default:
      return "another JSON value";
  }
}

bool is_blank(std::string_view line) {
  return line.find_first_not_of(" \t\r\f\v") == std::string_view::npos;
}

std::optional<std::int64_t> as_int(const json& v) {
  if (v.is_number_integer()) return v.get<std::int64_t>();
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u <= static_cast<std::uint64_t>(INT64_MAX)) return static_cast<std::int64_t>(u);
    return std::nullopt;
  }
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::isfinite(d) && std::floor(d) == d && std::fabs(d) < 9.2e18) return static_cast<std::int64_t>(d);
  }
  return std::nullopt;
}

std::optional<std::int32_t> as_index(const json& v) {
  auto i = as_int(v);
  if (i && *i >= 0 && *i <= INT32_MAX) return static_cast<std::int32_t>(*i);
  return std::nullopt;
}

std::optional<std::string> as_label(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (auto i = as_int(v)) return std::to_string(*i);
  if (v.is_number()) return v.dump();
  return std::nullopt;
}

// The first of `names` present in `obj` whose value `convert` accepts.
template <typename F>
auto first_of(const json& obj, std::initializer_list<const char*> names, F convert)
    -> decltype(convert(obj)) {
  for (const char* name : names)
    if (auto it = obj.find(name); it != obj.end())
      if (auto v = convert(*it)) return v;
  return std::nullopt;
}

std::optional<TimestampNs> as_seconds_timestamp(const json& v) {
  if (!v.is_number()) return std::nullopt;
  const double s = v.get<double>();
  if (!std::isfinite(s) || std::fabs(s) > 9.2e9) return std::nullopt;  // beyond int64 ns
  return seconds_to_ns(s);
}

CorrelationKey extract_key(const json& obj) {
  CorrelationKey key;
  if (auto ts = first_of(obj, {"timestamp_ns"}, as_int))
    key.timestamp_ns = *ts;
  else if (auto s = first_of(obj, {"time", "timestamp"}, as_seconds_timestamp))
    key.timestamp_ns = *s;
  auto non_negative = [](const json& v) {
    auto i = as_int(v);
    return i && *i >= 0 ? i : std::nullopt;
  };
  if (auto step = first_of(obj, {"step", "step_id"}, non_negative)) key.step_id = *step;
  if (auto id = first_of(obj, {"request_id"}, as_label)) key.request_id = *id;
  if (auto rank = first_of(obj, {"rank"}, as_index)) key.rank = *rank;
  if (auto device = first_of(obj, {"device"}, as_index)) key.device = *device;
  if (auto node = first_of(obj, {"node", "node_id", "host"}, as_label)) key.node_id = *node;
  return key;
}

// Why a line is not a record; empty when `out` holds the parsed object.
std::string parse_object(const std::string& line, json& out) {
  struct TooDeep {};
  auto limit_depth = [](int depth, json::parse_event_t, json&) {
    if (depth > kMaxDepth) throw TooDeep{};
    return true;
  };
  try {
    out = json::parse(line, limit_depth);
  } catch (const json::parse_error& e) {
    // e.what() is "[json.exception.parse_error.101] parse error at line 1, column 7: <detail>".
    std::string detail = e.what();
    if (auto pos = detail.find(": "); pos != std::string::npos && detail.find("parse error") < pos)
      detail = detail.substr(pos + 2);
    return fmt::format(
        "expected one JSON object per line, got invalid or truncated JSON at byte {} of the line: {}", e.byte,
        printable(detail, 240));
  } catch (const json::exception& e) {  // e.g. out_of_range: a number too large for a double
    return fmt::format("expected one JSON object per line, got JSON that cannot be represented: {}",
                       printable(e.what(), 240));
  } catch (const TooDeep&) {
    return fmt::format("expected a JSON object nested at most {} levels deep", kMaxDepth);
  }
  if (!out.is_object()) return fmt::format("expected a JSON object, got {}", json_kind(out));
  return {};
}

class JsonlReader final : public Component {
 public:
  JsonlReader(const CreateContext& /*ctx*/, const Config& config)
      : path_(config.str("path")),
        batch_size_(static_cast<std::size_t>(config.integer("batch_size"))),
        max_line_bytes_(static_cast<std::size_t>(config.bytes("max_line_bytes"))),
        optional_(config.boolean("optional")) {}

  void start() override {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (optional_ && !fs::exists(path_, ec)) {
      done_ = true;  // nothing to read, by request
      return;
    }
    if (fs::is_directory(path_, ec))
      throw std::runtime_error(fmt::format("{}: cannot open: {}", path_, std::strerror(EISDIR)));
    errno = 0;
    file_.open(path_, std::ios::binary);
    if (!file_.is_open()) {
      const int err = errno;
      throw std::runtime_error(
          fmt::format("{}: cannot open: {}", path_, err ? std::strerror(err) : "unknown error"));
    }
    lines_.emplace(file_, max_line_bytes_);
    done_ = false;
  }

  void stop() override {
    lines_.reset();
    if (file_.is_open()) file_.close();
  }

  PollResult poll(Emitter& out) override {
    if (done_) return PollResult::kDone;
    if (!lines_) throw std::logic_error(fmt::format("{}: poll() before start()", path_));
    RecordBatch batch;
    batch.source_path = path_;
    std::string line;
    while (batch.records.size() < batch_size_) {
      const auto status = lines_->next(line);
      if (status == readers::LineReader::Status::kEnd) {
        if (lines_->read_error()) fail(batch, out, "read error after this line", lines_->line_number());
        done_ = true;
        break;
      }
      if (status == readers::LineReader::Status::kTooLong) {
        fail(batch, out,
             fmt::format("expected a line of at most max_line_bytes = {} bytes, got a longer one "
                         "(binary data or a missing newline?)",
                         max_line_bytes_));
      }
      if (is_blank(line)) continue;
      json object;
      if (auto why = parse_object(line, object); !why.empty()) fail(batch, out, why);
      Record record;
      record.key = extract_key(object);
      record.line = lines_->line_number();
      record.fields = std::move(object);
      batch.records.push_back(std::move(record));
    }
    if (!batch.records.empty()) {
      CorrelationKey key = batch.records.front().key;
      out.emit(0, std::move(key), std::move(batch));
    }
    return done_ ? PollResult::kDone : PollResult::kMore;
  }

 private:
  // Emits what was read (partial) with the error, then throws it. `line` overrides the current line.
  [[noreturn]] void fail(RecordBatch& batch, Emitter& out, std::string_view what, std::int64_t line = -1) {
    done_ = true;
    if (line < 0) line = lines_->line_number();
    batch.partial = true;
    batch.error =
        fmt::format("{}:{}: {} (line starts at byte offset {})", path_, line, what, lines_->line_offset());
    std::string message = batch.error;
    CorrelationKey key = batch.records.empty() ? CorrelationKey{} : batch.records.front().key;
    out.emit(0, std::move(key), std::move(batch));
    throw std::runtime_error(message);
  }

  std::string path_;
  std::size_t batch_size_;
  std::size_t max_line_bytes_;
  std::ifstream file_;
  std::optional<readers::LineReader> lines_;
  bool done_ = false;
  bool optional_ = false;
};

class JsonlFactory final : public SimpleFactory<JsonlReader> {
 public:
  using SimpleFactory::SimpleFactory;
  std::vector<ConfigProblem> validate(const Config& config) const override {
    if (config.has("path") && config.str("path").empty()) return {{"path", "must name a file, got ''"}};
    return {};
  }
  // A file whose first line is one complete JSON object, and whose second line (if any) starts another.
  int sniff(const SniffInput& in) const override {
    if (in.is_directory) return 0;
    std::string_view head = in.head;
    auto end = head.find('\n');
    if (end == std::string_view::npos) return 0;
    std::string_view first = head.substr(0, end);
    while (!first.empty() && (first.back() == '\r' || first.back() == ' ')) first.remove_suffix(1);
    if (first.empty() || first.front() != '{' || first.back() != '}') return 0;
    if (!nlohmann::json::accept(first)) return 0;
    const bool named = in.path.ends_with(".jsonl") || in.path.ends_with(".ndjson");
    return named ? 70 : 40;
  }
};

}  // namespace

const ComponentFactory& jsonl_factory() {
  static const JsonlFactory factory(make_manifest());
  return factory;
}

}  // namespace cann_debug::plugins
