// Components the host provides itself (package "builtin"), for verbs that run a pipeline and then print
// what came out of it.
#pragma once

#include <string>
#include <vector>

#include "cann_debug/component.hpp"
#include "plugin_registry.hpp"

namespace cann_debug::host {

/// Envelopes kept by `capture` sinks, by their `key` option. Thread-safe.
class CaptureStore {
 public:
  static CaptureStore& instance();
  void add(const std::string& key, Envelope e);
  /// Removes and returns what was captured under `key`, in arrival order.
  std::vector<Envelope> take(const std::string& key);

 private:
  struct Impl;
  CaptureStore();
  Impl* impl_;
};

/// `capture` (sink): input port `in` accepting every core message type; option `key` (string, required).
const ComponentFactory& capture_factory();

/// Registers the built-in components with a registry.
void register_builtins(PluginRegistry& registry);

}  // namespace cann_debug::host
