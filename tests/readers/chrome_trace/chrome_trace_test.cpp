// The chrome_trace reader as a component: formats, clocks, keys, batching, sniffing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "chrome_trace.hpp"
#include "event_decoder.hpp"
#include "traces_test_support.hpp"

namespace cann_debug::traces_test {
namespace {

using plugins::chrome_trace_factory;
using testing::Harness;
using ::testing::HasSubstr;

constexpr std::int64_t kBase = 1700000000000000000;

std::string fixture(const char* name) {
  return (data_dir() / name).string();
}

const Event* find(const std::vector<Event>& events, std::string_view name) {
  for (const auto& e : events)
    if (e.name == name) return &e;
  return nullptr;
}

TEST(TracesChromeTrace, ManifestIsSound) {
  EXPECT_THAT(check_manifest(chrome_trace_factory().manifest()), ::testing::IsEmpty());
  const auto& m = chrome_trace_factory().manifest();
  EXPECT_EQ(m.kind, ComponentKind::kReader);
  ASSERT_EQ(m.outputs.size(), 1u);
  EXPECT_EQ(m.outputs[0].name, "events");
  EXPECT_EQ(m.outputs[0].produces, "event.batch/1");
  ASSERT_NE(m.option("path"), nullptr);
  EXPECT_TRUE(m.option("path")->required);
  EXPECT_EQ(m.option("batch_size")->default_value, 4096);
  EXPECT_EQ(m.option("rank")->default_value, -1);
}

TEST(TracesChromeTrace, KinetoTraceGetsEpochNsRankStepsAndStreams) {
  Harness h(chrome_trace_factory(), {{"path", fixture("kineto_small.json")}});
  ASSERT_EQ(run(h), "");
  const auto events = all_events(h);
  ASSERT_EQ(events.size(), 13u);  // trace_info + 12

  // trace_info comes first; baseTimeNanoseconds and distributedInfo come after traceEvents in the file.
  const Event& info = events[0];
  EXPECT_EQ(info.name, "trace_info");
  EXPECT_EQ(info.phase, 'M');
  EXPECT_EQ(info.args.at("format"), "kineto");
  EXPECT_EQ(info.args.at("clock"), "epoch");
  EXPECT_EQ(info.args.at("clock_origin_ns"), kBase);
  EXPECT_EQ(info.args.at("rank"), 2);
  EXPECT_EQ(info.args.at("rank_source"), "distributedInfo");
  EXPECT_EQ(info.args.at("profiler_steps"), nlohmann::json::array({7}));
  EXPECT_EQ(info.args.at("metadata").at("deviceProperties")[0].at("name"), "Test GPU");

  for (const auto& e : events) EXPECT_EQ(e.key.rank, 2) << e.name;

  const Event* mm = find(events, "aten::mm");
  ASSERT_NE(mm, nullptr);
  EXPECT_EQ(mm->start_ns, kBase + 1000125);  // 1000.125 us, exact
  EXPECT_EQ(mm->duration_ns, 50500);
  EXPECT_EQ(mm->key.timestamp_ns, mm->start_ns);
  EXPECT_EQ(mm->key.step_id, 7);  // inside ProfilerStep#7, which the file lists after it
  EXPECT_EQ(mm->args.at("External id"), 1);

  const Event* gemm = find(events, "gemm_kernel");
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->tid, 7);  // the stream
  EXPECT_EQ(gemm->pid, 0);
  EXPECT_EQ(gemm->key.device, 0);
  EXPECT_EQ(gemm->key.step_id, 7);  // device event: its start lies in the step's span
  EXPECT_EQ(gemm->args.at("correlation"), 42);
  EXPECT_EQ(find(events, "late_kernel")->key.step_id, -1);  // after the step
  EXPECT_EQ(find(events, "aten::after")->key.step_id, -1);

  const Event* flow = nullptr;
  for (const auto& e : events)
    if (e.phase == 'f') flow = &e;
  ASSERT_NE(flow, nullptr);
  EXPECT_EQ(flow->args.at("_trace").at("id"), 42);
  EXPECT_EQ(flow->args.at("_trace").at("bp"), "e");

  const Event* instant = find(events, "Iteration Start: PyTorch Profiler");
  ASSERT_NE(instant, nullptr);
  EXPECT_EQ(instant->pid, plugins::chrome_trace::kStringIdBase);  // "Traces"
  EXPECT_EQ(instant->args.at("_trace").at("pid"), "Traces");
  EXPECT_EQ(instant->args.at("_trace").at("tid"), "Trace PyTorch Profiler");
  EXPECT_EQ(instant->args.at("_trace").at("s"), "g");

  const Event* counter = find(events, "queue");
  ASSERT_NE(counter, nullptr);
  EXPECT_EQ(counter->phase, 'C');
  EXPECT_EQ(counter->args.at("length"), 3);

