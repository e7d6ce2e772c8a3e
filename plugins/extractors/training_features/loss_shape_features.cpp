// Loss-curve shape features; see docs/features-training.md for the definitions and the reasons behind the
// constants.
#include "loss_shape_features.hpp"

#include <algorithm>
#include <cmath>

#include "epoch_position.hpp"
#include "epoch_start_jump.hpp"
#include "level_noise_margin.hpp"
#include "loss_features.hpp"
#include "series_math.hpp"

namespace cann_debug::plugins::training_detail {
namespace {

// Fewest finite values for the shape features.
constexpr std::size_t kMinValues = 20;
// Half width of the running median that smooths the loss for its peak and minimum: at least this many
// steps, or a fiftieth of the run.
constexpr std::size_t kMinSmoothHalfWidth = 2;
// Half width of the running median the lag-1 autocorrelation is measured around: wide enough that a run of
// similar batches (a class block) stays in the residual, narrow enough to follow the learning curve.
constexpr std::size_t kTrendHalfWidth = 10;
// Fewest pairs behind an autocorrelation at the epoch lag (two epochs of a short run).
constexpr std::size_t kMinShapePairs = 10;
// Fewest pairs behind a lag-1 autocorrelation: its standard error is about 1/sqrt(pairs), so 30 pairs put
// the 0.15-0.3 thresholds of the graph one to two standard errors away from zero; fewer say nothing.
constexpr std::size_t kMinLag1Pairs = 30;
// Fewest lags around the epoch lag whose correlations make the reference for the epoch lag's z-score.
constexpr std::size_t kMinNeighbourLags = 6;
// How far the rank correlation at exactly the epoch lag stands above the correlations at the lags around
// it (half an epoch to one and a half, the epoch lag +-2 left out), in their standard deviations. The same
// batches one epoch later give a sharp peak there even when batches differ little in difficulty; a fresh
// shuffle cannot make one lag special.
std::optional<double> epoch_lag_zscore(const std::vector<double>& ranked, std::size_t period) {
  const auto at_period = autocorrelation(ranked, period, kMinShapePairs);
  if (!at_period) return std::nullopt;
  std::vector<double> around;
  for (std::size_t lag = std::max<std::size_t>(2, period / 2); lag <= period + period / 2; ++lag) {
    if (lag + 2 >= period && lag <= period + 2) continue;
    if (const auto r = autocorrelation(ranked, lag, kMinShapePairs)) around.push_back(*r);
  }
  if (around.size() < kMinNeighbourLags) return std::nullopt;
  const double m = mean(around);
  double var = 0.0;
  for (double r : around) var += (r - m) * (r - m);
  const double sd = std::sqrt(var / static_cast<double>(around.size() - 1));
  if (sd <= 0.0) return std::nullopt;
  return (*at_period - m) / sd;
}

}  // namespace

void add_loss_shape_features(const std::vector<LogRow>& rows, std::optional<std::int64_t> steps_per_epoch,
                             FeatureList& out) {
  std::vector<LogRow> loss_rows;
  for (const LogRow& r : rows)
    if (r.loss && std::isfinite(*r.loss)) loss_rows.push_back(r);
  const std::size_t n = loss_rows.size();
  if (n < kMinValues) return;
  std::vector<double> loss(n);
  for (std::size_t i = 0; i < n; ++i) loss[i] = *loss_rows[i].loss;
  const EvidenceRef whole = rows_ref(loss_rows, 0, n - 1, "steps", "loss");
  // The loss of the first step, before any update: the loss scale of the task and the initialised network
  // (the next steps of a run whose rate is far too high are already thrown off).
  const EvidenceRef first_ref = row_ref(loss_rows, 0, "loss.first");
  const double first = loss.front();
  out.add("loss.first", first, "loss", {first_ref});

  const std::size_t hw = std::max(kMinSmoothHalfWidth, n / 50);
  const std::vector<double> smooth = running_median(loss, hw);
  if (first > 0.0 && !smooth.empty()) {
    const auto peak = std::max_element(smooth.begin(), smooth.end());
    const std::size_t at = static_cast<std::size_t>(peak - smooth.begin()) + hw;
    out.add("loss.peak_over_first", *peak / first, "ratio", {first_ref, row_ref(loss_rows, at, "loss.peak")});
    // Rebound: how much of the initial loss came back between the lowest smoothed level reached before the
    // last tenth and the final level, beyond what the step noise alone puts between them, as a share of
    // the first loss (scale-free, and stable when a run drives the loss to nearly zero). A run that learnt
    // and stays there is near 0; updates that throw the weights out of a good region bring back a large
    // share. The lowest of many noisy running medians lies below the level they follow, so without the
    // margin a run whose per-step loss is noisy (a batch of a few samples, a squared error whose
    // per-sample spread is of the order of the loss) "rebounds" by its noise alone.
    const std::size_t tail = std::max<std::size_t>(1, n / 10);
    const std::size_t before = n - tail;  // positions [0, before) of loss
    if (before > 2 * hw + 1) {
      const std::size_t windows = before - 2 * hw;
      const auto best =
          std::min_element(smooth.begin(), smooth.begin() + static_cast<std::ptrdiff_t>(windows));
      const std::size_t best_at = static_cast<std::size_t>(best - smooth.begin()) + hw;
      const double final_level =
          median(std::vector<double>(loss.end() - static_cast<std::ptrdiff_t>(tail), loss.end()));
      const double margin = level_noise_margin(loss, best_at, hw, windows, tail);
      out.add("loss.rebound_over_first", (final_level - *best - margin) / first, "ratio",
              {first_ref, row_ref(loss_rows, best_at, "loss.best"),
               rows_ref(loss_rows, before, n - 1, "window", "loss.final")});
    }
  }

  // Lag-1 autocorrelation of the detrended loss: batches drawn afresh are independent, so neighbouring
  // residuals are uncorrelated; batches that follow the stored order resemble their neighbours.
  const std::vector<double> residual = residual_around_running_median(loss, kTrendHalfWidth);
  if (const auto ac = autocorrelation(residual, 1, kMinLag1Pairs))
    out.add("loss.residual_lag1_autocorr", *ac, "ratio", {whole});

  // ln(grad norm) of the rows that have a positive one, detrended like the loss.
  std::vector<double> log_grad;
  std::vector<std::size_t> grad_at;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i].grad_norm && std::isfinite(*rows[i].grad_norm) && *rows[i].grad_norm > 0.0) {
      log_grad.push_back(std::log(*rows[i].grad_norm));
      grad_at.push_back(i);
    }
  const std::vector<double> grad_residual = residual_around_running_median(log_grad, kTrendHalfWidth);

  // The same batches come back one epoch later when the order is stored or reused: the detrended loss
  // correlates with itself at the epoch lag. Detrended around a running median rather than over a whole
  // epoch, so that two epochs are enough (a moving mean over one period needs three).
  if (steps_per_epoch && *steps_per_epoch >= 2) {
    const auto period = static_cast<std::size_t>(*steps_per_epoch);
    const EvidenceRef epochs = rows_ref(loss_rows, 0, n - 1, "steps", "loss.epoch_period");
    // Ranks of the residuals (Spearman): one epoch holds few pairs of batches, and in a converged run
    // whose residuals are heavy-tailed two outlying batches one epoch apart made a Pearson correlation of
    // 0.5 in a fresh shuffle. (The lag-1 correlation above keeps the values: a steep trend leaves runs of
    // exact-zero residuals, the window's own median, which ranks would read as neighbours alike.)
    const std::vector<double> ranked = ranks(residual);
    if (const auto ac = autocorrelation(ranked, period, kMinShapePairs))
      out.add("loss.epoch_lag_residual_autocorr", *ac, "ratio", {epochs});
    const auto loss_z = epoch_lag_zscore(ranked, period);
    if (loss_z) out.add("loss.epoch_lag_zscore", *loss_z, "sd", {epochs});
    // The same batch also gives about the same gradient norm: the test on ln(grad norm), where every row
    // has one (the lag must count the same steps), is a second look at the same repetition. The two
    // z-scores combine as Stouffer's (z1 + z2) / sqrt(2); a hard batch raises both, so under a fresh shuffle
    // the sum spreads a little wider than one z, which the threshold of the graph leaves room for.
    std::optional<double> grad_z;
    if (loss_rows.size() == rows.size() && log_grad.size() == rows.size())
      grad_z = epoch_lag_zscore(ranks(grad_residual), period);
    if (grad_z) out.add("grad_norm.epoch_lag_zscore", *grad_z, "sd", {epochs});
    if (loss_z)
      out.add("data.epoch_repeat_zscore", grad_z ? (*loss_z + *grad_z) / std::sqrt(2.0) : *loss_z, "sd",
              {epochs});
  }

  if (log_grad.size() >= kMinValues)
    if (const auto ac = autocorrelation(grad_residual, 1, kMinLag1Pairs))
      out.add("grad_norm.residual_lag1_autocorr", *ac, "ratio",
              {rows_ref(rows, grad_at.front(), grad_at.back(), "steps", "grad_norm")});
}

