// Loss features; see docs/features-training.md for the definitions and the reasons behind the constants.
#include "loss_features.hpp"

#include <algorithm>
#include <cmath>

#include "series_math.hpp"

namespace cann_debug::plugins::training_detail {
namespace {

// Share of the run at each end used for the initial and final loss levels.
constexpr std::size_t kEdgeDivisor = 10;
// Fewest finite values for noise and oscillation estimates.
constexpr std::size_t kMinNoiseValues = 20;
// Fewest pairs behind an autocorrelation.
constexpr std::size_t kMinPairs = 10;
// Longest oscillation period searched: each period costs a pass over the run, and a "period" of
// thousands of iterations is the learning curve itself, not an oscillation (a 500 000-iteration log
// would otherwise take hours).
constexpr std::size_t kMaxOscillationPeriod = 1000;
// A loss above twice its initial level: for a classifier that starts near chance level, training never
// legitimately doubles the loss; such steps are divergence excursions.
constexpr double kJumpFactor = 2.0;

struct Series {
  std::vector<std::size_t> at;  // positions in rows
  std::vector<double> value;
};

double median_of(const std::vector<double>& v) {
  return median(v);
}

}  // namespace

std::optional<std::int64_t> steps_per_epoch_from_rows(const std::vector<LogRow>& rows) {
  std::vector<double> lengths;
  std::optional<std::int64_t> current;
  std::int64_t run = 0;
  bool seen_change = false;
  for (const LogRow& r : rows) {
    if (!r.epoch) continue;
    if (current && *r.epoch != *current) {
      if (seen_change) lengths.push_back(static_cast<double>(run));
      seen_change = true;
      run = 0;
    }
    current = r.epoch;
    ++run;
  }
  if (lengths.empty()) return std::nullopt;
  return static_cast<std::int64_t>(std::llround(median(lengths)));
}

std::vector<std::int64_t> epoch_start_steps(const std::vector<LogRow>& rows, std::int64_t steps_per_epoch) {
  std::vector<std::int64_t> starts;
  for (std::size_t i = 1; i < rows.size(); ++i)
    if (rows[i].epoch && rows[i - 1].epoch && *rows[i].epoch != *rows[i - 1].epoch)
      starts.push_back(step_of(rows[i]));
  if (!starts.empty() || rows.empty() || steps_per_epoch < 1) return starts;
  const std::int64_t first = step_of(rows.front());
  const std::int64_t into = ((first % steps_per_epoch) + steps_per_epoch) % steps_per_epoch;
  for (std::int64_t t = first - into + steps_per_epoch; t <= step_of(rows.back()); t += steps_per_epoch)
    starts.push_back(t);
  return starts;
}

std::optional<std::size_t> first_epoch_start_row(const std::vector<LogRow>& rows,
                                                 std::int64_t steps_per_epoch) {
  const std::vector<std::int64_t> starts = epoch_start_steps(rows, steps_per_epoch);
  if (starts.empty()) return std::nullopt;
  return static_cast<std::size_t>(starts.front() - step_of(rows.front()));
}

void add_loss_features(const std::vector<LogRow>& rows, std::optional<std::int64_t> steps_per_epoch,
                       std::optional<std::int64_t> batch_size, FeatureList& out) {
  std::vector<LogRow> loss_rows;
  for (const LogRow& r : rows)
    if (r.loss) loss_rows.push_back(r);
  const std::size_t n = loss_rows.size();
  if (n == 0) return;
  const EvidenceRef whole = rows_ref(loss_rows, 0, n - 1, "steps", "loss");

  Series finite;
  std::size_t nonfinite = 0;
  std::optional<std::size_t> first_nonfinite;
  for (std::size_t i = 0; i < n; ++i) {
    const double v = *loss_rows[i].loss;
    if (std::isfinite(v)) {
      finite.at.push_back(i);
      finite.value.push_back(v);
    } else {
      ++nonfinite;
      if (!first_nonfinite) first_nonfinite = i;
    }
  }
  out.add("loss.nonfinite_fraction", static_cast<double>(nonfinite) / static_cast<double>(n), "ratio",
          {whole});
  if (first_nonfinite)
    out.add("loss.first_nonfinite_step",
            static_cast<double>(loss_rows[*first_nonfinite].step >= 0 ? loss_rows[*first_nonfinite].step
                                                                      : loss_rows[*first_nonfinite].index),
            "step", {row_ref(loss_rows, *first_nonfinite, "loss")});
  if (finite.value.empty()) return;

  // Initial and final levels: medians of the finite values in the first and last tenth of the rows.
  const std::size_t edge = std::max<std::size_t>(1, n / kEdgeDivisor);
  std::vector<double> head, tail;
  for (std::size_t k = 0; k < finite.at.size(); ++k) {
    if (finite.at[k] < edge) head.push_back(finite.value[k]);
    if (finite.at[k] >= n - edge) tail.push_back(finite.value[k]);
  }
  const EvidenceRef head_ref = rows_ref(loss_rows, 0, edge - 1, "window", "loss.initial");
  const EvidenceRef tail_ref = rows_ref(loss_rows, n - edge, n - 1, "window", "loss.final");
  const double initial = head.empty() ? std::nan("") : median_of(head);
  const double final_level = tail.empty() ? std::nan("") : median_of(tail);
  out.add("loss.initial", initial, "loss", {head_ref});
  out.add("loss.final", final_level, "loss", {tail_ref});
  if (initial > 0.0) {
    out.add("loss.final_over_initial", final_level / initial, "ratio", {head_ref, tail_ref});
    const auto max_it = std::max_element(finite.value.begin(), finite.value.end());
    const std::size_t max_at = finite.at[static_cast<std::size_t>(max_it - finite.value.begin())];
    out.add("loss.max_over_initial", *max_it / initial, "ratio",
            {head_ref, row_ref(loss_rows, max_at, "loss")});
    std::size_t jumps = 0, first_jump = n, last_jump = 0;
    for (std::size_t k = 0; k < finite.at.size(); ++k) {
      if (finite.value[k] <= kJumpFactor * initial) continue;
      ++jumps;
      first_jump = std::min(first_jump, finite.at[k]);
      last_jump = std::max(last_jump, finite.at[k]);
    }
    std::vector<EvidenceRef> jump_refs{head_ref};
    if (jumps > 0) jump_refs.push_back(rows_ref(loss_rows, first_jump, last_jump, "steps", "loss.jumps"));
    out.add("loss.jump_fraction", static_cast<double>(jumps) / static_cast<double>(finite.value.size()),
            "ratio", jump_refs);
  }

  // Step-to-step noise around a running median (trend removed).
  const std::size_t m = finite.value.size();
  if (m >= kMinNoiseValues) {
    const EvidenceRef finite_ref = rows_ref(loss_rows, finite.at.front(), finite.at.back(), "steps", "loss");
    const double noise = robust_sigma(residual_around_running_median(finite.value, kStepNoiseHalfWidth));
    const double level = median_of(finite.value);
    out.add("loss.residual_noise", noise, "loss", {finite_ref});
    if (level > 0.0) out.add("loss.relative_noise", noise / level, "ratio", {finite_ref});
    // Against the loss scale of the run (its first finite loss, before the updates moved the weights far):
    // the same for any level the run reaches, unlike noise over the run's median.
    const double first = finite.value.front();
    if (first > 0.0)
      out.add("loss.noise_over_first", noise / first, "ratio",
              {row_ref(loss_rows, finite.at.front(), "loss.first"), finite_ref});
    if (batch_size)
      out.add("loss.residual_noise_times_sqrt_batch", noise * std::sqrt(static_cast<double>(*batch_size)),
              "loss", {finite_ref});
  }

  // Oscillation and epoch periodicity need an unbroken series of finite values.
  if (nonfinite > 0 || n < kMinNoiseValues) return;
  const std::vector<double>& loss = finite.value;
  std::optional<double> best_ac;
  std::size_t best_period = 0;
  for (std::size_t period = 2; period <= std::min(n / 3, kMaxOscillationPeriod); ++period) {
    const auto ac = autocorrelation(residual_around_moving_mean(loss, period), period, kMinPairs);
    if (ac && (!best_ac || *ac > *best_ac)) {
      best_ac = ac;
      best_period = period;
    }
  }
  if (best_ac) {
    out.add("loss.oscillation_period", static_cast<double>(best_period), "steps", {whole});
    out.add("loss.oscillation_autocorr", *best_ac, "ratio", {whole});
    out.add("loss.oscillation_amplitude", rms(residual_around_moving_mean(loss, best_period)), "loss",
            {whole});
  }
  if (steps_per_epoch && *steps_per_epoch >= 2) {
    const auto period = static_cast<std::size_t>(*steps_per_epoch);
    const std::vector<double> residual = residual_around_moving_mean(loss, period);
    if (const auto ac = autocorrelation(residual, period, kMinPairs)) {
      const EvidenceRef epochs = rows_ref(loss_rows, 0, n - 1, "steps", "loss.epoch_period");
      out.add("loss.epoch_lag_autocorr", *ac, "ratio", {epochs});
      out.add("loss.epoch_periodic_amplitude", rms(residual), "loss", {epochs});
    }
  }
}

}  // namespace cann_debug::plugins::training_detail
