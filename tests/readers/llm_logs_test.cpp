// train_log and metric_series_json: the step, validation and error lines of LLM trainers' console logs,
// per-metric JSON series, restarts, sentinel fields, bad input, and the real logs of ../shared/real/llm_logs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "argument_dump.hpp"
#include "metric_series_json.hpp"
#include "readers_test_support.hpp"
#include "train_log.hpp"

namespace cann_debug::plugins {
namespace {

using namespace readers_test;
using nlohmann::json;
using testing::Harness;

std::vector<Record> of_kind(const std::vector<Record>& all, std::string_view kind) {
  std::vector<Record> out;
  for (const auto& r : all)
    if (r.fields.value("log_kind", "") == kind) out.push_back(r);
  return out;
}

std::vector<Record> read_log(const std::string& path, json options = json::object()) {
  options["path"] = path;
  Harness h(train_log_factory(), options);
  const std::string error = run(h);
  if (!error.empty()) throw std::runtime_error(error);
  return records(h);
}

constexpr const char* kMegatronLm =
    "using world size: 8, data-parallel size: 8\n"
    " [2024-03-14 23:07:56.250000] iteration        1/     500 | consumed samples:          256 | elapsed "
    "time per "
    "iteration (ms): 1523.4 | throughput per GPU (TFLOP/s/GPU): 310.2 | learning rate: 1.500000E-06 | global "
    "batch size:   256 | lm loss: 1.095636E+01 | load_balancing_loss: 1.020000E+00 | loss scale: 1.0 | grad "
    "norm: 12.345 | num zeros: 0 | number of skipped iterations:   0 | number of nan iterations:   0 |\n"
    " [2024-03-14 23:07:57.773400] iteration        2/     500 | consumed samples:          512 | elapsed "
    "time per "
    "iteration (ms): 1522.1 | learning rate: 3.000000E-06 | global batch size:   256 | lm loss: 1.081234E+01 "
    "| "
    "loss scale: 1.0 | number of skipped iterations:   1 | number of nan iterations:   1 |\n"
    "(min, max) time across ranks (ms):\n"
    "    forward-backward ...............................: (812.33, 815.02)\n"
    " validation loss at iteration 2 on validation set | lm loss value: 1.070000E+01 | lm loss PPL: "
    "4.424134E+04 "
    "|\n";

TEST(TrainLog, MegatronLmIterationAndValidationLines) {
  EXPECT_THAT(check_manifest(train_log_factory().manifest()), ::testing::IsEmpty());
  EXPECT_THAT(manifest_style_problems(train_log_factory().manifest()), ::testing::IsEmpty());
  TempDir dir;
  const auto r = read_log(dir.write("train.log", kMegatronLm));
  const auto train = of_kind(r, "train");
  ASSERT_EQ(train.size(), 2u);
  EXPECT_EQ(train[0].key.step_id, 1);
  EXPECT_EQ(train[0].line, 2);
  EXPECT_EQ(train[0].key.timestamp_ns, 1710457676250000000);
  const json& f = train[0].fields;
  EXPECT_EQ(f["format"], "megatron");
  EXPECT_EQ(f["iterations_total"], 500);
  EXPECT_EQ(f["consumed_samples"], 256);
  EXPECT_DOUBLE_EQ(f["iteration_time_ms"].get<double>(), 1523.4);
  EXPECT_DOUBLE_EQ(f["tflops_per_gpu"].get<double>(), 310.2);
  EXPECT_DOUBLE_EQ(f["lr"].get<double>(), 1.5e-6);
  EXPECT_EQ(f["global_batch_size"], 256);
  EXPECT_DOUBLE_EQ(f["loss"].get<double>(), 10.95636);
  EXPECT_DOUBLE_EQ(f["load_balancing_loss"].get<double>(), 1.02);
  EXPECT_DOUBLE_EQ(f["loss_scale"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(f["grad_norm"].get<double>(), 12.345);
  EXPECT_EQ(f["num_zeros"], 0);
  EXPECT_EQ(f["skipped_iterations"], 0);
  EXPECT_EQ(f["segment"], 0);
  // A skipped (overflowed) step prints no grad norm: absent, not zero.
  EXPECT_FALSE(train[1].fields.contains("grad_norm"));
  EXPECT_EQ(train[1].fields["nan_iterations"], 1);
  const auto val = of_kind(r, "validation");
  ASSERT_EQ(val.size(), 1u);
  EXPECT_EQ(val[0].key.step_id, 2);
  EXPECT_DOUBLE_EQ(val[0].fields["val_loss"].get<double>(), 10.7);
  EXPECT_DOUBLE_EQ(val[0].fields["val_ppl"].get<double>(), 44241.34);
  EXPECT_FALSE(val[0].fields.contains("loss"));  // a validation loss never passes for a training loss
}

TEST(TrainLog, FixtureWithArgumentDumpErrorsAndARestart) {
  const auto r = read_log(fixture("llm/megatron.log"));
  const auto train = of_kind(r, "train");
  ASSERT_EQ(train.size(), 4u);
  EXPECT_EQ(train[0].line, 6);  // after the argument dump ("reset_iteration ....." is not a step line)
  EXPECT_FALSE(train[1].fields.contains("grad_norm"));
  EXPECT_EQ(train[1].fields["skipped_iterations"], 1);
  EXPECT_EQ(train[3].key.step_id, 3);
  EXPECT_EQ(train[3].fields["segment"], 1);
  const auto events = of_kind(r, "event");
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].fields["event"], "collective_timeout");
  EXPECT_EQ(events[0].line, 10);
  EXPECT_EQ(events[0].key.step_id, 3);
  EXPECT_EQ(events[1].fields["event"], "device_error");
  EXPECT_EQ(events[1].fields["hardware"], true);  // uncorrectable ECC
  EXPECT_EQ(events[1].line, 14);
  EXPECT_EQ(events[1].fields["traceback_line"], 11);
  EXPECT_EQ(events[2].fields["event"], "restart");
  EXPECT_EQ(events[2].line, 15);
  EXPECT_EQ(of_kind(r, "validation").size(), 1u);
}

TEST(TrainLog, TheArgumentDumpIsOneRecordWithTypedValuesAndTheirLines) {
  const auto args = of_kind(read_log(fixture("llm/megatron.log")), "arguments");
  ASSERT_EQ(args.size(), 1u);
  EXPECT_EQ(args[0].line, 5);  // the end-of-arguments line
  EXPECT_EQ(args[0].fields["arguments"]["lr"], 0.00015);
  EXPECT_EQ(args[0].fields["arguments"]["reset_iteration"], false);
  EXPECT_EQ(args[0].fields["argument_lines"]["lr"], 3);
}

TEST(TrainLog, ArgumentLinesBehindALauncherPrefix) {
  using llm_logs::parse_argument_line;
  auto arg = parse_argument_line("vm-07-05:   optimizer ....................................... adam");
  ASSERT_TRUE(arg);
  EXPECT_EQ(arg->first, "optimizer");
  EXPECT_EQ(arg->second, "adam");
  arg = parse_argument_line("  global_batch_size ............................... 2048");
  ASSERT_TRUE(arg);
  EXPECT_EQ(arg->second, 2048);
  EXPECT_TRUE(arg->second.is_number_integer());
  EXPECT_EQ(parse_argument_line("  clip_grad ....... 1.0")->second, 1.0);
  EXPECT_TRUE(parse_argument_line("  load ........ None")->second.is_null());
  EXPECT_EQ(parse_argument_line("  data_path ....... ['/data/a', '/data/b']")->second,
            "['/data/a', '/data/b']");
  // Not argument lines: a timer of the "(min, max) time across ranks" table, prose, a dotted name.
  EXPECT_FALSE(parse_argument_line("    forward-backward ...............................: (812.33, 815.02)"));
  EXPECT_FALSE(parse_argument_line("loading checkpoint ..."));
  EXPECT_FALSE(parse_argument_line("...."));
  // A dump cut short by the end of the log is still emitted.
  TempDir dir;
  const std::string path = dir.write("cut.log",
                                     "------------------------ arguments ------------------------\n"
                                     "  optimizer ....................................... sgd\n");
  const auto args = of_kind(read_log(path), "arguments");
  ASSERT_EQ(args.size(), 1u);
  EXPECT_EQ(args[0].fields["arguments"]["optimizer"], "sgd");
}

TEST(TrainLog, DeepSpeedSentinelsAreAbsentAndLauncherPrefixesRemoved) {
  TempDir dir;
  const auto r = read_log(dir.write(
      "ds.out",
      "vm-07-14:  iteration        1/       5 | consumed samples:         2048 | lm-loss: 1.244238E+01 | "
      "loss "
      "scale: -1.0 | grad norm: 0.000 | num zeros: 0.0 | number of skipped iterations:   0 | number of nan "
      "iterations:   0 | samples per second: 26.942 | TFLOPs: 147.61 |\n"
      "[rank7]:  iteration        2/       5 | lm loss: 1.2E+01 | loss scale: 4096.0 | grad norm: 0.000 "
      "|\n"));
  ASSERT_EQ(r.size(), 2u);
  EXPECT_DOUBLE_EQ(r[0].fields["loss"].get<double>(), 12.44238);
  EXPECT_FALSE(r[0].fields.contains("loss_scale"));
  EXPECT_FALSE(r[0].fields.contains("grad_norm"));
  EXPECT_FALSE(r[0].fields.contains("num_zeros"));
  EXPECT_DOUBLE_EQ(r[0].fields["tflops"].get<double>(), 147.61);
  EXPECT_DOUBLE_EQ(r[0].fields["samples_per_second"].get<double>(), 26.942);
  // With a real loss scale a zero grad norm is a reading, and kept.
  EXPECT_EQ(r[1].fields["grad_norm"], 0.0);
  EXPECT_EQ(r[1].key.step_id, 2);
}

TEST(TrainLog, RestartFromACheckpointStartsASegment) {
  TempDir dir;
  std::string log;
  for (int i : {1, 2, 3, 4}) log += fmt::format(" iteration {}/10 | lm loss: {}.0 |\n", i, 10 - i);
  log += "loading checkpoint from /ckpt at iteration 2\n";
  for (int i : {3, 4, 5}) log += fmt::format(" iteration {}/10 | lm loss: {}.5 |\n", i, 10 - i);
  const auto r = read_log(dir.write("train.log", log));
  const auto events = of_kind(r, "event");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].fields["event"], "restart");
  EXPECT_EQ(events[0].fields["resumed_at"], 3);
  EXPECT_EQ(events[0].fields["previous_step"], 4);
  EXPECT_EQ(events[0].line, 6);
  const auto train = of_kind(r, "train");
  ASSERT_EQ(train.size(), 7u);
  EXPECT_EQ(train[3].fields["segment"], 0);
  EXPECT_EQ(train[4].fields["segment"], 1);
  EXPECT_EQ(train[4].key.step_id, 3);
  EXPECT_EQ(train[6].fields["segment"], 1);
}

