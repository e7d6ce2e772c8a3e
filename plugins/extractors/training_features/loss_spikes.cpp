// Loss spikes (see loss_spikes.hpp and docs/features-training.md, "Spikes").
#include "loss_spikes.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

#include "epoch_start_jump.hpp"
#include "level_noise_margin.hpp"
#include "loss_features.hpp"
#include "series_math.hpp"

namespace cann_debug::plugins::training_detail {
namespace {

// A spike at an epoch start is the order's step-up when the other epoch starts step up by at least this
// share of its log height (median over them).
constexpr double kRecurringStepShare = 0.25;
// Fewest rows with a loss before spikes are looked for.
constexpr std::size_t kMinRows = 10;
// A spike rises at least kSpikeRise above the level before it, and at least five step-to-step noise sigmas,
// so that the noise of small batches is not a spike.
constexpr double kNoiseSigmas = 5.0;
// The local noise: the step-to-step differences of the last 50 normal losses, when there are at least 10.
constexpr std::size_t kNoiseWindow = 50;
constexpr std::size_t kMinNoiseDiffs = 10;
// The level before a spike: the median of the last normal losses, at least 3 and at most 25 of them (a
// fiftieth of the run in between).
constexpr std::size_t kMinBaseWindow = 3;
constexpr std::size_t kMaxBaseWindow = 25;
// Without a rising learning rate in the log, the first 5% of the rows count as warm-up.
constexpr double kWarmupShare = 0.05;
// A learning rate that starts below 90% of its peak is warmed up.
constexpr double kWarmupStartBelowPeak = 0.9;
// Spikes cut out of the curve features: at most three, covering at most a quarter of the rows.
constexpr std::size_t kMaxCutSpikes = 3;
constexpr double kMaxCutShare = 0.25;
// A spike of the warm-up is a transient only when the run learnt after it: its final level is at most 80%
// of the level the spike started from (a rate that throws the loss up and leaves it at chance level has
// "come back" to its first loss, but learnt nothing).
constexpr double kLearntAfterWarmupSpike = 0.8;
// A divergence is an unrecovered rise that starts after the first fifth of the rows.
constexpr double kLateShare = 0.2;
// Spikes and divergences count from a level of at least kSpikeMinLevelOfFirst, or, for a recovered spike,
// when its peak reaches the first loss: near zero a hard batch moves the loss by several times its level, but
// not back up to the loss of the untrained network. Corrupt records mid-run threw classifiers trained down to
// 0.01-0.05 nats up to 4-13 times their first loss for two to four steps (training-instability probe), and
// were read as minor spikes by the level rule alone.
constexpr double kPeakOfFirstFromNearZero = 1.0;
// A non-finite loss in a divergence counts as a tenfold rise.
constexpr double kNonFiniteHeight = 9.0;
// A run whose loss rose tenfold (a height of 9) before the first fifth of its rows had no stable stretch
// to diverge late from: an unrecovered rise after it is the same instability (a rate the run cannot
// take: thrown up at step 3, back to five times its first loss, non-finite from step 39 of 150).
constexpr double kEarlyBlowupHeight = 9.0;

double final_level(const std::vector<LogRow>& rows) {
  std::vector<double> tail;
  for (std::size_t i = rows.size(); i-- > 0 && tail.size() < std::max<std::size_t>(3, rows.size() / 10);)
    if (rows[i].loss && std::isfinite(*rows[i].loss)) tail.push_back(*rows[i].loss);
  return median(tail);
}

/// Whether a spike outlasted one batch: it spans two rows or more, or its one row averages several
/// iterations (Megatron logs the mean over its log interval). One step alone is one hard batch, the
/// minibatch noise of small batches; an instability takes the loss several iterations to undo.
bool sustained(const std::vector<LogRow>& rows, const LossSpike& s) {
  std::size_t elevated = 0;
  for (std::size_t i = s.start; i < s.end && i < rows.size(); ++i) elevated += rows[i].loss ? 1 : 0;
  if (elevated >= 2) return true;
  return s.start > 0 && step_of(rows[s.start]) - step_of(rows[s.start - 1]) > 1;
}

EvidenceRef spike_ref(const std::vector<LogRow>& rows, const LossSpike& s, const char* id) {
  const std::size_t last = s.recovered ? s.end : rows.size() - 1;
  return rows_ref(rows, s.start, std::min(last, rows.size() - 1), "steps", id);
}

}  // namespace

std::size_t lr_warmup_end(const std::vector<LogRow>& rows) {
  std::optional<double> first, peak;
  for (const LogRow& r : rows)
    if (r.lr && std::isfinite(*r.lr) && *r.lr > 0.0) {
      if (!first) first = r.lr;
      peak = std::max(peak.value_or(0.0), *r.lr);
    }
  if (!first || *first >= kWarmupStartBelowPeak * *peak) return 0;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i].lr && *rows[i].lr >= 0.99 * *peak) return i;
  return 0;
}

