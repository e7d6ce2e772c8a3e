// A steady cycle in the batches' class mix; see batch_mix_cycle.hpp.
#include "batch_mix_cycle.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "epoch_position.hpp"
#include "series_math.hpp"

namespace cann_debug::plugins::training_detail {
namespace {

// The lowest frequency index tested: periods up to a third of a segment (a longer one has too few cycles in
// a segment to stand apart from what the segment's line leaves of the learning curve).
constexpr std::size_t kLowestIndex = 3;

/// The series less its least-squares line.
std::vector<double> less_its_line(const std::vector<double>& v) {
  const std::size_t n = v.size();
  const double centre = static_cast<double>(n - 1) / 2.0;
  const double mean_v = mean(v);
  double sxx = 0.0, sxy = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double x = static_cast<double>(i) - centre;
    sxx += x * x;
    sxy += x * (v[i] - mean_v);
  }
  const double slope = sxy / sxx;
  std::vector<double> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = v[i] - mean_v - slope * (static_cast<double>(i) - centre);
  return out;
}

}  // namespace

double log_normal_upper_tail(double z) {
  if (z < 5.0) return std::log(0.5 * std::erfc(z / std::numbers::sqrt2));
  // Mills' ratio with three terms of its asymptotic series (relative error under 1e-4 from z = 5).
  const double z2 = z * z;
  return -z2 / 2.0 - std::log(z * std::sqrt(2.0 * std::numbers::pi)) +
         std::log(1.0 - 1.0 / z2 + 3.0 / (z2 * z2) - 15.0 / (z2 * z2 * z2));
}

double normal_deviate_of_log_tail(double log_p) {
  if (log_p >= 0.0) return -40.0;
  double lo = -40.0, hi = 40.0;
  // The tail falls as z grows: bisect to well under a hundredth of a deviate.
  while (log_normal_upper_tail(hi) > log_p) hi *= 2.0;
  for (int i = 0; i < 80; ++i) {
    const double mid = (lo + hi) / 2.0;
    (log_normal_upper_tail(mid) > log_p ? lo : hi) = mid;
  }
  return (lo + hi) / 2.0;
}

std::optional<CycleTest> cycle_test(const std::vector<double>& series, std::optional<std::size_t> epoch,
                                    std::size_t segment) {
  // An epoch short enough to lie in the band: segments of whole epochs, so that its harmonics fall on
  // ordinates of their own and are left out (what comes back every epoch is the epoch tests' to read).
  const bool epoch_in_band = epoch && *epoch >= 2 && *epoch * kLowestIndex <= segment;
  if (epoch_in_band) segment = *epoch * (segment / *epoch);
  if (segment < 4 * kLowestIndex) return std::nullopt;
  const std::size_t segments = series.size() / segment;
  if (segments < 3) return std::nullopt;
  const std::size_t highest_index = (segment - 1) / 2;  // below the Nyquist ordinate, which has one degree
  std::vector<bool> tested(highest_index + 1, false);
  for (std::size_t k = kLowestIndex; k <= highest_index; ++k)
    tested[k] = !epoch_in_band || k % (segment / *epoch) != 0;
  std::vector<double> power(highest_index + 1, 0.0);
  // The segment's roots of unity: ordinate k at step t turns by k * t mod segment of them.
  std::vector<double> cosine(segment), sine(segment);
  for (std::size_t j = 0; j < segment; ++j) {
    const double angle = 2.0 * std::numbers::pi * static_cast<double>(j) / static_cast<double>(segment);
    cosine[j] = std::cos(angle);
    sine[j] = std::sin(angle);
  }
  for (std::size_t s = 0; s < segments; ++s) {
    const auto from = series.begin() + static_cast<std::ptrdiff_t>(s * segment);
    const std::vector<double> r =
        less_its_line(ranks(std::vector<double>(from, from + static_cast<std::ptrdiff_t>(segment))));
    for (std::size_t k = kLowestIndex; k <= highest_index; ++k) {
      if (!tested[k]) continue;
      double re = 0.0, im = 0.0;
      for (std::size_t t = 0; t < segment; ++t) {
        re += r[t] * cosine[k * t % segment];
        im += r[t] * sine[k * t % segment];
      }
      power[k] += re * re + im * im;
    }
  }
  std::size_t ordinates = 0, peak = 0;
  double total = 0.0;
  for (std::size_t k = kLowestIndex; k <= highest_index; ++k) {
    if (!tested[k]) continue;
    ++ordinates;
    total += power[k];
    if (peak == 0 || power[k] > power[peak]) peak = k;
  }
  if (ordinates < 3) return std::nullopt;
  const double rest = (total - power[peak]) / static_cast<double>(ordinates - 1);
  if (!(rest > 0.0)) return std::nullopt;
  CycleTest test;
  test.segments = segments;
  test.segment = segment;
  test.ordinates = ordinates;
  test.peak_over_rest = power[peak] / rest;
  test.period_steps = static_cast<double>(segment) / static_cast<double>(peak);
  // One ordinate's tail, then the chance that any of the band's reaches it (Sidak's 1 - (1 - p)^M, which is
  // M p where p is small and stays under 1 where it is not).
  const double dof = 2.0 * static_cast<double>(segments);
  const double single = f_to_zscore(test.peak_over_rest, static_cast<std::size_t>(dof),
                                    static_cast<std::size_t>(dof * static_cast<double>(ordinates - 1)));
  const double log_single = log_normal_upper_tail(single);
  const double m = static_cast<double>(ordinates);
  const double log_any = log_single < -30.0 ? log_single + std::log(m)
                                            : std::log(-std::expm1(m * std::log1p(-std::exp(log_single))));
  // A band whose highest ordinate is no higher than noise makes anywhere: the ordinate's own deviate, not
  // the floor a tail of 1 would give.
  test.zscore = log_any < 0.0 ? normal_deviate_of_log_tail(log_any) : single;
  return test;
}

void add_batch_mix_cycle_features(const std::vector<LogRow>& rows,
                                  std::optional<std::int64_t> steps_per_epoch,
                                  const std::optional<std::string>& output_bias, FeatureList& out) {
  if (rows.empty() || !output_bias || !one_row_per_step(rows)) return;
  const std::string& bias = *output_bias;
  std::vector<double> log_norm;
  log_norm.reserve(rows.size());
  for (const LogRow& r : rows) {
    const auto it = r.layer_grad_norms.find(bias);
    if (it == r.layer_grad_norms.end() || !std::isfinite(it->second) || !(it->second > 0.0)) return;
    log_norm.push_back(std::log(it->second));
  }
  std::optional<std::size_t> epoch;
  if (steps_per_epoch && *steps_per_epoch > 0) epoch = static_cast<std::size_t>(*steps_per_epoch);
  const auto test = cycle_test(log_norm, epoch);
  if (!test) return;
  const std::vector<EvidenceRef> evidence = {
      rows_ref(rows, 0, test->segments * test->segment - 1, "steps", "grad.layer_norm"), {"layer", bias}};
  out.add("grad.output_bias_cycle_zscore", test->zscore, "sd", evidence);
  out.add("grad.output_bias_cycle_period", test->period_steps, "steps", evidence);
}

}  // namespace cann_debug::plugins::training_detail
