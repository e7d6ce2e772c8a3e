// Escaping of user-supplied text (names from logs, traces and graph files) for HTML and Markdown.
#pragma once

#include <string>
#include <string_view>

namespace cann_debug::report {

/// Text for HTML element content and (double-quoted) attribute values: & < > " ' become entities, and
/// control characters other than tab and newline are dropped, so no input can open a tag or leave an
/// attribute.
std::string html_escape(std::string_view text);

/// Text for a Markdown paragraph or table cell: CommonMark punctuation that could start markup (\ ` * _ [ ]
/// < > | # !) is backslash-escaped, so raw HTML such as `<script>` is shown as text, and line breaks become
/// spaces so a value cannot end a table row.
std::string markdown_escape(std::string_view text);

/// A number for display: up to 4 significant digits; "nan", "inf", "-inf" for non-finite values.
std::string format_number(double value);

/// An x value (step, request id): an integer without exponent when it is one, else format_number.
std::string format_index(double value);

}  // namespace cann_debug::report
