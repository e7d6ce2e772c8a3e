// kernel_log: dmesg / journalctl -k output -> one event record per hardware-relevant kernel message.
#include "kernel_log.hpp"

#include <fstream>

#include <fmt/format.h>

#include "cann_debug/reader/claimed_files.hpp"
#include "cann_debug/reader/line_reader.hpp"
#include "cann_debug/reader/parse_error.hpp"
#include "cann_debug/reader/reader_component.hpp"
#include "cann_debug/reader/reader_options.hpp"
#include "cann_debug/reader/sniff_helpers.hpp"
#include "cann_debug/reader/text.hpp"
#include "kernel_events.hpp"

namespace cann_debug::plugins {
namespace {

int sniff(const SniffInput& in);

class KernelLogSource final : public readers::ItemSource {
 public:
  explicit KernelLogSource(const readers::ReaderContext& ctx)
      : files_(readers::claimed_files(ctx.path, sniff)),
        max_line_bytes_(static_cast<std::size_t>(ctx.config.bytes("max_line_bytes"))),
        node_(ctx.config.str("node")) {}

  bool next(readers::Items& out, std::size_t max_items) override {
    std::string line;
    while (out.records.size() < max_items) {
      if (!lines_) {
        if (next_file_ >= files_.size()) return false;
        path_ = files_[next_file_++];
        readers::open_input(path_, file_);
        lines_.emplace(file_, max_line_bytes_);
      }
      if (!out.records.empty() && out.source_path != path_) return true;  // one file per batch
      out.source_path = path_;
      const auto status = lines_->next(line);
      if (status == readers::LineReader::Status::kEnd) {
        if (lines_->read_error()) fail("read error after this line");
        lines_.reset();
        file_.close();
        continue;
      }
      if (status == readers::LineReader::Status::kTooLong)
        fail(
            fmt::format("expected a line of at most max_line_bytes = {} bytes, got a longer one (binary data "
                        "or a missing newline?)",
                        lines_->max_line_bytes()));
      if (auto why = readers::why_not_text(line); !why.empty()) fail(why);
      TimestampNs time = kNoTimestamp;
      double uptime = -1;
      const std::string_view message = kernel_log::split_kernel_line(line, time, uptime);
      auto e = kernel_log::classify_kernel_message(message);
      if (!e) continue;
      Record r;
      r.line = lines_->line_number();
      r.key.timestamp_ns = time;
      if (!node_.empty()) r.key.node_id = node_;
      r.fields = {{"log_kind", "event"},       {"event", e->event},
                  {"component", e->component}, {"severity", e->severity},
                  {"hardware", e->hardware},   {"message", readers::printable(message, 400)}};
      if (!e->code.empty()) r.fields["code"] = e->code;
      if (!e->device.empty()) r.fields["device"] = e->device;
      if (!e->process.empty()) r.fields["process"] = readers::printable(e->process, 64);
      if (e->pid >= 0) r.fields["pid"] = e->pid;
      if (!e->meaning.empty()) r.fields["meaning"] = e->meaning;
      if (!e->action.empty()) r.fields["action"] = e->action;
      if (uptime >= 0) r.fields["uptime_s"] = uptime;
      out.records.push_back(std::move(r));
    }
    return true;
  }

 private:
  [[noreturn]] void fail(const std::string& what) {
    readers::fail_line(path_, lines_->line_number(), lines_->line_offset(), what);
  }

  std::vector<std::string> files_;
  std::size_t next_file_ = 0;
  std::size_t max_line_bytes_;
  std::string node_;
  std::string path_;
  std::ifstream file_;
  std::optional<readers::LineReader> lines_;
};

// Most head lines start with a dmesg timestamp or carry a journal " kernel: " tag; NVRM lines score higher.
int sniff(const SniffInput& in) {
  if (in.is_directory || !readers::looks_text(in.head)) return 0;
  const auto lines = readers::head_lines(in.head, 200);
  if (lines.empty()) return 0;
  std::size_t stamped = 0, nvrm = 0;
  for (std::string_view l : lines) {
    TimestampNs t = kNoTimestamp;
    double up = -1;
    const std::string_view message = kernel_log::split_kernel_line(l, t, up);
    if (t != kNoTimestamp || up >= 0 || message.size() != l.size()) ++stamped;
    if (l.find("NVRM:") != std::string_view::npos) ++nvrm;
  }
  if (stamped * 2 < lines.size()) return 0;
  return nvrm > 0 ? 80 : 65;
}

readers::ReaderSpec make_spec() {
  Manifest m;
  m.type = "kernel_log";
  m.kind = ComponentKind::kReader;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description = "Reads kernel logs (dmesg, dmesg -T, journalctl -k): Xid, ECC, PCIe AER, OOM-kill events";
  m.outputs = {
      {"records", std::string(RecordBatch::type_id), "one event record per hardware-relevant message"}};
  m.options = {readers::path_option("the kernel log, or a folder whose kernel logs are read in name order"),
               readers::batch_size_option(), readers::max_line_bytes_option(), readers::node_option()};
  m.concurrency = Concurrency::serial();
  m.sample_yaml = "kernel_log/dmesg:\n  path: \"${input}/dmesg.log\"\n";
  readers::ReaderSpec spec;
  spec.manifest = std::move(m);
  spec.open = [](const readers::ReaderContext& ctx) -> std::unique_ptr<readers::ItemSource> {
    return std::make_unique<KernelLogSource>(ctx);
  };
  spec.sniff = sniff;
  spec.also_reads_directory = true;
  spec.schema = "kernel_log.events/1";
  return spec;
}

}  // namespace

const ComponentFactory& kernel_log_factory() {
  static const readers::ReaderFactory factory(make_spec());
  return factory;
}

}  // namespace cann_debug::plugins