TEST(TrainLog, ErrorsAreEventsWithTheirLinesAndTheIterationTheyHit) {
  TempDir dir;
  const std::string log =
      " iteration 1/10 | lm loss: 9.0 |\n"
      " iteration 2/10 | lm loss: 8.0 |\n"
      "[rank0]:[E1218 20:27:21.426415540 ProcessGroupNCCL.cpp:629] [Rank 0] Watchdog caught collective "
      "operation "
      "timeout: WorkNCCL(SeqNum=1, OpType=BROADCAST, Timeout(ms)=600000) ran for 600081 milliseconds\n"
      "[Mon Feb 10 04:12:01 2025] NVRM: Xid (PCI:0000:9b:00): 79, pid=1896, GPU has fallen off the bus.\n"
      "Traceback (most recent call last):\n"
      "  File \"pretrain_gpt.py\", line 12, in <module>\n"
      "    raise RuntimeError(\"DataLoader worker (pid 1) exited unexpectedly\")\n"
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
      "15.56 GiB\n"
      "RuntimeError: NPU function error: AclrtSynchronizeDeviceWithTimeout, error code is 507054\n"
      "EI0002: The wait execution of the Notify register times out. rankSize[8], rankId[6].\n"
      "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, reducing to 32768\n"
      "RuntimeError: DataLoader worker (pid(s) 6303) exited unexpectedly\n"
      "Traceback (most recent call last):\n"
      "  File \"train.py\", line 3, in <module>\n";
  const auto events = of_kind(read_log(dir.write("train.log", log)), "event");
  ASSERT_EQ(events.size(), 8u);
  EXPECT_EQ(events[0].fields["event"], "collective_timeout");
  EXPECT_EQ(events[0].fields["backend"], "nccl");
  EXPECT_EQ(events[0].fields["component"], "network");
  EXPECT_EQ(events[0].line, 3);
  EXPECT_EQ(events[0].key.step_id, 2);
  EXPECT_EQ(events[0].fields["after_step"], 2);
  EXPECT_EQ(events[1].fields["event"], "xid");
  EXPECT_EQ(events[1].fields["code"], "79");
  EXPECT_EQ(events[1].fields["hardware"], true);
  // The traceback is one event at its exception line; the frame that mentions a DataLoader is not one.
  EXPECT_EQ(events[2].fields["event"], "out_of_memory");
  EXPECT_EQ(events[2].fields["backend"], "cuda");
  EXPECT_EQ(events[2].line, 8);
  EXPECT_EQ(events[2].fields["traceback_line"], 5);
  EXPECT_EQ(events[3].fields["event"], "device_error");
  EXPECT_EQ(events[3].fields["code"], "507054");
  EXPECT_EQ(events[3].fields["hardware"], true);  // HBM multi-bit ECC
  EXPECT_EQ(events[4].fields["event"], "collective_timeout");
  EXPECT_EQ(events[4].fields["backend"], "hccl");
  EXPECT_EQ(events[4].fields["code"], "EI0002");
  EXPECT_EQ(events[5].fields["event"], "overflow_skip");
  EXPECT_EQ(events[5].fields["severity"], "warning");
  EXPECT_EQ(events[6].fields["event"], "dataloader_worker");
  EXPECT_EQ(events[7].fields["event"], "exception");
  EXPECT_EQ(events[7].line, 13);
  EXPECT_THAT(events[7].fields["message"].get<std::string>(), ::testing::HasSubstr("cut short"));
}

