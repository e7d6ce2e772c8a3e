// console_capture: npu-smi and hccn_tool console captures -> metric.batch/1 with our names and units.
#include "console_capture.hpp"

#include <fstream>
#include <optional>

#include <fmt/format.h>

#include "ascend_console/capture.hpp"
#include "cann_debug/reader/line_reader.hpp"
#include "cann_debug/reader/parse_error.hpp"
#include "cann_debug/reader/reader_component.hpp"
#include "cann_debug/reader/reader_options.hpp"
#include "cann_debug/reader/sniff_helpers.hpp"
#include "cann_debug/reader/text.hpp"

namespace cann_debug::plugins {
namespace {

class CaptureSource final : public readers::ItemSource {
 public:
  explicit CaptureSource(const readers::ReaderContext& ctx)
      : path_(ctx.path), parser_(ctx.path, options(ctx.config)) {
    readers::open_input(path_, file_);
    lines_.emplace(file_, static_cast<std::size_t>(ctx.config.bytes("max_line_bytes")));
  }

  bool next(readers::Items& out, std::size_t max_items) override {
    std::string line;
    while (out.metrics.size() < max_items * 8) {
      const auto status = lines_->next(line);
      if (status == readers::LineReader::Status::kEnd) {
        if (lines_->read_error())
          readers::fail_line(path_, lines_->line_number(), lines_->line_offset(),
                             "read error after this line");
        parser_.finish(out.metrics);
        return false;
      }
      if (status == readers::LineReader::Status::kTooLong)
        readers::fail_line(
            path_, lines_->line_number(), lines_->line_offset(),
            fmt::format("expected a line of at most max_line_bytes = {} bytes, got a longer one "
                        "(binary data or a missing newline?)",
                        lines_->max_line_bytes()));
      if (auto why = readers::why_not_text(line); !why.empty())
        readers::fail_line(path_, lines_->line_number(), lines_->line_offset(), why);
      parser_.feed({line, lines_->line_number(), lines_->line_offset()}, out.metrics);
    }
    return true;
  }

 private:
  static ascend_console::CaptureOptions options(const Config& config) {
    ascend_console::CaptureOptions o;
    o.node = config.str("node");
    o.utc_offset_s = ascend_console::parse_utc_offset(config.str("utc_offset")).value_or(0);
    return o;
  }

  std::string path_;
  std::ifstream file_;
  std::optional<readers::LineReader> lines_;
  ascend_console::CaptureParser parser_;
};

int sniff(const SniffInput& in) {
  if (!readers::looks_text(in.head)) return 0;
  const auto head = in.head;
  const bool tool =
      head.find("npu-smi") != std::string_view::npos || head.find("hccn_tool") != std::string_view::npos;
  const bool shape = head.find("NpuID(Idx)") != std::string_view::npos ||
                     head.find("Hugepages-Usage(page)") != std::string_view::npos ||
                     head.find("packet statistics:") != std::string_view::npos ||
                     head.find("Aicore Usage Rate(%)") != std::string_view::npos;
  if (!tool && !shape) return 0;
  // A CSV or JSON file that merely mentions the tools is not a capture.
  // JSON (an object, or an array of values; not a "[root@host ~]#" prompt) is not a capture.
  const auto first = readers::trim(readers::first_line(head));
  if (!first.empty() && first.front() == '{') return 0;
  if (first.starts_with("[")) {
    const auto next = readers::trim(first.substr(1));
    if (next.empty() || std::string_view("{[\"]-0123456789").find(next.front()) != std::string_view::npos)
      return 0;
  }
  return shape ? 88 : 80;
}

readers::ReaderSpec make_spec() {
  Manifest m;
  m.type = "console_capture";
  m.kind = ComponentKind::kReader;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description =
      "Reads saved npu-smi / hccn_tool console output as NPU and RoCE port metrics in our names and units";
  m.outputs = {{"metrics", std::string(MetricBatch::type_id), "points in capture order"}};
  m.options = {readers::path_option("the capture (text file) to read"),
               readers::batch_size_option(),
               readers::max_line_bytes_option(),
               readers::node_option(),
               {.name = "utc_offset",
                .type = OptionType::kString,
                .description = "how far the capture's local 'Datetime:' is ahead of UTC, e.g. +08:00",
                .default_value = "+00:00"}};
  m.concurrency = Concurrency::serial();
  m.sample_yaml =
      "console_capture/node0:\n  path: \"${input}/npu_info_before.txt\"\n  utc_offset: \"+08:00\"\n";
  readers::ReaderSpec spec;
  spec.manifest = std::move(m);
  spec.open = [](const readers::ReaderContext& ctx) -> std::unique_ptr<readers::ItemSource> {
    return std::make_unique<CaptureSource>(ctx);
  };
  spec.sniff = sniff;
  spec.validate = [](const Config& config) -> std::vector<ConfigProblem> {
    if (config.has("utc_offset") && !ascend_console::parse_utc_offset(config.str("utc_offset")))
      return {{"utc_offset", fmt::format("expected an offset like +08:00, -05:30 or Z, got '{}'",
                                         config.str("utc_offset"))}};
    return {};
  };
  return spec;
}

}  // namespace

const ComponentFactory& console_capture_factory() {
  static const readers::ReaderFactory factory(make_spec());
  return factory;
}

}  // namespace cann_debug::plugins
