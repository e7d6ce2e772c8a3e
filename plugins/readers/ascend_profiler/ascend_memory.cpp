// ascend_memory: memory_record.csv / operator_memory.csv / npu_module_mem.csv -> records and, for the
// first and the last, the memory totals over time in bytes. Which file it is comes from its header.
#include "ascend_memory.hpp"

#include <fstream>

#include <fmt/format.h>

#include "ascend_files/file_kinds.hpp"
#include "cann_debug/reader/parse_error.hpp"
#include "cann_debug/reader/reader_component.hpp"
#include "cann_debug/reader/reader_options.hpp"

namespace cann_debug::plugins {
namespace {

// The kind's source, with the kind's record schema on every batch.
class MemorySource final : public readers::ItemSource {
 public:
  MemorySource(std::unique_ptr<readers::ItemSource> inner, std::string schema)
      : inner_(std::move(inner)), schema_(std::move(schema)) {}
  bool next(readers::Items& out, std::size_t max_items) override {
    out.schema = schema_;
    return inner_->next(out, max_items);
  }

 private:
  std::unique_ptr<readers::ItemSource> inner_;
  std::string schema_;
};

ascend::AscendFileKind kind_of_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot open", path));
  std::string head(4096, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  if (auto kind = ascend::memory_kind_of(head)) return *kind;
  if (head.empty()) return ascend::AscendFileKind::kMemoryRecord;  // an empty file has no rows either way
  throw readers::ParseError(fmt::format(
      "{}:1 (byte 0): expected the header of memory_record.csv (Component, Timestamp(us), Total "
      "Allocated(MB), Total Reserved(MB)), operator_memory.csv (Name, Size(KB), Allocation Time(us)) or "
      "npu_module_mem.csv (Component, Timestamp(us), Total Reserved(MB))",
      path));
}

readers::ReaderSpec ascend_memory_spec() {
  Manifest m;
  m.type = "ascend_memory";
  m.kind = ComponentKind::kReader;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description =
      "Reads an Ascend memory_record.csv, operator_memory.csv or npu_module_mem.csv: records and NPU memory "
      "in bytes";
  m.outputs = {{"records", std::string(RecordBatch::type_id), "one record per row"},
               {"metrics", std::string(MetricBatch::type_id),
                "npu.memory_allocated/reserved/active and npu.module_memory_reserved (bytes) over time"}};
  m.options = {
      readers::path_option("the memory_record.csv, operator_memory.csv or npu_module_mem.csv to read"),
      readers::batch_size_option(), readers::max_line_bytes_option(), readers::rank_option(),
      readers::node_option()};
  m.concurrency = Concurrency::serial();
  m.sample_yaml =
      "ascend_memory/rank0:\n  path: \"${input}/rank_0/ASCEND_PROFILER_OUTPUT/memory_record.csv\"\n  rank: "
      "0\n";
  readers::ReaderSpec spec;
  spec.manifest = std::move(m);
  spec.open = [](const readers::ReaderContext& ctx) -> std::unique_ptr<readers::ItemSource> {
    const auto kind = kind_of_file(ctx.path);
    return std::make_unique<MemorySource>(
        ascend::open_ascend_file(kind, ctx.path, ascend::file_options(ctx.config)),
        ascend::record_schema(kind));
  };
  spec.sniff = ascend::sniff_memory;
  spec.schema = ascend::record_schema(ascend::AscendFileKind::kMemoryRecord);
  return spec;
}

}  // namespace

const ComponentFactory& ascend_memory_factory() {
  static const readers::ReaderFactory factory(ascend_memory_spec());
  return factory;
}

}  // namespace cann_debug::plugins
