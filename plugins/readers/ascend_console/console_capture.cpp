// console_capture: npu-smi and hccn_tool console captures -> metric.batch/1 with our names and units.
#include "console_capture.hpp"

#include <fstream>
#include <optional>

#include <fmt/format.h>

#include "ascend_console/capture.hpp"
#include "ascend_console/device_fault_codes.hpp"
#include "cann_debug/reader/claimed_files.hpp"
#include "cann_debug/reader/line_reader.hpp"
#include "cann_debug/reader/numbers.hpp"
#include "cann_debug/reader/parse_error.hpp"
#include "cann_debug/reader/reader_component.hpp"
#include "cann_debug/reader/reader_options.hpp"
#include "cann_debug/reader/sniff_helpers.hpp"
#include "cann_debug/reader/text.hpp"

namespace cann_debug::plugins {
namespace {

std::string label(const MetricPoint& p, const char* key) {
  const auto it = p.labels.find(key);
  return it == p.labels.end() ? std::string() : it->second;
}

Record fault_event(const MetricPoint& p, const std::string& event, const std::string& severity) {
  Record r;
  r.key = p.key;
  if (const auto line = readers::parse_int(label(p, "line"))) r.line = *line;
  const std::string device = label(p, "device").empty() ? "npu" : "npu" + label(p, "device");
  r.fields = {{"log_kind", "event"},  {"event", event},   {"component", "device"},
              {"severity", severity}, {"hardware", true}, {"device", device}};
  return r;
}

/// The hardware events of the points: a health other than OK (Warning a warning; Alarm, Critical an error)
/// and each device fault code, with what the catalog says it means. The events have kernel_log's shape, so
/// a training diagnosis counts them like the node's kernel log.
std::vector<Record> fault_events(const std::vector<MetricPoint>& points) {
  std::vector<Record> out;
  for (const MetricPoint& p : points) {
    if (p.name == "npu.health" && p.value > 0) {
      Record r = fault_event(p, "npu_health", p.value >= 2 ? "error" : "warning");
      r.fields["meaning"] = fmt::format("npu-smi reports the NPU's health as {}", label(p, "health"));
      r.fields["action"] = "read its Error Code (npu-smi info -t health -i N) and the device log";
      r.fields["message"] =
          fmt::format("{}: Health {}", r.fields["device"].get<std::string>(), label(p, "health"));
      out.push_back(std::move(r));
    } else if (p.name == "npu.error_codes") {
      const std::string codes = label(p, "error_code");
      for (const auto code : readers::split_ws(codes)) {
        const auto fault = ascend_console::device_fault(code);
        Record r = fault_event(p, "npu_error_code", fault ? std::string(fault->severity) : "warning");
        r.fields["code"] = std::string(code);
        r.fields["component"] = fault ? std::string(fault->component) : "device";
        r.fields["meaning"] = fault ? std::string(fault->meaning) : "a device fault code not in the catalog";
        r.fields["action"] = fault ? std::string(fault->action)
                                   : "look the code up in the Ascend fault code list for the driver";
        r.fields["message"] = fmt::format("{}: Error Code {}", r.fields["device"].get<std::string>(), code);
        out.push_back(std::move(r));
      }
    }
  }
  return out;
}

int console_capture_sniff(const SniffInput& in);

/// One capture file, or the captures of a folder (those console_capture_sniff() claims) in name order, one
/// file per batch.
class CaptureSource final : public readers::ItemSource {
 public:
  explicit CaptureSource(const readers::ReaderContext& ctx)
      : files_(readers::claimed_files(ctx.path, console_capture_sniff)),
        max_line_bytes_(static_cast<std::size_t>(ctx.config.bytes("max_line_bytes"))),
        options_(options(ctx.config)) {}

  bool next(readers::Items& out, std::size_t max_items) override {
    std::string line;
    if (!lines_) {
      if (next_file_ >= files_.size()) return false;
      path_ = files_[next_file_++];
      readers::open_input(path_, file_);
      lines_.emplace(file_, max_line_bytes_);
      parser_.emplace(path_, options_);
    }
    out.source_path = path_;
    while (out.metrics.size() < max_items * 8) {
      const auto status = lines_->next(line);
      if (status == readers::LineReader::Status::kEnd) {
        if (lines_->read_error())
          readers::fail_line(path_, lines_->line_number(), lines_->line_offset(),
                             "read error after this line");
        parser_->finish(out.metrics);
        lines_.reset();
        file_.close();
        break;
      }
      if (status == readers::LineReader::Status::kTooLong)
        readers::fail_line(
            path_, lines_->line_number(), lines_->line_offset(),
            fmt::format("expected a line of at most max_line_bytes = {} bytes, got a longer one "
                        "(binary data or a missing newline?)",
                        lines_->max_line_bytes()));
      if (auto why = readers::why_not_text(line); !why.empty())
        readers::fail_line(path_, lines_->line_number(), lines_->line_offset(), why);
      parser_->feed({line, lines_->line_number(), lines_->line_offset()}, out.metrics);
    }
    for (auto& r : fault_events(out.metrics)) out.records.push_back(std::move(r));
    return lines_.has_value() || next_file_ < files_.size();
  }

 private:
  static ascend_console::CaptureOptions options(const Config& config) {
    ascend_console::CaptureOptions o;
    o.node = config.str("node");
    o.utc_offset_s = ascend_console::parse_utc_offset(config.str("utc_offset")).value_or(0);
    return o;
  }

  std::vector<std::string> files_;
  std::size_t next_file_ = 0;
  std::size_t max_line_bytes_;
  ascend_console::CaptureOptions options_;
  std::string path_;
  std::ifstream file_;
  std::optional<readers::LineReader> lines_;
  std::optional<ascend_console::CaptureParser> parser_;
};

int console_capture_sniff(const SniffInput& in) {
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

readers::ReaderSpec console_capture_spec() {
  Manifest m;
  m.type = "console_capture";
  m.kind = ComponentKind::kReader;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description =
      "Reads saved npu-smi / hccn_tool console output as NPU and RoCE port metrics in our names and units";
  m.outputs = {{"metrics", std::string(MetricBatch::type_id), "points in capture order"},
               {"records", std::string(RecordBatch::type_id),
                "hardware events: a health other than OK, each device fault code (log_kind event)"}};
  m.options = {
      readers::path_option("the capture (text file), or a folder whose captures are read in name order"),
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
  spec.sniff = console_capture_sniff;
  spec.also_reads_directory = true;
  spec.schema = "ascend_console.events/1";
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
  static const readers::ReaderFactory factory(console_capture_spec());
  return factory;
}

}  // namespace cann_debug::plugins
