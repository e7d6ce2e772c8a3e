// chrome_trace reader: Chrome trace JSON -> event.batch/1, streaming (see docs/traces.md).
#include "chrome_trace.hpp"

#include <cerrno>
#include <cstring>
#include <exception>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "cann_debug/messages.hpp"
#include "cann_debug/reader/claimed_files.hpp"
#include "cann_debug/reader/reader_component.hpp"
#include "event_decoder.hpp"
#include "path_pattern.hpp"
#include "trace_info.hpp"
#include "trace_prescan.hpp"
#include "trace_scanner.hpp"
#include "trace_sniff.hpp"

namespace cann_debug::plugins {
namespace {

using namespace chrome_trace;

// Bytes of events parsed by one simdjson pass (see EventWindow).
constexpr std::size_t kWindowBytes = 256 << 10;

Manifest make_manifest() {
  Manifest m;
  m.type = "chrome_trace";
  m.kind = ComponentKind::kReader;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description =
      "Streams Chrome trace JSON (Kineto, Ascend trace_view.json, legacy PyTorch; plain or gzip) as events";
  m.outputs = {{"events", std::string(EventBatch::type_id), "trace events in file order, trace_info first"}};
  m.options = {
      {.name = "path",
       .type = OptionType::kString,
       .description =
           "the trace file (.json or .json.gz), or a glob pattern of several (read in natural order)",
       .default_value = nullptr,
       .required = true},
      {.name = "batch_size",
       .type = OptionType::kInt,
       .description = "events per emitted batch (one batch per poll)",
       .default_value = 4096,
       .min = 1,
       .max = 1e7},
      {.name = "rank",
       .type = OptionType::kInt,
       .description = "rank of the trace; -1 = from distributedInfo.rank (or 'rank<N>' in the file name); "
                      "with a glob pattern only for files whose rank the trace and name do not give",
       .default_value = -1,
       .min = -1,
       .max = 2147483647.0},
      {.name = "max_event_bytes",
       .type = OptionType::kSize,
       .description = "largest accepted single event (or other top-level member); a larger one is an error",
       .default_value = "8MiB",
       .min = 1024,
       .max = 1024.0 * 1024 * 1024},
      {.name = "optional",
       .type = OptionType::kBool,
       .description = "a missing file (or a pattern matching nothing) is not an error: nothing is emitted",
       .default_value = false},
      {.name = "claim",
       .type = OptionType::kBool,
       .description = "path is a folder or a file: read the files (directly in the folder) that this "
                      "reader's sniff() claims, whatever their names; a file it does not claim is skipped",
       .default_value = false},
  };
  m.concurrency = Concurrency::serial();
  m.sample_yaml =
      "# A torch.profiler trace of one rank.\n"
      "chrome_trace/train:\n"
      "  path: \"${input}/trace.json\"   # required; .json or .json.gz\n"
      "  batch_size: 4096               # events per batch\n"
      "  rank: -1                       # -1 = from the file (distributedInfo.rank)\n";
  return m;
}

class ChromeTraceReader final : public Component {
 public:
  ChromeTraceReader(const CreateContext& ctx, const Config& config)
      : host_(ctx.host),
        path_(config.str("path")),
        batch_size_(static_cast<std::size_t>(config.integer("batch_size"))),
        option_rank_(config.integer("rank")),
        optional_(config.boolean("optional")),
        claim_(config.boolean("claim")) {
    limits_.max_value_bytes = static_cast<std::size_t>(config.bytes("max_event_bytes"));
  }

