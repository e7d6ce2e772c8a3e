// ascend_kernel_details: kernel_details.csv -> record.batch/1, one record per device task.
#include "ascend_kernel_details.hpp"

#include "ascend_files/file_kinds.hpp"
#include "ascend_files/kernel_details.hpp"
#include "cann_debug/reader/reader_component.hpp"
#include "cann_debug/reader/reader_options.hpp"

namespace cann_debug::plugins {
namespace {

readers::ReaderSpec ascend_kernel_details_spec() {
  Manifest m;
  m.type = "ascend_kernel_details";
  m.kind = ComponentKind::kReader;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description =
      "Reads an Ascend profiler kernel_details.csv: one typed record per device task, with exact start_ns";
  m.outputs = {{"records", std::string(RecordBatch::type_id), "one record per device task, in file order"}};
  m.options = {readers::path_option("the kernel_details.csv to read"), readers::batch_size_option(),
               readers::max_line_bytes_option(), readers::rank_option(), readers::node_option()};
  m.concurrency = Concurrency::serial();
  m.sample_yaml =
      "ascend_kernel_details/rank0:\n"
      "  path: \"${input}/x_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv\"\n"
      "  rank: 0\n";
  readers::ReaderSpec spec;
  spec.manifest = std::move(m);
  spec.open = [](const readers::ReaderContext& ctx) {
    return ascend::open_kernel_details(ctx.path, ascend::file_options(ctx.config));
  };
  spec.sniff = ascend::sniff_kernel_details;
  spec.schema = ascend::record_schema(ascend::AscendFileKind::kKernelDetails);
  return spec;
}

}  // namespace

const ComponentFactory& ascend_kernel_details_factory() {
  static const readers::ReaderFactory factory(ascend_kernel_details_spec());
  return factory;
}

}  // namespace cann_debug::plugins