std::size_t warmup_rows(const std::vector<LogRow>& rows) {
  return std::max(lr_warmup_end(rows),
                  static_cast<std::size_t>(kWarmupShare * static_cast<double>(rows.size())));
}

std::vector<LossSpike> find_loss_spikes(const std::vector<LogRow>& rows) {
  std::vector<std::size_t> at;  // rows with a loss
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i].loss) at.push_back(i);
  std::vector<LossSpike> spikes;
  if (at.size() < kMinRows) return spikes;
  // The noise of one step: the spread of step-to-step differences (two noisy values each) over sqrt(2),
  // relative to the level (differences of log losses) when every loss is positive, over the whole run and
  // over the last normal losses before a candidate spike, whichever is larger. Minibatch noise scales with
  // the loss and changes along a run: a small-batch run that fell from 2.3 to 0.5 jumps from 0.57 to 0.89 on
  // one hard batch as easily as it moved by 0.01 while it sat at chance level, and one spread for the whole
  // run (in absolute terms, or dominated by the calm start) would call that a spike.
  std::vector<double> diffs, log_diffs;
  bool positive = true;
  for (std::size_t k = 1; k < at.size(); ++k) {
    const double a = *rows[at[k - 1]].loss, b = *rows[at[k]].loss;
    if (!std::isfinite(a) || !std::isfinite(b)) continue;
    diffs.push_back(b - a);
    positive = positive && a > 0.0 && b > 0.0;
    if (positive) log_diffs.push_back(std::log(b) - std::log(a));
  }
  if (diffs.size() < kMinRows / 2) return spikes;
  const double run_sigma = robust_sigma(positive ? log_diffs : diffs) / std::sqrt(2.0);
  std::vector<double> normal;  // the losses outside spikes, in order
  // The noise before a candidate spike: the run's, or that of the last kNoiseWindow normal losses if larger.
  auto local_sigma = [&] {
    if (normal.size() < kMinNoiseDiffs + 1) return run_sigma;
    const std::size_t from = normal.size() > kNoiseWindow ? normal.size() - kNoiseWindow : 0;
    std::vector<double> recent;
    for (std::size_t i = from + 1; i < normal.size(); ++i)
      recent.push_back(positive ? std::log(normal[i]) - std::log(normal[i - 1]) : normal[i] - normal[i - 1]);
    return std::max(run_sigma, robust_sigma(recent) / std::sqrt(2.0));
  };
  // How many noise sigmas `v` lies above `base`.
  auto sigmas_above = [&](double v, double base, double sigma) {
    const double rise = positive ? std::log(v / base) : v - base;
    return sigma > 0.0 ? rise / sigma : (rise > 0.0 ? std::numeric_limits<double>::infinity() : 0.0);
  };
  // The loss a spike has to come back under.
  auto back_under = [&](double base, double sigma) {
    const double margin =
        positive ? std::max(kSpikeBackMargin, std::exp(kSpikeBackSigmas * sigma) - 1.0) : kSpikeBackMargin;
    return base * (1.0 + margin);
  };
  double first = 0.0;  // the untrained network's loss: the first finite one
  for (const std::size_t i : at)
    if (std::isfinite(*rows[i].loss)) {
      first = *rows[i].loss;
      break;
    }
  // Whether row `i` has a finite loss of at most `level`.
  auto finite_at_most = [&](std::size_t i, double level) {
    return std::isfinite(*rows[i].loss) && *rows[i].loss <= level;
  };
  // The highest loss of the rows at[from, to) (+inf for a non-finite one), and its row in `peak_row`.
  auto highest = [&](std::size_t from, std::size_t to, std::size_t& peak_row) {
    double peak = -std::numeric_limits<double>::infinity();
    for (std::size_t i = from; i < to; ++i) {
      const double x = *rows[at[i]].loss;
      const double h = std::isfinite(x) ? x : std::numeric_limits<double>::infinity();
      if (h > peak) peak = h, peak_row = at[i];
    }
    return peak;
  };
  const std::size_t window = std::clamp(at.size() / 50, kMinBaseWindow, kMaxBaseWindow);
  const std::size_t warm_end = warmup_rows(rows);

  std::size_t k = 0;
  while (k < at.size()) {
    const double v = *rows[at[k]].loss;
    bool spike = false;
    double base = 0.0;
    double sigma = run_sigma;
    if (!normal.empty()) {
      const std::size_t from = normal.size() > window ? normal.size() - window : 0;
      base = median(std::vector<double>(normal.begin() + static_cast<std::ptrdiff_t>(from), normal.end()));
      // The local noise is measured only for a loss that rose far enough to be a candidate.
      if (base > 0.0 && std::isfinite(v) && v > base * (1.0 + kSpikeRise)) sigma = local_sigma();
      spike = base > 0.0 && (!std::isfinite(v) ||
                             (v > base * (1.0 + kSpikeRise) && sigmas_above(v, base, sigma) > kNoiseSigmas));
    }
    if (!spike) {
      if (std::isfinite(v)) normal.push_back(v);
      ++k;
      continue;
    }
    LossSpike s;
    s.start = at[k];
    s.base = base;
    s.back = back_under(base, sigma);
    std::size_t j = k + 1;
    while (j < at.size() && !finite_at_most(at[j], s.back)) ++j;
    double peak = highest(k, j, s.peak);
    s.recovered = j < at.size();
    // Near zero a spike that threw the loss back up to the first loss has come back once the loss is under
    // a tenth of the first again: a classifier thrown from 0.001 up to 57 nats that settles at 0.02 has kept
    // what it learnt, though 0.02 is twenty times the level it left.
    if (!s.recovered && first > 0.0 && base < kSpikeMinLevelOfFirst * first &&
        peak >= kPeakOfFirstFromNearZero * first) {
      const double near_zero = kSpikeMinLevelOfFirst * first;
      std::size_t b = k + 1;
      while (b < at.size() && !finite_at_most(at[b], near_zero)) ++b;
      if (b < at.size()) {
        j = b;
        s.recovered = true;
        s.back = near_zero;
        peak = highest(k, j, s.peak);
      }
    }
    s.reached_first_loss = first > 0.0 && peak >= kPeakOfFirstFromNearZero * first;
    s.end = s.recovered ? at[j] : rows.size();
    s.height = std::isfinite(peak) ? peak / base - 1.0 : std::numeric_limits<double>::infinity();
    s.in_warmup = s.start < warm_end;
    spikes.push_back(s);
    k = j;
  }
  return spikes;
}

