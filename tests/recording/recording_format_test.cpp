// The recording format: what is written reads back exactly; a file cut short (kill -9) reads up to its
// last complete chunk; damage and foreign files are errors that name the byte offset.
#include <gtest/gtest.h>

#include <unistd.h>
#include <zstd.h>

#include <bit>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "recording/byte_codec.hpp"
#include "recording/recording_reader.hpp"
#include "recording/recording_writer.hpp"

namespace fs = std::filesystem;
using namespace cann_debug;
using namespace cann_debug::plugins::recording;

namespace {

class RecordingFormat : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cdr_format_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static MetricPoint point(std::string name, std::string unit, Labels labels, std::int32_t device = -1) {
    MetricPoint p;
    p.name = std::move(name);
    p.unit = std::move(unit);
    p.labels = std::move(labels);
    p.key.node_id = "node-a";
    p.key.device = device;
    return p;
  }

  /// `n` samples of two series 10 ms apart starting at t0, chunks of ~`chunk` bytes. With close=false the
  /// result is the file as a crash would leave it: a copy taken after the last flush, before close().
  std::string write(std::size_t n, std::size_t chunk, bool close = true) {
    const auto path = (dir_ / "run.cdr").string();
    WriterOptions o;
    o.chunk_bytes = chunk;
    o.flush_interval_ns = 1'000'000'000'000;  // size-driven only
    o.meta = {{"command", "test"}};
    auto w = std::make_unique<RecordingWriter>(path, o);
    const auto util = w->series_of(point("npu.aicore.utilization", "ratio", {{"device", "0"}}, 0));
    const auto power = w->series_of(point("npu.power", "watts", {{"device", "0"}}, 0));
    for (std::size_t i = 0; i < n; ++i)
      w->add_sample(kT0 + static_cast<TimestampNs>(i) * 10'000'000,
                    {{util, 0.5 + 0.001 * static_cast<double>(i)}, {power, 100.0 + static_cast<double>(i)}});
    if (close) {
      w->close({{"why", "done"}});
      return path;
    }
    w->flush();
    const auto crashed = (dir_ / "crashed.cdr").string();
    fs::copy_file(path, crashed, fs::copy_options::overwrite_existing);
    w->close();
    return crashed;
  }

  static std::vector<MetricPoint> read_all(RecordingReader& r) {
    std::vector<MetricPoint> out;
    while (auto c = r.next())
      for (auto& p : c->points) out.push_back(std::move(p));
    return out;
  }

  static constexpr TimestampNs kT0 = 1'764'000'000'000'000'000;
  fs::path dir_;
};

TEST_F(RecordingFormat, WhatIsWrittenReadsBackExactly) {
  const auto path = write(5000, 16 * 1024);
  RecordingReader r(path);
  EXPECT_TRUE(r.closed_cleanly());
  EXPECT_EQ(r.header().meta.at("command"), "test");
  EXPECT_GT(r.index().at("chunks").size(), 3u) << "small chunks: the data spans several";
  EXPECT_EQ(r.index().at("totals").at("samples"), 10000);
  EXPECT_EQ(r.index().at("closing").at("why"), "done");
  const auto points = read_all(r);
  ASSERT_EQ(points.size(), 10000u);
  for (std::size_t i = 0; i < 5000; ++i) {
    const auto& u = points[2 * i];
    const auto& p = points[2 * i + 1];
    ASSERT_EQ(u.key.timestamp_ns, kT0 + static_cast<TimestampNs>(i) * 10'000'000);
    ASSERT_EQ(u.name, "npu.aicore.utilization");
    ASSERT_EQ(u.unit, "ratio");
    ASSERT_DOUBLE_EQ(u.value, 0.5 + 0.001 * static_cast<double>(i));
    ASSERT_EQ(p.name, "npu.power");
    ASSERT_DOUBLE_EQ(p.value, 100.0 + static_cast<double>(i));
  }
  EXPECT_EQ(points[0].labels.at("device"), "0");
  EXPECT_EQ(points[0].key.node_id, "node-a");
  EXPECT_EQ(points[0].key.device, 0);
  ASSERT_EQ(r.series().size(), 2u);
}

TEST_F(RecordingFormat, SamplesCompressWellBelowTheirRawSize) {
  const auto path = write(20000, 256 * 1024);
  // 40000 values of 8 bytes plus their timestamps: the file must be far smaller than 16 bytes a value.
  EXPECT_LT(fs::file_size(path), 40000u * 16u / 2u);
}

TEST_F(RecordingFormat, AFileNeverClosedReadsUpToItsLastCompleteChunk) {
  const auto path = write(5000, 16 * 1024, /*close=*/false);
  const auto full = fs::file_size(path);
  {
    RecordingReader r(path);
    EXPECT_FALSE(r.closed_cleanly());
    EXPECT_EQ(read_all(r).size(), 10000u) << "every flushed chunk is there";
    EXPECT_NE(r.recovery_note().find("not closed cleanly"), std::string::npos);
  }
  // Cut inside the last chunk (a crash in the middle of a write): everything before it still reads.
  fs::resize_file(path, full - 100);
  RecordingReader r(path);
  const auto points = read_all(r);
  EXPECT_GT(points.size(), 5000u);
  EXPECT_LT(points.size(), 10000u);
  EXPECT_EQ(points.size() % 2, 0u) << "whole samples only";
  EXPECT_NE(r.recovery_note().find("incomplete"), std::string::npos) << r.recovery_note();
}

