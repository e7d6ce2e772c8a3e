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
  // An odd window of a twentieth of the rows (at least 3), its median slid along the run.
  const std::size_t half = std::max(kMinWindow, steady.size() / kWindowDivisor) / 2;
  const std::size_t window = 2 * half + 1;
  const std::vector<double> medians = running_median(steady, half);
  if (medians.empty()) return;
  const auto slowest = std::max_element(medians.begin(), medians.end());
  const double worst = *slowest;
  const auto worst_at = static_cast<std::size_t>(slowest - medians.begin());
  const EvidenceRef whole = rows_ref(rows, at[skip], at.back(), "steps", "iteration_time_ms");
  if (have_time) out.add("step_time.median_ms", reference, "ms", {whole});
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
  double skipped = 0.0;
  bool counted = false;
  std::vector<EvidenceRef> refs;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::int64_t s = step_of(rows[i]);
    lo = std::min(lo.value_or(s), s);
    hi = std::max(hi.value_or(s), s);
    if (rows[i].skipped_iterations) {
      counted = true;
      if (*rows[i].skipped_iterations > 0) {
        skipped += *rows[i].skipped_iterations;
        if (refs.size() < 8) refs.push_back(row_ref(rows, i, "skipped_iterations"));
      }
    }
  }
  std::size_t overflows = 0;
  for (const LogEvent& e : events)
    if (e.event == "overflow_skip") {
      ++overflows;
      if (refs.size() < 8)
        refs.push_back({"step", "overflow_skip", kNoTimestamp, kNoTimestamp, e.step, e.step});
    }
  if ((!counted && overflows == 0) || !lo) return;  // the log says nothing about skipped iterations
  const double iterations = std::max(static_cast<double>(*hi - *lo + 1), static_cast<double>(rows.size()));
  // Megatron counts skips per interval; DeepSpeed logs each one: whichever says more.
  out.add("log.skipped_iteration_fraction",
          std::min(1.0, std::max(skipped, static_cast<double>(overflows)) / iterations), "ratio", refs);
}

}  // namespace cann_debug::plugins::training_detail