TEST(TrainLog, LlmcNanoGptTorchtitanAndTrainerFormats) {
  TempDir dir;
  auto r = read_log(
      dir.write("llmc.log", "s:0 tel:10.968871\ns:0 trl:10.965596\ns:1 trl:10.8 lr:0.0006 norm:1.25\n"));
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].fields["log_kind"], "validation");
  EXPECT_DOUBLE_EQ(r[0].fields["val_loss"].get<double>(), 10.968871);
  EXPECT_EQ(r[1].fields["format"], "llm.c");
  EXPECT_EQ(r[2].key.step_id, 1);
  EXPECT_DOUBLE_EQ(r[2].fields["grad_norm"].get<double>(), 1.25);
  EXPECT_DOUBLE_EQ(r[2].fields["lr"].get<double>(), 0.0006);
  EXPECT_EQ(r[2].fields["segment"], 0);  // the validation line at step 0 does not restart anything

  r = read_log(
      dir.write("llmc.out",
                "step   10/5000 | loss 7.123456 (+0.12z)| norm 1.2345 (-0.30z)| lr 6.00e-04 | 123.45 ms | "
                "45.6% bf16 MFU | 512000 tok/s\n"));
  ASSERT_EQ(r.size(), 1u);
  EXPECT_DOUBLE_EQ(r[0].fields["loss"].get<double>(), 7.123456);
  EXPECT_DOUBLE_EQ(r[0].fields["iteration_time_ms"].get<double>(), 123.45);
  EXPECT_DOUBLE_EQ(r[0].fields["mfu_pct"].get<double>(), 45.6);
  EXPECT_EQ(r[0].fields["tokens_per_second"], 512000);

  r = read_log(
      dir.write("nanogpt.log",
                "iter 0: loss 10.9, time 900.0ms, mfu -100.00%\niter 10: loss 3.1234, time 123.45ms, mfu "
                "41.23%\nstep 500: train loss 3.0000, val loss 3.1000\n"));
  ASSERT_EQ(r.size(), 3u);
  EXPECT_FALSE(r[0].fields.contains("mfu_pct"));
  EXPECT_DOUBLE_EQ(r[1].fields["mfu_pct"].get<double>(), 41.23);
  EXPECT_EQ(r[2].fields["log_kind"], "validation");
  EXPECT_DOUBLE_EQ(r[2].fields["val_loss"].get<double>(), 3.1);
  EXPECT_FALSE(r[2].fields.contains("loss"));

  r = read_log(dir.write("titan.log",
                         "\x1b[31mstep: 10  \x1b[32mloss:  7.12345  \x1b[33mgrad_norm:  1.2345  memory: "
                         "60.12GiB(75.30%)  tps: 12,345  tflops: 456.78  mfu: N/A\x1b[39m\n"));
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].key.step_id, 10);
  EXPECT_DOUBLE_EQ(r[0].fields["grad_norm"].get<double>(), 1.2345);
  EXPECT_EQ(r[0].fields["tokens_per_second"], 12345);
  EXPECT_DOUBLE_EQ(r[0].fields["memory_gib"].get<double>(), 60.12);
  EXPECT_FALSE(r[0].fields.contains("mfu_pct"));

  r = read_log(dir.write("hf.log",
                         "{'loss': 1.2345, 'grad_norm': nan, 'learning_rate': 4.9e-05, 'epoch': 0.12}\n"
                         "{'loss': 1.1, 'grad_norm': 3.2, 'learning_rate': 4.8e-05, 'epoch': 0.24}\n"
                         "{'eval_loss': 1.05, 'eval_runtime': 2.5, 'epoch': 0.24}\n"
                         "{'train_runtime': 100.5, 'train_loss': 1.2, 'epoch': 0.24}\n"));
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0].fields["grad_norm"], "nan");
  EXPECT_DOUBLE_EQ(r[0].fields["lr"].get<double>(), 4.9e-5);
  EXPECT_EQ(r[0].fields["step_is_ordinal"], true);
  EXPECT_EQ(r[1].key.step_id, r[0].key.step_id + 1);
  EXPECT_EQ(r[2].fields["log_kind"], "validation");
  EXPECT_DOUBLE_EQ(r[2].fields["val_loss"].get<double>(), 1.05);
  EXPECT_EQ(r[3].fields["log_kind"], "summary");
}