  void start() override {
    pattern_ = is_glob_pattern(path_) && !claim_;
    if (optional_ && nothing_to_read()) {
      done_ = true;  // nothing to read, by request
      return;
    }
    if (claim_) {
      std::error_code ec;
      if (!std::filesystem::exists(path_, ec))
        throw std::runtime_error(fmt::format("{}: cannot open: {}", path_, std::strerror(ENOENT)));
      // claimed_files() returns a file given alone as it is: sniff that one here.
      files_ = readers::claimed_files(path_, [](const SniffInput& in) { return sniff_chrome_trace(in); });
      if (!std::filesystem::is_directory(path_, ec) &&
          sniff_chrome_trace(SniffInput{path_, readers::file_head(path_), false}) < readers::kClaimScore)
        files_.clear();
      if (files_.empty()) {
        host_.logger().debug("{}: no file here is a trace this reader claims (claim: true)", path_);
        done_ = true;
        return;
      }
      pattern_ = files_.size() > 1;  // several files: each one's rank from its own content or name
    } else {
      files_ = pattern_ ? expand_trace_pattern(path_) : std::vector<std::string>{path_};
    }
    file_index_ = 0;
    open_current();
  }

  void stop() override {
    scanner_.reset();
    decoder_.reset();
    source_.reset();
  }

  PollResult poll(Emitter& out) override {
    if (done_) return PollResult::kDone;
    if (!scanner_) throw std::logic_error(fmt::format("{}: poll() before start()", path_));
    const std::string& path = current();
    EventBatch batch;
    batch.source_path = path;
    batch.events.reserve(std::min<std::size_t>(batch_size_ + 1, 1 << 16));
    // trace_info goes first, with the first event (or at the end of an empty trace), never alone before an
    // error.
    auto info = [&] {
      if (info_emitted_) return;
      batch.events.push_back(make_trace_info(scan_, path, clock_, rank_));
      info_emitted_ = true;
    };
    try {
      std::size_t read = 0;
      auto sink = [&](DecodedEvent& d) {
        info();
        batch.events.push_back(finish(d));
        ++read;
      };
      Slice slice;
      while (read < batch_size_ && !done_) {
        // Copy up to a window's worth of events (at most what the batch still takes), then decode them
        // together.
        window_.clear();
        std::exception_ptr fault;
        try {
          while (window_.bytes() < kWindowBytes && read + window_.events() < batch_size_) {
            if (!scanner_->next_event(slice)) {
              done_ = true;
              break;
            }
            window_.add(slice);
          }
        } catch (const std::runtime_error&) {
          fault = std::current_exception();  // decode the events before it first
        }
        decoder_->decode_window(window_, sink);
        if (fault) std::rethrow_exception(fault);
      }
      if (done_) {
        info();
        if (scanner_->unterminated_array())
          host_.logger().warn("{}: the event array has no closing ']' (allowed by the Chrome trace format)",
                              path);
      }
    } catch (const TraceError& e) {
      fail(batch, out,
           fmt::format("{}: byte {}: {}{}", path, e.offset(), e.what(),
                       scan_.compressed ? " (offsets count bytes of the decompressed data)" : ""));
    } catch (const std::runtime_error& e) {  // I/O or gzip errors name the file themselves
      fail(batch, out, e.what());
    }
    emit(batch, out);
    if (done_ && file_index_ + 1 < files_.size()) {
      ++file_index_;
      open_current();
      return PollResult::kMore;
    }
    return done_ ? PollResult::kDone : PollResult::kMore;
  }

 private:
  bool nothing_to_read() const {
    std::error_code ec;
    if (!pattern_) return !std::filesystem::exists(path_, ec);
    try {
      return expand_trace_pattern(path_).empty();
    } catch (const std::runtime_error&) {
      return true;  // no file matches the pattern
    }
  }

  const std::string& current() const { return files_.at(file_index_); }