EpochStartStepUps::EpochStartStepUps(const std::vector<LogRow>& rows,
                                     std::optional<std::int64_t> steps_per_epoch) {
  const auto window = static_cast<std::int64_t>(kEpochStartWindow);
  if (!steps_per_epoch || *steps_per_epoch < static_cast<std::int64_t>(kMinWindowsPerEpoch) * window) return;
  const std::vector<std::int64_t> starts = epoch_start_steps(rows, *steps_per_epoch);
  if (starts.empty()) return;
  // ln(loss) of the rows by step, for the step-up at each epoch start.
  std::map<std::int64_t, double> log_loss;
  for (const LogRow& r : rows)
    if (r.loss && std::isfinite(*r.loss) && *r.loss > 0.0) log_loss[step_of(r)] = std::log(*r.loss);
  const auto step_up = [&](std::int64_t t) -> std::optional<double> {
    std::vector<double> before, after;
    for (std::int64_t k = 1; k <= window; ++k) {
      const auto b = log_loss.find(t - k), a = log_loss.find(t + k - 1);
      if (b == log_loss.end() || a == log_loss.end()) return std::nullopt;
      before.push_back(b->second);
      after.push_back(a->second);
    }
    return median(after) - median(before);
  };
  starts_.reserve(starts.size());
  for (const std::int64_t t : starts) starts_.push_back({t, step_up(t)});
}

