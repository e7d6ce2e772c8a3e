// Gradient features; see docs/features-training.md for the definitions and the reasons behind the constants.
#include "gradient_features.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "series_math.hpp"

namespace cann_debug::plugins::training_detail {
namespace {

// A step whose norm is this many times the run's median is a gradient spike.
constexpr double kSpikeFactor = 10.0;
// Rows at the start of the run used for the first/last layer ratio: at least this many, or a tenth of the
// run.
constexpr std::size_t kMinEarlyRows = 5;
// A layer is dead when its gradient is exactly zero on at least this share of the late steps that log it
// (at least kMinLateRows of them).
constexpr double kDeadStepShare = 0.9;
constexpr std::size_t kMinLateRows = 5;
constexpr std::size_t kMaxDeadLayerRefs = 4;

void add_distribution(const std::vector<LogRow>& rows, FeatureList& out) {
  const std::size_t n = rows.size();
  const EvidenceRef whole = rows_ref(rows, 0, n - 1, "steps", "grad_norm");
  std::vector<double> g;
  std::vector<std::size_t> at;
  std::size_t nonfinite = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double v = *rows[i].grad_norm;
    if (!std::isfinite(v)) {
      ++nonfinite;
      continue;
    }
    g.push_back(v);
    at.push_back(i);
  }
  out.add("grad_norm.nonfinite_fraction", static_cast<double>(nonfinite) / static_cast<double>(n), "ratio",
          {whole});
  const double first = *rows.front().grad_norm;
  out.add("grad_norm.initial", first, "norm", {row_ref(rows, 0, "grad_norm")});
  if (first > 0.0)
    out.add("grad_norm.log10_initial", std::log10(first), "log10(norm)", {row_ref(rows, 0, "grad_norm")});
  if (g.empty()) return;
  const double med = median(g);
  const auto max_it = std::max_element(g.begin(), g.end());
  const std::size_t max_at = at[static_cast<std::size_t>(max_it - g.begin())];
  out.add("grad_norm.median", med, "norm", {whole});
  out.add("grad_norm.max", *max_it, "norm", {row_ref(rows, max_at, "grad_norm")});
  if (med > 0.0) {
    out.add("grad_norm.log10_max_over_median", std::log10(*max_it / med), "log10(ratio)",
            {whole, row_ref(rows, max_at, "grad_norm")});
    std::size_t spikes = 0, first_spike = n, last_spike = 0;
    for (std::size_t k = 0; k < g.size(); ++k) {
      if (g[k] <= kSpikeFactor * med) continue;
      ++spikes;
      first_spike = std::min(first_spike, at[k]);
      last_spike = std::max(last_spike, at[k]);
    }
    std::vector<EvidenceRef> refs{whole};
    if (spikes > 0) refs.push_back(rows_ref(rows, first_spike, last_spike, "steps", "grad_norm.spikes"));
    out.add("grad_norm.spike_fraction", static_cast<double>(spikes) / static_cast<double>(g.size()), "ratio",
            refs);
  }
  // Relative step-to-step change: median |ln(g_t / g_{t-1})| over consecutive positive finite norms.
  std::vector<double> log_steps;
  for (std::size_t k = 1; k < g.size(); ++k)
    if (at[k] == at[k - 1] + 1 && g[k] > 0.0 && g[k - 1] > 0.0)
      log_steps.push_back(std::fabs(std::log(g[k] / g[k - 1])));
  if (!log_steps.empty()) out.add("grad_norm.relative_noise", median(log_steps), "ratio", {whole});
}

void add_clipping(const std::vector<LogRow>& rows, const RunConfig& config, FeatureList& out) {
  const bool rows_say =
      std::any_of(rows.begin(), rows.end(), [](const LogRow& r) { return r.has_clip_field; });
  if (!rows_say && !config.clip_threshold) return;
  std::size_t known = 0, clipped = 0, first_clipped = rows.size(), last_clipped = 0;
  std::vector<double> log_over, log_clipped_over;
  std::vector<std::size_t> log_over_at;  // the row of each log_over value
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const double g = *rows[i].grad_norm;
    if (!std::isfinite(g)) continue;
    const std::optional<double> threshold = rows_say ? rows[i].clip_threshold : config.clip_threshold;
    if (rows_say && !rows[i].has_clip_field) continue;
    ++known;
    if (!threshold || !std::isfinite(*threshold) || *threshold <= 0.0) continue;
    if (g > 0.0) {
      log_over.push_back(std::log10(g / *threshold));
      log_over_at.push_back(i);
    }
    if (g > *threshold) {
      ++clipped;
      log_clipped_over.push_back(log_over.back());
      first_clipped = std::min(first_clipped, i);
      last_clipped = std::max(last_clipped, i);
    }
  }
  if (known == 0) return;
  std::vector<EvidenceRef> refs{rows_ref(rows, 0, rows.size() - 1, "steps", "grad_norm")};
  if (clipped > 0) refs.push_back(rows_ref(rows, first_clipped, last_clipped, "steps", "grad_norm.clipped"));
  out.add("grad_norm.clip_fraction", static_cast<double>(clipped) / static_cast<double>(known), "ratio",
          refs);
  if (!log_over.empty()) out.add("grad_norm.log10_median_over_clip", median(log_over), "log10(ratio)", refs);
  // How deep the clipped steps were cut: a threshold near the usual gradient norm shortens the updates it
  // catches by a few tens of percent (even when it catches most of them), one far below it by 3-100x.
  if (!log_clipped_over.empty())
    out.add("grad_norm.log10_clipped_over_clip", median(log_clipped_over), "log10(ratio)", refs);
  // Where the threshold sits against the norms at the start of training (the first tenth of the steps with a
  // threshold, at least kMinEarlyRows): a threshold set from those norms sits at or above them and clips the
  // outliers; one far below them bites from the first steps, however small the norms become later (an
  // adaptive optimizer that converges shrinks them tenfold, so the clipped steps' depth alone misses it).
  if (log_over.size() >= kMinEarlyRows) {
    const std::size_t k = std::max(kMinEarlyRows, log_over.size() / 10);
    out.add("grad_norm.log10_early_over_clip", median({log_over.begin(), log_over.begin() + k}),
            "log10(ratio)",
            {rows_ref(rows, log_over_at.front(), log_over_at[k - 1], "steps", "grad_norm.early")});
  }
}