TEST(TrainLog, JsonObjectLinesAScriptPrintsAmongItsOtherOutput) {
  // What `collect -- python train.py` captures of a script that prints json.dumps() of its metrics.
  TempDir dir;
  const auto r =
      read_log(dir.write("stdout.log",
                         "loading data...\n"
                         "{\"step\": 0, \"loss\": 2.5, \"learning_rate\": 0.1, \"time\": 1700000000.5}\n"
                         "{\"step\": 1, \"loss\": 2.25, \"grad_norm\": 3.0, \"config\": {\"a\": 1}}\n"
                         "{\"step\": 1, \"val_loss\": 2.4}\n"
                         "{\"event\": \"checkpoint\", \"step\": 1}\n"
                         "done\n"));
  const auto train = of_kind(r, "train");
  ASSERT_EQ(train.size(), 2u);
  EXPECT_EQ(train[0].fields["format"], "json");
  EXPECT_EQ(train[0].key.step_id, 0);
  EXPECT_DOUBLE_EQ(train[0].fields["lr"].get<double>(), 0.1);
  EXPECT_EQ(train[0].key.timestamp_ns, 1700000000'500000000);
  EXPECT_DOUBLE_EQ(train[1].fields["grad_norm"].get<double>(), 3.0);
  EXPECT_FALSE(train[1].fields.contains("config")) << "nested objects are not metrics";
  const auto validation = of_kind(r, "validation");
  ASSERT_EQ(validation.size(), 1u);
  EXPECT_DOUBLE_EQ(validation[0].fields["val_loss"].get<double>(), 2.4);
  // Claimed as a console log; the same objects as a .jsonl file are the jsonl reader's.
  const std::string lines = "{\"step\": 0, \"loss\": 2.5}\n{\"step\": 1, \"loss\": 2.25}\n";
  EXPECT_EQ(train_log_factory().sniff({"run/stdout.log", lines, false}), 85);
  EXPECT_EQ(train_log_factory().sniff({"run/metrics.jsonl", lines, false}), 0);
}

TEST(TrainLog, AFolderIsReadFileByFileInNameOrder) {
  TempDir dir;
  dir.write("run/slurm-1.out", " iteration 1/4 | lm loss: 9.0 |\n iteration 2/4 | lm loss: 8.0 |\n");
  dir.write("run/slurm-2.out", " iteration 2/4 | lm loss: 8.1 |\n iteration 3/4 | lm loss: 7.0 |\n");
  dir.write("run/metrics.jsonl", "{\"step\": 1, \"loss\": 2.0}\n");
  dir.write("run/notes.txt", "nothing to see\n");
  Harness h(train_log_factory(), {{"path", dir / "run"}});
  ASSERT_EQ(run(h), "");
  const auto batches = record_batches(h);
  ASSERT_EQ(batches.size(), 2u);
  EXPECT_THAT(batches[0].source_path, ::testing::EndsWith("slurm-1.out"));
  EXPECT_THAT(batches[1].source_path, ::testing::EndsWith("slurm-2.out"));
  EXPECT_EQ(batches[0].schema, "train_log.lines/1");
  const auto train = of_kind(records(h), "train");
  ASSERT_EQ(train.size(), 4u);
  EXPECT_EQ(train[2].fields["segment"], 1);  // the second attempt resumed at iteration 2
}

TEST(TrainLog, SniffClaimsLogsByTheirLines) {
  const auto& f = train_log_factory();
  EXPECT_EQ(f.sniff({"a/train.log", " iteration 1/10 | lm loss: 9.0 |\n", false}), 85);
  EXPECT_EQ(f.sniff({"a/train.log", "s:0 trl:10.9\ns:1 trl:10.8\n", false}), 85);
  EXPECT_EQ(f.sniff({"a/x.out", "------------------------ arguments ------------------------\n  lr ... 1\n",
                     false}),
            60);
  EXPECT_EQ(f.sniff({"a/x.log", "hello\nworld\n", false}), 0);
  // An Ascend profiler operator_details.csv quotes the training script in its call stacks.
  EXPECT_EQ(f.sniff({"ASCEND_PROFILER_OUTPUT/operator_details.csv",
                     "Name,Input Shapes,Call Stack,Host Self "
                     "Duration(us)\naten::empty,\";\",\"../../pretrain_gpt.py(122): "
                     "<module>\",66.25\n",
                     false}),
            0);
  EXPECT_EQ(f.sniff({"a/m.jsonl", "{\"step\": 1, \"loss\": 2.0}\n{\"step\": 2, \"loss\": 1.0}\n", false}), 0);
  EXPECT_EQ(f.sniff({"a", "", true}), 0);
}

TEST(TrainLog, BadStepLinesAreSkippedWithAWarningOrStopTheReader) {
  TempDir dir;
  const std::string log =
      " iteration 1/10 | lm loss: 9.0 |\n iteration 2/10 | lm loss: 1.2E+ |\n iteration 3/10 | lm loss: 7.0 "
      "|\n";
  const std::string path = dir.write("train.log", log);
  {
    Harness h(train_log_factory(), {{"path", path}});
    ASSERT_EQ(run(h), "");
    const auto r = records(h);
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r[1].key.step_id, 3);
    ASSERT_EQ(h.host.log.lines.size(), 1u);
    EXPECT_EQ(h.host.log.lines[0].second,
              path +
                  ":2: expected a number after 'lm loss:', got '1.2E+'; the line is skipped (bad_line: skip) "
                  "(line starts at byte offset 33)");
  }
  const std::string cut = dir.write("cut.log", "s:1 trl:9.0\ns:2 trl:x\ns:3 trl:8.0\n");
  {
    Harness h(train_log_factory(), {{"path", cut}});
    ASSERT_EQ(run(h), "");
    EXPECT_EQ(of_kind(records(h), "train").size(), 2u);
    ASSERT_FALSE(h.host.log.lines.empty());
    EXPECT_EQ(
        h.host.log.lines[0].second,
        cut +
            ":2: expected a number after 'trl:'; the line is skipped (bad_line: skip) (line starts at byte "
            "offset 12)");
  }
}

