// ascend_communication: communication.json / cluster_communication.json -> per-op records and metrics.
#include "ascend_communication.hpp"

#include "ascend_files/communication.hpp"
#include "ascend_files/file_kinds.hpp"
#include "cann_debug/reader/reader_component.hpp"
#include "cann_debug/reader/reader_options.hpp"

namespace cann_debug::plugins {
namespace {

readers::ReaderSpec make_spec() {
  Manifest m;
  m.type = "ascend_communication";
  m.kind = ComponentKind::kReader;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description =
      "Reads an Ascend profiler communication.json (per rank: step<N>/collective|p2p/<op>@<group>) or an "
      "msprof-analyze cluster_communication.json ((<ranks>)/step/<op>@<group>/<rank>). Units are normalised: "
      "times in ms and 'Start Timestamp(us)' -> ns (exact integers from the decimal digits), sizes in MB "
      "(10^6 bytes) -> bytes, bandwidth GB/s -> bytes/s. Emits one record per (step, op, rank) on 'records' "
      "(fields step, comm_kind, op, group, group_ranks, rank, start_timestamp_ns, elapse_time_ns, "
      "transit_time_ns, wait_time_ns, synchronization_time_ns, idle_time_ns, wait_time_ratio, "
      "synchronization_time_ratio, bandwidth{transport: {transit_size_bytes, transit_time_ns, "
      "bandwidth_bytes_per_s, large_packet_ratio, size_distribution[{size_bytes, count, total_time_ns}]}}) "
      "and "
      "on 'metrics' comm.op.elapse_time / transit_time / wait_time / synchronization_time / idle_time (ns), "
      "comm.op.wait_time_ratio / synchronization_time_ratio (ratio), comm.transport.transit_size (bytes), "
      "comm.transport.transit_time (ns), comm.transport.bandwidth (bytes/s), "
      "comm.transport.large_packet_ratio "
      "(ratio) with labels rank, op, group, comm_kind, step, transport, source_name; timestamp = op start. "
      "Python's bare NaN/Infinity tokens are accepted. A bad value stops the reader with '<path>:<line>: in "
      "<JSON pointer>: <what was expected> (at byte offset N)' after a partial batch.";
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
  static const readers::ReaderFactory factory(make_spec());
  return factory;
}

}  // namespace cann_debug::plugins
