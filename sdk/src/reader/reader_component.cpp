#include "cann_debug/reader/reader_component.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

#include "cann_debug/messages.hpp"
#include "cann_debug/reader/parse_error.hpp"
#include "cann_debug/reader/reader_options.hpp"

namespace cann_debug::plugins::readers {
namespace {

class FileReader final : public Component {
 public:
  FileReader(const CreateContext& ctx, const Config& config, const ReaderSpec& spec)
      : spec_(spec),
        config_(config),
        host_(ctx.host),
        path_(config.str("path")),
        batch_size_(config.has("batch_size") ? static_cast<std::size_t>(config.integer("batch_size")) : 512),
        records_port_(spec.manifest.output_index("records")),
        metrics_port_(spec.manifest.output_index("metrics")) {}

  void start() override {
    namespace fs = std::filesystem;
    std::error_code ec;
    const auto status = fs::status(path_, ec);
    if (!fs::exists(status) && config_.has("optional") && config_.boolean("optional")) {
      done_ = true;  // nothing to read, by request
      return;
    }
    // A reader that follows a file still being written (a `follow` option set) waits for it to appear.
    const bool follows = config_.has("follow") && config_.boolean("follow");
    if (!fs::exists(status) && follows) {
      source_ = spec_.open(ReaderContext{path_, config_, host_});
      done_ = false;
      return;
    }
    if (!fs::exists(status))
      throw std::runtime_error(fmt::format("{}: cannot open: {}", path_, std::strerror(ENOENT)));
    if (spec_.reads_directory && !fs::is_directory(status))
      throw std::runtime_error(
          fmt::format("{}: cannot open: {} (expected a folder)", path_, std::strerror(ENOTDIR)));
    if (!spec_.reads_directory && !spec_.also_reads_directory && fs::is_directory(status))
      throw std::runtime_error(fmt::format("{}: cannot open: {}", path_, std::strerror(EISDIR)));
    if (spec_.also_reads_directory && !fs::is_directory(status) && config_.has("claim") &&
        config_.boolean("claim") && spec_.sniff &&
        spec_.sniff(SniffInput{path_, file_head(path_), false}) < kClaimScore) {
      host_.logger().debug("{}: not read: this reader does not claim it (claim: true)", path_);
      done_ = true;
      return;
    }
    source_ = spec_.open(ReaderContext{path_, config_, host_});
    done_ = false;
  }

  void stop() override { source_.reset(); }

  PollResult poll(Emitter& out) override {
    if (done_) return PollResult::kDone;
    if (!source_) throw std::logic_error(fmt::format("{}: poll() before start()", path_));
    Items items;
    bool more = false;
    try {
      more = source_->next(items, batch_size_);
    } catch (const ParseError& e) {
      done_ = true;
      items.error = e.what();
      emit(items, out);
      throw std::runtime_error(e.what());
    }
    emit(items, out);
    if (!more) done_ = true;
    if (more && items.retry_after_ns > 0) {
      retry_after_ns_ = items.retry_after_ns;
      return PollResult::kIdle;
    }
    return more ? PollResult::kMore : PollResult::kDone;
  }

  std::int64_t idle_interval_ns() const override { return retry_after_ns_; }

 private:
  void emit(Items& items, Emitter& out) {
    for (const std::string& w : items.warnings) host_.logger().warn("{}", w);
    const std::string& source = items.source_path.empty() ? path_ : items.source_path;
    if (records_port_ >= 0 && (!items.records.empty() || !items.error.empty())) {
      RecordBatch batch;
      batch.source_path = source;
      batch.schema = items.schema.empty() ? spec_.schema : items.schema;
      batch.records = std::move(items.records);
      batch.partial = !items.error.empty();
      batch.error = items.error;
      CorrelationKey key = batch.records.empty() ? CorrelationKey{} : batch.records.front().key;
      out.emit(static_cast<std::size_t>(records_port_), std::move(key), std::move(batch));
    }
    if (metrics_port_ >= 0 && !items.metrics.empty()) {
      MetricBatch batch;
      batch.points = std::move(items.metrics);
      CorrelationKey key = batch.points.front().key;
      out.emit(static_cast<std::size_t>(metrics_port_), std::move(key), std::move(batch));
    }
  }

  const ReaderSpec& spec_;
  Config config_;
  HostServices& host_;
  std::string path_;
  std::size_t batch_size_;
  int records_port_;
  int metrics_port_;
  std::unique_ptr<ItemSource> source_;
  bool done_ = false;
  std::int64_t retry_after_ns_ = 0;
};

}  // namespace

std::string file_head(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string head(64 * 1024, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  return head;
}

ReaderFactory::ReaderFactory(ReaderSpec spec) : spec_(std::move(spec)) {
  auto& options = spec_.manifest.options;
  if (std::none_of(options.begin(), options.end(), [](const OptionSpec& o) { return o.name == "optional"; }))
    options.push_back(optional_option());
  if (spec_.also_reads_directory)
    options.push_back(
        {.name = "claim",
         .type = OptionType::kBool,
         .description = "read a file only if this reader's sniff() claims it (a folder: always)",
         .default_value = false});
}

std::vector<ConfigProblem> ReaderFactory::validate(const Config& config) const {
  std::vector<ConfigProblem> problems;
  if (config.has("path") && config.str("path").empty())
    problems.push_back(
        {"path", spec_.reads_directory ? "must name a folder, got ''" : "must name a file, got ''"});
  if (spec_.validate)
    for (auto& p : spec_.validate(config)) problems.push_back(std::move(p));
  return problems;
}

std::unique_ptr<Component> ReaderFactory::create(const CreateContext& ctx, const Config& config) const {
  return std::make_unique<FileReader>(ctx, config, spec_);
}

int ReaderFactory::sniff(const SniffInput& input) const {
  if (!spec_.sniff) return 0;
  // A folder reader never claims a file; a file reader never claims a folder, unless it reads folders too.
  if (input.is_directory != spec_.reads_directory && !spec_.also_reads_directory) return 0;
  return spec_.sniff(input);
}

}  // namespace cann_debug::plugins::readers
