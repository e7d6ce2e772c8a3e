#include "recording.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>

#include <fmt/format.h>

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
      {.name = "follow",
       .type = OptionType::kBool,
       .description =
           "follow a recording that is still being written (`diagnose --follow`): wait for the file to "
           "appear, read each chunk as the writer completes it, and end when the writer closes the file",
       .default_value = false,
       .required = false,
       .min = {},
       .max = {},
       .enum_values = {}},
      {.name = "follow_interval",
       .type = OptionType::kDuration,
       .description = "follow: how often the file is looked at for new chunks",
       .default_value = 50'000'000,
       .required = false,
       .min = 1e6,
       .max = {},
       .enum_values = {}},
      {.name = "follow_idle_timeout",
       .type = OptionType::kDuration,
       .description =
           "follow: stop when the file has not grown for this long (its writer was killed; 0 = wait "
           "until the file is closed)",
       .default_value = 60'000'000'000LL,
       .required = false,
       .min = 0,
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

struct FollowOptions {
  bool on = false;
  std::int64_t interval_ns = 50'000'000;
  std::int64_t idle_timeout_ns = 0;  // 0 = until the file is closed
};

class RecordingSource final : public readers::ItemSource {
 public:
  RecordingSource(const std::string& path, std::string summaries, bool summary_only, FollowOptions follow)
      : path_(path), summaries_(std::move(summaries)), summary_only_(summary_only), follow_(follow) {
    last_growth_ = std::chrono::steady_clock::now();
    if (!follow_.on) open();
  }

  bool next(readers::Items& out, std::size_t /*max_items*/) override {
    if (done_) return false;
    if (!reader_) {
      // Following: the writer may not have created the file, or finished its header, yet.
      try {
        open();
      } catch (const readers::ParseError&) {
        if (idle_too_long()) throw;
        out.retry_after_ns = follow_.interval_ns;
        return true;
      }
    }
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
      if (!chunk && follow_.on && reader_->refresh()) {
        last_growth_ = std::chrono::steady_clock::now();
        chunk = reader_->next();
      }
    } catch (const std::exception& e) {
      throw readers::ParseError(e.what());
    }
    if (!chunk && follow_.on && !reader_->closed_cleanly() && !idle_too_long() &&
        !reader_->stopped_at_damage()) {
      out.retry_after_ns = follow_.interval_ns;  // the writer has not completed the next chunk yet
      return true;
    }
    if (!chunk) {
      if (follow_.on && !reader_->closed_cleanly())
        out.warnings.push_back(
            fmt::format("{}: stopped following: {}", path_,
                        idle_too_long() ? fmt::format("the file has not grown for {:.0f} s",
                                                      static_cast<double>(follow_.idle_timeout_ns) * 1e-9)
                                        : reader_->recovery_note()));
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
  void open() {
    try {
      reader_.emplace(path_);
    } catch (const std::exception& e) {
      throw readers::ParseError(e.what());
    }
  }

  bool idle_too_long() const {
    return follow_.idle_timeout_ns > 0 && std::chrono::steady_clock::now() - last_growth_ >
                                              std::chrono::nanoseconds(follow_.idle_timeout_ns);
  }

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

  std::string path_;
  std::string summaries_;
  bool summary_only_ = false;
  FollowOptions follow_;
  std::chrono::steady_clock::time_point last_growth_;
  std::optional<RecordingReader> reader_;
  recording::ReadTotals totals_;
  bool done_ = false;
};

readers::ReaderSpec make_spec() {
  readers::ReaderSpec spec;
  spec.manifest = make_manifest();
  spec.open = [](const readers::ReaderContext& ctx) -> std::unique_ptr<readers::ItemSource> {
    FollowOptions follow;
    follow.on = ctx.config.boolean("follow");
    follow.interval_ns = ctx.config.duration_ns("follow_interval");
    follow.idle_timeout_ns = ctx.config.duration_ns("follow_idle_timeout");
    return std::make_unique<RecordingSource>(ctx.path, ctx.config.str("summaries"),
                                             ctx.config.boolean("summary_only"), follow);
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
