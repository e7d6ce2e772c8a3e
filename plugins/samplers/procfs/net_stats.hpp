// Network interface counters from <root>/sys/class/net/<if>/statistics/{rx,tx}_{bytes,packets,dropped,errors}
// turned into rates (bytes/s, count/s), with wraps counted and resets skipped.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cann_debug/messages.hpp"
#include "cann_debug/sampler/frame_builder.hpp"
#include "cann_debug/sampler/sysfs_files.hpp"

namespace cann_debug::plugins::procfs_detail {

class NetStats {
 public:
  /// `interfaces`: the interfaces to read; empty = every interface under sys/class/net except "lo".
  NetStats(const std::string& root, std::vector<std::string> interfaces);

  /// Puts host.network.* rates for every interface and counter with a previous reading; the dropped and
  /// error counters only when `slow` (SlowReadings). Returns the named interfaces that are missing (not
  /// under sys/class/net), so the caller can note them once.
  std::vector<std::string> sample(std::int64_t now_ns, sampler_support::FrameBuilder& frame, bool slow);

  const std::string& class_dir() const { return class_dir_; }

 private:
  std::string class_dir_;  // <root>/sys/class/net
  std::vector<std::string> wanted_;
  std::vector<std::string> listed_;  // every interface but "lo", listed again every few seconds
  std::int64_t next_list_ns_ = 0;    // when to list (and check the interfaces read) again
  struct Interface {
    std::uint32_t ordinal = 0;                          // its series key, for good
    std::vector<sampler_support::AttributeFile> files;  // statistics/<counter>, kept open
  };
  std::map<std::string, Interface, std::less<>> interfaces_;
};

}  // namespace cann_debug::plugins::procfs_detail