  const Event* meta = find(events, "process_name");
  ASSERT_NE(meta, nullptr);
  EXPECT_EQ(meta->start_ns, kNoTimestamp);  // no ts in the file
}

TEST(TracesChromeTrace, GzipGivesTheSameEvents) {
  Harness plain(chrome_trace_factory(), {{"path", fixture("kineto_small.json")}});
  Harness gz(chrome_trace_factory(), {{"path", fixture("kineto_small.json.gz")}});
  ASSERT_EQ(run(plain), "");
  ASSERT_EQ(run(gz), "");
  auto a = all_events(plain), b = all_events(gz);
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(b[0].args.at("compressed"), true);
  for (std::size_t i = 1; i < a.size(); ++i) EXPECT_EQ(nlohmann::json(a[i]), nlohmann::json(b[i])) << i;
}

TEST(TracesChromeTrace, LegacyExporterTraceKeepsRelativeClockAndStringPid) {
  Harness h(chrome_trace_factory(), {{"path", fixture("legacy_small.json")}});
  ASSERT_EQ(run(h), "");
  const auto events = all_events(h);
  ASSERT_EQ(events.size(), 7u);
  EXPECT_EQ(events[0].args.at("format"), "pytorch_legacy");
  EXPECT_EQ(events[0].args.at("clock"), "relative");
  EXPECT_EQ(events[0].args.at("rank"), -1);
  const Event* fwd = find(events, "forward");
  EXPECT_EQ(fwd->start_ns, 25000);  // us * 1000 from the profiler's start
  EXPECT_EQ(fwd->pid, plugins::chrome_trace::kStringIdBase);
  EXPECT_EQ(fwd->args.at("_trace").at("pid"), "CPU functions");
  EXPECT_EQ(fwd->key.step_id, 4);
  EXPECT_EQ(find(events, "gloo:all_reduce")->key.step_id, 4);  // another thread of the same process
  EXPECT_EQ(find(events, "backward")->key.step_id, 5);
  EXPECT_EQ(find(events, "ProfilerStep#5")->key.step_id, 5);
  EXPECT_EQ(find(events, "aten::zeros")->key.step_id, -1);
}

TEST(TracesChromeTrace, AscendStringTimestampsAreExactNs) {
  Harness h(chrome_trace_factory(), {{"path", fixture("ascend_small.json")}});
  ASSERT_EQ(run(h), "");
  const auto events = all_events(h);
  ASSERT_EQ(events.size(), 5u);
  EXPECT_EQ(events[0].args.at("format"), "ascend");
  EXPECT_EQ(events[0].args.at("clock"), "epoch");
  const Event* empty = find(events, "aten::empty");
  EXPECT_EQ(empty->start_ns, 1704161511420306491);
  EXPECT_EQ(empty->duration_ns, 13080);
  EXPECT_EQ(empty->key.step_id, 1);
  const Event* task = find(events, "aclnnZeros_ZerosLikeAiCore");
  EXPECT_EQ(task->start_ns, 1704161511420904205);  // .2045 us: the sub-ns digit rounds half away from zero
  EXPECT_EQ(task->tid, 3);                         // "Stream Id"
  EXPECT_EQ(task->key.step_id, 1);                 // a device task, placed by its start
}

TEST(TracesChromeTrace, RankOptionWinsThenFileName) {
  Harness h(chrome_trace_factory(), {{"path", fixture("kineto_small.json")}, {"rank", 5}});
  ASSERT_EQ(run(h), "");
  for (const auto& e : all_events(h)) EXPECT_EQ(e.key.rank, 5);

  TempDir dir;
  const std::string path = write_file(dir / "rank3.trace.json", read_file(data_dir() / "legacy_small.json"));
  Harness named(chrome_trace_factory(), {{"path", path}});
  ASSERT_EQ(run(named), "");
  const auto events = all_events(named);
  EXPECT_EQ(events[0].args.at("rank_source"), "file name");
  for (const auto& e : events) EXPECT_EQ(e.key.rank, 3);
}

TEST(TracesChromeTrace, EmitsOneBatchPerPollOfAtMostBatchSize) {
  Harness h(chrome_trace_factory(), {{"path", fixture("kineto_small.json")}, {"batch_size", 5}});
  auto& c = h.component();
  c.start();
  EXPECT_EQ(c.poll(h.out), PollResult::kMore);
  EXPECT_EQ(c.poll(h.out), PollResult::kMore);
  EXPECT_EQ(c.poll(h.out), PollResult::kDone);
  EXPECT_EQ(c.poll(h.out), PollResult::kDone);
  c.stop();
  const auto batches = h.outputs_of<EventBatch>(0);
  ASSERT_EQ(batches.size(), 3u);
  EXPECT_EQ(batches[0].events.size(), 6u);  // trace_info + 5
  EXPECT_EQ(batches[1].events.size(), 5u);
  EXPECT_EQ(batches[2].events.size(), 2u);
  EXPECT_EQ(batches[0].source_path, fixture("kineto_small.json"));
  EXPECT_EQ(h.out.emitted[0].second.key().rank, 2);
}

TEST(TracesChromeTrace, EmptyEventArrayGivesOnlyTraceInfo) {
  TempDir dir;
  const std::string path =
      write_file(dir / "empty_events.json", R"({"traceEvents": [], "schemaVersion": 1})");
  Harness h(chrome_trace_factory(), {{"path", path}});
  EXPECT_EQ(run(h), "");
  const auto events = all_events(h);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].name, "trace_info");
}

