// tensorboard_events: TensorBoard event files (events.out.tfevents.*) -> one record per step with the
// scalars written at it.
#include "tensorboard_events.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "cann_debug/reader/numbers.hpp"
#include "cann_debug/reader/parse_error.hpp"
#include "cann_debug/reader/reader_component.hpp"
#include "cann_debug/reader/reader_options.hpp"
#include "cann_debug/reader/sniff_helpers.hpp"
#include "event_proto.hpp"
#include "scalar_names.hpp"
#include "tfrecord.hpp"

namespace cann_debug::plugins {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr int kMaxFolderDepth = 3;

bool is_event_file_name(const std::string& name) {
  return name.find("tfevents") != std::string::npos;
}

// `path` itself, or the event files under the folder `path` (3 levels deep), by path.
std::vector<std::string> event_files(const std::string& path) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return {path};
  std::vector<std::string> files;
  for (auto it = fs::recursive_directory_iterator(path, fs::directory_options::skip_permission_denied, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    if (it.depth() >= kMaxFolderDepth) it.disable_recursion_pending();
    if (it->is_regular_file(ec) && is_event_file_name(it->path().filename().string()))
      files.push_back(it->path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

class EventFileSource final : public readers::ItemSource {
 public:
  explicit EventFileSource(const readers::ReaderContext& ctx)
      : files_(event_files(ctx.path)),
        max_record_bytes_(static_cast<std::uint64_t>(ctx.config.bytes("max_record_bytes"))),
        rank_(static_cast<std::int32_t>(ctx.config.integer("rank"))),
        node_(ctx.config.str("node")) {}

  bool next(readers::Items& out, std::size_t max_items) override {
    while (out.records.size() < max_items) {
      if (!records_) {
        if (next_file_ >= files_.size()) return false;
        path_ = files_[next_file_++];
        readers::open_input(path_, file_);
        records_.emplace(file_, path_, max_record_bytes_);
      }
      if (!out.records.empty() && out.source_path != path_) return true;  // one file per batch
      out.source_path = path_;
      try {
        if (!read_record(out)) end_file(out);
      } catch (const readers::ParseError&) {
        flush_pending(out);  // the steps read before the fault are delivered with it
        throw;
      }
    }
    return true;
  }

 private:
  bool read_record(readers::Items& out) {
    std::string data;
    const auto status = records_->next(data);
    if (status == tensorboard::TfRecordReader::Status::kEnd) return false;
    if (status == tensorboard::TfRecordReader::Status::kTorn) {
      out.warnings.push_back(fmt::format(
          "{}: the last record (at byte offset {}) is cut short after {} bytes (a writer still writing, or a "
          "crash); the {} records before it are read",
          path_, records_->record_offset(), records_->torn_bytes(), records_->records_read()));
      return false;
    }
    tensorboard::Event event;
    if (auto why = tensorboard::decode_event(data, event); !why.empty())
      readers::fail_file(path_, fmt::format("in record {} (at byte offset {}): {}", records_->records_read(),
                                            records_->record_offset(), why));
    std::vector<std::pair<std::string, double>> values;
    for (const auto& s : event.scalars)
      if (std::string field = tensorboard::field_of_tag(s.tag); !field.empty())
        values.emplace_back(field, s.value);
    if (values.empty()) return true;  // file_version, graphs, histograms, images
    if (event.step < 0)
      readers::fail_file(path_, fmt::format("in record {} (at byte offset {}): expected a step >= 0, got {}",
                                            records_->records_read(), records_->record_offset(), event.step));
    if (!pending_ || pending_->key.step_id != event.step) {
      flush_pending(out);
      pending_.emplace();
      pending_->key.step_id = event.step;
      if (std::isfinite(event.wall_time) && event.wall_time > 0 && event.wall_time < 9.2e9)
        pending_->key.timestamp_ns = static_cast<TimestampNs>(std::llround(event.wall_time * 1e9));
      if (rank_ >= 0) pending_->key.rank = rank_;
      if (!node_.empty()) pending_->key.node_id = node_;
      pending_->line = records_->records_read();  // the record number stands in for the line
      pending_->fields = json{{"step", event.step}, {"wall_time", event.wall_time}};
    }
    for (auto& [field, v] : values) {
      if (auto name = readers::nonfinite_name(v); !name.empty())
        pending_->fields[field] = std::string(name);
      else
        pending_->fields[field] = v;
    }
    return true;
  }

  void flush_pending(readers::Items& out) {
    if (!pending_) return;
    json& f = pending_->fields;
    bool train = f.contains("loss");
    bool val = false;
    for (const auto& [k, v] : f.items()) val = val || k.starts_with("val_");
    f["log_kind"] = !train && val ? "validation" : "train";
    out.records.push_back(std::move(*pending_));
    pending_.reset();
  }

  void end_file(readers::Items& out) {
    flush_pending(out);
    records_.reset();
    file_.close();
  }

  std::vector<std::string> files_;
  std::size_t next_file_ = 0;
  std::uint64_t max_record_bytes_;
  std::int32_t rank_;
  std::string node_;
  std::string path_;
  std::ifstream file_;
  std::optional<tensorboard::TfRecordReader> records_;
  std::optional<Record> pending_;
};

// By name (events.out.tfevents.*), or by a first record whose length CRC holds.
int sniff(const SniffInput& in) {
  if (in.is_directory) return 0;
  if (is_event_file_name(readers::base_name(in.path))) return 95;
  if (in.head.size() < 12) return 0;
  return tensorboard::masked_crc32c(in.head.substr(0, 8)) ==
                 (static_cast<std::uint32_t>(static_cast<unsigned char>(in.head[8])) |
                  static_cast<std::uint32_t>(static_cast<unsigned char>(in.head[9])) << 8 |
                  static_cast<std::uint32_t>(static_cast<unsigned char>(in.head[10])) << 16 |
                  static_cast<std::uint32_t>(static_cast<unsigned char>(in.head[11])) << 24)
             ? 80
             : 0;
}

readers::ReaderSpec make_spec() {
  Manifest m;
  m.type = "tensorboard_events";
  m.kind = ComponentKind::kReader;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description = "Reads TensorBoard event files (TFRecord, masked CRC-32C): one record per step of scalars";
  m.outputs = {
      {"records", std::string(RecordBatch::type_id), "one record per step with its scalars, in file order"}};
  m.options = {readers::path_option("an event file, or a folder searched 3 levels deep for *tfevents* files"),
               readers::batch_size_option(),
               {.name = "max_record_bytes",
                .type = OptionType::kSize,
                .description = "largest accepted record; a longer length is an error",
                .default_value = "64MiB",
                .required = false,
                .min = 16,
                .max = 1024.0 * 1024 * 1024,
                .enum_values = {}},
               readers::rank_option(),
               readers::node_option()};
  m.concurrency = Concurrency::serial();
  m.sample_yaml = "tensorboard_events/tb:\n  path: \"${input}/tensorboard\"\n";
  readers::ReaderSpec spec;
  spec.manifest = std::move(m);
  spec.open = [](const readers::ReaderContext& ctx) -> std::unique_ptr<readers::ItemSource> {
    return std::make_unique<EventFileSource>(ctx);
  };
  spec.sniff = sniff;
  spec.also_reads_directory = true;
  spec.schema = "tensorboard.scalars/1";
  return spec;
}

}  // namespace

const ComponentFactory& tensorboard_events_factory() {
  static const readers::ReaderFactory factory(make_spec());
  return factory;
}

}  // namespace cann_debug::plugins
