#include "cann_debug/sampler/frame_builder.hpp"

#include <limits>
#include <utility>

namespace cann_debug::plugins::sampler_support {

namespace {
constexpr double kAbsent = std::numeric_limits<double>::quiet_NaN();
}

void FrameBuilder::begin(const CorrelationKey& key) {
  key_ = key;
  cursor_ = 0;
  stored_ = 0;
  values_.assign(series_.size(), kAbsent);
}

std::uint32_t FrameBuilder::add_series(const SeriesKey& key, MetricSeries series, bool counter, bool delta) {
  if (label_node_ && !key_.node_id.empty()) series.labels["node"] = key_.node_id;
  const auto slot = static_cast<std::uint32_t>(slots_.size());
  const auto first = static_cast<std::uint32_t>(series_.size());
  slots_.push_back({key, counter, counter && delta, false, 0, 0});
  first_value_.push_back(first);
  index_.emplace(key, slot);
  if (counter && delta) {
    MetricSeries change = series;
    change.name += ".delta";
    series.unit += "/s";
    series_.push_back(std::move(series));
    series_.push_back(std::move(change));
    slot_of_value_.insert(slot_of_value_.end(), 2, slot);
  } else {
    series_.push_back(std::move(series));
    slot_of_value_.push_back(slot);
  }
  values_.resize(series_.size(), kAbsent);
  schema_stale_ = true;
  cursor_ = slot + 1;
  return first;
}

CounterDelta FrameBuilder::update_counter(std::uint32_t value_index, std::uint64_t value, unsigned width_bits,
                                          std::int64_t read_ns, double scale) {
  Slot& s = slots_[slot_of_value_[value_index]];
  if (width_bits == 0)
    width_bits = infer_counter_width(s.primed ? std::optional<std::uint64_t>(s.last) : std::nullopt, value);
  CounterDelta d;
  if (s.primed) {
    d = counter_delta(s.last, value, width_bits);
    d.seconds = static_cast<double>(read_ns - s.last_ns) * 1e-9;
  }
  s.primed = true;
  s.last = value;
  s.last_ns = read_ns;
  if (d.has_delta() && d.seconds > 0) {
    values_[value_index] = d.rate_per_second() * scale;
    ++stored_;
    if (s.delta) {
      values_[value_index + 1] = static_cast<double>(d.delta) * scale;
      ++stored_;
    }
  }
  return d;
}

void FrameBuilder::reset_counter(const SeriesKey& key) {
  if (auto it = index_.find(key); it != index_.end()) slots_[it->second].primed = false;
}

std::optional<std::uint64_t> FrameBuilder::previous_counter(const SeriesKey& key) const {
  auto it = index_.find(key);
  if (it == index_.end() || !slots_[it->second].primed) return std::nullopt;
  return slots_[it->second].last;
}

MetricFrame FrameBuilder::finish() {
  if (schema_stale_) {
    schema_ = std::make_shared<const MetricSchema>(MetricSchema{series_});
    schema_stale_ = false;
  }
  MetricFrame frame;
  frame.schema = schema_;
  frame.key = key_;
  frame.values = std::move(values_);
  values_.clear();
  return frame;
}

void FrameBuilder::clear() {
  slots_.clear();
  first_value_.clear();
  slot_of_value_.clear();
  index_.clear();
  series_.clear();
  schema_.reset();
  schema_stale_ = true;
  values_.clear();
  cursor_ = 0;
  stored_ = 0;
}

}  // namespace cann_debug::plugins::sampler_support