TEST(TrainLog, MalformedInputs) {
  TempDir dir;
  const std::string big(300, 'x');
  const std::vector<BadInput> bad = {
      {"llmc_number", "s:1 trl:9.0\ns:2 trl:x\n",
       "2: expected a number after 'trl:' (line starts at byte offset 12)"},
      {"nanogpt_number", "iter 1: loss 3.0, time 1ms\niter 2: loss abc, time 1ms\n",
       "2: expected a number after 'loss' (line starts at byte offset 27)"},
      {"megatron_number", " iteration 1/10 | lm loss: 9.0 |\n iteration 2/10 | lm loss: 1.2E+ |\n",
       "2: expected a number after 'lm loss:', got '1.2E+' (line starts at byte offset 33)"},
      {"megatron_no_fields", " iteration 1/10 | lm loss: 9.0 |\n iteration 2/10 | |\n",
       "2: expected 'name: value' fields after the iteration counter (line starts at byte offset 33)"},
      {"hf_no_colon", "{'loss': 1.0}\n{'loss' 1.0}\n",
       "2: expected ':' after the key 'loss' (line starts at byte offset 14)"},
      {"hf_bad_value", "{'loss': 1.0}\n{'loss': abc}\n",
       "2: expected a number, a string, True, False or None as the value of 'loss', got 'abc' (line starts "
       "at "
       "byte offset 14)"},
      {"hf_unclosed_key", "{'loss': 1.0}\n{'loss: 1.0}\n",
       "2: expected the key's closing quote (line starts at byte offset 14)"},
      {"hf_no_end", "{'loss': 1.0}\n{'loss': 1.0 'x': 2}\n",
       "2: expected a number, a string, True, False or None as the value of 'loss', got '1.0 'x': 2' (line "
       "starts at byte offset 14)"},
      {"nul_tail", std::string(" iteration 1/10 | lm loss: 9.0 |\n") + std::string(8, '\0') + "\n",
       "2: expected text, got the control byte \\x00 at column 1 (binary data?) (line starts at byte offset "
       "33)"},
      {"invalid_utf8", " iteration 1/10 | lm loss: 9.0 |\nbad \xff byte\n",
       "2: expected UTF-8 text, got the byte \\xff at column 5 (binary data or another encoding?) (line "
       "starts "
       "at byte offset 33)"},
      {"too_long", " iteration 1/10 | lm loss: 9.0 |\n" + big + "\n",
       "2: expected a line of at most max_line_bytes = 256 bytes, got a longer one (binary data or a missing "
       "newline?) (line starts at byte offset 33)"},
  };
  for (const auto& b : bad)
    EXPECT_EQ(check_bad_input(train_log_factory(), {{"bad_line", "stop"}, {"max_line_bytes", 256}}, b, dir,
                              "train.log"),
              "")
        << b.name;
  Harness missing(train_log_factory(), {{"path", dir / "absent.log"}});
  EXPECT_EQ(run(missing), (dir / "absent.log") + ": cannot open: No such file or directory");
}

