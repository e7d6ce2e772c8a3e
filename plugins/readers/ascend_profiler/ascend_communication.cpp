// ascend_communication: communication.json / cluster_communication.json -> per-op records and metrics.
#include "ascend_communication.hpp"

#include "ascend_files/communication.hpp"
#include "ascend_files/file_kinds.hpp"
#include "cann_debug/reader/reader_component.hpp"
#include "cann_debug/reader/reader_options.hpp"

namespace cann_debug::plugins {
namespace {

readers::ReaderSpec ascend_communication_spec() {
  Manifest m;
  m.type = "ascend_communication";
  m.kind = ComponentKind::kReader;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description = "Reads an Ascend (cluster_)communication.json: records and metrics per (step, op, rank)";
  m.outputs = {
      {"records", std::string(RecordBatch::type_id), "one record per (step, op, rank)"},
      {"metrics", std::string(MetricBatch::type_id), "op times and per-transport sizes and bandwidth"}};
  m.options = {readers::path_option("the communication.json or cluster_communication.json to read"),
               readers::batch_size_option(), readers::max_file_bytes_option(), readers::rank_option(),
               readers::node_option()};
  m.concurrency = Concurrency::serial();
  m.sample_yaml =
      "ascend_communication/cluster:\n  path: "
      "\"${input}/cluster_analysis_output/cluster_communication.json\"\n";
  readers::ReaderSpec spec;
  spec.manifest = std::move(m);
  spec.open = [](const readers::ReaderContext& ctx) {
    return ascend::open_communication(ctx.path, ascend::file_options(ctx.config));
  };
  spec.sniff = ascend::sniff_communication;
  spec.schema = ascend::record_schema(ascend::AscendFileKind::kCommunication);
  return spec;
}

}  // namespace

const ComponentFactory& ascend_communication_factory() {
  static const readers::ReaderFactory factory(ascend_communication_spec());
  return factory;
}

}  // namespace cann_debug::plugins
