// communication_matrix.json (per rank) and cluster_communication_matrix.json: per op (type, with the
// parser's -top1 / -middle / -bottom1..3 / -total link selections) and src-dst link: "Transport Type"
// (LOCAL, HCCS, PCIE, RDMA, SIO, SDMA), "Transit Size(MB)", "Transit Time(ms)", "Bandwidth(GB/s)", "Op Name".
#pragma once

#include <memory>
#include <string>

#include "ascend_files/options.hpp"
#include "cann_debug/reader/item_source.hpp"

namespace cann_debug::plugins::ascend {

/// One Record per (step, op, link): step, step_id, comm_kind, op, op_type, selection, group, group_ranks,
/// link ("0-1"), src_rank, dst_rank, transport_type, transit_size_bytes, transit_time_ns,
/// bandwidth_bytes_per_s, op_name. Key rank = the link's source rank.
/// Metric points: comm.link.bandwidth (bytes/s), comm.link.transit_size (bytes), comm.link.transit_time
/// (ns), labels rank (= src), src_rank, dst_rank, link, transport, op, selection, group, step, source_name.
/// The -total entry repeats what the top/bottom selections show: filter on `selection`.
std::unique_ptr<readers::ItemSource> open_communication_matrix(const std::string& path,
                                                               const AscendFileOptions& options);

}  // namespace cann_debug::plugins::ascend
