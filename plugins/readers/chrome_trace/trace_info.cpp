#include "trace_info.hpp"

#include <filesystem>
#include <regex>

namespace cann_debug::plugins::chrome_trace {
namespace {

// Timestamps at or after 2001-09-09 (1e15 us) are taken as Unix epoch microseconds.
constexpr std::int64_t kEpochThresholdNs = 1'000'000'000'000'000'000;

std::optional<std::int64_t> integer_member(const nlohmann::json& obj, const char* key) {
  const auto it = obj.find(key);
  if (it == obj.end()) return std::nullopt;
  if (it->is_number_integer()) return it->get<std::int64_t>();
  if (it->is_number_unsigned() && it->get<std::uint64_t>() <= static_cast<std::uint64_t>(INT64_MAX))
    return static_cast<std::int64_t>(it->get<std::uint64_t>());
  return std::nullopt;
}

}  // namespace

TraceClock choose_clock(const Prescan& scan) {
  TraceClock clock;
  clock.base_time_ns = integer_member(scan.metadata, "baseTimeNanoseconds");
  if (clock.base_time_ns) {
    clock.origin_ns = *clock.base_time_ns;
    clock.epoch = true;
  } else {
    clock.epoch = scan.first_ts_seen && scan.first_ts_ns >= kEpochThresholdNs;
  }
  return clock;
}

RankChoice choose_rank(const Prescan& scan, const std::string& path, std::int64_t option_rank) {
  if (option_rank >= 0) return {static_cast<std::int32_t>(option_rank), "option"};
  if (const auto it = scan.metadata.find("distributedInfo"); it != scan.metadata.end() && it->is_object()) {
    if (const auto r = integer_member(*it, "rank"); r && *r >= 0 && *r <= INT32_MAX)
      return {static_cast<std::int32_t>(*r), "distributedInfo"};
  }
  // rank0.trace.json, rank-3.Apr_03_18_51_38.1102.pt.trace.json, worker_rank_2.json.gz
  static const std::regex kRankInName(R"((?:^|[^A-Za-z])rank[-_]?(\d{1,6})(?:[^0-9]|$))", std::regex::icase);
  const std::string name = std::filesystem::path(path).filename().string();
  std::smatch m;
  if (std::regex_search(name, m, kRankInName))
    return {static_cast<std::int32_t>(std::stoi(m[1].str())), "file name"};
  return {};
}

std::string format_name(const Prescan& scan) {
  if (scan.layout == TraceScanner::Layout::kObject) return "kineto";
  if (scan.ts_strings) return "ascend";
  if (scan.string_pids) return "pytorch_legacy";
  return "chrome_array";
}

Event make_trace_info(const Prescan& scan, const std::string& path, const TraceClock& clock,
                      const RankChoice& rank) {
  Event e;
  e.name = kTraceInfoName;
  e.category = kTraceInfoCategory;
  e.phase = 'M';
  e.key.rank = rank.rank;
  nlohmann::json steps = nlohmann::json::array();
  for (auto s : scan.steps.steps()) steps.push_back(s);
  e.args = {
      {"format", format_name(scan)},
      {"source_path", path},
      {"compressed", scan.compressed},
      {"clock", clock.epoch ? "epoch" : "relative"},
      {"clock_origin_ns", clock.origin_ns},
      {"base_time_ns", clock.base_time_ns ? nlohmann::json(*clock.base_time_ns) : nlohmann::json(nullptr)},
      {"rank", rank.rank},
      {"rank_source", rank.source},
      {"profiler_steps", std::move(steps)},
      {"metadata", scan.metadata},
  };
  return e;
}

}  // namespace cann_debug::plugins::chrome_trace