TEST_F(RecordingFormat, AFileStillBeingWrittenIsFollowedChunkByChunkUntilItIsClosed) {
  // `diagnose --follow`: the reader reads what the writer completed, waits at a chunk cut in half, reads
  // it once the writer finished it, and ends with the index once the writer closed the file.
  const auto path = (dir_ / "live.cdr").string();
  WriterOptions o;
  o.chunk_bytes = 1 << 30;
  o.flush_interval_ns = 1'000'000'000'000;  // chunks only where this test flushes
  RecordingWriter w(path, o);
  const auto clock = w.series_of(point("npu.aicore.frequency", "hertz", {{"device", "0"}}, 0));
  auto add = [&](int from, int to) {
    for (int i = from; i < to; ++i)
      w.add_sample(kT0 + static_cast<TimestampNs>(i) * 10'000'000, {{clock, 1.8e9 + i}});
  };
  add(0, 100);
  w.flush();
  RecordingReader r(path);
  EXPECT_FALSE(r.closed_cleanly());
  EXPECT_EQ(read_all(r).size(), 100u);
  EXPECT_FALSE(r.refresh()) << "nothing new yet";

  add(100, 250);
  w.flush();
  const auto after_second = fs::file_size(path);
  add(250, 300);
  w.flush();
  // The third chunk as a reader may see it while the writer is in the middle of writing it.
  const auto whole = fs::file_size(path);
  const auto third = (dir_ / "third.bin").string();
  {
    std::ifstream in(path, std::ios::binary);
    in.seekg(static_cast<std::streamoff>(after_second));
    std::string bytes(whole - after_second, '\0');
    in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    std::ofstream(third, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  fs::resize_file(path, after_second + 30);
  ASSERT_TRUE(r.refresh());
  EXPECT_EQ(read_all(r).size(), 150u) << "the second chunk; the third is cut inside its header";
  EXPECT_NE(r.recovery_note().find("incomplete"), std::string::npos) << r.recovery_note();
  {
    std::ifstream in(third, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::fstream out(path, std::ios::binary | std::ios::in | std::ios::out);
    out.seekp(static_cast<std::streamoff>(after_second));
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  ASSERT_TRUE(r.refresh());
  const auto third_points = read_all(r);
  ASSERT_EQ(third_points.size(), 50u);
  EXPECT_DOUBLE_EQ(third_points.front().value, 1.8e9 + 250);

  add(300, 310);
  w.close({{"why", "done"}});
  // Seen while the writer closes it: the last chunk and the index, without the footer yet. The index is
  // no damage: the reader waits for the footer.
  const auto closed_size = fs::file_size(path);
  const auto closed_copy = (dir_ / "closed.cdr").string();
  fs::copy_file(path, closed_copy);
  fs::resize_file(path, closed_size - 24);
  ASSERT_TRUE(r.refresh());
  EXPECT_EQ(read_all(r).size(), 10u);
  EXPECT_FALSE(r.closed_cleanly());
  EXPECT_FALSE(r.stopped_at_damage()) << r.recovery_note();
  fs::copy_file(closed_copy, path, fs::copy_options::overwrite_existing);
  ASSERT_TRUE(r.refresh());
  EXPECT_TRUE(r.closed_cleanly()) << "the index was read once the footer appeared";
  EXPECT_EQ(read_all(r).size(), 0u);
  EXPECT_FALSE(r.refresh());
}

TEST_F(RecordingFormat, ADamagedChunkOfAClosedFileIsAnErrorNamingItsOffset) {
  const auto path = write(3000, 16 * 1024);
  RecordingReader probe(path);
  const auto second = probe.index().at("chunks").at(1).at(0).get<std::uint64_t>();
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(second + 60));
    f.put('\x55').put('\xaa').put('\x55');
  }
  RecordingReader r(path);
  ASSERT_TRUE(r.next().has_value()) << "the first chunk is intact";
  try {
    r.next();
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("byte " + std::to_string(second)), std::string::npos) << e.what();
  }
}

TEST_F(RecordingFormat, PackedValuesReadBackBitForBitAcrossChunks) {
  // Values whose bits XOR badly or oddly (NaN payloads, -0, infinities, subnormals), ids out of order and
  // far apart, and small chunks so that every series starts afresh in chunk after chunk.
  const double special[] = {0.0,
                            -0.0,
                            1.0,
                            std::numeric_limits<double>::quiet_NaN(),
                            std::bit_cast<double>(0x7ff8'0000'dead'beefULL),  // a NaN with a payload
                            std::numeric_limits<double>::infinity(),
                            -std::numeric_limits<double>::infinity(),
                            std::numeric_limits<double>::denorm_min(),
                            std::numeric_limits<double>::max(),
                            -123456.789,
                            1e-300};
  const auto path = (dir_ / "packed.cdr").string();
  WriterOptions o;
  o.chunk_bytes = 4 * 1024;
  o.flush_interval_ns = 1'000'000'000'000;
  auto w = std::make_unique<RecordingWriter>(path, o);
  std::vector<std::uint64_t> ids;
  for (int i = 0; i < 300; ++i) ids.push_back(w->series_of(point("s" + std::to_string(i), "count", {})));
  std::vector<std::pair<std::uint64_t, double>> expected;  // (id, value) in write order
  for (std::size_t t = 0; t < 400; ++t) {
    std::vector<std::pair<std::uint64_t, double>> values;
    for (std::size_t k = 0; k < 12; ++k) {
      const std::uint64_t id = ids[(t * 37 + k * 101) % ids.size()];  // sparse, up and down
      const double v = k % 3 == 0 ? 42.0 : special[(t + k) % std::size(special)];
      values.emplace_back(id, v);
    }
    w->add_sample(kT0 + static_cast<TimestampNs>(t) * 10'000'000, values);
    expected.insert(expected.end(), values.begin(), values.end());
  }
  w->close();
  RecordingReader r(path);
  EXPECT_EQ(r.header().version, kVersion);
  EXPECT_GT(r.index().at("chunks").size(), 5u);
  const auto points = read_all(r);
  ASSERT_EQ(points.size(), expected.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    ASSERT_EQ(points[i].name, "s" + std::to_string(expected[i].first)) << i;
    ASSERT_EQ(std::bit_cast<std::uint64_t>(points[i].value), std::bit_cast<std::uint64_t>(expected[i].second))
        << "value " << i << " of series " << expected[i].first;
  }
}

TEST_F(RecordingFormat, SteadySeriesTakeAboutTwoRawBytesAValue) {
  const auto path = (dir_ / "steady.cdr").string();
  auto w = std::make_unique<RecordingWriter>(path, WriterOptions{});
  std::vector<std::uint64_t> ids;
  for (int i = 0; i < 100; ++i) ids.push_back(w->series_of(point("g" + std::to_string(i), "bytes", {})));
  for (int t = 0; t < 1000; ++t) {
    std::vector<std::pair<std::uint64_t, double>> values;
    for (const auto id : ids) values.emplace_back(id, 65536.0 * static_cast<double>(id));
    w->add_sample(kT0 + t * 10'000'000LL, values);
  }
  w->close();
  // Each value: one byte of id step and one control byte (unchanged); the first of each series in a chunk
  // costs its full bits. Unpacked (version 1) it was 9 or 10 bytes a value.
  const auto& totals = w->totals();
  EXPECT_LT(static_cast<double>(totals.raw_bytes) / static_cast<double>(totals.samples), 2.2);
}

TEST_F(RecordingFormat, VersionOneFilesStillRead) {
  // A version 1 file written by hand: header, one chunk holding a series and an unpacked sample record,
  // no index (as if the collector was killed).
  std::string records;
  ByteWriter w(records);
  w.u8(static_cast<std::uint8_t>(RecordKind::kSeries));
  w.varint(0);
  w.str("npu.power");
  w.str("watts");
  w.str(R"({"device":"3"})");
  w.str(R"({"node_id":"n1"})");
  w.u8(static_cast<std::uint8_t>(RecordKind::kSample));
  w.svarint(0);
  w.varint(1);
  w.varint(0);
  w.f64(271.5);
  std::string frame(ZSTD_compressBound(records.size()), '\0');
  frame.resize(ZSTD_compress(frame.data(), frame.size(), records.data(), records.size(), 1));
  std::string file;
  ByteWriter f(file);
  f.bytes(kFileMagic);
  f.u32(1);
  f.u32(0);
  f.i64(kT0);
  f.u32(2);
  f.bytes("{}");
  f.u32(kChunkMagic);
  f.u32(static_cast<std::uint32_t>(frame.size()));
  f.u32(static_cast<std::uint32_t>(records.size()));
  f.u32(1);
  f.u32(0);
  f.u32(0);
  f.i64(kT0);
  f.i64(kT0);
  f.bytes(frame);
  const auto path = dir_ / "v1.cdr";
  std::ofstream(path, std::ios::binary) << file;
  RecordingReader r(path.string());
  EXPECT_EQ(r.header().version, 1u);
  const auto points = read_all(r);
  ASSERT_EQ(points.size(), 1u);
  EXPECT_EQ(points[0].name, "npu.power");
  EXPECT_EQ(points[0].value, 271.5);
  EXPECT_EQ(points[0].key.timestamp_ns, kT0);
  EXPECT_EQ(points[0].labels.at("device"), "3");
}

TEST_F(RecordingFormat, AForeignFileIsRefusedAtByteZero) {
  const auto path = dir_ / "trace.json";
  std::ofstream(path) << "{\"traceEvents\": []}\n";
  try {
    RecordingReader r(path.string());
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("byte 0"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
  }
}

}  // namespace
