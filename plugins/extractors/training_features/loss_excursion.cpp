// Loss excursions (see loss_excursion.hpp and docs/features-training.md, "Spikes").
#include "loss_excursion.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "loss_spikes.hpp"
#include "series_math.hpp"

namespace cann_debug::plugins::training_detail {
namespace {

// The rows an excursion holds: two to four. One row up is one hard batch, the noise of small batches. A rise
// held longer is rarer for the same height: k independent steps each z sigmas up are about as likely as two
// at z * sqrt(k / 2) (Gaussian tails, exp(-k z^2 / 2)), so a hold of k rows counts as that two-row z. Four at
// most: a longer hold is a bump of the curve, whose steps are not independent (a plateau's wobble).
constexpr std::size_t kMinHeldRows = 2;
constexpr std::size_t kMaxHeldRows = 4;
// The level before it: the median of the last 25 losses, or of the last quarter of the rows before it when
// that is fewer (at least 3): early in a log the loss still falls fast, and rows from the start would hold
// the untrained network's losses (a real Megatron log's spike 25 rows in read as no rise at all).
constexpr std::size_t kMinLevelWindow = 3;
constexpr std::size_t kMaxLevelWindow = 25;
constexpr std::size_t kLevelShareOfHistory = 4;
// The step noise before it: the spread of the last 50 step-to-step differences of ln(loss), over sqrt(2),
// or the whole run's where that is larger. Local alone, a calm start (a classifier at chance level) set the
// noise for the fast and noisy fall that follows, and healthy runs read 5-16 sigmas there.
constexpr std::size_t kExcursionNoiseWindow = 50;
// Losses before the first candidate row, so that the level and the noise are measured.
constexpr std::size_t kMinHistory = 10;
// The spike test's thresholds (loss_spikes.hpp) hold for excursions too: both rows at least kSpikeRise
// above the level, so that a loss whose noise is tiny (a plateau, a full batch) does not count a rise of a
// percent; back within its margin of the level; from a level of at least kSpikeMinLevelOfFirst, or when it
// rose back to the first loss.
// The noise of a loss that does not move at all (repeated values): a tenth of a percent per step.
constexpr double kNoiseFloor = 1e-3;

// The rows with a finite loss and their ln(loss); nullopt where a loss is not positive (no level to rise
// from in ratio) or too few rows have one.
struct LossSeries {
  std::vector<std::size_t> at;
  std::vector<double> ln;
};

std::optional<LossSeries> positive_loss_series(const std::vector<LogRow>& rows) {
  LossSeries s;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i].loss && std::isfinite(*rows[i].loss)) {
      if (!(*rows[i].loss > 0.0)) return std::nullopt;
      s.at.push_back(i);
      s.ln.push_back(std::log(*rows[i].loss));
    }
  if (s.ln.size() < kMinHistory + kMinHeldRows) return std::nullopt;
  return s;
}