TEST(MetricSeriesJson, MegatronGoldenValuesWithNotReachedSteps) {
  EXPECT_THAT(check_manifest(metric_series_json_factory().manifest()), ::testing::IsEmpty());
  TempDir dir;
  const std::string path = dir.write("golden_values_dev.json",
                                     R"({"lm loss": {"start_step": 1, "end_step": 15, "step_interval": 5,
                     "values": {"1": 10.5, "5": 9.5, "10": 8.5, "15": "nan"}},
          "iteration-time": {"start_step": 1, "end_step": 15, "step_interval": 5,
                             "values": {"1": "nan", "5": 1.41, "10": 1.42, "15": "nan"}}})");
  Harness h(metric_series_json_factory(), {{"path", path}});
  ASSERT_EQ(run(h), "");
  const auto r = records(h);
  ASSERT_EQ(r.size(), 3u);  // step 15 was not reached by any metric
  EXPECT_EQ(r[0].key.step_id, 1);
  EXPECT_DOUBLE_EQ(r[0].fields["loss"].get<double>(), 10.5);
  EXPECT_FALSE(r[0].fields.contains("iteration_time_s"));
  EXPECT_DOUBLE_EQ(r[1].fields["iteration_time_s"].get<double>(), 1.41);
  EXPECT_EQ(r[2].key.step_id, 10);
  EXPECT_EQ(metric_series_json_factory().sniff({path, read_text(path), false}), 90);
}

