// The noise margin between a best and a final level of the loss; see level_noise_margin.hpp.
#include "level_noise_margin.hpp"

#include <algorithm>
#include <cmath>

#include "loss_features.hpp"
#include "series_math.hpp"

namespace cann_debug::plugins::training_detail {
namespace {

// The fewest steps either side of the best level that the step noise behind the margin is measured over.
constexpr std::size_t kNoiseReach = 10;
// Fewest residuals behind a local noise estimate; fewer fall back on the whole run's.
constexpr std::size_t kMinLocalNoiseValues = 5;
// Standard error of a median of k normal values over sigma / sqrt(k): sqrt(pi / 2).
constexpr double kMedianStandardError = 1.2533;
// Standard errors of the difference between the final level and the best one that a rise must exceed.
constexpr double kSignificance = 2.0;

// Robust sigma of the step noise (`residual`: the loss around its running median) over loss positions
// [from, to); the whole run's where the stretch is too short to say.
double step_noise(const std::vector<double>& residual, std::size_t from, std::size_t to) {
  // residual[i] belongs to position i + kStepNoiseHalfWidth of the loss.
  const std::size_t lo = std::max(from, kStepNoiseHalfWidth) - kStepNoiseHalfWidth;
  const std::size_t hi = std::min(to, residual.size() + kStepNoiseHalfWidth) - kStepNoiseHalfWidth;
  if (hi < lo + kMinLocalNoiseValues) return robust_sigma(residual);
  return robust_sigma(std::vector<double>(residual.begin() + static_cast<std::ptrdiff_t>(lo),
                                          residual.begin() + static_cast<std::ptrdiff_t>(hi)));
}

}  // namespace

double level_noise_margin(const std::vector<double>& loss, std::size_t best_at, std::size_t hw,
                          std::size_t windows, std::size_t tail) {
  const std::vector<double> residual = residual_around_running_median(loss, kStepNoiseHalfWidth);
  if (residual.empty() || tail == 0) return 0.0;
  const std::size_t n = loss.size();
  const std::size_t reach = std::max(kNoiseReach, 3 * hw);
  const double best_noise = step_noise(residual, best_at > reach ? best_at - reach : 0, best_at + reach + 1);
  const double final_noise = step_noise(residual, n - std::min(n, std::max(tail, kNoiseReach)), n);
  const std::size_t width = 2 * hw + 1;
  const double se_best = kMedianStandardError * best_noise / std::sqrt(static_cast<double>(width));
  const double se_final = kMedianStandardError * final_noise / std::sqrt(static_cast<double>(tail));
  const double independent = std::max(2.0, static_cast<double>(windows) / static_cast<double>(width));
  return se_best * std::sqrt(2.0 * std::log(independent)) +
         kSignificance * std::sqrt(se_best * se_best + se_final * se_final);
}

}  // namespace cann_debug::plugins::training_detail
