// ascend_step_trace: step_trace_time.csv / cluster_step_trace_time.csv -> records and per-rank step times.
#include "ascend_step_trace.hpp"

#include "ascend_files/file_kinds.hpp"
#include "ascend_files/step_trace.hpp"
#include "cann_debug/reader/reader_component.hpp"
#include "cann_debug/reader/reader_options.hpp"

namespace cann_debug::plugins {
namespace {

readers::ReaderSpec make_spec() {
  Manifest m;
  m.type = "ascend_step_trace";
  m.kind = ComponentKind::kReader;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description =
      "Reads an Ascend profiler step_trace_time.csv (per rank: Device_id, Step, Computing, Communication(Not "
      "Overlapped), Overlapped, Communication, Free, Stage, Bubble, Communication(Not Overlapped and Exclude "
      "Receive), Preparing; microseconds) or an msprof-analyze cluster_step_trace_time.csv (Step, Type rank|"
      "stage, Index, the same times, DP/PP/TP Index). Emits one record per row on 'records' and, on "
      "'metrics', "
      "one point per time column in ns: step.computing_time, step.communication_not_overlapped_time, "
      "step.overlapped_time, step.communication_time, step.free_time, step.stage_time, step.bubble_time, "
      "step.communication_not_overlapped_exclude_receive_time, step.preparing_time; labels rank (Type rank: "
      "Index; else the rank option), stage (Type stage: the rank tuple), device, type, dp_index/pp_index/"
      "tp_index, source_name (the original column). Keys: step_id (empty Step = none), rank, device. No "
      "timestamps (the file has none).";
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
  static const readers::ReaderFactory factory(make_spec());
  return factory;
}

}  // namespace cann_debug::plugins
