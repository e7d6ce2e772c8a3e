// communication.json (per rank, torch_npu) and cluster_communication.json (msprof-analyze): per HCCL op,
// "Communication Time Info" (times in ms, "Start Timestamp(us)" in epoch µs) and "Communication Bandwidth
// Info" per transport (RDMA, HCCS, PCIE, SDMA, SIO, ...: sizes in MB = 10^6 bytes, times in ms, bandwidth in
// GB/s = 10^9 bytes/s, "Size Distribution" {size MB: [count, total ms]}).
#pragma once

#include <memory>
#include <string>

#include "ascend_files/options.hpp"
#include "cann_debug/reader/item_source.hpp"

namespace cann_debug::plugins::ascend {

/// One Record per (step, op, rank): step, step_id, comm_kind, op, group, group_ranks, rank, aggregate,
/// the time fields in ns (start_timestamp_ns, elapse_time_ns, transit_time_ns, wait_time_ns,
/// synchronization_time_ns, idle_time_ns) and ratios, and bandwidth: {transport: {transit_size_bytes,
/// transit_time_ns, bandwidth_bytes_per_s, large_packet_ratio, size_distribution: [{size_bytes, count,
/// total_time_ns}]}}.
/// Metric points (timestamp = op start): comm.op.<time>_time (ns), comm.op.<x>_ratio (ratio),
/// comm.transport.transit_size (bytes), .transit_time (ns), .bandwidth (bytes/s), .large_packet_ratio
/// (ratio), labels rank, op, group, comm_kind, step, transport, source_name. A transport with neither bytes
/// nor time has no points (its zeros are "not used", not "0 bytes/s").
std::unique_ptr<readers::ItemSource> open_communication(const std::string& path,
                                                        const AscendFileOptions& options);

}  // namespace cann_debug::plugins::ascend
