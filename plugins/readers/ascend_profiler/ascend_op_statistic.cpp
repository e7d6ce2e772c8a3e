// ascend_op_statistic: op_statistic.csv -> record.batch/1, one record per operator type.
#include "ascend_op_statistic.hpp"

#include "ascend_files/file_kinds.hpp"
#include "ascend_files/op_statistic.hpp"
#include "cann_debug/reader/reader_component.hpp"
#include "cann_debug/reader/reader_options.hpp"

namespace cann_debug::plugins {
namespace {

readers::ReaderSpec ascend_op_statistic_spec() {
  Manifest m;
  m.type = "ascend_op_statistic";
  m.kind = ComponentKind::kReader;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description = "Reads an Ascend profiler op_statistic.csv: one typed record per operator type";
  m.outputs = {{"records", std::string(RecordBatch::type_id), "one record per operator type"}};
  m.options = {readers::path_option("the op_statistic.csv to read"), readers::batch_size_option(),
               readers::max_line_bytes_option(), readers::rank_option(), readers::node_option()};
  m.concurrency = Concurrency::serial();
  m.sample_yaml =
      "ascend_op_statistic/rank0:\n  path: \"${input}/ASCEND_PROFILER_OUTPUT/op_statistic.csv\"\n";
  readers::ReaderSpec spec;
  spec.manifest = std::move(m);
  spec.open = [](const readers::ReaderContext& ctx) {
    return ascend::open_op_statistic(ctx.path, ascend::file_options(ctx.config));
  };
  spec.sniff = ascend::sniff_op_statistic;
  spec.schema = ascend::record_schema(ascend::AscendFileKind::kOpStatistic);
  return spec;
}

}  // namespace

const ComponentFactory& ascend_op_statistic_factory() {
  static const readers::ReaderFactory factory(ascend_op_statistic_spec());
  return factory;
}

}  // namespace cann_debug::plugins
