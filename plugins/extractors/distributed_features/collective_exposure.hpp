// How much of the ranks' communication the step could have hidden behind compute but did not
// (comm.exposed_ratio), with the waits for a late rank taken out on GPU timelines.
#pragma once

#include <vector>

#include "rank_trace.hpp"

namespace cann_debug::plugins::distributed {

struct CollectiveExposure {
  double collective_ns = 0;  // communication time that overlap could hide
  double exposed_ns = 0;     // the part of it not overlapped
};

/// Sums over the ranks (each a list of profiled steps) and their steps.
///
/// CPU steps count as measured: their waits for other ranks sit inside backward (DDP's hooks), so they are
/// not exposed anyway. On a GPU a rank that reaches a collective early waits inside the NCCL kernel until
/// the last rank arrives; with no compute left to run, that wait would count as exposed although no
/// overlap could hide it (it is the late rank's cost, which rank.collective_wait_skew measures). So for a
/// step present on every device-timeline rank, each rank's wait = its NCCL time - the shortest NCCL time of
/// that step (the last rank to arrive hardly waits); the rank's transfer = NCCL time - wait and its exposed
/// transfer = max(0, exposed time - wait). Steps missing on some rank count as measured.
CollectiveExposure exposure_without_waits(const std::vector<std::vector<StepBreakdown>>& ranks);

}  // namespace cann_debug::plugins::distributed
