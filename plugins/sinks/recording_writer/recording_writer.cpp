#include "recording_writer.hpp"

#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "cann_debug/messages.hpp"
#include "recording/anomaly_retention.hpp"
#include "recording/recording_writer.hpp"

namespace cann_debug::plugins {
namespace {

using recording::AnomalyRetention;
using recording::RecordingWriter;

OptionSpec option(std::string name, OptionType type, std::string description, nlohmann::json default_value,
                  std::optional<double> min = {}, std::optional<double> max = {}) {
  return {.name = std::move(name),
          .type = type,
          .description = std::move(description),
          .default_value = std::move(default_value),
          .required = false,
          .min = min,
          .max = max,
          .enum_values = {}};
}

Manifest make_manifest() {
  Manifest m;
  m.type = "recording_writer";
  m.kind = ComponentKind::kSink;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description =
      "Writes metric frames and batches to a .cdr recording, optionally full resolution only near anomalies";
  m.inputs = {{"in",
               {std::string(MetricFrame::type_id), std::string(MetricBatch::type_id)},
               true,
               "samples to record (frames are recorded without being expanded into points)"}};
  m.options = {
      {.name = "path",
       .type = OptionType::kString,
       .description = "recording file to create (replaced if it exists)",
       .default_value = nullptr,
       .required = true,
       .min = {},
       .max = {},
       .enum_values = {}},
      option("compress", OptionType::kBool, "anomaly-window retention (see the package README)", false),
      option("chunk_size", OptionType::kSize, "encoded bytes that close a chunk", 256 * 1024, 1024, 64 << 20),
      option("flush_interval", OptionType::kDuration,
             "a chunk holding data this old is written (bounds what a crash can lose)", 1'000'000'000, 1e6),
      option("zstd_level", OptionType::kInt,
             "zstd compression level of chunks (1: the fastest; 3 is about 25% slower for 0.5% smaller "
             "chunks of samples)",
             1, 1, 19),
      option("z_threshold", OptionType::kDouble, "retention: |robust z| that makes a value anomalous", 6.0,
             1),
      option("pre", OptionType::kInt, "retention: full-resolution values kept before an anomaly", 50, 0,
             100000),
      option("post", OptionType::kInt, "retention: full-resolution values kept after the last anomalous one",
             50, 0, 100000),
      option("context", OptionType::kInt,
             "retention: full-resolution values kept on each side of an isolated outlier", 5, 0, 100000),
      option("summary_period", OptionType::kDuration, "retention: one summary per series per this period",
             2'000'000'000, 1e6),
      option("align", OptionType::kDuration,
             "put sample times on this grid, counted from the start (0 = as sampled): samples of different "
             "sources taken in the same tick then share one timestamp and join exactly",
             0, 0),
      option("meta", OptionType::kMap, "extra metadata stored in the recording's header",
             nlohmann::json::object()),
  };
  // Lightweight: appending a batch to the chunk costs microseconds, and a chunk's compression and write
  // (about a millisecond for 256 KiB, at most once a second) is acceptable in a sampler's thread. Handing
  // every sample to a TBB worker instead woke and spun a worker 100 times a second per sampler at 10 ms,
  // which was most of a collector's CPU.
  m.concurrency = Concurrency::lightweight();
  m.sample_yaml =
      "# Record every sample; keep full resolution only around anomalies.\n"
      "recording_writer/out:\n"
      "  path: \"${output}/run.cdr\"   # required\n"
      "  compress: true\n"
      "  flush_interval: 1s\n";
  return m;
}

/// Retention decisions go straight into the writer.
class WriterSink final : public recording::RetentionSink {
 public:
  explicit WriterSink(RecordingWriter& writer) : writer_(writer) {}
  void keep(std::uint64_t series, TimestampNs ts, double value) override {
    one_[0] = {series, value};
    writer_.add_sample(ts, one_);
  }
  void summary(const recording::Summary& s) override { writer_.add_summary(s); }

 private:
  RecordingWriter& writer_;
  std::vector<std::pair<std::uint64_t, double>> one_{{0, 0.0}};
};

class RecordingWriterSink final : public Component {
 public:
  RecordingWriterSink(const CreateContext& ctx, const Config& config) : host_(&ctx.host), config_(config) {
    retention_options_.z_threshold = config.number("z_threshold");
    retention_options_.pre = static_cast<std::size_t>(config.integer("pre"));
    retention_options_.post = static_cast<std::size_t>(config.integer("post"));
    retention_options_.context = static_cast<std::size_t>(config.integer("context"));
    retention_options_.summary_period_ns = config.duration_ns("summary_period");
    align_ns_ = config.duration_ns("align");
  }
  ~RecordingWriterSink() override {
    try {
      stop();
    } catch (...) {  // stop() reports errors when the host calls it
    }
  }

  void start() override {
    const std::string path = config_.str("path");
    std::error_code ec;
    if (auto parent = std::filesystem::path(path).parent_path(); !parent.empty())
      std::filesystem::create_directories(parent, ec);
    recording::WriterOptions options;
    options.chunk_bytes = static_cast<std::size_t>(config_.bytes("chunk_size"));
    options.flush_interval_ns = config_.duration_ns("flush_interval");
    options.zstd_level = static_cast<int>(config_.integer("zstd_level"));
    options.meta = config_.json().at("meta");
    const TimestampNs now = host_ ? host_->now_ns() : wall_clock_ns();
    options.meta["created_ns"] = now;
    origin_ns_ = now;
    if (align_ns_ > 0) options.meta["align_ns"] = align_ns_;
    if (config_.boolean("compress")) {
      options.flags |= recording::kFlagRetention;
      options.meta["retention"] = {{"z_threshold", retention_options_.z_threshold},
                                   {"pre", retention_options_.pre},
                                   {"post", retention_options_.post},
                                   {"context", retention_options_.context},
                                   {"summary_period_ns", retention_options_.summary_period_ns}};
      retention_.emplace(retention_options_);
    }
    writer_ = std::make_unique<RecordingWriter>(path, std::move(options));
    sink_ = std::make_unique<WriterSink>(*writer_);
  }

  void process(const Envelope& message, std::size_t /*port*/, Emitter& /*out*/) override {
    if (!writer_) return;
    if (message.is<MetricFrame>()) {
      process_frame(message.as<MetricFrame>(), message.source());
      return;
    }
    if (!message.is<MetricBatch>()) return;
    const MetricBatch* batch = &message.as<MetricBatch>();
    values_.clear();
    TimestampNs ts = kNoTimestamp;
    auto flush_values = [&] {
      if (!values_.empty()) writer_->add_sample(ts, values_);
      values_.clear();
    };
    for (const auto& p : batch->points) {
      const TimestampNs t = aligned(p.key.has_timestamp() ? p.key.timestamp_ns : message.key().timestamp_ns);
      const std::uint64_t id = writer_->series_of(p);
      if (retention_) {
        retention_->feed(id, t, p.value, *sink_);
        continue;
      }
      if (t != ts) {
        flush_values();
        ts = t;
      }
      values_.emplace_back(id, p.value);
    }
    flush_values();
    writer_->maybe_flush();
  }

  void flush(Emitter& /*out*/) override { finish(); }

  /// A frame: its series are looked up once per schema (per source), then each value is one store.
  void process_frame(const MetricFrame& frame, std::string_view source) {
    if (!frame.schema) return;
    auto it = schema_ids_.find(source);
    if (it == schema_ids_.end()) it = schema_ids_.emplace(std::string(source), SchemaIds{}).first;
    SchemaIds& ids = it->second;
    const auto& series = frame.schema->series;
    if (ids.schema != frame.schema.get()) {
      ids.schema = frame.schema.get();
      ids.hold = frame.schema;  // keeps the address from being reused by another schema
      ids.ids.clear();
      MetricPoint p;
      p.key = frame.key;
      for (const auto& s : series) {
        p.name = s.name;
        p.unit = s.unit;
        p.labels = s.labels;
        p.key.device = s.device;
        ids.ids.push_back(writer_->series_of(p));
      }
    }
    const TimestampNs t = aligned(frame.key.timestamp_ns);
    values_.clear();
    const std::size_t n = std::min(frame.values.size(), ids.ids.size());
    for (std::size_t i = 0; i < n; ++i) {
      const double v = frame.values[i];
      if (std::isnan(v)) continue;
      if (retention_)
        retention_->feed(ids.ids[i], t, v, *sink_);
      else
        values_.emplace_back(ids.ids[i], v);
    }
    if (!values_.empty()) writer_->add_sample(t, values_);
    writer_->maybe_flush();
  }
  void stop() override { finish(); }

 private:
  TimestampNs aligned(TimestampNs t) const {
    if (align_ns_ <= 0 || t == kNoTimestamp) return t;
    const TimestampNs offset = t - origin_ns_;
    const TimestampNs half = align_ns_ / 2;
    const TimestampNs ticks = offset >= 0 ? (offset + half) / align_ns_ : -((-offset + half) / align_ns_);
    return origin_ns_ + ticks * align_ns_;
  }

  void finish() {
    if (!writer_) return;
    auto writer = std::move(writer_);
    nlohmann::json closing = nlohmann::json::object();
    closing["closed_ns"] = host_ ? host_->now_ns() : wall_clock_ns();
    if (retention_) {
      retention_->finish(*sink_);
      const auto& t = retention_->totals();
      closing["retention"] = {{"seen", t.seen},
                              {"kept", t.kept},
                              {"summarised", t.summarised},
                              {"anomalies", t.anomalies},
                              {"retained_share", t.retained_share()}};
    }
    writer->close(closing);
    if (host_)
      host_->logger().info("{}: {} chunks, {} series, {} samples kept, {} summaries, {} bytes",
                           writer->path(), writer->totals().chunks, writer->totals().series,
                           writer->totals().samples, writer->totals().summaries, writer->totals().file_bytes);
  }

  struct SchemaIds {
    const MetricSchema* schema = nullptr;
    std::shared_ptr<const MetricSchema> hold;
    std::vector<std::uint64_t> ids;  // writer series id per schema entry
  };

  HostServices* host_;
  Config config_;
  std::map<std::string, SchemaIds, std::less<>> schema_ids_;  // per emitting component
  std::int64_t align_ns_ = 0;
  TimestampNs origin_ns_ = 0;
  recording::RetentionOptions retention_options_;
  std::optional<AnomalyRetention> retention_;
  std::unique_ptr<RecordingWriter> writer_;
  std::unique_ptr<WriterSink> sink_;
  std::vector<std::pair<std::uint64_t, double>> values_;
};

}  // namespace

const ComponentFactory& recording_writer_factory() {
  static const SimpleFactory<RecordingWriterSink> factory(make_manifest());
  return factory;
}

}  // namespace cann_debug::plugins