bool EpochStartStepUps::repeats_at_other_starts(const std::vector<LogRow>& rows, const LossSpike& s) const {
  if (!s.recovered || starts_.empty()) return false;
  const auto window = static_cast<std::int64_t>(kEpochStartWindow);
  const std::int64_t step = step_of(rows[s.start]);
  const auto at = std::find_if(starts_.begin(), starts_.end(), [&](const Start& t) {
    return step > t.step - window && step < t.step + window;
  });
  if (at == starts_.end()) return false;
  std::vector<double> others;
  for (const Start& t : starts_)
    if (t.step != at->step && t.step_up) others.push_back(*t.step_up);
  const double log_height = std::log1p(s.height);  // infinite for an overflowed loss: no order's step-up
  // Without another start to compare with, the spike cannot be told from the order: it is dropped.
  return others.empty() || !(median(others) < kRecurringStepShare * log_height);
}

std::vector<LossSpike> spikes_off_epoch_starts(const std::vector<LogRow>& rows,
                                               const std::vector<LossSpike>& spikes,
                                               const EpochStartStepUps& step_ups) {
  std::vector<LossSpike> out;
  for (const LossSpike& s : spikes)
    if (!step_ups.repeats_at_other_starts(rows, s)) out.push_back(s);
  return out;
}

std::vector<LogRow> rows_outside_recovered_spikes(const std::vector<LogRow>& rows,
                                                  const std::vector<LossSpike>& spikes) {
  const double last = final_level(rows);
  std::vector<const LossSpike*> cut;
  std::size_t covered = 0, covered_after_warmup = 0;
  for (const LossSpike& s : spikes) {
    if (!s.recovered || !std::isfinite(s.height)) continue;
    // Cut only a transient: the run kept (after a warm-up spike: went on to) what it had learnt, its final
    // level back under the level the spike had to come back to (the noise margin of a small batch's loss).
    const double keeps = s.in_warmup ? kLearntAfterWarmupSpike * s.base : s.back;
    if (!(last <= keeps)) continue;
    cut.push_back(&s);
    covered += s.end - s.start;
    if (!s.in_warmup) covered_after_warmup += s.end - s.start;
  }
  // A warm-up transient the run learnt after is cut however long it took (a short benchmark run may spend
  // half its iterations recovering); spikes after the warm-up only while they are few and short.
  if (cut.empty() || cut.size() > kMaxCutSpikes ||
      static_cast<double>(covered_after_warmup) > kMaxCutShare * static_cast<double>(rows.size()) ||
      rows.size() - covered < kMinRows)
    return rows;
  std::vector<LogRow> kept;
  kept.reserve(rows.size() - covered);
  std::size_t next = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    while (next < cut.size() && i >= cut[next]->end) ++next;
    if (next < cut.size() && i >= cut[next]->start) continue;
    kept.push_back(rows[i]);
  }
  return kept;
}

