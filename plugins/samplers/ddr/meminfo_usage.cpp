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

void MeminfoUsage::sample(std::int64_t, ss::FrameBuilder& frame, Logger*) {
  const auto text = ss::read_text_file(path_);
  if (!text) throw std::runtime_error(fmt::format("ddr: cannot read {}", path_));
  const auto m = parse_meminfo(*text);
  auto get = [&](std::string_view k) -> const std::uint64_t* {
    auto it = m.find(k);
    return it == m.end() ? nullptr : &it->second;
  };
  std::uint32_t what = kWhatMeminfo;
  auto add = [&](const char* name, std::uint64_t bytes, const char* source) {
    frame.gauge({what++}, static_cast<double>(bytes), [&] {
      return MetricSeries{name, "bytes", {{"source_name", source}}, -1};
    });
  };
  const auto* total = get("MemTotal");
  if (!total) throw std::runtime_error(fmt::format("ddr: {} has no MemTotal line", path_));
  add("ddr.memory.total", *total, "MemTotal");
  // Each series keeps its own number whichever lines the file has.
  const auto* avail = get("MemAvailable");
  if (avail) add("ddr.memory.available", *avail, "MemAvailable");
  what = kWhatMeminfo + 2;
  if (avail) add("ddr.memory.used", *total >= *avail ? *total - *avail : 0, "MemTotal-MemAvailable");
  what = kWhatMeminfo + 3;
  if (const auto* cached = get("Cached")) add("ddr.memory.cached", *cached, "Cached");
  what = kWhatMeminfo + 4;
  if (const auto* dirty = get("Dirty")) add("ddr.memory.dirty", *dirty, "Dirty");
}

}  // namespace cann_debug::plugins::ddr_detail
