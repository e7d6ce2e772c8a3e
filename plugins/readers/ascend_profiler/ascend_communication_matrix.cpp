// ascend_communication_matrix: communication_matrix.json / cluster_communication_matrix.json -> per-link
// data.
#include "ascend_communication_matrix.hpp"

#include "ascend_files/communication_matrix.hpp"
#include "ascend_files/file_kinds.hpp"
#include "cann_debug/reader/reader_component.hpp"
#include "cann_debug/reader/reader_options.hpp"

namespace cann_debug::plugins {
namespace {

readers::ReaderSpec ascend_communication_matrix_spec() {
  Manifest m;
  m.type = "ascend_communication_matrix";
  m.kind = ComponentKind::kReader;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description =
      "Reads an Ascend (cluster_)communication_matrix.json: records and bandwidth/size/time metrics per link";
  m.outputs = {{"records", std::string(RecordBatch::type_id), "one record per (step, op, link)"},
               {"metrics", std::string(MetricBatch::type_id), "per-link bandwidth, size and time"}};
  m.options = {
      readers::path_option("the communication_matrix.json or cluster_communication_matrix.json to read"),
      readers::batch_size_option(), readers::max_file_bytes_option(), readers::node_option()};
  m.concurrency = Concurrency::serial();
  m.sample_yaml =
      "ascend_communication_matrix/rank0:\n  path: "
      "\"${input}/ASCEND_PROFILER_OUTPUT/communication_matrix.json\"\n";
  readers::ReaderSpec spec;
  spec.manifest = std::move(m);
  spec.open = [](const readers::ReaderContext& ctx) {
    return ascend::open_communication_matrix(ctx.path, ascend::file_options(ctx.config));
  };
  spec.sniff = ascend::sniff_communication_matrix;
  spec.schema = ascend::record_schema(ascend::AscendFileKind::kCommunicationMatrix);
  return spec;
}

}  // namespace

const ComponentFactory& ascend_communication_matrix_factory() {
  static const readers::ReaderFactory factory(ascend_communication_matrix_spec());
  return factory;
}

}  // namespace cann_debug::plugins