void add_loss_blowup_feature(const std::vector<LogRow>& rows, FeatureList& out) {
  std::optional<std::size_t> first, top;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (!rows[i].loss || !std::isfinite(*rows[i].loss)) continue;
    if (!first) first = i;
    if (!top || *rows[i].loss > *rows[*top].loss) top = i;
  }
  if (!first || *rows[*first].loss <= 0.0) return;
  out.add("loss.log10_max_over_first", std::log10(*rows[*top].loss / *rows[*first].loss), "log10",
          {row_ref(rows, *first, "loss.first"), row_ref(rows, *top, "loss.max")});
}

namespace {

/// One value per row, on a log scale where every value is positive (or nullopt then when `log_scale_only`);
/// nullopt when a row lacks a finite one.
template <class Value>
std::optional<std::vector<double>> step_series(const std::vector<LogRow>& rows, Value value,
                                               bool log_scale_only = false) {
  std::vector<double> v;
  v.reserve(rows.size());
  bool positive = true;
  for (const LogRow& r : rows) {
    const std::optional<double> x = value(r);
    if (!x || !std::isfinite(*x)) return std::nullopt;
    positive = positive && *x > 0.0;
    v.push_back(*x);
  }
  if (!positive && log_scale_only) return std::nullopt;
  if (positive)
    for (double& x : v) x = std::log(x);
  return v;
}

}  // namespace

