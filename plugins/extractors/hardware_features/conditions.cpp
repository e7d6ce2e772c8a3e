#include "conditions.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <map>
#include <optional>
#include <string>

#include <fmt/format.h>

namespace cann_debug::plugins::hardware {
namespace {

Feature feature(std::string name, double value, std::string unit, std::vector<EvidenceRef> evidence = {}) {
  return Feature{std::move(name), value, std::move(unit), std::move(evidence), {}};
}

EvidenceRef series_ref(const Series& s) {
  EvidenceRef r;
  r.kind = "series";
  r.id = s.display();
  if (!s.samples.empty()) {
    r.start_ns = s.samples.front().t;
    r.end_ns = s.samples.back().t;
  }
  return r;
}

std::string clock_time(TimestampNs t) {
  const std::time_t secs = static_cast<std::time_t>(t / 1'000'000'000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  return fmt::format("{:02}:{:02}:{:02}.{:03}", tm.tm_hour, tm.tm_min, tm.tm_sec, (t / 1'000'000) % 1000);
}

std::vector<double> values_in(const std::vector<Sample>& samples, const Stretch& s) {
  std::vector<double> out;
  for (std::size_t i = s.first; i <= s.last; ++i) out.push_back(samples[i].v);
  return out;
}

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

double stretch_share(const std::vector<Sample>& samples, const std::vector<Stretch>& found) {
  const TimestampNs total = covered_time(samples);
  if (total <= 0) return 0.0;
  TimestampNs in = 0;
  for (const Stretch& s : found) in += covered_time(samples, s.first, s.last);
  return std::min(1.0, static_cast<double>(in) / static_cast<double>(total));
}

/// A series computed from others, on the time grid of the first (utilisation from used/total, ...).
Series derived(const Series& like, std::string name, std::string unit) {
  return Series{std::move(name), std::move(unit), like.labels, {}};
}

// The value held over `n` consecutive samples at the highest: max over i of min(v[i..i+n-1]).
double sustained_peak(const std::vector<Sample>& s, std::size_t n, std::size_t& at) {
  n = std::max<std::size_t>(1, std::min(n, s.size()));
  double best = -1.0;
  for (std::size_t i = 0; i + n <= s.size(); ++i) {
    double low = s[i].v;
    for (std::size_t k = 1; k < n; ++k) low = std::min(low, s[i + k].v);
    if (low > best) {
      best = low;
      at = i;
    }
  }
  return best;
}

}  // namespace

EvidenceRef window_ref(const Context& ctx, const Series& series, const Stretch& stretch,
                       const std::string& what) {
  EvidenceRef r;
  r.kind = "window";
  r.start_ns = stretch.start;
  r.end_ns = stretch.end;
  const auto o = ctx.timeline.overlap(stretch.start, stretch.end);
  r.first_step = o.first_step;
  r.last_step = o.last_step;
  const double seconds = static_cast<double>(stretch.duration()) / 1e9;
  std::string overlapped;
  if (o.requests > 0) overlapped = fmt::format(", {} requests", o.requests);
  r.id = fmt::format("{}: {} from {} for {:.1f} s{}", series.subject(), what, clock_time(stretch.start),
                     seconds, overlapped);
  return r;
}

void device_clock(const Context& ctx, std::vector<Feature>& out) {
  struct Kind {
    const char *clock, *rated, *busy, *temperature, *label;
  };
  static constexpr Kind kKinds[] = {
      {"npu.aicore.frequency", "npu.aicore.rated_frequency", "npu.aicore.utilization", "npu.temperature",
       "AI Core clock"},
      {"gpu.clock.sm", nullptr, "gpu.utilization", "gpu.temperature", "SM clock"}};
  struct Best {
    const Series* clock = nullptr;
    Stretch stretch;
    double drop = 0.0, share = 0.0, reference = 0.0;
    std::optional<double> temperature, temperature_before;
    std::string what;
  };
  std::optional<Best> best;
  const Series* any = nullptr;
  double any_reference = 0.0;
  for (const Kind& kind : kKinds)
    for (const Series* clock : ctx.store.named(kind.clock)) {
      std::vector<double> values;
      for (const Sample& s : clock->samples) values.push_back(s.v);
      double reference = quantile(values, 0.95);  // the device's own steady clock
      bool rated = false;
      if (kind.rated)
        if (const Series* r = ctx.store.companion(kind.rated, *clock)) {
          std::vector<double> rv;
          for (const Sample& s : r->samples) rv.push_back(s.v);
          if (double m = median(rv); m > 0) reference = m, rated = true;
        }
      if (reference <= 0) continue;
      if (!any) any = clock, any_reference = reference;
      const Series* busy = ctx.store.companion(kind.busy, *clock);
      auto found = stretches(
          clock->samples,
          [&](std::size_t i) {
            if (clock->samples[i].v >= ctx.limits.clock_low * reference) return false;
            if (!busy) return true;
            auto u = busy->at(clock->samples[i].t);
            return !u || *u >= ctx.limits.device_busy;
          },
          ctx.rule);
      if (found.empty()) continue;
      const Stretch& top = found.front();
      const double level = median(values_in(clock->samples, top));
      Best b{clock, top, 1.0 - level / reference, stretch_share(clock->samples, found), reference, {},
             {},    {}};
      if (const Series* temp = ctx.store.companion(kind.temperature, *clock)) {
        for (const Sample& s : temp->samples)
          if (s.t >= top.start && s.t <= top.end) b.temperature = std::max(b.temperature.value_or(s.v), s.v);
        std::vector<double> before;
        for (const Sample& s : temp->samples)
          if (s.t < top.start) before.push_back(s.v);
        if (!before.empty()) b.temperature_before = median(before);
      }
      b.what = fmt::format("{} {:.0f} MHz, {:.0f}% of {} {:.0f} MHz", kind.label, level / 1e6,
                           100.0 * level / reference, rated ? "rated" : "its usual", reference / 1e6);
      if (b.temperature)
        b.what += b.temperature_before ? fmt::format(", at {:.0f} °C ({:.0f} °C before)", *b.temperature,
                                                     *b.temperature_before)
                                       : fmt::format(", at {:.0f} °C", *b.temperature);
      // The finding is the longest sustained throttling of any device (the deepest on a tie).
      if (!best || top.duration() > best->stretch.duration() ||
          (top.duration() == best->stretch.duration() && b.drop > best->drop))
        best = std::move(b);
    }
  if (!any) return;  // no device clock sampled: the features are absent, not zero
  if (!best) {
    out.push_back(feature("hw.device.clock_drop", 0.0, "ratio", {series_ref(*any)}));
    out.push_back(feature("hw.device.throttled_share", 0.0, "ratio"));
    out.push_back(feature("hw.device.reference_clock", any_reference, "hertz", {series_ref(*any)}));
    return;
  }
  std::vector<EvidenceRef> ev = {window_ref(ctx, *best->clock, best->stretch, best->what),
                                 series_ref(*best->clock)};
  out.push_back(feature("hw.device.clock_drop", best->drop, "ratio", ev));
  out.push_back(feature("hw.device.throttled_share", best->share, "ratio", ev));
  out.push_back(feature("hw.device.reference_clock", best->reference, "hertz", {series_ref(*best->clock)}));
  if (best->temperature)
    out.push_back(feature("hw.device.throttle_temperature", *best->temperature, "celsius", ev));
}

void memory_pressure(const Context& ctx, std::vector<Feature>& out) {
  // Utilisation series (0..1) of every device and of the host, as used / capacity.
  std::vector<Series> usage;
  for (const Series* s : ctx.store.named("npu.hbm.utilization")) {
    Series u = *s;
    for (auto& x : u.samples) x.v = std::clamp(x.v, 0.0, 1.0);
    usage.push_back(std::move(u));
  }
  auto ratio_of = [&](const char* used_name, const char* total_name, const char* what, bool total_is_free) {
    for (const Series* used : ctx.store.named(used_name)) {
      const Series* total = ctx.store.companion(total_name, *used);
      if (!total) continue;
      // npu.hbm.utilization already gave this device
      if (std::string_view(used_name) == "npu.hbm.used" &&
          std::any_of(usage.begin(), usage.end(), [&](const Series& u) { return u.labels == used->labels; }))
        continue;
      Series u = derived(*used, what, "ratio");
      for (const Sample& s : used->samples) {
        auto cap = total->at(s.t);
        if (!cap || *cap <= 0) continue;
        const double v = total_is_free ? 1.0 - s.v / *cap : s.v / *cap;
        u.samples.push_back({s.t, std::clamp(v, 0.0, 1.0)});
      }
      if (!u.samples.empty()) usage.push_back(std::move(u));
    }
  };
  ratio_of("npu.hbm.used", "npu.hbm.capacity", "npu.hbm.used/npu.hbm.capacity", false);
  ratio_of("gpu.memory.used", "gpu.memory.total", "gpu.memory.used/gpu.memory.total", false);
  // host: 1 - available / total (procfs or the ddr sampler's meminfo back end; one of them is enough)
  ratio_of("host.memory.available", "host.memory.total", "host.memory (1 - available/total)", true);
  if (ctx.store.named("host.memory.available").empty())
    ratio_of("ddr.memory.available", "ddr.memory.total", "ddr.memory (1 - available/total)", true);
  if (usage.empty()) return;

  struct Best {
    const Series* series = nullptr;
    double peak = -1.0, share = 0.0;
    Stretch stretch;
  };
  Best best;
  for (const Series& u : usage) {
    std::size_t at = 0;
    const double peak = sustained_peak(u.samples, ctx.rule.min_samples, at);
    auto found = stretches(
        u.samples, [&](std::size_t i) { return u.samples[i].v >= ctx.limits.memory_full; }, ctx.rule);
    Stretch where = found.empty()
                        ? Stretch{at, std::min(at + ctx.rule.min_samples, u.samples.size()) - 1, 0, 0}
                        : found.front();
    where.start = u.samples[where.first].t;
    where.end = u.samples[where.last].t;
    if (peak > best.peak) best = {&u, peak, stretch_share(u.samples, found), where};
  }
  const Series& u = *best.series;
  const std::string what = fmt::format(
      "{} {:.1f}% of capacity{}",
      u.name.starts_with("host") || u.name.starts_with("ddr") ? "host memory in use" : "device memory in use",
      100.0 * best.peak, best.share > 0 ? "" : " at its peak");
  std::vector<EvidenceRef> ev = {window_ref(ctx, u, best.stretch, what), series_ref(u)};
  out.push_back(feature("hw.memory.peak_utilization", best.peak, "ratio", ev));
  out.push_back(feature("hw.memory.pressure_share", best.share, "ratio", ev));
}

void network_congestion(const Context& ctx, std::vector<Feature>& out) {
  static constexpr const char* kSignals[] = {"roce.port.pfc_sent",       "roce.port.pfc_received",
                                             "roce.port.mac_pause_sent", "roce.port.mac_pause_received",
                                             "roce.port.cnp_sent",       "roce.port.cnp_received",
                                             "roce.port.ecn_marked",     "roce.port.retransmissions"};
  static constexpr const char* kPackets[][2] = {{"roce.port.mac_tx_packets", "roce.port.mac_rx_packets"},
                                                {"roce.port.tx_packets", "roce.port.rx_packets"}};
  // One port = the labels its signal series share.
  std::map<Labels, std::vector<const Series*>> ports;
  for (const char* name : kSignals)
    for (const Series* s : ctx.store.named(name)) ports[s->labels].push_back(s);
  if (ports.empty()) return;

  struct Best {
    Series ratio;
    std::optional<Stretch> stretch;
    double value = -1.0, rate = 0.0, share = 0.0;
    bool has_ratio = false;
  };
  std::optional<Best> best;
  for (const auto& [labels, signals] : ports) {
    std::vector<const Series*> packets;
    for (const auto& pair : kPackets) {
      for (const char* name : pair)
        if (const Series* p = ctx.store.companion(name, *signals.front())) packets.push_back(p);
      if (!packets.empty()) break;
    }
    const Series& grid = packets.empty() ? *signals.front() : *packets.front();
    Series ratio =
        derived(grid, packets.empty() ? "congestion signals/s" : "congestion signals per packet", "ratio");
    ratio.labels = labels;
    std::vector<double> rates;
    for (const Sample& g : grid.samples) {
      double events = 0.0, sent = 0.0;
      for (const Series* s : signals) events += s->at(g.t).value_or(0.0);
      for (const Series* p : packets) sent += p->at(g.t).value_or(0.0);
      rates.push_back(events);
      ratio.samples.push_back(
          {g.t,
           packets.empty() ? events : (sent > 0 ? std::min(1.0, events / sent) : (events > 0 ? 1.0 : 0.0))});
    }
    Best b{ratio, std::nullopt, 0.0, 0.0, 0.0, !packets.empty()};
    if (b.has_ratio) {
      auto found = stretches(
          b.ratio.samples, [&](std::size_t i) { return b.ratio.samples[i].v >= ctx.limits.congestion; },
          ctx.rule);
      if (!found.empty()) {
        b.stretch = found.front();
        b.value = median(values_in(b.ratio.samples, *b.stretch));
        std::vector<double> in(rates.begin() + static_cast<std::ptrdiff_t>(b.stretch->first),
                               rates.begin() + static_cast<std::ptrdiff_t>(b.stretch->last) + 1);
        b.rate = median(in);
        b.share = stretch_share(b.ratio.samples, found);
      } else {
        std::vector<double> all;
        for (const Sample& s : b.ratio.samples) all.push_back(s.v);
        b.value = median(all);
        b.rate = median(rates);
      }
    } else {
      b.rate = median(rates);
    }
    const bool better = !best || (b.stretch && !best->stretch) ||
                        (static_cast<bool>(b.stretch) == static_cast<bool>(best->stretch) &&
                         (b.has_ratio ? b.value > best->value : b.rate > best->rate));
    if (better) best = std::move(b);
  }
  std::vector<EvidenceRef> ev;
  if (best->stretch)
    ev.push_back(window_ref(ctx, best->ratio, *best->stretch,
                            fmt::format("{:.0f} congestion signals/s (PFC/pause frames, CNPs, ECN marks, "
                                        "retransmissions), {:.1f}% of packets",
                                        best->rate, 100.0 * best->value)));
  ev.push_back(series_ref(best->ratio));
  if (best->has_ratio) {
    out.push_back(feature("hw.network.congestion_ratio", best->value, "ratio", ev));
    out.push_back(feature("hw.network.congested_share", best->share, "ratio", ev));
  }
  out.push_back(feature("hw.network.congestion_rate", best->rate, "count/s", ev));
}

void host_cpu(const Context& ctx, std::vector<Feature>& out) {
  const Series* util = nullptr;
  for (const Series* s : ctx.store.named("host.cpu.utilization"))
    if (s->labels.contains("cpu") && s->labels.at("cpu") == "all") util = s;
  if (!util) return;
  auto host_series = [&](const char* name) -> const Series* {
    for (const Series* s : ctx.store.named(name))
      if (!s->labels.contains("cpu") || s->labels.at("cpu") == "all") return s;
    return nullptr;
  };
  const Series* runnable = host_series("host.load.runnable");
  const Series* iowait = host_series("host.cpu.iowait");
  const Series* steal = host_series("host.cpu.steal");
  double cores = 0.0;
  if (const Series* count = host_series("host.cpu.count")) {
    std::vector<double> v;
    for (const Sample& s : count->samples) v.push_back(s.v);
    cores = median(v);
  }
  if (cores <= 0) {  // per-cpu series name the cores
    for (const Series* s : ctx.store.named("host.cpu.utilization"))
      if (s->labels.contains("cpu") && s->labels.at("cpu") != "all") cores += 1.0;
  }
  const auto processes = ctx.store.named("process.cpu.utilization");

  // Per sample: the run queue per core, the share of the machine the other processes used, iowait, steal.
  struct Reading {
    double run_queue = 0, others = 0, iowait = 0, steal = 0;
    bool starved = false;
    std::string why;
  };
  std::vector<Reading> readings;
  for (const Sample& s : util->samples) {
    Reading r;
    r.iowait = iowait ? iowait->at(s.t).value_or(0.0) : 0.0;
    r.steal = steal ? steal->at(s.t).value_or(0.0) : 0.0;
    if (cores > 0 && runnable) {
      r.run_queue = runnable->at(s.t).value_or(0.0) / cores;
      if (!processes.empty()) {
        double own = 0.0;
        for (const Series* p : processes) own += p->at(s.t).value_or(0.0);
        r.others = std::max(0.0, s.v * cores - own) / cores;
        // The workload's own threads oversubscribing the cores is not the host starving it.
        if (r.run_queue >= ctx.limits.run_queue_per_core && r.others >= 0.5)
          r.starved = true, r.why = "run queue";
      } else if (r.run_queue >= ctx.limits.run_queue_alone && s.v >= ctx.limits.cpu_busy) {
        r.starved = true, r.why = "run queue";
      }
    }
    if (r.iowait >= ctx.limits.iowait) r.starved = true, r.why = "iowait";
    if (r.steal >= ctx.limits.steal) r.starved = true, r.why = "steal";
    readings.push_back(std::move(r));
  }
  auto found = stretches(
      util->samples, [&](std::size_t i) { return readings[i].starved; }, ctx.rule);
  std::vector<EvidenceRef> ev;
  double rq = 0, io = 0, st = 0;
  if (!found.empty()) {
    const Stretch& top = found.front();
    std::vector<double> q, w, t, busy, others;
    std::map<std::string, int> why;
    for (std::size_t i = top.first; i <= top.last; ++i) {
      q.push_back(readings[i].run_queue), w.push_back(readings[i].iowait), t.push_back(readings[i].steal);
      busy.push_back(util->samples[i].v), others.push_back(readings[i].others);
      if (readings[i].starved) ++why[readings[i].why];
    }
    rq = median(q), io = median(w), st = median(t);
    const std::string main =
        std::max_element(why.begin(), why.end(), [](auto& a, auto& b) { return a.second < b.second; })->first;
    std::string what;
    if (main == "iowait")
      what = fmt::format("CPUs {:.0f}% in iowait (waiting for storage)", 100.0 * io);
    else if (main == "steal")
      what = fmt::format("{:.0f}% of CPU time stolen by the hypervisor", 100.0 * st);
    else if (!processes.empty())
      what = fmt::format("run queue {:.1f} per core, other processes using {:.0f}% of the {:.0f} CPUs", rq,
                         100.0 * median(others), cores);
    else
      what = fmt::format("run queue {:.1f} per core with the {:.0f} CPUs {:.0f}% busy", rq, cores,
                         100.0 * median(busy));
    ev.push_back(window_ref(ctx, *util, top, what));
  } else {
    std::vector<double> q, w, t;
    for (const Reading& r : readings) q.push_back(r.run_queue), w.push_back(r.iowait), t.push_back(r.steal);
    rq = median(q), io = median(w), st = median(t);
  }
  ev.push_back(series_ref(*util));
  out.push_back(feature("hw.host.cpu_starved_share", stretch_share(util->samples, found), "ratio", ev));
  if (cores > 0 && runnable) out.push_back(feature("hw.host.run_queue_per_core", rq, "ratio", ev));
  if (iowait) out.push_back(feature("hw.host.iowait", io, "ratio", ev));
  if (steal) out.push_back(feature("hw.host.steal", st, "ratio", ev));
}

}  // namespace cann_debug::plugins::hardware
