// Class mix of the batches from the output layer's bias gradient; see batch_class_mix.hpp.
#include "batch_class_mix.hpp"

#include <cmath>
#include <string>

#include "series_math.hpp"

namespace cann_debug::plugins::training_detail {
namespace {

// Rows behind the median.
constexpr std::size_t kMinMixRows = 10;
// Rows whose loss fell under this share of the first loss are left out: a memorising network's per-sample
// errors vanish there faster than the bias gradient's rounding and momentum leftovers.
constexpr double kMinLossOfFirst = 0.1;

// The size of a sample's error (1 - p of its class) that a batch's mean cross-entropy L implies: 1 - e^-L,
// the error at the batch's geometric-mean probability. It is L for small losses and stays under 1 where
// a sample is confidently wrong, whose loss grows without bound while its bias gradient cannot pass
// sqrt(2): read against L, the first batches of a class after a block of another (loss high, gradient
// coherent) looked mixed.
double per_sample_error(double loss) {
  return -std::expm1(-loss);
}

}  // namespace

void add_batch_class_mix_feature(const std::vector<LogRow>& rows, std::optional<std::int64_t> batch_size,
                                 const std::optional<std::string>& output_bias, FeatureList& out) {
  if (!batch_size || *batch_size < 1 || !output_bias) return;
  const std::string& bias = *output_bias;
  std::optional<double> first;
  std::vector<double> imbalance;
  std::size_t from = rows.size(), to = 0;
  const double scale = std::sqrt(static_cast<double>(*batch_size));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const LogRow& r = rows[i];
    if (!r.loss || !std::isfinite(*r.loss) || *r.loss <= 0.0) continue;
    if (!first) first = *r.loss;
    if (*r.loss < kMinLossOfFirst * *first) continue;
    const auto it = r.layer_grad_norms.find(bias);
    if (it == r.layer_grad_norms.end() || !std::isfinite(it->second)) continue;
    imbalance.push_back(it->second * scale / per_sample_error(*r.loss));
    from = std::min(from, i);
    to = std::max(to, i);
  }
  if (imbalance.size() < kMinMixRows) return;
  out.add("grad.output_bias_imbalance", median(imbalance), "ratio",
          {rows_ref(rows, from, to, "steps", "grad.layer_norm"), {"layer", bias}});
}

}  // namespace cann_debug::plugins::training_detail
