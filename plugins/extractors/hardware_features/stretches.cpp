#include "stretches.hpp"

#include <algorithm>

namespace cann_debug::plugins::hardware {
namespace {

TimestampNs median_interval(const std::vector<Sample>& samples) {
  if (samples.size() < 2) return 0;
  std::vector<double> gaps;
  gaps.reserve(samples.size() - 1);
  for (std::size_t i = 1; i < samples.size(); ++i)
    gaps.push_back(static_cast<double>(samples[i].t - samples[i - 1].t));
  return static_cast<TimestampNs>(median(std::move(gaps)));
}

}  // namespace

double median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  const std::size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  double m = values[mid];
  if (values.size() % 2 == 0) {
    m = (m + *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid))) / 2.0;
  }
  return m;
}

std::vector<Stretch> stretches(const std::vector<Sample>& samples,
                               const std::function<bool(std::size_t)>& holds, const StretchRule& rule) {
  std::vector<Stretch> out;
  std::optional<Stretch> open;
  std::size_t misses = 0;  // samples in a row, inside the open stretch, where the condition failed
  auto close = [&] {
    if (!open) return;
    if (open->samples() >= rule.min_samples && open->duration() >= rule.min_duration) out.push_back(*open);
    open.reset();
  };
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (holds(i)) {
      if (!open) open = Stretch{i, i, samples[i].t, samples[i].t};
      open->last = i;
      open->end = samples[i].t;
      misses = 0;
    } else if (open && ++misses > 1) {
      close();
      misses = 0;
    }
  }
  close();
  std::stable_sort(out.begin(), out.end(), [](const Stretch& a, const Stretch& b) {
    return a.duration() != b.duration() ? a.duration() > b.duration() : a.samples() > b.samples();
  });
  return out;
}

TimestampNs covered_time(const std::vector<Sample>& samples, std::size_t first, std::size_t last) {
  if (samples.empty() || first > last || last >= samples.size()) return 0;
  const TimestampNs tail =
      last + 1 < samples.size() ? samples[last + 1].t - samples[last].t : median_interval(samples);
  return samples[last].t - samples[first].t + tail;
}

TimestampNs covered_time(const std::vector<Sample>& samples) {
  return samples.empty() ? 0 : covered_time(samples, 0, samples.size() - 1);
}

}  // namespace cann_debug::plugins::hardware
