#include "meminfo_usage.hpp"

#include <fmt/format.h>

#include <optional>
#include <stdexcept>

#include "cann_debug/sampler/sysfs_files.hpp"
#include "cann_debug/sampler/text_fields.hpp"

namespace cann_debug::plugins::ddr_detail {

namespace ss = sampler_support;

std::map<std::string, std::uint64_t, std::less<>> parse_meminfo(std::string_view text) {
  std::map<std::string, std::uint64_t, std::less<>> values;
  ss::for_each_meminfo_line(text,
                            [&](std::string_view key, std::uint64_t v) { values[std::string(key)] = v; });
  return values;
}

std::string meminfo_unavailable_reason(const std::string& root) {
  const std::string path = ss::join_path(root, "proc/meminfo");
  const auto text = ss::read_text_file(path);
  if (!text) return fmt::format("cannot read {}", path);
  if (!parse_meminfo(*text).contains("MemTotal")) return fmt::format("{} has no MemTotal line", path);
  return {};
}

MeminfoUsage::MeminfoUsage(const std::string& root) : file_(ss::join_path(root, "proc/meminfo")) {}

void MeminfoUsage::sample(std::int64_t, ss::FrameBuilder& frame, Logger*) {
  const auto text = file_.read();
  if (!text) throw std::runtime_error(fmt::format("ddr: cannot read {}", file_.path()));
  std::optional<std::uint64_t> total, available, cached, dirty;
  ss::for_each_meminfo_line(*text, [&](std::string_view key, std::uint64_t v) {
    if (key == "MemTotal")
      total = v;
    else if (key == "MemAvailable")
      available = v;
    else if (key == "Cached")
      cached = v;
    else if (key == "Dirty")
      dirty = v;
    return !(total && available && cached && dirty);  // Dirty is about the 17th of some 50 lines
  });
  if (!total) throw std::runtime_error(fmt::format("ddr: {} has no MemTotal line", file_.path()));
  // Each series keeps its own number whichever lines the file has.
  auto add = [&](std::uint32_t n, const char* name, std::uint64_t bytes, const char* source) {
    frame.gauge({kWhatMeminfo + n}, static_cast<double>(bytes), [&] {
      return MetricSeries{name, "bytes", {{"source_name", source}}, -1};
    });
  };
  add(0, "ddr.memory.total", *total, "MemTotal");
  if (available) {
    add(1, "ddr.memory.available", *available, "MemAvailable");
    add(2, "ddr.memory.used", *total >= *available ? *total - *available : 0, "MemTotal-MemAvailable");
  }
  if (cached) add(3, "ddr.memory.cached", *cached, "Cached");
  if (dirty) add(4, "ddr.memory.dirty", *dirty, "Dirty");
}

}  // namespace cann_debug::plugins::ddr_detail
