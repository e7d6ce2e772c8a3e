#include "ascend_console/capture.hpp"

#include <set>

#include <fmt/format.h>

#include "cann_debug/reader/numbers.hpp"
#include "cann_debug/reader/parse_error.hpp"
#include "cann_debug/reader/text.hpp"

namespace cann_debug::plugins::ascend_console {
namespace {

std::string_view base_name(std::string_view token) {
  auto slash = token.find_last_of('/');
  return slash == std::string_view::npos ? token : token.substr(slash + 1);
}

bool prompt_end(std::string_view token) {
  return token.ends_with("#") || token.ends_with("$") || token.ends_with(">");
}

}  // namespace

CaptureParser::CaptureParser(std::string path, CaptureOptions options) : options_(std::move(options)) {
  ctx_.path = std::move(path);
  ctx_.node = options_.node;
  ctx_.timestamp = options_.default_timestamp;
}

void CaptureParser::start(Kind kind, std::vector<MetricPoint>& out) {
  if (kv_) kv_->finish(out);
  table_.reset();
  kv_.reset();
  watch_.reset();
  hccn_.reset();
  kind_ = kind;
  switch (kind) {
    case Kind::kTable:
      table_ = std::make_unique<NpuSmiTableParser>(ctx_);
      break;
    case Kind::kKeyValue:
      kv_ = std::make_unique<NpuSmiKeyValueParser>(ctx_);
      break;
    case Kind::kWatch:
      watch_ = std::make_unique<NpuSmiWatchParser>(ctx_);
      break;
    case Kind::kHccn:
      hccn_ = std::make_unique<HccnToolParser>(ctx_);
      break;
    default:
      return;
  }
  ++sections_;
}

// A command line: sets up the section of its output. False when the line is not a command.
bool CaptureParser::command(const Line& line, std::vector<MetricPoint>& out) {
  static const std::set<std::string_view> kOther = {
      "cat",   "pip",  "pip3",     "lspci", "ls",    "python", "python3", "grep", "dmesg", "echo",
      "uname", "date", "ifconfig", "ip",    "lsmod", "df",     "free",    "top",  "ps",    "hostname"};
  const auto words = readers::split_ws(line.text);
  std::size_t tool = words.size();
  for (std::size_t i = 0; i < words.size() && i < 6; ++i) {
    const auto name = base_name(words[i]);
    if (name != "npu-smi" && name != "hccn_tool") continue;
    const bool after_prompt =
        i == 0 || prompt_end(words[i - 1]) || words[i - 1] == "sudo" || words[i - 1] == "-oL";
    if (after_prompt) tool = i;
    break;
  }
  if (tool == words.size()) {
    const bool other =
        !words.empty() && (kOther.contains(words[0]) ||
                           (words[0].find('/') != std::string_view::npos &&
                            words[0].find_first_of("=:|") == std::string_view::npos && words.size() < 12 &&
                            base_name(words[0]).size() > 1 && words[0].front() == '/'));
    if (!other) return false;
    start(Kind::kOther, out);
    from_command_ = true;
    return true;
  }
  // Arguments: -i <device> -c <chip> -p <port> -t <type>, watch, -m / -l.
  ctx_.device = ctx_.chip = ctx_.port = -1;
  std::string type;
  bool watch = false, mapping = false, info = false;
  for (std::size_t i = tool + 1; i < words.size(); ++i) {
    const auto w = words[i];
    const bool has_next = i + 1 < words.size();
    auto next_int = [&]() -> std::int32_t {
      auto v = readers::parse_int(words[i + 1]);
      return v && *v >= 0 && *v <= INT32_MAX ? static_cast<std::int32_t>(*v) : -1;
    };
    if (w == "-i" && has_next) ctx_.device = next_int();
    if (w == "-c" && has_next) ctx_.chip = next_int();
    if (w == "-p" && has_next) ctx_.port = next_int();
    if (w == "-t" && has_next) type = std::string(words[i + 1]);
    if (w == "watch") watch = true;
    if (w == "info") info = true;
    if (w == "-m" || w == "-l") mapping = true;
  }
  from_command_ = true;
  if (base_name(words[tool]) == "hccn_tool")
    start(Kind::kHccn, out);
  else if (!info || mapping)
    start(Kind::kOther, out);
  else if (watch)
    start(Kind::kWatch, out);
  else if (!type.empty())
    start(Kind::kKeyValue, out);
  else
    start(Kind::kTable, out);
  return true;
}

void CaptureParser::detect(std::string_view text, std::vector<MetricPoint>& out) {
  if (NpuSmiWatchParser::is_header(text)) {
    if (kind_ != Kind::kWatch) start(Kind::kWatch, out);
  } else if (NpuSmiTableParser::starts_table(text)) {
    if (kind_ != Kind::kTable) start(Kind::kTable, out);
  } else if (HccnToolParser::recognises(text)) {
    if (kind_ != Kind::kHccn) start(Kind::kHccn, out);
  } else if (kind_ == Kind::kNone && NpuSmiKeyValueParser::is_key_value(text)) {
    start(Kind::kKeyValue, out);
  }
}

void CaptureParser::feed(const Line& line, std::vector<MetricPoint>& out) {
  const std::string_view text = readers::trim(line.text);
  if (readers::istarts_with(text, "Datetime:")) {
    auto ts = parse_datetime(text.substr(9), options_.utc_offset_s);
    if (!ts)
      fail(ctx_, line,
           fmt::format("expected a date like 'Datetime: 2024-09-09 13:13:44.179645', got '{}'",
                       readers::printable(text)));
    ctx_.timestamp = *ts;
    return;
  }
  if (command(line, out)) return;
  if (!from_command_) detect(text, out);
  switch (kind_) {
    case Kind::kTable:
      table_->feed(line, out);
      break;
    case Kind::kKeyValue:
      kv_->feed(line, out);
      break;
    case Kind::kWatch:
      watch_->feed(line, out);
      break;
    case Kind::kHccn:
      hccn_->feed(line, out);
      break;
    default:
      break;
  }
}

void CaptureParser::finish(std::vector<MetricPoint>& out) {
  if (kv_) kv_->finish(out);
  if (sections_ == 0)
    readers::fail_file(
        ctx_.path,
        "expected npu-smi or hccn_tool output (a command line naming one of them, an npu-smi table, "
        "watch rows or hccn_tool counters), found none");
}

}  // namespace cann_debug::plugins::ascend_console
