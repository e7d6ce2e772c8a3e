// tensorboard_events: TFRecord framing and CRCs, simple_value and tensor scalars, tag names, folders, torn
// tails and malformed event files. The event files are written here with a small protobuf encoder.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <cstring>

#include "event_proto.hpp"
#include "readers_test_support.hpp"
#include "tensorboard_events.hpp"
#include "tfrecord.hpp"

namespace cann_debug::plugins {
namespace {

using namespace readers_test;
using testing::Harness;

// ---- a minimal protobuf / TFRecord writer
// ------------------------------------------------------------------
std::string varint(std::uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7F) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
  return out;
}
std::string key(int field, int type) {
  return varint(static_cast<std::uint64_t>(field) << 3 | static_cast<unsigned>(type));
}
std::string le(std::uint64_t v, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
  return out;
}
std::string len_field(int field, const std::string& bytes) {
  return key(field, 2) + varint(bytes.size()) + bytes;
}
std::string f32(float f) {
  return le(std::bit_cast<std::uint32_t>(f), 4);
}
std::string f64(double d) {
  return le(std::bit_cast<std::uint64_t>(d), 8);
}

std::string simple_value(const std::string& tag, float v) {
  return len_field(1, tag) + key(2, 5) + f32(v);
}
std::string scalars_metadata() {
  return len_field(9, len_field(1, len_field(1, "scalars")));
}
std::string event(double wall, std::int64_t step, const std::vector<std::string>& values) {
  std::string summary;
  for (const auto& v : values) summary += len_field(1, v);
  return key(1, 1) + f64(wall) + key(2, 0) + varint(static_cast<std::uint64_t>(step)) + len_field(5, summary);
}
std::string file_version() {
  return key(1, 1) + f64(1.7e9) + len_field(3, "brain.Event:2");
}
std::string record(const std::string& data) {
  const std::string len = le(data.size(), 8);
  return len + le(tensorboard::masked_crc32c(len), 4) + data + le(tensorboard::masked_crc32c(data), 4);
}

std::vector<Record> read_events(const std::string& path, Harness** keep = nullptr) {
  static std::unique_ptr<Harness> h;
  h = std::make_unique<Harness>(tensorboard_events_factory(), nlohmann::json{{"path", path}});
  const std::string error = run(*h);
  if (!error.empty()) throw std::runtime_error(error);
  if (keep) *keep = h.get();
  return records(*h);
}

TEST(TfRecord, Crc32cCheckValueAndMask) {
  EXPECT_EQ(tensorboard::crc32c("123456789"), 0xE3069283u);  // the CRC-32C check value
  const std::uint32_t c = tensorboard::crc32c("abc");
  EXPECT_EQ(tensorboard::masked_crc32c("abc"), ((c >> 15) | (c << 17)) + 0xa282ead8u);
}

TEST(TensorboardEvents, SimpleValuesMergedPerStepWithTrainerTagNames) {
  EXPECT_THAT(check_manifest(tensorboard_events_factory().manifest()), ::testing::IsEmpty());
  TempDir dir;
  std::string file = record(file_version());
  for (int step = 0; step < 3; ++step) {
    file += record(event(1.7e9 + step, step, {simple_value("lm loss", 10.0f - step)}));
    file += record(event(1.7e9 + step, step,
                         {simple_value("learning-rate", 1e-4f), simple_value("grad-norm/grad-norm", 2.5f),
                          simple_value("lm loss vs samples", 9.0f)}));
  }
  file += record(event(1.7e9 + 3, 2, {simple_value("lm loss validation", 7.5f)}));
  file += record(event(1.7e9 + 4, 5, {simple_value("lm-loss-validation/lm loss validation", 7.0f)}));
  const std::string path = dir.write("tb/events.out.tfevents.1700000000.host.1.0", file);
  const auto r = read_events(path);
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0].key.step_id, 0);
  EXPECT_EQ(r[0].key.timestamp_ns, 1700000000000000000);
  EXPECT_DOUBLE_EQ(r[0].fields["loss"].get<double>(), 10.0);
  EXPECT_NEAR(r[0].fields["lr"].get<double>(), 1e-4, 1e-9);
  EXPECT_DOUBLE_EQ(r[0].fields["grad_norm"].get<double>(), 2.5);
  EXPECT_EQ(r[0].fields["log_kind"], "train");
  for (const auto& x : r) EXPECT_FALSE(x.fields.contains("lm_loss_vs_samples"));
  // The validation loss at step 2 joins step 2's record (consecutive events of one step are one record).
  EXPECT_DOUBLE_EQ(r[2].fields["val_loss"].get<double>(), 7.5);
  EXPECT_EQ(r[3].key.step_id, 5);
  EXPECT_EQ(r[3].fields["log_kind"], "validation");
  EXPECT_DOUBLE_EQ(r[3].fields["val_loss"].get<double>(), 7.0);
}

