// What a sampler found by listing /sys directories (the counter files of RDMA ports, resctrl domains),
// listed again every few seconds: devices come and go rarely (hot plug, driver reload, a remount), and
// between listings the entries keep their open files and counter state.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cann_debug/sampler/sysfs_files.hpp"

namespace cann_debug::plugins::sampler_support {

template <typename Entry>
class Relisted {
 public:
  /// Lists again when kRelistIntervalNs has passed since the last listing (the first call always lists).
  /// `list()` gives what is there now, in order; `key(item)` names an item (its path); `make(item)` builds
  /// the entry of an item not held before. An item listed again keeps its entry as it is; an entry whose
  /// item is no longer listed is dropped (its files closed).
  template <typename List, typename Key, typename Make>
  void refresh(std::int64_t now_ns, List&& list, Key&& key, Make&& make) {
    if (now_ns < next_list_ns_) return;
    next_list_ns_ = now_ns + kRelistIntervalNs;
    std::vector<std::string> keys;
    std::vector<Entry> entries;
    for (auto&& item : list()) {
      std::string k(key(item));
      const auto old = std::find(keys_.begin(), keys_.end(), k);
      if (old != keys_.end())
        entries.push_back(std::move(entries_[static_cast<std::size_t>(old - keys_.begin())]));
      else
        entries.push_back(make(std::move(item)));
      keys.push_back(std::move(k));
    }
    keys_ = std::move(keys);
    entries_ = std::move(entries);
  }

  /// The same for lists of names that are their own keys (directory entries).
  template <typename List, typename Make>
  void refresh(std::int64_t now_ns, List&& list, Make&& make) {
    refresh(
        now_ns, std::forward<List>(list), [](const std::string& name) -> const std::string& { return name; },
        std::forward<Make>(make));
  }

  /// The entries of the last listing, in its order.
  std::vector<Entry>& entries() { return entries_; }
  /// Lists again at the next refresh, whenever it comes.
  void forget() {
    next_list_ns_ = 0;
    keys_.clear();
    entries_.clear();
  }

 private:
  std::vector<std::string> keys_;  // keys_[i] names entries_[i]
  std::vector<Entry> entries_;
  std::int64_t next_list_ns_ = 0;
};

}  // namespace cann_debug::plugins::sampler_support
