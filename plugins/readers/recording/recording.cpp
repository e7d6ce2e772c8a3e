#include "recording.hpp"

#include <algorithm>
#include <memory>
#include <optional>

#include "cann_debug/reader/parse_error.hpp"
#include "cann_debug/reader/reader_component.hpp"
#include "cann_debug/reader/reader_options.hpp"
#include "recording/recording_reader.hpp"
#include "recording_summary.hpp"

namespace cann_debug::plugins {
namespace {

using recording::DecodedChunk;
using recording::RecordingReader;

Manifest make_manifest() {
  Manifest m;
  m.type = "recording";
  m.kind = ComponentKind::kReader;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description =
      "Replays a .cdr recording of `cann-debug collect` as metric.batch/1, plus one record describing it";
  m.outputs = {{"metrics", std::string(MetricBatch::type_id), "the recorded samples, one batch per chunk"},
               {"records", std::string(RecordBatch::type_id), "one record describing the recording"}};
  m.options = {
      readers::path_option("recording file (.cdr) written by `cann-debug collect`"),
      {.name = "summaries",
       .type = OptionType::kEnum,
       .description = "how downsampled stretches come out: mean, min_max or skip",
       .default_value = "mean",
       .required = false,
       .min = {},
       .max = {},
       .enum_values = {"mean", "min_max", "skip"}},
      {.name = "summary_only",
       .type = OptionType::kBool,
       .description =
           "emit only the record describing the recording (from the index when the file was closed "
           "cleanly, without decoding its chunks)",
       .default_value = false,
       .required = false,
       .min = {},
       .max = {},
       .enum_values = {}},
      readers::optional_option(),
  };
  m.concurrency = Concurrency::serial();
  m.sample_yaml =
      "# Replay a recording made by `cann-debug collect` into any analysis.\n"
      "recording/run:\n"
      "  path: \"${input}/run.cdr\"\n"
      "  summaries: mean   # or min_max, skip\n";
  return m;
}

class RecordingSource final : public readers::ItemSource {
 public:
  RecordingSource(const std::string& path, std::string summaries, bool summary_only)
      : summaries_(std::move(summaries)), summary_only_(summary_only) {
    try {
      reader_.emplace(path);
    } catch (const std::exception& e) {
      throw readers::ParseError(e.what());
    }
  }

  bool next(readers::Items& out, std::size_t /*max_items*/) override {
    if (done_) return false;
    if (summary_only_ && reader_->closed_cleanly()) {
      const auto& t = reader_->index().at("totals");
      totals_.chunks = t.value("chunks", std::uint64_t{0});
      totals_.samples = t.value("samples", std::uint64_t{0});
      totals_.summaries = t.value("summaries", std::uint64_t{0});
      totals_.represented = t.value("represented", std::uint64_t{0});
      totals_.first_ns = t.value("first_ns", kNoTimestamp);
      totals_.last_ns = t.value("last_ns", kNoTimestamp);
      finish(out);
      return false;
    }
    std::optional<DecodedChunk> chunk;
    try {
      chunk = reader_->next();
    } catch (const std::exception& e) {
      throw readers::ParseError(e.what());
    }
    if (!chunk) {
      finish(out);
      return false;
    }
    ++totals_.chunks;
    totals_.samples += chunk->points.size();
    for (auto& p : chunk->points) {
      span(p.key.timestamp_ns);
      if (!summary_only_) out.metrics.push_back(std::move(p));
    }
    for (const auto& s : chunk->summaries) {
      ++totals_.summaries;
      totals_.represented += s.count;
      span(s.start_ns);
      span(s.end_ns);
      if (summaries_ == "skip" || summary_only_) continue;
      const auto& series = reader_->series()[s.series];
      auto point = [&](TimestampNs ts, double value) {
        out.metrics.push_back(recording::point_of(series, ts, value));
      };
      if (summaries_ == "mean") {
        point(s.start_ns + (s.end_ns - s.start_ns) / 2, s.mean);
      } else {
        point(s.start_ns, s.min);
        point(s.end_ns, s.max);
      }
    }
    std::stable_sort(out.metrics.begin(), out.metrics.end(), [](const MetricPoint& a, const MetricPoint& b) {
      return a.key.timestamp_ns < b.key.timestamp_ns;
    });
    return true;
  }

 private:
  void finish(readers::Items& out) {
    Record r;
    r.fields = recording::recording_summary(*reader_, totals_);
    if (totals_.first_ns != kNoTimestamp) r.key.timestamp_ns = totals_.first_ns;
    out.records.push_back(std::move(r));
    done_ = true;
  }

  void span(TimestampNs ts) {
    if (totals_.first_ns == kNoTimestamp || ts < totals_.first_ns) totals_.first_ns = ts;
    if (totals_.last_ns == kNoTimestamp || ts > totals_.last_ns) totals_.last_ns = ts;
  }

  std::string summaries_;
  bool summary_only_ = false;
  std::optional<RecordingReader> reader_;
  recording::ReadTotals totals_;
  bool done_ = false;
};

readers::ReaderSpec make_spec() {
  readers::ReaderSpec spec;
  spec.manifest = make_manifest();
  spec.open = [](const readers::ReaderContext& ctx) -> std::unique_ptr<readers::ItemSource> {
    return std::make_unique<RecordingSource>(ctx.path, ctx.config.str("summaries"),
                                             ctx.config.boolean("summary_only"));
  };
  spec.sniff = [](const SniffInput& input) {
    if (input.is_directory) return 0;
    return input.head.substr(0, recording::kFileMagic.size()) == recording::kFileMagic ? 100 : 0;
  };
  return spec;
}

}  // namespace

const ComponentFactory& recording_factory() {
  static const readers::ReaderFactory factory(make_spec());
  return factory;
}

}  // namespace cann_debug::plugins