// The fixture was written by an independent encoder (Python's struct and its own CRC-32C).
TEST(TensorboardEvents, FixtureWrittenElsewhere) {
  const auto r = read_events(fixture("llm/events.out.tfevents.1700000000.host.1.0"));
  ASSERT_EQ(r.size(), 5u);
  EXPECT_EQ(r[0].key.step_id, 1);
  EXPECT_NEAR(r[0].fields["loss"].get<double>(), 9.7, 1e-6);
  EXPECT_NEAR(r[2].fields["lr"].get<double>(), 3e-4, 1e-9);
  EXPECT_DOUBLE_EQ(r[4].fields["grad_norm"].get<double>(), 2.0);
  EXPECT_NEAR(r[4].fields["val_loss"].get<double>(), 8.9, 1e-6);
  EXPECT_EQ(r[4].key.timestamp_ns, 1700000005000000000);
}

TEST(TensorboardEvents, TensorScalarsOfEveryEncodingAndSkippedHistograms) {
  TempDir dir;
  const std::string shape0 = len_field(2, "");  // TensorShapeProto without dims: rank 0
  const std::string float_val = len_field(8, key(1, 0) + varint(1) + shape0 + len_field(5, f32(1.5f)));
  const std::string double_val = len_field(8, key(1, 0) + varint(2) + shape0 + len_field(6, f64(2.25)));
  const std::string content = len_field(8, key(1, 0) + varint(1) + shape0 + len_field(4, f32(3.5f)));
  const std::string half =
      len_field(8, key(1, 0) + varint(19) + shape0 + len_field(13, varint(0x3C00)));  // 1.0
  const std::string bf16 =
      len_field(8, key(1, 0) + varint(14) + shape0 + len_field(13, varint(0x4040)));  // 3.0
  const std::string histo = len_field(
      8, key(1, 0) + varint(2) +
             len_field(2, len_field(2, key(1, 0) + varint(3)) + len_field(2, key(1, 0) + varint(3))) +
             len_field(6, f64(1) + f64(2) + f64(3)));
  std::string file =
      record(event(1.7e9, 7,
                   {len_field(1, "a") + scalars_metadata() + float_val,
                    len_field(1, "b") + scalars_metadata() + double_val, len_field(1, "c") + content,
                    len_field(1, "d") + half, len_field(1, "e") + bf16, len_field(1, "w") + histo,
                    len_field(1, "h") + len_field(9, len_field(1, len_field(1, "histograms"))) + float_val}));
  const auto r = read_events(dir.write("events.out.tfevents.2", file));
  ASSERT_EQ(r.size(), 1u);
  EXPECT_DOUBLE_EQ(r[0].fields["a"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(r[0].fields["b"].get<double>(), 2.25);
  EXPECT_DOUBLE_EQ(r[0].fields["c"].get<double>(), 3.5);
  EXPECT_DOUBLE_EQ(r[0].fields["d"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(r[0].fields["e"].get<double>(), 3.0);
  EXPECT_FALSE(r[0].fields.contains("w"));  // a rank-2 tensor is not a scalar
  EXPECT_FALSE(r[0].fields.contains("h"));  // another plugin's tensor
}

TEST(TensorboardEvents, ATornLastRecordIsAWarningAndTheRestIsKept) {
  TempDir dir;
  const std::string full = record(event(1.7e9, 1, {simple_value("loss", 2.0f)}));
  const std::string torn = record(event(1.7e9, 2, {simple_value("loss", 1.0f)}));
  const std::string path = dir.write("events.out.tfevents.3", full + torn.substr(0, torn.size() - 5));
  Harness* h = nullptr;
  const auto r = read_events(path, &h);
  ASSERT_EQ(r.size(), 1u);
  ASSERT_EQ(h->host.log.lines.size(), 1u);
  EXPECT_EQ(h->host.log.lines[0].second,
            fmt::format("{}: the last record (at byte offset {}) is cut short after {} bytes (a writer still "
                        "writing, or a crash); the 1 records before it are read",
                        path, full.size(), torn.size() - 5));
}

TEST(TensorboardEvents, AFolderIsSearchedForEventFiles) {
  TempDir dir;
  dir.write("run/tb/a/events.out.tfevents.1", record(event(1.7e9, 1, {simple_value("loss", 2.0f)})));
  dir.write("run/tb/b/events.out.tfevents.2", record(event(1.7e9, 1, {simple_value("loss", 3.0f)})));
  dir.write("run/tb/b/notes.txt", "not an event file");
  Harness h(tensorboard_events_factory(), {{"path", dir / "run"}});
  ASSERT_EQ(run(h), "");
  const auto batches = record_batches(h);
  ASSERT_EQ(batches.size(), 2u);
  EXPECT_THAT(batches[0].source_path, ::testing::HasSubstr("tb/a/"));
  EXPECT_EQ(batches[0].schema, "tensorboard.scalars/1");
  EXPECT_DOUBLE_EQ(batches[1].records.at(0).fields["loss"].get<double>(), 3.0);
  const auto& f = tensorboard_events_factory();
  EXPECT_EQ(f.sniff({"x/events.out.tfevents.1.host", "", false}), 95);
  const std::string rec = record(file_version());
  EXPECT_EQ(f.sniff({"x/data.bin", rec, false}), 80);
  EXPECT_EQ(f.sniff({"x/data.bin", "hello world, not a record", false}), 0);
}

TEST(TensorboardEvents, MalformedInputs) {
  TempDir dir;
  const std::string good = record(event(1.7e9, 1, {simple_value("loss", 2.0f)}));
  const std::string g = std::to_string(good.size());
  std::string bad_len_crc = record(event(1.7e9, 2, {simple_value("loss", 1.0f)}));
  bad_len_crc[8] ^= 1;
  std::string bad_data_crc = record(event(1.7e9, 2, {simple_value("loss", 1.0f)}));
  bad_data_crc[14] ^= 1;
  const std::string huge_len = le(1ull << 40, 8);
  const std::string huge = huge_len + le(tensorboard::masked_crc32c(huge_len), 4);
  const std::vector<BadInput> bad = {
      {"length_crc", good + bad_len_crc,
       " expected a TFRecord length with its masked CRC-32C at byte offset " + g +
           " (record 2), got a mismatch (not an event file, or corrupt)"},
      {"data_crc", good + bad_data_crc,
       " expected record 2 (at byte offset " + g + ", " + std::to_string(bad_data_crc.size() - 16) +
           " bytes) to match its masked CRC-32C, got a mismatch (corrupt data)"},
      {"huge", good + huge,
       " expected a record of at most max_record_bytes = 67108864 bytes at byte offset " + g +
           ", got 1099511627776 bytes"},
      {"truncated_varint", good + record(key(2, 0) + "\xff"),
       " in record 2 (at byte offset " + g +
           "): expected a complete varint, got the end of the message at byte 2 of the record"},
      {"len_past_end", good + record(key(5, 2) + varint(50) + "abc"),
       " in record 2 (at byte offset " + g +
           "): expected a field of 50 bytes, got 3 left in the message at byte 2 "
           "of the record"},
      {"wire_type_3", good + record(key(4, 3)),
       " in record 2 (at byte offset " + g +
           "): expected a known wire type (0, 1, 2 or 5), got 3 at byte 1 of the "
           "record"},
      {"step_type", good + record(key(2, 2) + varint(1) + "x"),
       " in record 2 (at byte offset " + g +
           "): expected wire type 0 for Event.step, got 2 at byte 1 of the record"},
      {"wall_time_short", good + record(key(1, 1) + "abc"),
       " in record 2 (at byte offset " + g +
           "): expected 8 more bytes of a fixed-width field, got 3 at byte 1 of the record"},
      {"summary_type", good + record(key(5, 0) + varint(1)),
       " in record 2 (at byte offset " + g +
           "): expected wire type 2 for Event.summary, got 0 at byte 1 of the "
           "record"},
      {"tag_type", good + record(len_field(5, len_field(1, key(1, 0) + varint(1)))),
       " in record 2 (at byte offset " + g +
           "): expected wire type 2 for Value.tag, got 0 at byte 5 of the record"},
      {"simple_value_type",
       good + record(len_field(5, len_field(1, len_field(1, "x") + key(2, 0) + varint(1)))),
       " in record 2 (at byte offset " + g +
           "): expected wire type 5 for Value.simple_value, got 0 at byte 8 of the record"},
      {"field_zero", good + record(key(0, 0) + varint(1)),
       " in record 2 (at byte offset " + g + "): expected a field number > 0 at byte 1 of the record"},
      {"negative_step", good + record(event(1.7e9, -3, {simple_value("loss", 1.0f)})),
       " in record 2 (at byte offset " + g + "): expected a step >= 0, got -3"},
  };
  for (const auto& b : bad)
    EXPECT_EQ(check_bad_input(tensorboard_events_factory(), nlohmann::json::object(), b, dir,
                              "events.out.tfevents.1"),
              "")
        << b.name;
}

}  // namespace
}  // namespace cann_debug::plugins
