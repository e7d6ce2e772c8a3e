#include "ascend_communication.hpp"

#include <algorithm>

#include "json_number.hpp"
#include "rank_statistics.hpp"

namespace cann_debug::plugins::distributed {

void AscendCommunication::add(const Record& record, const std::string& source) {
  const auto verdict = preference_.see(source);
  if (!verdict.counts) return;
  if (verdict.restart) {
    ranks_.clear();
    source_.clear();
    first_step_ = last_step_ = -1;
  }
  const nlohmann::json& f = record.fields;
  // The per-rank file repeats every op in a "Total Op Info" aggregate: count each op once.
  if (const auto it = f.find("aggregate"); it != f.end() && it->is_boolean() && it->get<bool>()) return;
  std::int64_t rank = record.key.has_rank() ? record.key.rank : -1;
  if (rank < 0) {
    const auto it = f.find("rank");
    if (it == f.end() || !it->is_number_integer()) return;
    rank = it->get<std::int64_t>();
  }
  if (source_.empty()) source_ = source;
  if (record.key.step_id >= 0) {
    first_step_ = first_step_ < 0 ? record.key.step_id : std::min(first_step_, record.key.step_id);
    last_step_ = std::max(last_step_, record.key.step_id);
  }
  Rank& r = ranks_[rank];
  r.wait_ns += number_or_zero(f, "wait_time_ns");
  r.elapse_ns += number_or_zero(f, "elapse_time_ns");
  if (const auto it = f.find("bandwidth"); it != f.end() && it->is_object())
    for (const auto& [name, t] : it->items()) {
      if (!t.is_object()) continue;
      const double bytes = number_or_zero(t, "transit_size_bytes"),
                   time_ns = number_or_zero(t, "transit_time_ns");
      if (bytes <= 0 || time_ns <= 0) continue;  // a transport with nothing on it is "not used"
      Transport& agg = r.transports[name];
      agg.bytes += bytes;
      agg.time_ns += time_ns;
      agg.large_packet_bytes += bytes * std::clamp(number_or_zero(t, "large_packet_ratio"), 0.0, 1.0);
    }
}

void AscendCommunication::features(std::vector<Feature>& out, bool with_late_rank) const {
  auto ref = [&](const std::string& kind, const std::string& id) {
    return EvidenceRef{kind, id, kNoTimestamp, kNoTimestamp, first_step_, last_step_};
  };
  // Slowest link: per transport, the rank with the lowest bandwidth against the median of the others.
  std::map<std::string, std::vector<std::pair<double, std::int64_t>>> by_transport;
  double bytes = 0, large = 0;
  for (const auto& [rank, r] : ranks_)
    for (const auto& [name, t] : r.transports) {
      by_transport[name].emplace_back(t.bytes / (t.time_ns / 1e9), rank);
      bytes += t.bytes;
      large += t.large_packet_bytes;
    }
  double worst = -1;
  std::string worst_link;
  for (const auto& [name, ranks] : by_transport) {
    if (ranks.size() < 2) continue;
    // Against the median of the other ranks: with two ranks, a median over both would halve the drop.
    const auto slowest = *std::min_element(ranks.begin(), ranks.end());
    std::vector<double> bw;
    bool skipped = false;
    for (const auto& [b, rank] : ranks)
      if (skipped || rank != slowest.second)
        bw.push_back(b);
      else
        skipped = true;
    const double med = median_of(bw);
    if (med <= 0) continue;
    const double ratio = slowest.first / med;
    if (worst < 0 || ratio < worst) {
      worst = ratio;
      worst_link = name + ":rank" + std::to_string(slowest.second);
    }
  }
  if (worst >= 0)
    out.push_back(
        {"comm.link_bandwidth_ratio", worst, "ratio", {ref("link", worst_link), ref("series", source_)}, {}});
  if (bytes > 0)
    out.push_back({"comm.large_packet_ratio", large / bytes, "ratio", {ref("series", source_)}, {}});
  // Who waited for whom: the rank that waits least in the collectives is the one the others waited for.
  std::vector<double> wait;
  std::vector<std::int64_t> rank_of;
  for (const auto& [rank, r] : ranks_)
    if (r.elapse_ns > 0) {
      wait.push_back(r.wait_ns / r.elapse_ns);
      rank_of.push_back(rank);
    }
  if (wait.size() < 2) return;
  const std::size_t late = index_of_min(wait), waiting = index_of_max(wait);
  const std::string late_id = "rank" + std::to_string(rank_of[late]);
  out.push_back({"comm.wait_time_ratio_spread",
                 wait[waiting] - wait[late],
                 "ratio",
                 {ref("rank", late_id), ref("rank", "rank" + std::to_string(rank_of[waiting]))},
                 {}});
  if (with_late_rank)
    out.push_back({"rank.late_rank", static_cast<double>(rank_of[late]), "rank", {ref("rank", late_id)}, {}});
}

}  // namespace cann_debug::plugins::distributed
