#include "rank_trace.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace cann_debug::plugins::hta {
namespace {

constexpr std::string_view kTraceInfoName = "trace_info";
constexpr std::string_view kTraceInfoCategory = "cann_debug.metadata";

std::int64_t integer_of(const nlohmann::json& v) {
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    return u <= static_cast<std::uint64_t>(INT64_MAX) ? static_cast<std::int64_t>(u) : -1;
  }
  if (v.is_number_integer()) return v.get<std::int64_t>();
  if (v.is_number_float()) {
    const double d = v.get<double>();
    return std::isfinite(d) && std::fabs(d) < 9e18 ? static_cast<std::int64_t>(d) : -1;
  }
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    std::int64_t i = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), i);
    if (ec == std::errc() && end == s.data() + s.size() && !s.empty()) return i;
  }
  return -1;
}

std::int64_t profiler_step_number(std::string_view name) {
  const auto hash = name.find('#');
  if (hash == std::string_view::npos) return -1;
  std::size_t i = hash + 1;
  while (i < name.size() && name[i] == ' ') ++i;
  std::int64_t n = 0;
  std::size_t digits = 0;
  for (; i < name.size() && name[i] >= '0' && name[i] <= '9' && digits < 18; ++i, ++digits)
    n = n * 10 + (name[i] - '0');
  return digits > 0 ? n : -1;
}

}  // namespace

std::uint32_t NameTable::intern(std::string_view name) {
  const auto it = ids_.find(std::string(name));
  if (it != ids_.end()) return it->second;
  const auto id = static_cast<std::uint32_t>(names_.size());
  names_.emplace_back(name);
  ids_.emplace(std::string(name), id);
  return id;
}

std::int64_t stream_of(const nlohmann::json& args) {
  if (!args.is_object()) return -1;
  auto it = args.find("stream");
  if (it == args.end()) it = args.find("Stream Id");
  if (it == args.end()) return -1;
  const std::int64_t s = integer_of(*it);
  return s >= 0 ? s : -1;
}

std::int64_t correlation_of(const nlohmann::json& args) {
  if (!args.is_object()) return -1;
  const auto it = args.find("correlation");
  if (it == args.end() || !it->is_number()) return -1;
  const std::int64_t c = integer_of(*it);
  return c >= 0 ? c : -1;
}

RankTrace& TraceStore::rank(std::int32_t r) {
  auto [it, inserted] = ranks_.try_emplace(r);
  if (inserted) it->second.rank = r;
  return it->second;
}

void TraceStore::add(const Event& e) {
  RankTrace& t = rank(e.key.rank < 0 ? 0 : e.key.rank);
  if (e.phase == 'M' && e.name == kTraceInfoName && e.category == kTraceInfoCategory) {
    if (const auto it = e.args.find("clock_origin_ns"); it != e.args.end() && it->is_number_integer())
      t.origin_ns = it->get<std::int64_t>();
    return;
  }
  const std::int64_t index = t.next_index++;
  // HTA keeps rows with a duration and a category, except the profiler's own "Trace" span.
  if (e.phase != 'X' || e.category.empty() || e.category == "Trace" || e.start_ns == kNoTimestamp) return;
  const std::int64_t stream = stream_of(e.args);
  const std::int64_t corr = correlation_of(e.args);
  const bool step_name = e.name.starts_with("ProfilerStep");
  if (stream < 0 && corr < 0 && !step_name) {
    t.cpu.push_back({e.start_ns, e.duration_ns});
    t.first_uncorrelated_cpu_ns = std::min(t.first_uncorrelated_cpu_ns, e.start_ns);
    return;
  }
  const std::uint32_t name = names_.intern(e.name);
  if (step_name) step_names_.insert(name);
  RawRow row{index, e.start_ns, e.duration_ns, stream, corr, name, e.category == "cuda_sync"};
  if (stream >= 0) {
    t.gpu.push_back(row);
    return;
  }
  t.cpu.push_back({e.start_ns, e.duration_ns});
  if (corr >= 0)
    t.cpu_corr.push_back(row);
  else
    t.first_uncorrelated_cpu_ns = std::min(t.first_uncorrelated_cpu_ns, e.start_ns);
  if (step_name) t.steps.push_back({index, e.start_ns, e.duration_ns, profiler_step_number(e.name)});
}

std::vector<RankTrace*> TraceStore::ranks() {
  std::vector<RankTrace*> out;
  for (auto& [r, t] : ranks_) out.push_back(&t);
  std::sort(out.begin(), out.end(), [](const RankTrace* a, const RankTrace* b) { return a->rank < b->rank; });
  return out;
}

}  // namespace cann_debug::plugins::hta
