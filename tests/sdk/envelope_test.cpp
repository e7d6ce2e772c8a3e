// Envelopes: typed access by versioned id (no RTTI), the JSON form, and correlation keys without absent
// fields.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "cann_debug/messages.hpp"

namespace cann_debug {
namespace {

using nlohmann::json;

TEST(Envelope, AsReturnsThePayloadOfItsType) {
  const Envelope e = Envelope::make(CorrelationKey{}, JsonMessage{json{{"n", 1}}});
  EXPECT_TRUE(e.is<JsonMessage>());
  EXPECT_FALSE(e.is<MetricBatch>());
  EXPECT_EQ(e.type_id(), "json/1");
  EXPECT_EQ(e.type_hash(), type_hash("json/1"));
  EXPECT_EQ(e.as<JsonMessage>().value["n"], 1);
}

TEST(Envelope, AsOfAnotherTypeThrowsNamingBothTypes) {
  const Envelope e = Envelope::make(CorrelationKey{}, MetricBatch{});
  try {
    (void)e.as<JsonMessage>();
    FAIL() << "as<JsonMessage>() of a metric.batch/1 did not throw";
  } catch (const MessageTypeError& err) {
    EXPECT_STREQ(err.what(), "message of type 'metric.batch/1' read as 'json/1'");
  }
  EXPECT_THROW((void)e.share<EventBatch>(), MessageTypeError);
}

TEST(Envelope, CopiesShareOneImmutablePayload) {
  const Envelope a = Envelope::make(CorrelationKey{}, JsonMessage{json{{"n", 1}}});
  const Envelope b = a;  // a copy, not a new payload
  EXPECT_EQ(&a.as<JsonMessage>(), &b.as<JsonMessage>());
  EXPECT_EQ(a.share<JsonMessage>().get(), &b.as<JsonMessage>());
  EXPECT_TRUE(Envelope().empty());
  EXPECT_FALSE(a.empty());
}

TEST(Envelope, JsonFormHasTypeSourceKeyAndPayload) {
  CorrelationKey key;
  key.step_id = 7;
  Envelope e = Envelope::make(key, JsonMessage{json{{"n", 1}}});
  EXPECT_EQ(e.to_json(), (json{{"type", "json/1"}, {"key", {{"step_id", 7}}}, {"payload", {{"n", 1}}}}));
  e.set_source("counter_source/src");
  EXPECT_EQ(e.to_json()["source"], "counter_source/src");
  EXPECT_EQ(e.source(), "counter_source/src");
  EXPECT_TRUE(Envelope().payload_json().is_null());
}

TEST(CorrelationKey, OmitsAbsentKeys) {
  EXPECT_EQ(json(CorrelationKey{}), json::object());
  CorrelationKey k;
  k.rank = 0;  // 0 is a valid rank, unlike -1
  k.node_id = "n1";
  EXPECT_EQ(json(k), (json{{"rank", 0}, {"node_id", "n1"}}));
  EXPECT_FALSE(k.has_step());
  EXPECT_TRUE(k.has_rank());
}

TEST(CorrelationKey, RoundTripsAndDefaultsWhatIsMissing) {
  const CorrelationKey k{
      .timestamp_ns = 5, .step_id = 0, .request_id = "r", .node_id = "n", .rank = 2, .device = 0};
  EXPECT_EQ(json(k).get<CorrelationKey>(), k);
  const auto partial = json({{"step_id", 3}}).get<CorrelationKey>();
  EXPECT_EQ(partial.step_id, 3);
  EXPECT_FALSE(partial.has_timestamp());
  EXPECT_EQ(partial.rank, -1);
  EXPECT_EQ((json{{"rank", nullptr}}.get<CorrelationKey>().rank), -1);
}

TEST(TypeHash, IsFnv1a64StableAtCompileTime) {
  constexpr std::uint64_t kPrime = 1099511628211ull;
  static_assert(type_hash("") == 14695981039346656037ull);  // FNV-1a 64-bit offset basis
  static_assert(type_hash("a") == 0xaf63dc4c8601ec8cull);   // published FNV-1a 64 test vector
  static_assert(type_hash("a") == (type_hash("") ^ 'a') * kPrime);
  static_assert(type_hash("ab") == (type_hash("a") ^ 'b') * kPrime);
  static_assert(type_hash_of<MetricBatch> == type_hash("metric.batch/1"));
  std::set<std::uint64_t> hashes;
  for (auto id : kCoreMessageTypes) hashes.insert(type_hash(id));
  EXPECT_EQ(hashes.size(), std::size(kCoreMessageTypes));
}

}  // namespace
}  // namespace cann_debug
