// Whether every step trains on the same batch; see repeated_batch.hpp.
#include "repeated_batch.hpp"

#include <cmath>

#include "series_math.hpp"

namespace cann_debug::plugins::training_detail {
namespace {

// Half width of the window whose median the loss is compared with: 21 steps, the window the lag-1
// correlation of the loss is detrended over.
constexpr std::size_t kHalfWidth = 10;
// Fewest steps looked at.
constexpr std::size_t kMinSteps = 20;

}  // namespace

std::optional<double> on_trend_fraction(const std::vector<double>& loss, std::size_t half_width) {
  if (half_width == 0) return std::nullopt;
  const std::vector<double> median = running_median(loss, half_width);
  if (median.size() < kMinSteps) return std::nullopt;
  std::size_t on_trend = 0;
  for (std::size_t i = 0; i < median.size(); ++i) {
    const std::size_t at = i + half_width;  // >= 1
    if (loss[at] == median[i] && loss[at] != loss[at - 1]) ++on_trend;
  }
  return static_cast<double>(on_trend) / static_cast<double>(median.size());
}

void add_repeated_batch_features(const std::vector<LogRow>& rows, const RunConfig& config, FeatureList& out) {
  // The finite losses, and the first and last row that holds one (the rows themselves are not copied: a row
  // carries its per-layer gradient norms).
  std::vector<double> loss;
  std::size_t first = 0, last = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (!rows[i].loss || !std::isfinite(*rows[i].loss)) continue;
    if (loss.empty()) first = i;
    last = i;
    loss.push_back(*rows[i].loss);
  }
  const auto share = on_trend_fraction(loss, kHalfWidth);
  if (!share) return;
  const EvidenceRef steps = rows_ref(rows, first, last, "steps", "loss");
  out.add("loss.on_trend_fraction", *share, "ratio", {steps});
  if (config.dataset_samples && config.batch_size && *config.dataset_samples > *config.batch_size)
    out.add("data.repeated_batch_share", *share, "ratio", {steps});
}

}  // namespace cann_debug::plugins::training_detail
