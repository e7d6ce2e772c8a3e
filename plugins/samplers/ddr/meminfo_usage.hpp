// Host memory usage from <root>/proc/meminfo: ddr.memory.{total,available,used,cached,dirty} in bytes.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "backend.hpp"
#include "cann_debug/sampler/sysfs_files.hpp"

namespace cann_debug::plugins::ddr_detail {

/// "Key:  123 kB" lines -> key -> value in bytes (values without "kB" are counts, kept as they are); the
/// sampler itself walks the lines with sampler_support::for_each_meminfo_line, without building a map.
std::map<std::string, std::uint64_t, std::less<>> parse_meminfo(std::string_view text);

/// "" when <root>/proc/meminfo has MemTotal, else why not.
std::string meminfo_unavailable_reason(const std::string& root);

class MeminfoUsage final : public DdrBackend {
 public:
  explicit MeminfoUsage(const std::string& root);
  const char* name() const override { return "meminfo"; }
  void sample(std::int64_t now_ns, sampler_support::FrameBuilder& frame, Logger* log) override;

 private:
  sampler_support::KeptOpenFile file_;
};

}  // namespace cann_debug::plugins::ddr_detail
