// nvidia_smi: `nvidia-smi -q -x` XML and the console table -> one device record per GPU and one event
// record per hardware condition (uncorrectable ECC, rows pending remapping or failed, pages pending
// retirement, hardware clock slowdowns, a narrowed PCIe link, a lost GPU).
#include "nvidia_smi.hpp"

#include <fstream>
#include <iterator>

#include <fmt/format.h>

#include "cann_debug/reader/claimed_files.hpp"
#include "cann_debug/reader/parse_error.hpp"
#include "cann_debug/reader/reader_component.hpp"
#include "cann_debug/reader/reader_options.hpp"
#include "cann_debug/reader/sniff_helpers.hpp"
#include "cann_debug/reader/text.hpp"
#include "gpu_state.hpp"
#include "smi_table.hpp"
#include "smi_xml.hpp"

namespace cann_debug::plugins {
namespace {

int sniff(const SniffInput& in);

std::string read_capped(const std::string& path, std::size_t max_bytes) {
  std::ifstream in;
  readers::open_input(path, in);
  // In chunks up to the cap: a capture is kilobytes, the cap a gigabyte.
  std::string text;
  char chunk[1 << 16];
  while (text.size() <= max_bytes && in.read(chunk, sizeof chunk).gcount() > 0)
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
  if (text.size() > max_bytes)
    readers::fail_file(
        path, fmt::format("expected at most max_file_bytes = {} bytes, got a larger file", max_bytes));
  return text;
}

/// Every line must be UTF-8 text: the error names the line and where it starts.
void check_text(std::string_view text, const std::string& path) {
  std::size_t at = 0;
  std::int64_t line = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    ++line;
    if (auto why = readers::why_not_text(text.substr(at, end - at)); !why.empty())
      readers::fail_line(path, line, at, why);
    at = end + 1;
  }
}

class SmiSource final : public readers::ItemSource {
 public:
  explicit SmiSource(const readers::ReaderContext& ctx)
      : files_(readers::claimed_files(ctx.path, sniff)),
        max_file_bytes_(static_cast<std::size_t>(ctx.config.bytes("max_file_bytes"))),
        node_(ctx.config.str("node")) {}

  bool next(readers::Items& out, std::size_t /*max_items*/) override {
    if (next_file_ >= files_.size()) return false;
    const std::string& path = files_[next_file_++];
    out.source_path = path;
    const std::string text = read_capped(path, max_file_bytes_);
    check_text(text, path);
    if (nvidia_smi::looks_like_xml_capture(text)) {
      const auto capture = nvidia_smi::parse_xml(text, path);
      out.records = nvidia_smi::records_of(capture.gpus, capture.time, node_);
    } else {
      const auto capture = nvidia_smi::parse_table(text, path);
      out.records = nvidia_smi::records_of(capture.gpus, capture.time, node_);
    }
    return next_file_ < files_.size();
  }

 private:
  std::vector<std::string> files_;
  std::size_t next_file_ = 0;
  std::size_t max_file_bytes_;
  std::string node_;
};

int sniff(const SniffInput& in) {
  if (in.is_directory || !readers::looks_text(in.head)) return 0;
  if (nvidia_smi::looks_like_xml_capture(in.head)) return 90;
  if (nvidia_smi::looks_like_table(in.head)) return 80;
  return 0;
}

readers::ReaderSpec make_spec() {
  Manifest m;
  m.type = "nvidia_smi";
  m.kind = ComponentKind::kReader;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description =
      "Reads nvidia-smi captures (-q -x XML, console table): a record per GPU, an event per hardware fault";
  m.outputs = {{"records", std::string(RecordBatch::type_id),
                "device records (log_kind device) and hardware events (log_kind event)"}};
  m.options = {
      readers::path_option("the capture, or a folder whose nvidia-smi captures are read in name order"),
      readers::batch_size_option(), readers::max_file_bytes_option(), readers::node_option()};
  m.concurrency = Concurrency::serial();
  m.sample_yaml = "nvidia_smi/node:\n  path: \"${input}/nvidia-smi.xml\"\n";
  readers::ReaderSpec spec;
  spec.manifest = std::move(m);
  spec.open = [](const readers::ReaderContext& ctx) -> std::unique_ptr<readers::ItemSource> {
    return std::make_unique<SmiSource>(ctx);
  };
  spec.sniff = sniff;
  spec.also_reads_directory = true;
  spec.schema = "nvidia_smi.devices/1";
  return spec;
}

}  // namespace

const ComponentFactory& nvidia_smi_factory() {
  static const readers::ReaderFactory factory(make_spec());
  return factory;
}

}  // namespace cann_debug::plugins