std::optional<LossExcursion> largest_excursion(const std::vector<LogRow>& rows, const LossSeries& series,
                                               const EpochStartStepUps& epoch_step_ups) {
  const std::vector<std::size_t>& at = series.at;  // rows with a finite loss
  const std::vector<double>& ln = series.ln;       // their ln(loss)
  // suffix_low[k]: the lowest ln(loss) from position k on, for the test that the loss came back.
  std::vector<double> suffix_low(ln.size() + 1, std::numeric_limits<double>::infinity());
  for (std::size_t k = ln.size(); k-- > 0;) suffix_low[k] = std::min(ln[k], suffix_low[k + 1]);
  const double ln_first = ln.front();
  const double ln_near_zero = ln_first + std::log(kSpikeMinLevelOfFirst);
  const double min_rise = std::log1p(kSpikeRise);
  const std::size_t warm = warmup_rows(rows);
  std::vector<double> run_steps;
  for (std::size_t i = 1; i < ln.size(); ++i) run_steps.push_back(ln[i] - ln[i - 1]);
  const double run_sigma = robust_sigma(run_steps) / std::sqrt(2.0);

  std::optional<LossExcursion> best;
  // The latest start and the earliest return of the excursions of kCutExcursionZscore sigmas or more.
  std::optional<std::size_t> last_unlikely_start, first_unlikely_back;
  for (std::size_t k = kMinHistory; k + kMinHeldRows <= ln.size(); ++k) {
    if (at[k] < warm) continue;
    const auto held_begin = ln.begin() + static_cast<std::ptrdiff_t>(k);
    const std::size_t level_window = std::clamp(k / kLevelShareOfHistory, kMinLevelWindow, kMaxLevelWindow);
    const std::size_t level_from = k - level_window;
    const double level =
        median(std::vector<double>(ln.begin() + static_cast<std::ptrdiff_t>(level_from), held_begin));
    if (ln[k] - level < min_rise) continue;
    const std::size_t noise_from = k > kExcursionNoiseWindow ? k - kExcursionNoiseWindow : 0;
    std::vector<double> steps;
    for (std::size_t i = noise_from + 1; i < k; ++i) steps.push_back(ln[i] - ln[i - 1]);
    const double sigma = std::max({kNoiseFloor, run_sigma, robust_sigma(steps) / std::sqrt(2.0)});
    double low = ln[k], high = ln[k];
    for (std::size_t held = 1; held < kMaxHeldRows && k + held < ln.size(); ++held) {
      low = std::min(low, ln[k + held]);
      high = std::max(high, ln[k + held]);
      const std::size_t rows_held = held + 1;
      if (low - level < min_rise) break;
      if (level < ln_near_zero && high < ln_first) continue;
      const double z = (low - level) / sigma * std::sqrt(static_cast<double>(rows_held) / kMinHeldRows);
      const bool unlikely = z >= kCutExcursionZscore;  // for whether the largest stands alone
      if (best && z <= best->zscore && !unlikely) continue;
      // It came back: a later row within the margin of the level; from near zero, once thrown up to the
      // first loss, a row under a tenth of the first loss again (the spike test's rule: a classifier thrown
      // from 0.001 nats to 57 that settles at 0.02 kept what it had learnt).
      double back = level + std::max(std::log1p(kSpikeBackMargin), kSpikeBackSigmas * sigma);
      if (level < ln_near_zero && high >= ln_first) back = std::max(back, ln_near_zero);
      const std::size_t after = k + rows_held;
      if (!(suffix_low[after] <= back)) continue;
      std::size_t j = after;
      while (ln[j] > back) ++j;
      // A stored order's step-up at an epoch start, which its other epoch starts repeat, is no excursion.
      const LossSpike as_spike{
          .start = at[k], .end = at[j], .height = std::expm1(high - level), .recovered = true};
      if (epoch_step_ups.repeats_at_other_starts(rows, as_spike)) continue;
      // It starts where the loss first rose that far: the rows with the highest z may be the second and
      // third rows of a longer rise.
      std::size_t first = k;
      while (first > level_from && ln[first - 1] - level >= min_rise) --first;
      if (unlikely) {
        last_unlikely_start = std::max(last_unlikely_start.value_or(0), at[first]);
        first_unlikely_back = std::min(first_unlikely_back.value_or(at[j]), at[j]);
      }
      if (best && z <= best->zscore) continue;
      const auto highest = std::max_element(held_begin, held_begin + static_cast<std::ptrdiff_t>(rows_held));
      best = LossExcursion{.start = at[first],
                           .peak = at[k + static_cast<std::size_t>(highest - held_begin)],
                           .back = at[j],
                           .zscore = z,
                           .height = as_spike.height,
                           .level = std::exp(level),
                           .back_under = std::exp(back)};
    }
  }
  // It stands alone where every unlikely excursion shares rows with it (the same rise measured from another
  // row or over another number of rows): none starts after it is back, none is back before it starts.
  if (best && last_unlikely_start) {
    const bool none_starts_after = *last_unlikely_start < best->back;
    const bool none_back_before = *first_unlikely_back > best->start;
    best->stands_alone = none_starts_after && none_back_before;
  }
  return best;
}

}  // namespace

ExcursionSearch search_loss_excursions(const std::vector<LogRow>& rows, const EpochStartStepUps& step_ups) {
  const std::optional<LossSeries> series = positive_loss_series(rows);
  if (!series) return {};
  return {true, largest_excursion(rows, *series, step_ups)};
}

std::vector<LossSpike> spikes_and_excursion(const std::vector<LossSpike>& spikes,
                                            const std::optional<LossExcursion>& excursion) {
  if (!excursion || excursion->zscore < kCutExcursionZscore || !excursion->stands_alone) return spikes;
  const LossExcursion& e = *excursion;
  const bool overlaps = std::any_of(spikes.begin(), spikes.end(), [&](const LossSpike& s) {
    return s.start < e.back && e.start < std::max(s.end, s.start + 1);
  });
  if (overlaps) return spikes;
  const LossSpike as_spike{.start = e.start,
                           .peak = e.peak,
                           .end = e.back,
                           .base = e.level,
                           .back = e.back_under,
                           .height = e.height,
                           .recovered = true};
  std::vector<LossSpike> out = spikes;
  const auto after =
      std::find_if(out.begin(), out.end(), [&](const LossSpike& s) { return s.start > e.start; });
  out.insert(after, as_spike);
  return out;
}

void add_loss_excursion_features(const std::vector<LogRow>& rows, const ExcursionSearch& search,
                                 FeatureList& out) {
  if (!search.searched) return;
  if (!search.largest) {
    out.add("loss.excursion_zscore", 0.0, "sigmas", {rows_ref(rows, 0, rows.size() - 1, "steps", "loss")});
    return;
  }
  const LossExcursion& e = *search.largest;
  const EvidenceRef span = rows_ref(rows, e.start, e.back, "steps", "loss.excursion");
  out.add("loss.excursion_zscore", e.zscore, "sigmas", {span});
  out.add("loss.excursion_height", e.height, "ratio", {span});
  out.add("loss.excursion_start_step", static_cast<double>(step_of(rows[e.start])), "step",
          {row_ref(rows, e.start, "loss.excursion_start")});
  out.add("loss.excursion_end_step", static_cast<double>(step_of(rows[e.back])), "step",
          {row_ref(rows, e.back, "loss.excursion_back")});
}

}  // namespace cann_debug::plugins::training_detail