TEST(MetricSeriesJson, MindSpeedBaselineArraysAndPerRankObjects) {
  TempDir dir;
  const std::string path = dir.write("baseline.json",
                                     R"({"lm loss": [1.5, 1.4, NaN], "time info": [7718.5, 906.1, 897.9],
          "memo info": [{"rank": 0, "allocated memory": 16150.6}, {"rank": 1, "allocated memory": 13964.6}]})");
  Harness h(metric_series_json_factory(), {{"path", path}});
  ASSERT_EQ(run(h), "");
  const auto r = records(h);
  const auto train = of_kind(r, "train");
  ASSERT_EQ(train.size(), 3u);
  EXPECT_EQ(train[0].key.step_id, 1);
  EXPECT_EQ(train[2].fields["loss"], "nan");  // a NaN written in a baseline is a NaN loss
  EXPECT_DOUBLE_EQ(train[1].fields["iteration_time_ms"].get<double>(), 906.1);
  EXPECT_EQ(train[0].fields["step_is_ordinal"], true);
  const auto memory = of_kind(r, "memo_info");
  ASSERT_EQ(memory.size(), 2u);
  EXPECT_EQ(memory[1].key.rank, 1);
  EXPECT_EQ(metric_series_json_factory().sniff({path, read_text(path), false}), 85);
}

TEST(MetricSeriesJson, MalformedInputs) {
  TempDir dir;
  const std::vector<BadInput> bad = {
      {"root_array", "[1, 2]",
       "1: in /: expected an object of metric series, got an array (at byte offset 0)"},
      {"series_number", R"({"lm loss": 3})",
       "1: in /lm loss: expected a series (an object with \"values\", or an array), got a number (at byte "
       "offset "
       "1)"},
      {"no_values", R"({"lm loss": {"start_step": 1}})",
       "1: in /lm loss: expected a \"values\" object of step -> value, got none (at byte offset 1)"},
      {"values_array", R"({"lm loss": {"values": [1]}})",
       "1: in /lm loss/values: expected an object of step -> value, got an array (at byte offset 13)"},
      {"step_key", R"({"lm loss": {"values": {"x1": 1}}})",
       "1: in /lm loss/values/x1: expected a step number >= 0 as the key, got 'x1' (at byte offset 24)"},
      {"value_object", R"({"lm loss": {"values": {"1": {}}}})",
       "1: in /lm loss/values/1: expected a number or \"nan\", got an object (at byte offset 24)"},
      {"start_after_end", R"({"lm loss": {"start_step": 9, "end_step": 2, "values": {}}})",
       "1: in /lm loss/end_step: expected end_step >= start_step (9), got 2 (at byte offset 30)"},
      {"start_text", R"({"lm loss": {"start_step": "1", "values": {}}})",
       "1: in /lm loss/start_step: expected an integer >= 0, got a string (at byte offset 13)"},
      {"element_bool", R"({"lm loss": [1.0, true]})",
       "1: in /lm loss/1: expected a number or an object, got a boolean (at byte offset 18)"},
      {"rank_negative", R"({"memo info": [{"rank": -1}]})",
       "1: in /memo info/0/rank: expected a rank >= 0, got a number (at byte offset 16)"},
      {"truncated", R"({"lm loss": [1.0, )", ""},
  };
  for (const auto& b : bad) {
    if (b.expected.empty()) {  // the JSON parser's own message: check only that it names the file and line
      const std::string path = dir.write(b.name + "/m.json", b.content);
      Harness h(metric_series_json_factory(), {{"path", path}});
      EXPECT_THAT(run(h), ::testing::StartsWith(path + ":1:")) << b.name;
      continue;
    }
    EXPECT_EQ(check_bad_input(metric_series_json_factory(), json::object(), b, dir, "m.json"), "") << b.name;
  }
  const std::string empty = dir.write("empty.json", "  \n");
  Harness h(metric_series_json_factory(), {{"path", empty}});
  EXPECT_EQ(run(h), "");
  EXPECT_TRUE(records(h).empty());
}

// ---- the real logs of ../shared/real/llm_logs -------------------------------------------------------------

