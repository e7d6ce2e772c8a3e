#include "trace_sniff.hpp"

#include <nlohmann/json.hpp>

#include "scan_buffer.hpp"
#include "value_scanner.hpp"

namespace cann_debug::plugins::chrome_trace {
namespace {

std::string_view skip_space(std::string_view s) {
  if (s.substr(0, 3) == "\xef\xbb\xbf") s.remove_prefix(3);
  while (!s.empty() && (s.front() == ' ' || s.front() == '\n' || s.front() == '\r' || s.front() == '\t'))
    s.remove_prefix(1);
  return s;
}

}  // namespace

int sniff_trace_text(std::string_view head) {
  head = skip_space(head);
  if (head.empty()) return 0;
  if (head.front() == '{') return head.find("\"traceEvents\"") != std::string_view::npos ? 95 : 0;
  if (head.front() != '[') return 0;
  std::string_view first = skip_space(head.substr(1));
  if (first.empty() || first.front() != '{') return 0;
  ValueScanner scanner(64);
  scanner.reset();
  std::size_t length = 0;
  if (scanner.scan(first.data(), first.size(), &length) == ValueScanner::Status::kComplete) {
    const auto event = nlohmann::json::parse(first.substr(0, length), nullptr, false);
    if (!event.is_object() || !event.contains("ph")) return 0;
    const bool metadata = event["ph"] == "M" && event.contains("name");  // Ascend starts with process names
    return event.contains("ts") || metadata ? 90 : 0;
  }
  const bool both =
      first.find("\"ph\"") != std::string_view::npos && first.find("\"ts\"") != std::string_view::npos;
  return both ? 70 : 0;
}

int sniff_chrome_trace(const SniffInput& in) {
  if (in.is_directory) return 0;
  if (has_gzip_magic(in.head)) {
    const int score = sniff_trace_text(inflate_head(in.head, 64 * 1024));
    if (score > 0) return score;
    return in.path.ends_with(".json.gz") ? 60 : 0;
  }
  return sniff_trace_text(in.head);
}

}  // namespace cann_debug::plugins::chrome_trace
