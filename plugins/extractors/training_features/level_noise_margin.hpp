// How far a final level of the loss may sit above the lowest smoothed level a run reached by step noise
// alone. The lowest of many noisy running medians lies below the level they follow, so a run whose per-step
// loss is noisy (a batch of a few samples, a squared error whose per-sample spread is of the order of the
// loss) seems to climb back from its best level with nothing behind it but that noise. The rebound and the
// late creep of the loss both subtract this margin.
#pragma once

#include <cstddef>
#include <vector>

namespace cann_debug::plugins::training_detail {

/// The margin for `loss` (finite values in step order) whose running median of half width `hw` has its
/// minimum at loss position `best_at`, searched over `windows` positions, against a final level that is the
/// median of the last `tail` values: the expected minimum of the independent windows below their level
/// (sqrt(2 ln k) of a window median's standard error) plus two standard errors of the difference of the two
/// levels, from the step noise (robust sigma around an 11-step running median) near the best level and in
/// the final stretch. 0 when the run is too short to measure its noise.
double level_noise_margin(const std::vector<double>& loss, std::size_t best_at, std::size_t hw,
                          std::size_t windows, std::size_t tail);

}  // namespace cann_debug::plugins::training_detail
