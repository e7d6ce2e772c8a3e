// ascend_step_trace: step_trace_time.csv / cluster_step_trace_time.csv -> records and per-rank step times.
#include "ascend_step_trace.hpp"

#include "ascend_files/file_kinds.hpp"
#include "ascend_files/step_trace.hpp"
#include "cann_debug/reader/reader_component.hpp"
#include "cann_debug/reader/reader_options.hpp"

namespace cann_debug::plugins {
namespace {

readers::ReaderSpec ascend_step_trace_spec() {
  Manifest m;
  m.type = "ascend_step_trace";
  m.kind = ComponentKind::kReader;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description =
      "Reads an Ascend (cluster_)step_trace_time.csv: a record per row and step time components in ns";
  m.outputs = {{"records", std::string(RecordBatch::type_id), "one record per row"},
               {"metrics", std::string(MetricBatch::type_id), "step time components per rank (ns)"}};
  m.options = {readers::path_option("the step_trace_time.csv or cluster_step_trace_time.csv to read"),
               readers::batch_size_option(), readers::max_line_bytes_option(), readers::rank_option(),
               readers::node_option()};
  m.concurrency = Concurrency::serial();
  m.sample_yaml =
      "ascend_step_trace/cluster:\n  path: "
      "\"${input}/cluster_analysis_output/cluster_step_trace_time.csv\"\n";
  readers::ReaderSpec spec;
  spec.manifest = std::move(m);
  spec.open = [](const readers::ReaderContext& ctx) {
    return ascend::open_step_trace(ctx.path, ascend::file_options(ctx.config));
  };
  spec.sniff = ascend::sniff_step_trace;
  spec.schema = ascend::record_schema(ascend::AscendFileKind::kStepTrace);
  return spec;
}

}  // namespace

const ComponentFactory& ascend_step_trace_factory() {
  static const readers::ReaderFactory factory(ascend_step_trace_spec());
  return factory;
}

}  // namespace cann_debug::plugins
