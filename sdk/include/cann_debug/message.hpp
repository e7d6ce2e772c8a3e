// Envelopes: the one C++ type that travels on every edge of the pipeline graph.
//
// A payload is immutable and shared (`shared_ptr<const T>`): fan-out shares the pointer, and a component
// that wants to change data copies it. The payload type is identified by its versioned id
// (e.g. "metric.batch/1") and a 64-bit hash of it, never by RTTI, which is unreliable across packages.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "cann_debug/time.hpp"

namespace cann_debug {

/// FNV-1a, 64 bit: stable across compilers, usable at compile time.
constexpr std::uint64_t type_hash(std::string_view id) {
  std::uint64_t h = 14695981039346656037ull;
  for (char c : id) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

/// Correlation keys: whichever of them exist for a message or record. Absent ones keep their defaults.
struct CorrelationKey {
  TimestampNs timestamp_ns = kNoTimestamp;
  std::int64_t step_id = -1;
  std::string request_id;  // empty = none
  std::string node_id;     // host name or node label; empty = none
  std::int32_t rank = -1;
  std::int32_t device = -1;

  bool has_timestamp() const { return timestamp_ns != kNoTimestamp; }
  bool has_step() const { return step_id >= 0; }
  bool has_rank() const { return rank >= 0; }
  bool has_device() const { return device >= 0; }
  friend bool operator==(const CorrelationKey&, const CorrelationKey&) = default;
};

void to_json(nlohmann::json& j, const CorrelationKey& k);
void from_json(const nlohmann::json& j, CorrelationKey& k);

/// Declares a message type: a plain struct with `static constexpr std::string_view type_id`.
template <typename T>
concept MessageType = requires {
  { T::type_id } -> std::convertible_to<std::string_view>;
};

template <MessageType T>
inline constexpr std::uint64_t type_hash_of = type_hash(T::type_id);

class Envelope;
using ToJsonFn = nlohmann::json (*)(const void* payload);

/// Thrown by Envelope::as<T>() when the payload is of another type.
class MessageTypeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Envelope {
 public:
  Envelope() = default;

  /// Wraps an immutable payload. The JSON form of T comes from its `to_json` (nlohmann ADL).
  template <MessageType T>
  static Envelope make(CorrelationKey key, std::shared_ptr<const T> payload) {
    Envelope e;
    e.type_hash_ = type_hash_of<T>;
    e.type_id_ = T::type_id;
    e.key_ = std::move(key);
    e.payload_ = std::move(payload);
    e.to_json_ = [](const void* p) { return nlohmann::json(*static_cast<const T*>(p)); };
    return e;
  }
  template <MessageType T>
  static Envelope make(CorrelationKey key, T value) {
    return make<T>(std::move(key), std::make_shared<const T>(std::move(value)));
  }

  std::string_view type_id() const { return type_id_; }
  std::uint64_t type_hash() const { return type_hash_; }
  const CorrelationKey& key() const { return key_; }
  /// The id (`type/name`) of the component that emitted this envelope; set by the host.
  std::string_view source() const { return source_; }
  bool empty() const { return payload_ == nullptr; }

  template <MessageType T>
  bool is() const {
    return type_hash_ == type_hash_of<T> && type_id_ == T::type_id;
  }
  /// The payload as T; throws MessageTypeError naming both types on a mismatch.
  template <MessageType T>
  const T& as() const {
    if (!is<T>()) {
      throw MessageTypeError("message of type '" + std::string(type_id_) + "' read as '" +
                             std::string(T::type_id) + "'");
    }
    return *static_cast<const T*>(payload_.get());
  }
  template <MessageType T>
  std::shared_ptr<const T> share() const {
    (void)as<T>();
    return std::static_pointer_cast<const T>(payload_);
  }

  /// {"type": id, "source": ..., "key": {...}, "payload": ...}
  nlohmann::json to_json() const;
  nlohmann::json payload_json() const { return to_json_ ? to_json_(payload_.get()) : nullptr; }

  // Host side: stamps the emitting component. The view must outlive the envelope's trip through the graph.
  void set_source(std::string_view source) { source_ = source; }

 private:
  std::uint64_t type_hash_ = 0;
  std::string_view type_id_;
  std::string_view source_;
  CorrelationKey key_;
  std::shared_ptr<const void> payload_;
  ToJsonFn to_json_ = nullptr;
};

}  // namespace cann_debug