void add_loss_spike_features(const std::vector<LogRow>& rows, const std::vector<LossSpike>& spikes,
                             FeatureList& out) {
  std::vector<double> finite;
  std::vector<std::size_t> finite_at;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i].loss && std::isfinite(*rows[i].loss)) finite.push_back(*rows[i].loss), finite_at.push_back(i);
  if (finite.size() < kMinRows || !(finite.front() > 0.0)) return;
  const EvidenceRef whole = rows_ref(rows, 0, rows.size() - 1, "steps", "loss");
  // Near zero the loss has only noise left and ratios to it mean nothing: a spike or a divergence counts
  // only from a level of at least a tenth of the first loss, a recovered spike also from below when it
  // rose back to the first loss.
  const double floor = kSpikeMinLevelOfFirst * finite.front();
  const LossSpike* highest = nullptr;  // recovered, sustained, after the warm-up: what a team rolls back from
  const LossSpike* longest = nullptr;
  const LossSpike* warmup = nullptr;
  const LossSpike* divergence = nullptr;  // not recovered, late
  const bool blew_up_early = std::any_of(spikes.begin(), spikes.end(), [&](const LossSpike& s) {
    return static_cast<double>(s.start) < kLateShare * static_cast<double>(rows.size()) &&
           !(s.height < kEarlyBlowupHeight);
  });
  std::size_t count = 0, single = 0;
  for (const LossSpike& s : spikes) {
    if (s.recovered && s.in_warmup) {
      if (!warmup || s.height > warmup->height) warmup = &s;
    } else if (s.recovered && (!sustained(rows, s) || (s.base < floor && !s.reached_first_loss))) {
      ++single;
    } else if (s.recovered) {
      ++count;
      if (!highest || s.height > highest->height) highest = &s;
      if (!longest || s.end - s.start > longest->end - longest->start) longest = &s;
    } else if (!s.in_warmup && !blew_up_early && s.base >= floor &&
               static_cast<double>(s.start) >= kLateShare * static_cast<double>(rows.size())) {
      divergence = &s;
    }
  }
  out.add("loss.spike_count", static_cast<double>(count), "spikes",
          highest ? std::vector<EvidenceRef>{spike_ref(rows, *highest, "loss.spike")}
                  : std::vector<EvidenceRef>{whole});
  out.add("loss.spike_max_height", highest ? highest->height : 0.0, "ratio",
          highest ? std::vector<EvidenceRef>{row_ref(rows, highest->start, "loss.spike_start"),
                                             row_ref(rows, highest->peak, "loss.spike_peak"),
                                             row_ref(rows, highest->end, "loss.spike_recovered")}
                  : std::vector<EvidenceRef>{whole});
  out.add("loss.minor_spikes", static_cast<double>(single), "spikes", {whole});
  if (highest) {
    out.add("loss.spike_start_step", static_cast<double>(step_of(rows[highest->start])), "step",
            {row_ref(rows, highest->start, "loss.spike_start")});
    out.add("loss.spike_recovered_step", static_cast<double>(step_of(rows[highest->end])), "step",
            {row_ref(rows, highest->end, "loss.spike_recovered")});
    out.add("loss.spike_max_steps",
            static_cast<double>(step_of(rows[longest->end]) - step_of(rows[longest->start])), "steps",
            {spike_ref(rows, *longest, "loss.spike")});
  }
  if (warmup)
    out.add("loss.warmup_spike_height", warmup->height, "ratio",
            {row_ref(rows, warmup->peak, "loss.spike_peak"), spike_ref(rows, *warmup, "loss.warmup_spike")});

  // Late divergence: where the loss ended above the level it had reached after the first fifth of the run,
  // as a share of that level. Either a jump it never came back from, or a creep up from its best level
  // (the smoothed minimum) that the step-by-step spike test follows without flagging.
  const double last = final_level(rows);
  double height = 0.0;
  std::optional<std::size_t> onset;
  if (divergence) {
    height = !std::isfinite(divergence->height) || !std::isfinite(last)
                 ? kNonFiniteHeight
                 : std::max(0.0, last / divergence->base - 1.0);
    onset = divergence->start;
  }
  const std::size_t hw = std::max<std::size_t>(2, finite.size() / 50);
  const std::vector<double> smooth = running_median(finite, hw);
  if (!smooth.empty() && std::isfinite(last)) {
    const auto best = std::min_element(smooth.begin(), smooth.end());
    const std::size_t best_position = static_cast<std::size_t>(best - smooth.begin()) + hw;
    const std::size_t best_at = finite_at[best_position];
    const bool late = static_cast<double>(best_at) >= kLateShare * static_cast<double>(rows.size()) &&
                      best_at >= lr_warmup_end(rows);
    if (late && *best >= floor) {
      // A creep counts beyond what the step noise alone puts between the lowest smoothed level and the
      // final one (a noisy run that only holds its level would "creep" by its noise).
      const std::size_t tail = std::min(finite.size(), std::max<std::size_t>(3, rows.size() / 10));
      const double creep =
          (last - *best - level_noise_margin(finite, best_position, hw, smooth.size(), tail)) / *best;
      if (creep > height) {
        height = creep;
        onset = best_at;
      }
    }
  }
  if (onset)
    out.add("loss.late_divergence_start_step", static_cast<double>(step_of(rows[*onset])), "step",
            {row_ref(rows, *onset, "loss.divergence_start")});
  out.add("loss.late_divergence_height", height, "ratio",
          onset
              ? std::vector<EvidenceRef>{row_ref(rows, *onset, "loss.divergence_start"),
                                         rows_ref(rows, *onset, rows.size() - 1, "steps", "loss.divergence")}
              : std::vector<EvidenceRef>{whole});
}

}  // namespace cann_debug::plugins::training_detail
