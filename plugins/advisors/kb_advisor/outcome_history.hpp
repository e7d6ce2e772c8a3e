// Validated outcomes of applied suggestions (the optimize loop's feedback, DESIGN.md section 9): a JSONL
// file of {"suggestion": <template id>, "root_cause": <id>, "measured_improvement": <relative, number>}.
// Their mean replaces the prior expected improvement of that suggestion for that root cause.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>

namespace cann_debug::plugins::kb {

class OutcomeHistory {
 public:
  /// Reads `path`; a missing file is an empty history (the loop has validated nothing yet). Throws
  /// std::runtime_error naming the file and line of a malformed row.
  static OutcomeHistory load(const std::string& path);

  void add(const std::string& suggestion, const std::string& root_cause, double measured_improvement);
  /// Mean measured improvement of that suggestion for that root cause, if any outcome was recorded.
  std::optional<double> mean(const std::string& suggestion, const std::string& root_cause) const;
  std::size_t size() const { return rows_; }

 private:
  struct Sum {
    double total = 0.0;
    std::size_t count = 0;
  };
  std::map<std::pair<std::string, std::string>, Sum> sums_;
  std::size_t rows_ = 0;
};

}  // namespace cann_debug::plugins::kb
