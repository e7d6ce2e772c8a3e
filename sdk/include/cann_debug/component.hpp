// The component contract: a factory that describes, probes, validates and creates; a component that
// starts, polls or processes, flushes and stops.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cann_debug/host_services.hpp"
#include "cann_debug/manifest.hpp"
#include "cann_debug/message.hpp"
#include "cann_debug/options.hpp"

namespace cann_debug {

/// Where a component's output goes. The host implements it; a component calls it from poll/process/flush.
class Emitter {
 public:
  virtual ~Emitter() = default;
  /// Sends an envelope out of output port `port` (index into Manifest::outputs).
  virtual void emit(std::size_t port, Envelope envelope) = 0;

  template <MessageType T>
  void emit(std::size_t port, CorrelationKey key, T value) {
    emit(port, Envelope::make<T>(std::move(key), std::move(value)));
  }
};

enum class PollResult {
  kMore,  // call poll again right away
  kIdle,  // nothing now: call again after the component's interval (or the host's default)
  kDone,  // the source is exhausted
};

class Component {
 public:
  virtual ~Component() = default;
  /// Prepare resources. Called consumers-first, before any data flows.
  virtual void start() {}
  /// Release resources. Idempotent and safe without start(); nothing is called after it.
  virtual void stop() {}
  /// Sources only: produce what is available now.
  virtual PollResult poll(Emitter& /*out*/) { return PollResult::kDone; }
  /// Non-sources: handle one message that arrived on input port `port`.
  virtual void process(const Envelope& /*message*/, std::size_t /*port*/, Emitter& /*out*/) {}
  /// End of stream: every upstream component has finished. Emit what is still held.
  virtual void flush(Emitter& /*out*/) {}
  /// For sources: how long to wait after kIdle, in ns (0 = host default).
  virtual std::int64_t idle_interval_ns() const { return 0; }
};

struct Availability {
  bool available = true;
  std::string reason;  // why not (or a note on partial availability)
  static Availability yes(std::string note = {}) { return {true, std::move(note)}; }
  static Availability no(std::string why) { return {false, std::move(why)}; }
};

/// One problem found by a factory's validate(): the option it concerns ("" for the whole component).
struct ConfigProblem {
  std::string option;
  std::string message;
};

/// What a reader is shown when the host looks for one that understands a file (`cann-debug stats`,
/// `diagnose`): the path and its first bytes (decompressed when the file is gzip).
struct SniffInput {
  std::string path;
  std::string_view head;  // up to 64 KiB
  bool is_directory = false;
};

struct CreateContext {
  std::string id;      // "type/name"
  HostServices& host;  // never null; outlives the component
};

class ComponentFactory {
 public:
  virtual ~ComponentFactory() = default;
  virtual const Manifest& manifest() const = 0;
  /// Whether the component can run on this machine with this configuration, and if not, why (a missing
  /// chip is a reason, not a crash): a sampler pointed at a fixture tree (`root`) or at a library
  /// (`library`) answers for that tree or library. The host calls it once the options are resolved;
  /// `cann-debug plugins` calls it with the defaults (probe_with_defaults()).
  virtual Availability probe(const Config& /*config*/) const { return Availability::yes(); }
  /// probe() with every option at its default (options without a default left out).
  Availability probe_with_defaults() const;
  /// Cross-field rules beyond the per-option schema the host already checked.
  virtual std::vector<ConfigProblem> validate(const Config& /*config*/) const { return {}; }
  virtual std::unique_ptr<Component> create(const CreateContext& ctx, const Config& config) const = 0;
  /// Readers: how sure the component is that it can read this file or folder, 0 (no) to 100 (certain,
  /// e.g. a magic number). The host picks the highest score and sets the reader's `path` option.
  virtual int sniff(const SniffInput& /*input*/) const { return 0; }
};

/// Convenience factory: manifest + a create function (+ optional probe/validate).
template <typename C>
class SimpleFactory : public ComponentFactory {
 public:
  explicit SimpleFactory(Manifest m) : manifest_(std::move(m)) {}
  const Manifest& manifest() const override { return manifest_; }
  std::unique_ptr<Component> create(const CreateContext& ctx, const Config& config) const override {
    return std::make_unique<C>(ctx, config);
  }

 private:
  Manifest manifest_;
};

}  // namespace cann_debug