// An event with "args" twice: the last one wins, as in every JSON reader, and nothing of the first (its
// "Stream Id" made the event a device task) is read after it was replaced (a use-after-free under ASan).
TEST(TracesChromeTrace, ARepeatedArgsMemberReplacesTheFirst) {
  TempDir dir;
  const std::string path = write_file(dir / "twice.json", R"([
    {"ph": "X", "name": "task", "ts": 1, "dur": 1, "pid": 1, "tid": 0, "args": {"Stream Id": 3}, "args": {"x": 1}},
    {"ph": "X", "name": "kernel", "ts": 2, "dur": 1, "pid": 1, "tid": 0, "args": {"x": 1}, "args": {"stream": 7}}
  ])");
  Harness h(chrome_trace_factory(), {{"path", path}});
  ASSERT_EQ(run(h), "");
  const auto events = all_events(h);
  const Event* task = find(events, "task");
  ASSERT_NE(task, nullptr);
  EXPECT_EQ(task->tid, 0);  // a host event: the stream was in the replaced args
  EXPECT_EQ(task->args.at("x"), 1);
  EXPECT_FALSE(task->args.contains("Stream Id"));
  const Event* kernel = find(events, "kernel");
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(kernel->tid, 7);  // the stream of the args that stayed
}

TEST(TracesChromeTrace, AnUnterminatedArrayIsAcceptedAsTheFormatAllows) {
  TempDir dir;
  const std::string path =
      write_file(dir / "open.json", R"([{"ph": "X", "name": "a", "ts": 1, "dur": 1, "pid": 1, "tid": 1},)");
  Harness h(chrome_trace_factory(), {{"path", path}});
  EXPECT_EQ(run(h), "");
  EXPECT_EQ(all_events(h).size(), 2u);
  bool warned = false;
  for (const auto& [level, line] : h.host.log.lines)
    warned |= line.find("no closing ']'") != std::string::npos;
  EXPECT_TRUE(warned);
}

TEST(TracesChromeTrace, MissingFileFailsAtStartNamingPathAndReason) {
  const std::string path = fixture("does_not_exist.json");
  Harness h(chrome_trace_factory(), {{"path", path}});
  try {
    h.component().start();
    FAIL() << "start() did not throw";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), path + ": cannot open: No such file or directory");
  }
  EXPECT_TRUE(h.out.emitted.empty());
}

TEST(TracesChromeTrace, EmptyPathIsAConfigProblem) {
  EXPECT_THROW(Harness(chrome_trace_factory(), {{"path", ""}}), std::invalid_argument);
  EXPECT_THROW(Harness(chrome_trace_factory(), nlohmann::json::object()), std::invalid_argument);
}

TEST(TracesChromeTrace, SniffScoresTraceHeads) {
  const auto& f = chrome_trace_factory();
  auto score = [&](const std::string& path, std::string head) { return f.sniff({path, head, false}); };
  EXPECT_EQ(score("t.json", read_file(data_dir() / "kineto_small.json")), 95);
  EXPECT_EQ(score("t.json", read_file(data_dir() / "legacy_small.json")), 90);
  EXPECT_EQ(score("t.json", read_file(data_dir() / "ascend_small.json")), 90);
  EXPECT_EQ(score("t.json.gz", read_file(data_dir() / "kineto_small.json.gz")), 95);  // decompressed head
  EXPECT_EQ(score("t.json", R"([{"ph": "X", "name": "cut off by the head's end", "ts": 1)"), 70);
  EXPECT_EQ(score("t.json.gz", std::string("\x1f\x8b\x08\x00garbage", 12)), 60);
  EXPECT_EQ(score("t.gz", std::string("\x1f\x8b\x08\x00garbage", 12)), 0);
  EXPECT_EQ(score("m.jsonl", "{\"step\": 1, \"loss\": 2.5}\n{\"step\": 2}\n"), 0);
  EXPECT_EQ(score("x.json", "[1, 2, 3]"), 0);
  EXPECT_EQ(score("x.json", ""), 0);
  EXPECT_EQ(f.sniff({data_dir().string(), "", true}), 0);
}

}  // namespace
}  // namespace cann_debug::traces_test
