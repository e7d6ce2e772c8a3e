#include "cann_debug/reader/sniff_helpers.hpp"

#include <set>

#include "cann_debug/reader/text.hpp"

namespace cann_debug::plugins::readers {

std::string_view first_line(std::string_view head) {
  if (head.starts_with("\xEF\xBB\xBF")) head.remove_prefix(3);
  auto end = head.find('\n');
  std::string_view line = end == std::string_view::npos ? head : head.substr(0, end);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

std::vector<std::string_view> head_lines(std::string_view head, std::size_t max_lines) {
  if (head.starts_with("\xEF\xBB\xBF")) head.remove_prefix(3);
  std::vector<std::string_view> out;
  std::size_t b = 0;
  while (out.size() < max_lines) {
    auto e = head.find('\n', b);
    if (e == std::string_view::npos) break;
    std::string_view line = head.substr(b, e - b);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.push_back(line);
    b = e + 1;
  }
  if (out.size() < max_lines && b < head.size() && head.size() < 64 * 1024) out.push_back(head.substr(b));
  return out;
}

std::vector<std::string> csv_header(std::string_view head) {
  const std::string_view line = first_line(head);
  if (!looks_text(line)) return {};
  std::vector<std::string> cells;
  for (auto cell : split(line, ',')) {
    cell = trim(cell);
    while (cell.size() >= 2 && cell.front() == '"' && cell.back() == '"')
      cell = trim(cell.substr(1, cell.size() - 2));
    cells.emplace_back(cell);
  }
  if (cells.size() < 2) return {};
  return cells;
}

bool has_columns(const std::vector<std::string>& header, const std::vector<std::string>& names) {
  std::set<std::string> have;
  for (const auto& h : header) have.insert(snake_case(h));
  for (const auto& n : names)
    if (!have.contains(snake_case(n))) return false;
  return true;
}

std::string base_name(std::string_view path) {
  auto slash = path.find_last_of('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

bool looks_text(std::string_view head) {
  return control_byte_at(head.substr(0, 4096)) == std::string_view::npos;
}

}  // namespace cann_debug::plugins::readers