// Parameters in network order; weight tensors only when there are any (biases and norm scales are small).
std::vector<std::string> ordered_layers(const std::vector<LogRow>& rows) {
  std::vector<std::string> all = logged_layers(rows), weights;
  for (const auto& name : all)
    if (name == "weight" || (name.size() > 7 && name.ends_with(".weight"))) weights.push_back(name);
  return weights.empty() ? all : weights;
}

// Weight tensors whose gradient is exactly zero on nearly every logged step of the second half of the run:
// units that no input activates any more (ReLUs knocked below zero by an oversized update stay there), so the
// layer no longer learns. A layer that only learns slowly (a saturated sigmoid) keeps a tiny, non-zero norm.
void add_dead_layers(const std::vector<LogRow>& rows, const std::vector<std::string>& layers,
                     FeatureList& out) {
  const std::size_t from = rows.size() / 2;
  std::size_t measured = 0;
  std::vector<std::string> dead;
  for (const auto& name : layers) {
    std::size_t finite = 0, zero = 0;
    for (std::size_t i = from; i < rows.size(); ++i) {
      const auto it = rows[i].layer_grad_norms.find(name);
      if (it == rows[i].layer_grad_norms.end() || !std::isfinite(it->second)) continue;
      ++finite;
      if (it->second == 0.0) ++zero;
    }
    if (finite < kMinLateRows) continue;
    ++measured;
    if (static_cast<double>(zero) >= kDeadStepShare * static_cast<double>(finite)) dead.push_back(name);
  }
  if (measured == 0) return;
  std::vector<EvidenceRef> refs{rows_ref(rows, from, rows.size() - 1, "window", "grad.layer_norm.late")};
  for (std::size_t k = 0; k < dead.size() && k < kMaxDeadLayerRefs; ++k) refs.push_back({"layer", dead[k]});
  out.add("grad.dead_layer_fraction", static_cast<double>(dead.size()) / static_cast<double>(measured),
          "ratio", std::move(refs));
}