TEST(LlmLogsReal, MegatronDeepSpeedRocmBenchmark) {
  if (!have_real("llm_logs/megatron_deepspeed.log")) GTEST_SKIP() << "no ../shared/real";
  const std::string path = real("llm_logs/megatron_deepspeed.log");
  EXPECT_GE(train_log_factory().sniff({path, read_text(path).substr(0, 65536), false}), 60);
  const auto train = of_kind(read_log(path), "train");
  ASSERT_EQ(train.size(), 5u);
  EXPECT_EQ(train[0].key.step_id, 1);
  EXPECT_EQ(train[4].key.step_id, 5);
  EXPECT_DOUBLE_EQ(train[0].fields["loss"].get<double>(), 11.00492);
  EXPECT_DOUBLE_EQ(train[0].fields["loss_scale"].get<double>(), 2048.0);
  EXPECT_DOUBLE_EQ(train[0].fields["iteration_time_ms"].get<double>(), 76015.3);
  EXPECT_EQ(train[0].fields["consumed_tokens"], 4194304);
  EXPECT_EQ(train[4].fields["segment"], 0);
  // Its argument dump, behind the pdsh prefix of every line.
  const auto args = of_kind(read_log(path), "arguments");
  ASSERT_EQ(args.size(), 1u);
  EXPECT_EQ(args[0].fields["arguments"]["optimizer"], "adam");
  EXPECT_EQ(args[0].fields["arguments"]["lr"], 0.00012);
  EXPECT_EQ(args[0].fields["arguments"]["global_batch_size"], 2048);
  EXPECT_EQ(args[0].fields["argument_lines"]["optimizer"], 428);
}

TEST(LlmLogsReal, BigScienceDeepSpeedOnHasNoGradNormAndOffHasOne) {
  if (!have_real("llm_logs/meg_ds_3d_gpt2_perf_n16-ds-on.out")) GTEST_SKIP() << "no ../shared/real";
  const auto on = of_kind(read_log(real("llm_logs/meg_ds_3d_gpt2_perf_n16-ds-on.out")), "train");
  const auto off = of_kind(read_log(real("llm_logs/meg_ds_3d_gpt2_perf_n16-ds-off.out")), "train");
  ASSERT_GE(on.size(), 3u);
  ASSERT_GE(off.size(), 3u);
  for (const auto& r : on) {
    EXPECT_FALSE(r.fields.contains("grad_norm")) << r.line;
    EXPECT_FALSE(r.fields.contains("loss_scale")) << r.line;
    EXPECT_TRUE(r.fields.contains("loss")) << r.line;
  }
  EXPECT_DOUBLE_EQ(off[0].fields["grad_norm"].get<double>(), 67.593);
  EXPECT_DOUBLE_EQ(off[0].fields["loss"].get<double>(), 12.44238);
  EXPECT_EQ(off[0].line, 853);
}

TEST(LlmLogsReal, ModdedNanoGptLlmcLog) {
  if (!have_real("llm_logs/2024-06-06_AdamW_baseline.log")) GTEST_SKIP() << "no ../shared/real";
  const auto r = read_log(real("llm_logs/2024-06-06_AdamW_baseline.log"));
  const auto train = of_kind(r, "train");
  const auto val = of_kind(r, "validation");
  EXPECT_GT(train.size(), 9000u);
  EXPECT_GT(val.size(), 0u);
  EXPECT_EQ(train.size() + val.size(), 9612u);  // every line is a step or validation line
  EXPECT_DOUBLE_EQ(train[0].fields["loss"].get<double>(), 10.965596);
  for (const auto& t : train) ASSERT_EQ(t.fields["segment"], 0) << t.line;  // steps only go up
}

TEST(LlmLogsReal, MegatronGoldenValuesAndMindSpeedBaseline) {
  if (!have_real("llm_logs/gpt3_15b_8t_release__golden_values_dev_dgx_h100.json")) GTEST_SKIP();
  {
    Harness h(metric_series_json_factory(),
              {{"path", real("llm_logs/gpt3_15b_8t_release__golden_values_dev_dgx_h100.json")}});
    ASSERT_EQ(run(h), "");
    const auto r = records(h);
    ASSERT_EQ(r.size(), 10201u - 28u);  // the last 28 points were not reached ("nan")
    EXPECT_DOUBLE_EQ(r.front().fields["loss"].get<double>(), 12.95636);
    EXPECT_EQ(r.back().key.step_id, 50860);
    std::size_t timed = 0;
    for (const auto& x : r) timed += x.fields.contains("iteration_time_s") ? 1 : 0;
    EXPECT_EQ(timed, 507u);
  }
  {
    Harness h(metric_series_json_factory(), {{"path", real("llm_logs/llama2_tp1_pp8_patch_gloo_ptd.json")}});
    ASSERT_EQ(run(h), "");
    const auto r = records(h);
    EXPECT_EQ(of_kind(r, "train").size(), 14u);
    EXPECT_EQ(of_kind(r, "memo_info").size(), 8u);
  }
}

}  // namespace
}  // namespace cann_debug::plugins
