// Compiler-style diagnostics: formatting and ordering.
#include <gtest/gtest.h>

#include "diagnostic.hpp"

namespace cann_debug::host {
namespace {

TEST(Diagnostic, FormatsFileLineColumnSeverityMessage) {
  EXPECT_EQ(format({Diagnostic::Severity::kError, {"a.yaml", 7, 5}, "bad"}), "a.yaml:7:5: error: bad");
  EXPECT_EQ(format({Diagnostic::Severity::kWarning, {"a.yaml", 7, 0}, "meh"}), "a.yaml:7:1: warning: meh");
  EXPECT_EQ(format({Diagnostic::Severity::kNote, {"a.yaml", 0, 0}, "fyi"}), "a.yaml: note: fyi");
  EXPECT_EQ(format({Diagnostic::Severity::kError, {}, "no place"}), "error: no place");
}

TEST(Diagnostics, CountsErrorsOnlyAndSortsByPosition) {
  Diagnostics d;
  d.warning({"b.yaml", 1, 1}, "w");
  EXPECT_FALSE(d.has_errors());
  d.error({"a.yaml", 10, 2}, "second");
  d.error({"a.yaml", 2, 9}, "first");
  d.note({"a.yaml", 10, 1}, "before second");
  EXPECT_TRUE(d.has_errors());
  EXPECT_EQ(d.error_count(), 2u);
  EXPECT_EQ(d.items().size(), 4u);
  EXPECT_EQ(d.to_string(),
            "a.yaml:2:9: error: first\n"
            "a.yaml:10:1: note: before second\n"
            "a.yaml:10:2: error: second\n"
            "b.yaml:1:1: warning: w\n");
}

}  // namespace
}  // namespace cann_debug::host