void add_epoch_position_features(const std::vector<LogRow>& rows, std::optional<std::int64_t> steps_per_epoch,
                                 const std::optional<std::string>& output_bias, FeatureList& out) {
  if (!steps_per_epoch || *steps_per_epoch < 2 || rows.empty() || !one_row_per_step(rows)) return;
  const auto period = static_cast<std::size_t>(*steps_per_epoch);
  const auto loss = step_series(rows, [](const LogRow& r) { return r.loss; });
  if (!loss) return;
  // Positions count from where the log's epochs start.
  const std::size_t first_start = first_epoch_start_row(rows, *steps_per_epoch).value_or(0);
  const auto loss_test = epoch_position_test(*loss, period, first_start);
  if (!loss_test) return;
  const EvidenceRef epochs = rows_ref(rows, 0, rows.size() - 1, "steps", "loss.epoch_period");
  out.add("loss.epoch_position_zscore", loss_test->zscore, "sd", {epochs});
  // Stouffer's combination, as for the epoch-lag test: the same batch kind gives about the same loss, the
  // same gradient norm and, where the output layer logs its bias, the same pull of that bias (the batch's
  // class mix: docs/features-training.md, "Batches of a few classes").
  double z_sum = loss_test->zscore;
  double tests = 1.0;
  // The smoothness of each series' profile along the epoch, combined the same way.
  double profile_sum = 0.0, profiles = 0.0;
  const auto add_profile = [&](const EpochPositionTest& t) {
    if (!t.profile_lag1_zscore) return;
    profile_sum += *t.profile_lag1_zscore;
    profiles += 1.0;
  };
  add_profile(*loss_test);
  if (const auto grad = step_series(rows, [](const LogRow& r) { return r.grad_norm; }))
    if (const auto grad_test = epoch_position_test(*grad, period, first_start)) {
      out.add("grad_norm.epoch_position_zscore", grad_test->zscore, "sd", {epochs});
      z_sum += grad_test->zscore;
      tests += 1.0;
      add_profile(*grad_test);
    }
  if (output_bias) {
    const std::string& bias = *output_bias;
    const auto bias_norm = step_series(
        rows,
        [&](const LogRow& r) -> std::optional<double> {
          const auto it = r.layer_grad_norms.find(bias);
          if (it == r.layer_grad_norms.end()) return std::nullopt;
          return it->second;
        },
        true);
    if (bias_norm)
      if (const auto bias_test = epoch_position_test(*bias_norm, period, first_start)) {
        out.add("grad.output_bias_epoch_position_zscore", bias_test->zscore, "sd", {epochs, {"layer", bias}});
        z_sum += bias_test->zscore;
        tests += 1.0;
        add_profile(*bias_test);
      }
  }
  out.add("data.epoch_position_zscore", z_sum / std::sqrt(tests), "sd", {epochs});
  if (profiles > 0.0)
    out.add("data.epoch_profile_smoothness_zscore", profile_sum / std::sqrt(profiles), "sd", {epochs});
}

void add_epoch_start_jump_feature(const std::vector<LogRow>& rows,
                                  std::optional<std::int64_t> steps_per_epoch, FeatureList& out) {
  if (!steps_per_epoch || *steps_per_epoch < 2 || rows.empty() || !one_row_per_step(rows)) return;
  const auto period = static_cast<std::size_t>(*steps_per_epoch);
  // A step of the loss is a share of its level; a loss at exactly zero (logits that underflowed after a
  // blow-up) has no level to step from.
  const auto loss = step_series(
      rows, [](const LogRow& r) { return r.loss; }, true);
  if (!loss) return;
  std::vector<double> rate;
  rate.reserve(rows.size());
  for (const LogRow& r : rows) {
    if (!r.lr || !std::isfinite(*r.lr)) {
      rate.clear();
      break;
    }
    rate.push_back(*r.lr);
  }
  const auto first_start = first_epoch_start_row(rows, *steps_per_epoch);
  if (!first_start) return;
  const auto test = epoch_start_jump_test(*loss, period, rate, *first_start);
  if (!test) return;
  // The evidence: the first epoch start measured, with the windows around it.
  const std::size_t first = test->first_measured - kEpochStartWindow;
  const std::size_t last = std::min(rows.size() - 1, test->first_measured + kEpochStartWindow - 1);
  out.add("loss.epoch_start_jump_zscore", test->zscore, "sd",
          {rows_ref(rows, first, last, "steps", "loss.epoch_start")});
}

}  // namespace cann_debug::plugins::training_detail
