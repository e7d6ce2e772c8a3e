// Compiler-style problems: file:line:col: severity: message.
#pragma once

#include <string>
#include <vector>

namespace cann_debug::host {

struct SourceRef {
  std::string file;
  int line = 0;  // 1-based; 0 = unknown
  int column = 0;
};

struct Diagnostic {
  enum class Severity { kError, kWarning, kNote } severity = Severity::kError;
  SourceRef where;
  std::string message;
};

std::string format(const Diagnostic& d);

class Diagnostics {
 public:
  void error(SourceRef where, std::string message) { add(Diagnostic::Severity::kError, std::move(where), std::move(message)); }
  void warning(SourceRef where, std::string message) {
    add(Diagnostic::Severity::kWarning, std::move(where), std::move(message));
  }
  void note(SourceRef where, std::string message) { add(Diagnostic::Severity::kNote, std::move(where), std::move(message)); }
  void add(Diagnostic::Severity s, SourceRef where, std::string message) {
    items_.push_back({s, std::move(where), std::move(message)});
  }
  bool has_errors() const;
  std::size_t error_count() const;
  const std::vector<Diagnostic>& items() const { return items_; }
  /// Sorted by position, one per line.
  std::string to_string() const;

 private:
  std::vector<Diagnostic> items_;
};

}  // namespace cann_debug::host
