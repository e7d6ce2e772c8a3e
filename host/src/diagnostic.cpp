#include "diagnostic.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace cann_debug::host {

std::string format(const Diagnostic& d) {
  const char* sev = d.severity == Diagnostic::Severity::kError     ? "error"
                    : d.severity == Diagnostic::Severity::kWarning ? "warning"
                                                                   : "note";
  std::string where = d.where.file;
  if (d.where.line > 0) where += fmt::format(":{}:{}", d.where.line, std::max(d.where.column, 1));
  if (where.empty()) return fmt::format("{}: {}", sev, d.message);
  return fmt::format("{}: {}: {}", where, sev, d.message);
}

bool Diagnostics::has_errors() const { return error_count() > 0; }

std::size_t Diagnostics::error_count() const {
  return static_cast<std::size_t>(std::count_if(items_.begin(), items_.end(), [](const Diagnostic& d) {
    return d.severity == Diagnostic::Severity::kError;
  }));
}

std::string Diagnostics::to_string() const {
  std::vector<Diagnostic> sorted = items_;
  std::stable_sort(sorted.begin(), sorted.end(), [](const Diagnostic& a, const Diagnostic& b) {
    if (a.where.file != b.where.file) return a.where.file < b.where.file;
    if (a.where.line != b.where.line) return a.where.line < b.where.line;
    return a.where.column < b.where.column;
  });
  std::string out;
  for (const auto& d : sorted) out += format(d) + "\n";
  return out;
}

}  // namespace cann_debug::host
