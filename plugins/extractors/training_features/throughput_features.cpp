// Throughput and loss-scale features (see throughput_features.hpp).
#include "throughput_features.hpp"

#include <algorithm>
#include <cmath>

#include "series_math.hpp"

namespace cann_debug::plugins::training_detail {
namespace {

// Fewest timed rows for a slowdown.
constexpr std::size_t kMinTimedRows = 10;
// The first 5% of the timed rows (at least one) are left out: the first iterations compile kernels,
// build communicators and warm caches.
constexpr double kStartupShare = 0.05;
// A slowdown is the median of a window of rows (a twentieth of the run, at least 3): one slow interval
// (a checkpoint save, an evaluation) is not a throughput drop.
constexpr std::size_t kMinWindow = 3;
constexpr std::size_t kWindowDivisor = 20;
// ... and the window lasts: at least this many seconds of iterations, where the rows give the time per
// iteration. A window of milliseconds is the scheduler's (another process ran, a page fault); a throughput
// drop is a node, a link or an input pipeline that stays slow. A run shorter than two such windows has no
// stretch to set against the rest: no slowdown is read.
constexpr double kMinWindowSeconds = 10.0;

// A dynamic loss scaler's search for its level: it starts high (2^32 in Megatron, 2^16 in DeepSpeed and
// GradScaler) and backs off on every overflow (every `hysteresis` overflows) until the gradients fit. The
// iterations it skips on that way down, before its first clean iteration, are no fault (a 2^32 start with
// hysteresis 2 skips about 34). Left out only where a clean iteration follows: a scaler that never finds a
// level skips every iteration, and all of them count.
struct Calibration {
  std::size_t rows = 0;    // leading rows with skips, a row without skips after them
  double skipped = 0.0;    // the iterations those rows skipped
  std::size_t events = 0;  // leading overflow events on consecutive steps from the log's start
};

// `first`, `last`: the log's first and last step.
Calibration scaler_calibration(const std::vector<LogRow>& rows, std::vector<std::int64_t> overflow_steps,
                               std::int64_t first, std::int64_t last) {
  Calibration c;
  std::size_t lead = 0;
  while (lead < rows.size() && rows[lead].skipped_iterations && *rows[lead].skipped_iterations > 0) ++lead;
  const bool clean_row_follows = lead < rows.size() && rows[lead].skipped_iterations;
  if (lead > 0 && clean_row_follows) {
    c.rows = lead;
    for (std::size_t i = 0; i < lead; ++i) c.skipped += *rows[i].skipped_iterations;
  }
  if (overflow_steps.empty()) return c;
  std::sort(overflow_steps.begin(), overflow_steps.end());
  if (overflow_steps.front() > first + 1) return c;  // the first iterations were clean: no search
  std::size_t run = 1;
  while (run < overflow_steps.size() && overflow_steps[run] == overflow_steps[run - 1] + 1) ++run;
  if (overflow_steps[run - 1] < last) c.events = run;  // a clean iteration follows the run
  return c;
}

}  // namespace

void add_throughput_features(const std::vector<LogRow>& rows, FeatureList& out) {
  std::vector<std::size_t> at;
  std::vector<double> ms;
  const bool have_time = std::any_of(rows.begin(), rows.end(), [](const LogRow& r) {
    return r.iteration_time_ms && std::isfinite(*r.iteration_time_ms) && *r.iteration_time_ms > 0.0;
  });
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const LogRow& r = rows[i];
    if (have_time && r.iteration_time_ms && std::isfinite(*r.iteration_time_ms) &&
        *r.iteration_time_ms > 0.0) {
      at.push_back(i);
      ms.push_back(*r.iteration_time_ms);
    } else if (!have_time && r.tokens_per_second && std::isfinite(*r.tokens_per_second) &&
               *r.tokens_per_second > 0.0) {
      at.push_back(i);
      ms.push_back(1000.0 / *r.tokens_per_second);  // ms per token: proportional to the time per iteration
    }
  }
  if (ms.size() < kMinTimedRows) return;
  const std::size_t skip = std::max<std::size_t>(1, static_cast<std::size_t>(kStartupShare * ms.size()));
  const std::vector<double> steady(ms.begin() + static_cast<std::ptrdiff_t>(skip), ms.end());
  const double reference = median(steady);
  if (!(reference > 0.0)) return;
  const EvidenceRef whole = rows_ref(rows, at[skip], at.back(), "steps", "iteration_time_ms");
  if (have_time) out.add("step_time.median_ms", reference, "ms", {whole});
  // An odd window of a twentieth of the rows (at least 3), its median slid along the run; where the rows
  // give the time per iteration, kMinWindowSeconds of iterations at least (a row stands for the iterations
  // since the row before it: Megatron logs every log-interval iterations).
  std::size_t span = std::max(kMinWindow, steady.size() / kWindowDivisor);
  if (have_time) {
    std::vector<double> gaps;
    for (std::size_t i = skip + 1; i < at.size(); ++i)
      gaps.push_back(
          static_cast<double>(std::max<std::int64_t>(1, step_of(rows[at[i]]) - step_of(rows[at[i - 1]]))));
    const double row_seconds = (gaps.empty() ? 1.0 : median(gaps)) * reference / 1000.0;
    const auto lasting = static_cast<std::size_t>(std::ceil(kMinWindowSeconds / row_seconds));
    if (2 * lasting > steady.size()) return;
    span = std::max(span, lasting);
  }
  const std::size_t half = span / 2;
  const std::size_t window = 2 * half + 1;
  const std::vector<double> medians = running_median(steady, half);
  if (medians.empty()) return;
  const auto slowest = std::max_element(medians.begin(), medians.end());
  const double worst = *slowest;
  const auto worst_at = static_cast<std::size_t>(slowest - medians.begin());
  out.add("step_time.slowdown", worst / reference, "ratio",
          {whole, rows_ref(rows, at[skip + worst_at], at[skip + worst_at + window - 1], "window",
                           have_time ? "step_time.slowest_window" : "tokens_per_second.slowest_window")});
}