void add_layers(const std::vector<LogRow>& rows, FeatureList& out) {
  const std::vector<std::string> layers = ordered_layers(rows);
  if (layers.empty()) return;
  for (const auto& name : layers) {
    std::vector<double> v;
    for (const LogRow& r : rows)
      if (auto it = r.layer_grad_norms.find(name);
          it != r.layer_grad_norms.end() && std::isfinite(it->second))
        v.push_back(it->second);
    if (!v.empty())
      out.add("grad.layer_norm_median", median(v), "norm",
              {rows_ref(rows, 0, rows.size() - 1, "steps", "grad.layer_norm"), {"layer", name}},
              {{"layer", name}});
  }
  add_dead_layers(rows, layers, out);
  if (layers.size() < 2) return;
  const std::string& first = layers.front();
  const std::string& last = layers.back();
  // Early rows: at the start the ratio reflects the architecture and initialisation; later it can be
  // distorted by units that died after a divergence.
  const std::size_t early = std::min(rows.size(), std::max(kMinEarlyRows, rows.size() / 10));
  std::vector<double> log_ratio;
  for (std::size_t i = 0; i < early; ++i) {
    const auto& l = rows[i].layer_grad_norms;
    const auto a = l.find(first), b = l.find(last);
    if (a == l.end() || b == l.end()) continue;
    if (std::isfinite(a->second) && std::isfinite(b->second) && a->second > 0.0 && b->second > 0.0)
      log_ratio.push_back(std::log10(a->second / b->second));
  }
  if (!log_ratio.empty())
    out.add("grad.log10_first_last_layer_ratio", median(log_ratio), "log10(ratio)",
            {rows_ref(rows, 0, early - 1, "window", "grad.layer_norm"), {"layer", first}, {"layer", last}});
}

void add_learning_rate(const std::vector<LogRow>& rows, const RunConfig& config, FeatureList& out) {
  std::vector<double> lr, update_scale;
  for (const LogRow& r : rows) {
    const std::optional<double> rate = r.lr ? r.lr : config.lr;
    if (!rate || !std::isfinite(*rate)) continue;
    lr.push_back(*rate);
    if (r.grad_norm && std::isfinite(*r.grad_norm)) update_scale.push_back(*rate * *r.grad_norm);
  }
  if (lr.empty()) return;
  const EvidenceRef whole = rows_ref(rows, 0, rows.size() - 1, "steps", "lr");
  out.add("lr.initial", lr.front(), "lr", {row_ref(rows, 0, "lr")});
  out.add("lr.final", lr.back(), "lr", {row_ref(rows, rows.size() - 1, "lr")});
  out.add("lr.peak", *std::max_element(lr.begin(), lr.end()), "lr", {whole});
  if (!update_scale.empty()) out.add("lr.times_grad_norm_median", median(update_scale), "norm", {whole});
}

}  // namespace

void add_gradient_features(const std::vector<LogRow>& all_rows, const RunConfig& config, FeatureList& out) {
  std::vector<LogRow> rows;
  for (const LogRow& r : all_rows)
    if (r.grad_norm) rows.push_back(r);
  if (rows.empty()) {
    add_learning_rate(all_rows, config, out);  // a log without gradient norms still has its rates
    return;
  }
  add_distribution(rows, out);
  add_clipping(rows, config, out);
  add_layers(rows, out);
  add_learning_rate(rows, config, out);
}

}  // namespace cann_debug::plugins::training_detail
