#include "meminfo_usage.hpp"

#include <fmt/format.h>

#include <sstream>
#include <stdexcept>

#include "sampler_support/sysfs_files.hpp"

namespace cann_debug::plugins::ddr_detail {

namespace ss = sampler_support;

std::map<std::string, std::uint64_t, std::less<>> parse_meminfo(std::string_view text) {
  std::map<std::string, std::uint64_t, std::less<>> values;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::istringstream fields(line.substr(colon + 1));
    std::uint64_t v = 0;
    std::string unit;
    if (!(fields >> v)) continue;
    fields >> unit;
    values[line.substr(0, colon)] = unit == "kB" ? v * 1024 : v;
  }
  return values;
}

std::string meminfo_unavailable_reason(const std::string& root) {
  const std::string path = ss::join_path(root, "proc/meminfo");
  const auto text = ss::read_text_file(path);
  if (!text) return fmt::format("cannot read {}", path);
  if (!parse_meminfo(*text).contains("MemTotal")) return fmt::format("{} has no MemTotal line", path);
  return {};
}

MeminfoUsage::MeminfoUsage(const std::string& root) : path_(ss::join_path(root, "proc/meminfo")) {}

void MeminfoUsage::sample(std::int64_t, const CorrelationKey& key, std::vector<MetricPoint>& out, Logger*) {
  const auto text = ss::read_text_file(path_);
  if (!text) throw std::runtime_error(fmt::format("ddr: cannot read {}", path_));
  const auto m = parse_meminfo(*text);
  auto get = [&](std::string_view k) -> const std::uint64_t* {
    auto it = m.find(k);
    return it == m.end() ? nullptr : &it->second;
  };
  auto add = [&](const char* name, std::uint64_t bytes, const char* source) {
    out.push_back({name, "bytes", static_cast<double>(bytes), key, {{"source_name", source}}});
  };
  const auto* total = get("MemTotal");
  if (!total) throw std::runtime_error(fmt::format("ddr: {} has no MemTotal line", path_));
  add("ddr.memory.total", *total, "MemTotal");
  if (const auto* avail = get("MemAvailable")) {
    add("ddr.memory.available", *avail, "MemAvailable");
    add("ddr.memory.used", *total >= *avail ? *total - *avail : 0, "MemTotal-MemAvailable");
  }
  if (const auto* cached = get("Cached")) add("ddr.memory.cached", *cached, "Cached");
  if (const auto* dirty = get("Dirty")) add("ddr.memory.dirty", *dirty, "Dirty");
}

}  // namespace cann_debug::plugins::ddr_detail