  // Opens files_[file_index_]: prescan (steps, clock, rank), then the streaming scanner.
  void open_current() {
    const std::string& path = current();
    done_ = false;
    info_emitted_ = false;
    scan_ = prescan_trace(path, limits_);  // throws "<path>: cannot open: ..." for a missing file
    clock_ = choose_clock(scan_);
    if (pattern_) {
      // One rank option cannot be every file's rank: it only fills in for a file that says nothing.
      rank_ = choose_rank(scan_, path, -1);
      if (rank_.rank < 0 && option_rank_ >= 0) rank_ = {static_cast<std::int32_t>(option_rank_), "option"};
    } else {
      rank_ = choose_rank(scan_, path, option_rank_);
    }
    source_ = open_byte_source(path);
    scanner_.emplace(*source_, limits_);
    decoder_.emplace();
    spans_by_pid_.clear();
    host_.logger().info("{}: {} trace, clock {}, rank {} ({}), {} profiler steps", path, format_name(scan_),
                        clock_.epoch ? "epoch" : "relative", rank_.rank, rank_.source,
                        scan_.steps.steps().size());
  }

  Event finish(DecodedEvent& d) {
    Event& e = d.event;
    if (d.has_ts) {
      const std::int64_t file_ts = e.start_ns;
      if (__builtin_add_overflow(file_ts, clock_.origin_ns, &e.start_ns))
        throw TraceError(scanner_->offset(), "expected \"ts\" + baseTimeNanoseconds to fit in 64-bit ns");
      e.key.timestamp_ns = e.start_ns;
      if (!scan_.steps.empty()) e.key.step_id = spans_for(d).find(file_ts);
    }
    e.key.rank = rank_.rank;
    return std::move(e);
  }

  // The step spans an event is placed in: device events by time over all spans, CPU events in their
  // process's.
  const StepSpans::List& spans_for(const DecodedEvent& d) {
    if (d.is_device) return scan_.steps.all();
    auto [it, inserted] = spans_by_pid_.try_emplace(d.event.pid, nullptr);
    if (inserted) it->second = &scan_.steps.spans_for(pid_key(d));
    return *it->second;
  }

  void emit(EventBatch& batch, Emitter& out) {
    if (batch.events.empty()) return;
    CorrelationKey key = batch.events.back().key;
    key.timestamp_ns = kNoTimestamp;
    key.step_id = -1;
    key.device = -1;
    for (const auto& e : batch.events)
      if (e.key.has_timestamp()) {
        key.timestamp_ns = e.key.timestamp_ns;
        break;
      }
    out.emit(0, std::move(key), std::move(batch));
  }

  // Emits what was read, then fails with `message`.
  [[noreturn]] void fail(EventBatch& batch, Emitter& out, const std::string& message) {
    done_ = true;
    emit(batch, out);
    throw std::runtime_error(message);
  }

  HostServices& host_;
  std::string path_;  // the option: a file or a glob pattern
  bool pattern_ = false;
  std::vector<std::string> files_;
  std::size_t file_index_ = 0;
  std::size_t batch_size_;
  std::int64_t option_rank_;
  ScanLimits limits_;
  Prescan scan_;
  TraceClock clock_;
  RankChoice rank_;
  std::unique_ptr<ByteSource> source_;
  std::optional<TraceScanner> scanner_;
  std::optional<EventDecoder> decoder_;
  EventWindow window_;
  std::unordered_map<std::int64_t, const StepSpans::List*> spans_by_pid_;
  bool done_ = false;
  bool optional_ = false;
  bool claim_ = false;  // read what sniff() claims of a folder (or of one file)
  bool info_emitted_ = false;
};

class ChromeTraceFactory final : public SimpleFactory<ChromeTraceReader> {
 public:
  using SimpleFactory::SimpleFactory;
  std::vector<ConfigProblem> validate(const Config& config) const override {
    if (config.has("path") && config.str("path").empty()) return {{"path", "must name a file, got ''"}};
    return {};
  }
  int sniff(const SniffInput& in) const override { return sniff_chrome_trace(in); }
};

}  // namespace

const ComponentFactory& chrome_trace_factory() {
  static const ChromeTraceFactory factory(make_manifest());
  return factory;
}

}  // namespace cann_debug::plugins