void add_loss_scale_features(const std::vector<LogRow>& rows, const std::vector<LogEvent>& events,
                             FeatureList& out) {
  std::optional<std::size_t> first, lowest;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& s = rows[i].loss_scale;
    if (!s || !std::isfinite(*s) || *s <= 0.0) continue;
    if (!first) first = i;
    if (!lowest || *s < *rows[*lowest].loss_scale) lowest = i;
  }
  if (first) {
    out.add("loss_scale.initial_log2", std::log2(*rows[*first].loss_scale), "log2",
            {row_ref(rows, *first, "loss_scale")});
    out.add("loss_scale.min_log2", std::log2(*rows[*lowest].loss_scale), "log2",
            {row_ref(rows, *lowest, "loss_scale.min")});
  }
  // Iterations the log covers: from its first to its last step (rows are one log interval apart).
  std::optional<std::int64_t> lo, hi;
  bool counted = false;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::int64_t s = step_of(rows[i]);
    lo = std::min(lo.value_or(s), s);
    hi = std::max(hi.value_or(s), s);
    counted = counted || rows[i].skipped_iterations.has_value();
  }
  std::vector<std::int64_t> overflow_steps;
  for (const LogEvent& e : events)
    if (e.event == "overflow_skip") overflow_steps.push_back(e.step);
  if ((!counted && overflow_steps.empty()) || !lo) return;  // the log says nothing about skipped iterations
  const Calibration calibration = scaler_calibration(rows, overflow_steps, *lo, *hi);
  double skipped = 0.0;
  std::vector<EvidenceRef> refs;
  for (std::size_t i = calibration.rows; i < rows.size(); ++i)
    if (rows[i].skipped_iterations && *rows[i].skipped_iterations > 0) {
      skipped += *rows[i].skipped_iterations;
      if (refs.size() < 8) refs.push_back(row_ref(rows, i, "skipped_iterations"));
    }
  std::sort(overflow_steps.begin(), overflow_steps.end());
  for (std::size_t i = calibration.events; i < overflow_steps.size() && refs.size() < 8; ++i)
    refs.push_back(
        {"step", "overflow_skip", kNoTimestamp, kNoTimestamp, overflow_steps[i], overflow_steps[i]});
  const double overflows = static_cast<double>(overflow_steps.size() - calibration.events);
  // The calibration's skipped iterations leave the count and the iterations alike.
  const double left_out = std::max(calibration.skipped, static_cast<double>(calibration.events));
  const double iterations =
      std::max(static_cast<double>(*hi - *lo + 1), static_cast<double>(rows.size())) - left_out;
  if (!(iterations > 0.0)) return;
  // Megatron counts skips per interval; DeepSpeed logs each one: whichever says more.
  out.add("log.skipped_iteration_fraction", std::min(1.0, std::max(skipped, overflows) / iterations), "ratio",
          refs);
}

}  // namespace cann_debug::plugins::training_detail
