// prometheus_text: Prometheus text exposition (e.g. npu-exporter output saved with curl) -> metric.batch/1.
#include "prometheus_text.hpp"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>

#include <fmt/format.h>

#include "cann_debug/reader/line_reader.hpp"
#include "cann_debug/reader/numbers.hpp"
#include "cann_debug/reader/parse_error.hpp"
#include "cann_debug/reader/reader_component.hpp"
#include "cann_debug/reader/reader_options.hpp"
#include "cann_debug/reader/sniff_helpers.hpp"
#include "cann_debug/reader/text.hpp"
#include "exposition_parser.hpp"

namespace cann_debug::plugins {
namespace {

class ExpositionSource final : public readers::ItemSource {
 public:
  explicit ExpositionSource(const readers::ReaderContext& ctx)
      : path_(ctx.path), node_(ctx.config.str("node")) {
    readers::open_input(path_, file_);
    lines_.emplace(file_, static_cast<std::size_t>(ctx.config.bytes("max_line_bytes")));
    if (ctx.config.str("missing_timestamp") == "file_mtime") {
      std::error_code ec;
      const auto t = std::filesystem::last_write_time(path_, ec);
      if (!ec)
        default_ns_ = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::file_clock::to_sys(t).time_since_epoch())
                          .count();
    }
  }

  bool next(readers::Items& out, std::size_t max_items) override {
    std::string line;
    while (out.metrics.size() < max_items * 8) {
      const auto status = lines_->next(line);
      if (status == readers::LineReader::Status::kEnd) {
        if (lines_->read_error()) fail("read error after this line");
        return false;
      }
      if (status == readers::LineReader::Status::kTooLong)
        fail(fmt::format(
            "expected a line of at most max_line_bytes = {} bytes, got a longer one (binary data or a "
            "missing newline?)",
            lines_->max_line_bytes()));
      if (auto why = readers::why_not_text(line); !why.empty()) fail(why);
      std::optional<prometheus::Sample> sample;
      try {
        sample = parser_.line(line);
      } catch (const std::invalid_argument& e) {
        fail(e.what());
      }
      if (!sample) continue;
      out.metrics.push_back(point(std::move(*sample)));
    }
    return true;
  }

 private:
  [[noreturn]] void fail(std::string_view what) const {
    readers::fail_line(path_, lines_->line_number(), lines_->line_offset(), what);
  }

  MetricPoint point(prometheus::Sample s) const {
    MetricPoint p;
    p.unit = parser_.unit_of(s.name);
    p.value = s.value;
    if (s.timestamp_ms) {
      if (*s.timestamp_ms > INT64_MAX / 1'000'000 || *s.timestamp_ms < INT64_MIN / 1'000'000)
        fail("expected a timestamp in milliseconds since the epoch, got one out of range");
      p.key.timestamp_ns = *s.timestamp_ms * 1'000'000;
    } else {
      p.key.timestamp_ns = default_ns_;
    }
    for (const char* key : {"device", "npu", "id"}) {
      auto it = s.labels.find(key);
      if (it == s.labels.end()) continue;
      if (std::string_view(key) == "id" && !s.name.starts_with("npu_")) continue;
      if (auto d = readers::parse_int(it->second); d && *d >= 0 && *d <= INT32_MAX) {
        p.key.device = static_cast<std::int32_t>(*d);
        break;
      }
    }
    if (auto it = s.labels.find("rank"); it != s.labels.end())
      if (auto r = readers::parse_int(it->second); r && *r >= 0 && *r <= INT32_MAX)
        p.key.rank = static_cast<std::int32_t>(*r);
    if (!node_.empty()) {
      p.key.node_id = node_;
      s.labels.emplace("node", node_);
    }
    p.name = std::move(s.name);
    p.labels = std::move(s.labels);
    return p;
  }

  std::string path_;
  std::string node_;
  TimestampNs default_ns_ = kNoTimestamp;
  std::ifstream file_;
  std::optional<readers::LineReader> lines_;
  prometheus::ExpositionParser parser_;
};

int sniff(const SniffInput& in) {
  if (!readers::looks_text(in.head)) return 0;
  int help_type = 0, samples = 0, bad = 0;
  prometheus::ExpositionParser parser;
  for (auto line : readers::head_lines(in.head, 40)) {
    const auto t = readers::trim(line);
    if (t.starts_with("# HELP ") || t.starts_with("# TYPE ")) ++help_type;
    try {
      if (parser.line(line)) ++samples;
    } catch (const std::exception&) {
      ++bad;
    }
  }
  if (bad > 0 || samples + help_type == 0) return 0;
  if (help_type > 0) return readers::base_name(in.path).ends_with(".prom") ? 93 : 90;
  return samples >= 2 ? 55 : 0;
}

readers::ReaderSpec make_spec() {
  Manifest m;
  m.type = "prometheus_text";
  m.kind = ComponentKind::kReader;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description =
      "Reads a Prometheus text exposition file (e.g. saved npu-exporter /metrics): a point per sample";
  m.outputs = {{"metrics", std::string(MetricBatch::type_id), "one point per sample, in file order"}};
  m.options = {readers::path_option("the exposition file to read"),
               readers::batch_size_option(),
               readers::max_line_bytes_option(),
               readers::node_option(),
               {.name = "missing_timestamp",
                .type = OptionType::kEnum,
                .description = "time of samples without a timestamp: none, or the file's modification time",
                .default_value = "none",
                .enum_values = {"none", "file_mtime"}}};
  m.concurrency = Concurrency::serial();
  m.sample_yaml =
      "prometheus_text/exporter:\n  path: \"${input}/npu_exporter.prom\"\n  missing_timestamp: file_mtime\n";
  readers::ReaderSpec spec;
  spec.manifest = std::move(m);
  spec.open = [](const readers::ReaderContext& ctx) -> std::unique_ptr<readers::ItemSource> {
    return std::make_unique<ExpositionSource>(ctx);
  };
  spec.sniff = sniff;
  return spec;
}

}  // namespace

const ComponentFactory& prometheus_text_factory() {
  static const readers::ReaderFactory factory(make_spec());
  return factory;
}

}  // namespace cann_debug::plugins
