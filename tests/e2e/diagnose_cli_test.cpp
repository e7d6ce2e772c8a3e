// `cann-debug diagnose` and `cann-debug eval` through the real binary: the bundled sample run, routing,
// the JSON document of docs/diagnose.md, reports on disk, errors; and the shared case corpus when present.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "child_process.hpp"
#include "cli_test.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const fs::path kSamples = fs::path(CANN_DEBUG_SOURCE_DIR) / "samples";
const fs::path kShared = CANN_DEBUG_SHARED_DIR;

class DiagnoseCli : public cann_debug::testing::CliTest {
 protected:
  DiagnoseCli() : CliTest("diag") {}
};

TEST_F(DiagnoseCli, SampleRunIsDiagnosedWithEvidenceSuggestionsAndReports) {
  const fs::path out = scratch_ / "report";
  ASSERT_EQ(run({"diagnose", "--input", (kSamples / "training-lr-too-high").string(), "--output",
                 out.string(), "--json"}),
            0)
      << child_->err();
  const json doc = json::parse(child_->out());
  EXPECT_EQ(doc["scenario"], "training");
  EXPECT_FALSE(doc["healthy"].get<bool>());
  ASSERT_FALSE(doc["root_causes"].empty());
  EXPECT_EQ(doc["root_causes"][0]["id"], "lr_too_high");
  const double top = doc["root_causes"][0]["confidence"].get<double>();
  EXPECT_GT(top, 0.5);
  for (const auto& c : doc["root_causes"]) EXPECT_LE(c["confidence"].get<double>(), top);  // sorted
  EXPECT_FALSE(doc["evidence"].empty());
  ASSERT_FALSE(doc["suggestions"].empty());
  EXPECT_EQ(doc["suggestions"][0]["root_cause"], "lr_too_high");
  EXPECT_TRUE(doc["suggestions"][0].contains("config_patch"));
  EXPECT_GE(doc["elapsed_ms"].get<double>(), 0.0);
  for (const char* f : {"report.json", "report.md", "report.html"}) EXPECT_TRUE(fs::exists(out / f)) << f;
}

TEST_F(DiagnoseCli, HealthySampleIsReportedHealthy) {
  ASSERT_EQ(run({"diagnose", "--input", (kSamples / "training-healthy").string(), "--json"}), 0)
      << child_->err();
  const json doc = json::parse(child_->out());
  EXPECT_TRUE(doc["healthy"].get<bool>());
  EXPECT_EQ(doc["root_causes"][0]["id"], "healthy");
  EXPECT_TRUE(doc["suggestions"].empty());
  // Text form names the verdict.
  ASSERT_EQ(run({"diagnose", "--input", (kSamples / "training-healthy").string()}), 0) << child_->err();
  EXPECT_NE(child_->out().find("Verdict:    healthy"), std::string::npos) << child_->out();
}

// The text view is the report's model rendered: what report.json says is what the console shows, and
// without --output the report still feeds the console but writes no file.
TEST_F(DiagnoseCli, TheTextViewRendersTheReportModel) {
  const fs::path out = scratch_ / "report";
  const std::string input = (kSamples / "training-lr-too-high").string();
  ASSERT_EQ(run({"diagnose", "--input", input, "--output", out.string()}), 0) << child_->err();
  const std::string text = child_->out();
  std::ifstream in(out / "report.json");
  const json report = json::parse(in);
  const json& cause = report["diagnosis"]["root_causes"][0];
  EXPECT_NE(text.find("Root cause: " + cause["id"].get<std::string>()), std::string::npos) << text;
  EXPECT_NE(text.find("Why:        " + cause["explanation"].get<std::string>()), std::string::npos) << text;
  ASSERT_FALSE(report["suggestions"].empty());
  EXPECT_NE(text.find(report["suggestions"][0]["title"].get<std::string>()), std::string::npos) << text;
  EXPECT_NE(text.find("Report:     " + out.string()), std::string::npos) << text;

  ASSERT_EQ(run({"diagnose", "--input", input}), 0) << child_->err();
  EXPECT_NE(child_->out().find("Root cause: " + cause["id"].get<std::string>()), std::string::npos);
  EXPECT_EQ(child_->out().find("Report:"), std::string::npos) << child_->out();
  EXPECT_EQ(child_->err().find("report"), std::string::npos) << child_->err();  // no folder was made
}

// An inference run with a trace: the console shows the report's top-operator table.
TEST_F(DiagnoseCli, TheTextViewOfATracedRunHasTheTopOperators) {
  const fs::path cases = kShared / "cases" / "inference";
  if (!fs::is_directory(cases)) GTEST_SKIP() << "no " << cases;
  fs::path traced;
  for (const auto& e : fs::directory_iterator(cases))
    for (const auto& f : fs::directory_iterator(e.path()))
      if (f.path().filename().string().find("trace.json") != std::string::npos) traced = e.path();
  if (traced.empty()) GTEST_SKIP() << "no traced inference case in " << cases;
  ASSERT_EQ(run({"diagnose", "--input", traced.string()}), 0) << child_->err();
  const std::string text = child_->out();
  const auto table = text.find("Top operators (self time, of ");
  ASSERT_NE(table, std::string::npos) << text;
  EXPECT_NE(text.find(" ms ", table), std::string::npos) << text;
}

// Every healthy server of the shared cases was profiled from its first request: none is called a cold start,
// and each says what the profiler did (the first calls unread, the queue after its stop left out).
TEST_F(DiagnoseCli, AServerProfiledFromItsFirstRequestIsNotAColdStart) {
  const fs::path cases = kShared / "cases" / "inference";
  if (!fs::is_directory(cases)) GTEST_SKIP() << "no " << cases;
  int healthy = 0;
  for (const auto& e : fs::directory_iterator(cases)) {
    std::ifstream expected(e.path() / "expected.json");
    if (!expected || json::parse(expected).value("root_cause", "") != "healthy") continue;
    ++healthy;
    ASSERT_EQ(run({"diagnose", "--input", e.path().string(), "--json"}), 0) << child_->err();
    const json doc = json::parse(child_->out());
    EXPECT_EQ(doc["root_causes"][0]["id"], "healthy") << e.path();
    const json& observations = doc["details"]["observations"];
    ASSERT_TRUE(observations.is_array()) << e.path() << doc["details"].dump();
    EXPECT_EQ(observations[0]["kind"], "profiler_from_first_call") << e.path();
  }
  EXPECT_GE(healthy, 3);
}

// A log damaged part-way (a torn line, as a crashed writer leaves): the readers' `on_error: drain` keeps
// the steps before the damage, the diagnosis is made of them and the damage is a warning naming the file
// and line.
TEST_F(DiagnoseCli, ADamagedLogIsDiagnosedFromWhatWasReadBeforeTheDamage) {
  const fs::path run_dir = scratch_ / "damaged";
  fs::create_directories(run_dir);
  const fs::path sample = kSamples / "training-lr-too-high";
  fs::copy_file(sample / "config.json", run_dir / "config.json");
  std::ifstream in(sample / "metrics.jsonl");
  std::ofstream out(run_dir / "metrics.jsonl");
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    if (++n == 60) out << "{\"step\": 59, \"loss\": 2.3\n";  // torn: no closing brace
    out << line << '\n';
  }
  out.close();
  ASSERT_GT(n, 60);
  ASSERT_EQ(run({"diagnose", "--input", run_dir.string(), "--json"}), 0) << child_->err();
  const json doc = json::parse(child_->out());
  EXPECT_EQ(doc["scenario"], "training");
  EXPECT_FALSE(doc["root_causes"].empty());
  EXPECT_NE(child_->err().find("warning: jsonl/steps: poll failed"), std::string::npos) << child_->err();
  EXPECT_NE(child_->err().find("metrics.jsonl:60"), std::string::npos) << child_->err();
  EXPECT_NE(child_->err().find("on_error: drain"), std::string::npos) << child_->err();
}

// Routing asks the readers: Kineto traces named as a launcher names them (no rank<N> in the name) are
// claimed by chrome_trace, and the distributed pipeline's rule counts those that hold their collectives
// (a trace without any, here the gzipped one, is not a rank of the job). Two traces of one process (a
// training run profiled in two windows: torch.profiler's tensorboard_trace_handler writes
// worker.<timestamp>.pt.trace.json per window) are not a distributed job.
TEST_F(DiagnoseCli, PerWorkerKinetoTracesAreRoutedToDistributedWhateverTheirNames) {
  const fs::path traces = fs::path(CANN_DEBUG_SOURCE_DIR) / "tests/data/traces";
  std::ifstream in(traces / "kineto_small.json");
  const std::string trace((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto with = [&](const std::string& name) {
    std::string t = trace;
    t.insert(t.find("\"traceEvents\": [") + 16,
             R"({"ph": "X", "cat": "user_annotation", "name": ")" + name +
                 R"(", "pid": 100, "tid": 101, "ts": 1200.0, "dur": 5.0},)");
    return t;
  };
  const fs::path ranks = scratch_ / "ranks";
  fs::create_directories(ranks);
  std::ofstream(ranks / "worker0.pt.trace.json") << with("nccl:all_reduce");
  fs::copy_file(traces / "kineto_small.json.gz", ranks / "worker1.pt.trace.json.gz");
  std::ofstream(ranks / "host_b.pt.trace.json") << with("nccl:all_reduce");
  ASSERT_EQ(run({"diagnose", "--input", ranks.string(), "--json"}), 0) << child_->err();
  json doc = json::parse(child_->out());
  EXPECT_EQ(doc["scenario"], "distributed");
  EXPECT_EQ(doc["scenario_from"], "2 profiler traces (one per rank)");

  const fs::path windows = scratch_ / "windows";
  fs::create_directories(windows);
  std::ofstream(windows / "worker0.1623143089861.pt.trace.json") << with("Optimizer.step#SGD.step");
  std::ofstream(windows / "worker0.1623143099999.pt.trace.json") << with("Optimizer.step#SGD.step");
  ASSERT_EQ(run({"diagnose", "--input", windows.string(), "--json"}), 0) << child_->err();
  doc = json::parse(child_->out());
  EXPECT_EQ(doc["scenario"], "training");
}

// One trace alone says by its content what ran: an optimizer step is training, a collective one rank of a
// distributed job, neither (a forward pass) is a model serving: the inference pipeline's operator view.
TEST_F(DiagnoseCli, OneKinetoTraceIsRoutedByWhatItHolds) {
  std::ifstream in(fs::path(CANN_DEBUG_SOURCE_DIR) / "tests/data/traces/kineto_small.json");
  const std::string trace((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string slice =
      R"({"ph": "X", "cat": "user_annotation", "name": "NAME", "pid": 100, "tid": 101, "ts": 1200.0, "dur": 5.0},)";
  auto with = [&](const std::string& name) {
    std::string s = slice;
    s.replace(s.find("NAME"), 4, name);
    std::string t = trace;
    t.insert(t.find("\"traceEvents\": [") + 16, s);
    return t;
  };
  const std::map<std::string, std::string> expected = {
      {"Optimizer.step#SGD.step", "training"},
      {"ncclKernel_AllReduce_RING_LL_Sum_float", "distributed"},
      {"gloo:all_reduce", "distributed"},
      {"aten::linear", "inference"}};
  for (const auto& [name, scenario] : expected) {
    const fs::path dir = scratch_ / scenario;
    fs::create_directories(dir);
    std::ofstream(dir / "host.1234.pt.trace.json") << with(name);
    ASSERT_EQ(run({"diagnose", "--input", dir.string(), "--json"}), 0) << child_->err();
    EXPECT_EQ(json::parse(child_->out())["scenario"], scenario) << name;
  }
  // The trace given as one file, whatever its name, is read by the inference pipeline too.
  const fs::path forward = scratch_ / "forward.json";
  std::ofstream(forward) << with("aten::linear");
  ASSERT_EQ(run({"diagnose", "--input", forward.string(), "--json"}), 0) << child_->err();
  const json doc = json::parse(child_->out());
  EXPECT_EQ(doc["scenario"], "inference");
  EXPECT_EQ(doc["scenario_from"], "a profiler trace without training steps: forward.json");
  // A JSON file that is no trace is still not told.
  const fs::path other = scratch_ / "other";
  fs::create_directories(other);
  std::ofstream(other / "golden.json") << R"({"lm loss": 2.0})";
  EXPECT_NE(run({"diagnose", "--input", other.string()}), 0);
  EXPECT_THAT(child_->err(), ::testing::HasSubstr("cannot tell the scenario"));
}

// Real traces of other tools and devices: a toy training run on an AMD MI250 whose trace shows a batch of 5
// (and nothing else: no loss, no gradient) is not called batch_too_small on that configured value alone; a
// BERT inference trace of an H100 goes to the inference pipeline; one CPU rank's trace of a 300-rank gloo
// job is one rank of a distributed run.
TEST_F(DiagnoseCli, RealTracesOfOtherDevicesAreRoutedAndNotJudgedOnAConfiguredValueAlone) {
  const fs::path hta = kShared / "real" / "kineto" / "hta_tests";
  if (!fs::is_directory(hta / "amd_mi250")) GTEST_SKIP() << "no " << hta;
  ASSERT_EQ(run({"diagnose", "--input", (hta / "amd_mi250").string(), "--json"}), 0) << child_->err();
  json doc = json::parse(child_->out());
  EXPECT_EQ(doc["scenario"], "training");
  EXPECT_EQ(doc["details"]["data"]["data.trace_batch_size"]["value"], 5.0);
  // Nothing the training graph reads was in it: the ranking is the prior, and the verdict says so.
  EXPECT_FALSE(doc["healthy"]);
  EXPECT_THAT(doc["details"]["undetermined"].get<std::string>(),
              ::testing::HasSubstr("none of the signals the training graph reads"));
  EXPECT_EQ(doc["root_causes"][0]["id"], "healthy");
  // No fix is chosen from a prior.
  EXPECT_TRUE(!doc.contains("suggestions") || doc["suggestions"].empty()) << doc["suggestions"].dump();
  for (const auto& c : doc["root_causes"]) {
    if (c["id"] == "batch_too_small") {
      EXPECT_LT(c["confidence"].get<double>(), 0.2);
    }
  }

  const fs::path bert = kShared / "real" / "kineto" / "tracelens" / "h100_inference";
  if (fs::is_directory(bert)) {
    ASSERT_EQ(run({"diagnose", "--input", bert.string()}), 0) << child_->err();
    EXPECT_THAT(child_->out(),
                ::testing::HasSubstr("Scenario:   inference (a profiler trace without training"));
    EXPECT_THAT(child_->out(),
                ::testing::HasSubstr("Verdict:    undetermined: the input holds none of the signals"));
    EXPECT_THAT(child_->out(), ::testing::HasSubstr("Top operators"));
    EXPECT_THAT(child_->out(), ::testing::HasSubstr("aten::addmm"));
  }
  ASSERT_EQ(run({"diagnose", "--input", (hta / "cpu_only").string(), "--json"}), 0) << child_->err();
  doc = json::parse(child_->out());
  EXPECT_EQ(doc["scenario"], "distributed");
  EXPECT_THAT(doc["scenario_from"].get<std::string>(),
              ::testing::HasSubstr("a profiler trace with collectives"));
}

// The PyTorch profiler TensorBoard plugin's real ResNet-50 pair (V100, Kineto 1.8): one trace of training
// steps is routed to training by its content, and the steps that waited for a DataLoader without workers
// with the GPU idle make host_input_bound; the same model with 4 workers does not. The trace given as one
// file is read the same.
TEST_F(DiagnoseCli, AKinetoTrainingTraceWhoseDeviceWaitsForTheDataLoaderIsHostInputBound) {
  const fs::path pair = kShared / "real" / "kineto" / "kineto_tb_plugin";
  if (!fs::is_directory(pair / "resnet50_num_workers_0")) GTEST_SKIP() << "no " << pair;
  ASSERT_EQ(run({"diagnose", "--input", (pair / "resnet50_num_workers_0").string(), "--json"}), 0)
      << child_->err();
  json doc = json::parse(child_->out());
  EXPECT_EQ(doc["scenario"], "training");
  EXPECT_THAT(doc["scenario_from"].get<std::string>(),
              ::testing::HasSubstr("a profiler trace of training steps"));
  EXPECT_EQ(doc["root_causes"][0]["id"], "host_input_bound");
  EXPECT_GT(doc["root_causes"][0]["confidence"].get<double>(), 0.5);
  EXPECT_THAT(doc["evidence"].dump(), ::testing::HasSubstr("waited for the DataLoader"));
  ASSERT_FALSE(doc["suggestions"].empty());
  EXPECT_THAT(doc["suggestions"].dump(), ::testing::HasSubstr("num_workers"));
  // The trace was recorded with shapes: the batch of 32 shows in the first convolution's input of each step.
  EXPECT_EQ(doc["details"]["data"]["data.trace_batch_size"]["value"], 32.0);
  EXPECT_EQ(doc["details"]["data"]["data.batch_size"]["evidence"][0]["id"], "aten::conv2d");

  for (const auto& entry : fs::directory_iterator(pair / "resnet50_num_workers_4")) {
    ASSERT_EQ(run({"diagnose", "--input", entry.path().string(), "--json"}), 0) << child_->err();
    doc = json::parse(child_->out());
    EXPECT_EQ(doc["scenario"], "training");
    for (const auto& c : doc["root_causes"]) {
      if (c["id"] == "host_input_bound") {
        EXPECT_LT(c["confidence"].get<double>(), 0.05);
      }
    }
  }
}

// The logs large-model teams have (Megatron-LM golden values, Megatron-DeepSpeed stdout, a MindSpeed-LLM
// baseline, an llm.c log), each given as one file or as its folder, are training runs.
TEST_F(DiagnoseCli, LlmScaleTrainingLogsAreDiagnosedAsTraining) {
  const fs::path logs = kShared / "real" / "llm_logs";
  if (!fs::is_directory(logs)) GTEST_SKIP() << "no ../shared/real/llm_logs";
  const std::map<std::string, std::string> expected_reason{
      {"megatron_deepspeed.log", "a training console log"},
      {"meg_ds_3d_gpt2_perf_n16-ds-on.out", "a training console log"},
      {"meg_ds_3d_gpt2_perf_n16-ds-off.out", "a training console log"},
      {"2024-06-06_AdamW_baseline.log", "a training console log"},
      {"gpt3_15b_8t_release__golden_values_dev_dgx_h100.json", "training series per metric"},
      {"llama2_tp1_pp8_patch_gloo_ptd.json", "training series per metric"}};
  for (const auto& [file, reason] : expected_reason) {
    ASSERT_EQ(run({"diagnose", "--input", (logs / file).string(), "--json"}, std::chrono::seconds(300)), 0)
        << file << ": " << child_->err();
    const json doc = json::parse(child_->out());
    EXPECT_EQ(doc["scenario"], "training") << file;
    EXPECT_THAT(doc["scenario_from"].get<std::string>(), ::testing::StartsWith(reason)) << file;
    EXPECT_FALSE(doc["root_causes"].empty()) << file;
    // Nothing else in the pipeline tried to read the log as its own format.
    EXPECT_EQ(child_->err().find("poll failed"), std::string::npos) << file << ": " << child_->err();
  }
  // A folder holding one of them routes the same way.
  fs::copy_file(logs / "megatron_deepspeed.log", scratch_ / "slurm-4242.out");
  ASSERT_EQ(run({"diagnose", "--input", scratch_.string(), "--json"}), 0) << child_->err();
  EXPECT_EQ(json::parse(child_->out())["scenario_from"], "a training console log");
}

struct ScriptRun {
  int status = -1;
  std::string err;
};

/// Runs scripts/`script` (a Python script of the project) with `args` in `scratch`.
ScriptRun run_script(const fs::path& scratch, const std::string& script, const std::vector<std::string>& args,
                     std::chrono::seconds timeout = std::chrono::seconds(60)) {
  std::vector<std::string> argv{"/usr/bin/python3",
                                (fs::path(CANN_DEBUG_SOURCE_DIR) / "scripts" / script).string()};
  argv.insert(argv.end(), args.begin(), args.end());
  cann_debug::testing::ChildProcess py(argv, scratch);
  const int status = py.wait(timeout);
  return {status, py.err()};
}

/// Writes DIR with a fault injected by scripts/inject-llm-log-faults.py into `base` (or, when it is empty,
/// into a log the script synthesizes); false when the script failed.
bool inject_llm_fault(const fs::path& scratch, const fs::path& base, const std::string& fault,
                      const fs::path& dir) {
  std::vector<std::string> args{"--fault", fault, "--output", dir.string()};
  if (base.empty()) {
    args.insert(args.end(), {"--synthesize", "300"});
  } else {
    args.insert(args.end(), {"--input", base.string()});
  }
  return run_script(scratch, "inject-llm-log-faults.py", args).status == 0;
}

TEST_F(DiagnoseCli, FaultsWrittenIntoLargeModelLogsAreNamed) {
  if (!fs::exists("/usr/bin/python3")) GTEST_SKIP() << "no /usr/bin/python3";
  // Every at-scale cause on a synthesized Megatron log; on the real BigScience and llm.c logs of
  // ../shared the causes their fields allow. The unchanged logs stay healthy.
  std::vector<std::pair<fs::path, std::vector<std::string>>> bases{
      {fs::path(),
       {"none", "loss_spike", "divergence", "loss_scale_overflow", "throughput_drop", "hardware_fault"}}};
  const fs::path logs = kShared / "real" / "llm_logs";
  if (fs::is_directory(logs)) {
    bases.push_back({logs / "meg_ds_3d_gpt2_perf_n16-ds-on.out",
                     {"none", "loss_spike", "loss_scale_overflow", "throughput_drop", "hardware_fault"}});
    bases.push_back(
        {logs / "2024-06-06_AdamW_baseline.log", {"none", "loss_spike", "divergence", "hardware_fault"}});
  }
  int n = 0;
  for (const auto& [base, faults] : bases)
    for (const std::string& fault : faults) {
      const fs::path dir = scratch_ / fmt::format("case{}", n++);
      ASSERT_TRUE(inject_llm_fault(scratch_, base, fault, dir)) << base << " " << fault;
      ASSERT_EQ(run({"diagnose", "--input", dir.string(), "--json"}, std::chrono::seconds(300)), 0)
          << child_->err();
      const json doc = json::parse(child_->out());
      const std::string expected = fault == "none" ? "healthy" : fault;
      EXPECT_EQ(doc["root_causes"][0]["id"], expected)
          << base << " " << fault << ": " << doc["root_causes"].dump();
    }
}

// A node's hardware evidence alone (a kernel log with an Xid) used to be "cannot tell the scenario"; it is
// read by the graph that holds the hardware causes.
TEST_F(DiagnoseCli, AKernelLogAloneIsReadAsHardwareEvidence) {
  const fs::path dmesg = kShared / "real/gpu_host/dmesg-with-xid-119.log";
  if (!fs::exists(dmesg)) GTEST_SKIP() << "no shared kernel log";
  ASSERT_EQ(run({"diagnose", "--input", dmesg.string(), "--json"}), 0) << child_->err();
  const json doc = json::parse(child_->out());
  EXPECT_EQ(doc["scenario_from"], "hardware evidence only, dmesg-with-xid-119.log: a kernel log");
  EXPECT_EQ(doc["root_causes"][0]["id"], "hardware_fault") << doc["root_causes"].dump();
}

TEST_F(DiagnoseCli, AnNvidiaSmiCaptureBesideTheLogNamesAFailingGpu) {
  if (!fs::exists("/usr/bin/python3")) GTEST_SKIP() << "no /usr/bin/python3";
  // A healthy synthesized Megatron log; beside it the node's nvidia-smi -q -x, first with no fault, then
  // with two uncorrectable ECC errors and a failed row remapping on one GPU.
  const fs::path dir = scratch_ / "node";
  ASSERT_TRUE(inject_llm_fault(scratch_, fs::path(), "none", dir));
  auto capture = [&](const std::string& ecc, const std::string& failure) {
    std::ofstream(dir / "nvidia-smi.xml") << R"(<?xml version="1.0" ?>
<nvidia_smi_log><timestamp>Mon Jan  6 10:00:00 2025</timestamp><driver_version>535.54.03</driver_version>
<gpu id="00000000:07:00.0"><product_name>NVIDIA H100 80GB HBM3</product_name><minor_number>0</minor_number>
<ecc_errors><volatile><dram_uncorrectable>)"
                                          << ecc << R"(</dram_uncorrectable></volatile></ecc_errors>
<remapped_rows><remapped_row_failure>)" << failure
                                          << R"(</remapped_row_failure></remapped_rows>
</gpu></nvidia_smi_log>
)";
  };
  capture("0", "No");
  ASSERT_EQ(run({"diagnose", "--input", dir.string(), "--json"}), 0) << child_->err();
  EXPECT_EQ(json::parse(child_->out())["root_causes"][0]["id"], "healthy") << child_->out();
  capture("2", "Yes");
  ASSERT_EQ(run({"diagnose", "--input", dir.string(), "--json"}), 0) << child_->err();
  const json doc = json::parse(child_->out());
  EXPECT_EQ(doc["root_causes"][0]["id"], "hardware_fault") << doc["root_causes"].dump();
  EXPECT_EQ(doc["root_causes"][0]["evidence"][0]["id"], "ecc_uncorrectable");
}

TEST_F(DiagnoseCli, AnNpuSmiCaptureWithAFaultCodeBesideTheLogNamesAHardwareFault) {
  if (!fs::exists("/usr/bin/python3")) GTEST_SKIP() << "no /usr/bin/python3";
  const fs::path dir = scratch_ / "npu-node";
  ASSERT_TRUE(inject_llm_fault(scratch_, fs::path(), "none", dir));
  std::ofstream(dir / "npu_info_after.txt") << "/usr/local/bin/npu-smi info -i 3 -c 0 -t health\n"
                                               "\tHealth Status                  : OK\n"
                                               "\tError Code                     : NA\n";
  ASSERT_EQ(run({"diagnose", "--input", dir.string(), "--json"}), 0) << child_->err();
  EXPECT_EQ(json::parse(child_->out())["root_causes"][0]["id"], "healthy") << child_->out();
  std::ofstream(dir / "npu_info_after.txt") << "/usr/local/bin/npu-smi info -i 3 -c 0 -t health\n"
                                               "\tHealth Status                  : Alarm\n"
                                               "\tError Code                     : 0x80E01801\n";
  ASSERT_EQ(run({"diagnose", "--input", dir.string(), "--json"}), 0) << child_->err();
  const json doc = json::parse(child_->out());
  EXPECT_EQ(doc["root_causes"][0]["id"], "hardware_fault") << doc["root_causes"].dump();
}

TEST_F(DiagnoseCli, UnknownLayoutAsksForTheScenario) {
  std::ofstream(scratch_ / "notes.txt") << "nothing to see\n";
  EXPECT_EQ(run({"diagnose", "--input", scratch_.string()}), 2);
  EXPECT_NE(child_->err().find("--scenario"), std::string::npos) << child_->err();
}

TEST_F(DiagnoseCli, EvalScoresLabelledCases) {
  // Two labelled copies of the samples.
  for (const auto& [name, label] :
       {std::pair{"training-lr-too-high", "lr_too_high"}, {"training-healthy", "healthy"}}) {
    const fs::path dst = scratch_ / "cases" / name;
    fs::create_directories(dst);
    for (const auto& f : fs::directory_iterator(kSamples / name))
      fs::copy(f.path(), dst / f.path().filename());
    std::ofstream(dst / "expected.json")
        << json{{"scenario", "training"}, {"root_cause", label}, {"healthy", std::string(label) == "healthy"}}
               .dump();
  }
  ASSERT_EQ(run({"eval", "--cases", (scratch_ / "cases").string(), "--json"}), 0) << child_->err();
  const json r = json::parse(child_->out());
  EXPECT_EQ(r["summary"]["cases"], 2);
  EXPECT_DOUBLE_EQ(r["summary"]["top1_accuracy"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(r["summary"]["false_alarm_rate"].get<double>(), 0.0);
  EXPECT_GT(r["summary"]["dqi"].get<double>(), 0.9);
  EXPECT_EQ(r["summary"]["confusion"]["lr_too_high"]["lr_too_high"], 1);
}

TEST_F(DiagnoseCli, SharedCorpusMeetsTheTargets) {
  if (!fs::is_directory(kShared / "cases")) GTEST_SKIP() << "no shared case corpus";
  // 75 cases: about 20 s in a normal build, over a minute under the sanitizers on two cores.
  ASSERT_EQ(run({"eval", "--cases", (kShared / "cases").string(), "--json"}, std::chrono::seconds(540)), 0)
      << child_->err();
  const json r = json::parse(child_->out());
  EXPECT_GE(r["summary"]["top1_accuracy"].get<double>(), 0.95);
  EXPECT_GE(r["summary"]["top3_accuracy"].get<double>(), 0.99);
  // One false alarm of 15 is allowed: fc5c1c02 is labelled healthy although it reads the same stored order
  // every epoch (shuffle off, epoch-lag loss autocorrelation 0.68), which the workload matrix counts as
  // unshuffled_data, as its issue defines it (docs/diagnose.md, "Generalisation").
  EXPECT_LE(r["summary"]["false_alarms"].get<int>(), 1);
  EXPECT_EQ(r["summary"]["failed"], 0);
}

TEST_F(DiagnoseCli, RealAscendClusterNamesTheSlowRankAndTheDirection) {
  const fs::path cluster = kShared / "real/ascend/mstt";
  if (!fs::exists(cluster / "cluster_step_trace_time.csv")) GTEST_SKIP() << "no shared Ascend cluster files";
  ASSERT_EQ(run({"diagnose", "--input", cluster.string(), "--json"}), 0) << child_->err();
  const json doc = json::parse(child_->out());
  EXPECT_EQ(doc["scenario"], "distributed");
  EXPECT_EQ(doc["root_causes"][0]["id"], "straggler_rank");
  // Rank 1 idles longest and communicates least: the others waited for it.
  EXPECT_EQ(doc["details"]["who_waited_for_whom"]["late_rank"].get<double>(), 1.0);
  ASSERT_TRUE(run({"diagnose", "--input", cluster.string()}) == 0);
  EXPECT_NE(child_->out().find("rank 1 held the others up"), std::string::npos) << child_->out();
}

TEST_F(DiagnoseCli, TheSixteenRankGpt3ProfileWaitsInPipelineBubbles) {
  const fs::path cluster = kShared / "real/ascend/msinsight_gpt3_16rank_pp2";
  if (!fs::is_directory(cluster)) GTEST_SKIP() << "no shared 16-rank Ascend cluster folder";
  // Stage 2 (ranks 8-15) waits ~180 ms of a ~380 ms step in receives: one micro-batch per step over two
  // stages, the 1F1B bubble of (p-1)/(m+p-1) = 1/2.
  ASSERT_EQ(run({"diagnose", "--input", cluster.string(), "--json"}), 0) << child_->err();
  const json doc = json::parse(child_->out());
  ASSERT_EQ(doc["root_causes"][0]["id"], "pipeline_bubble") << doc["root_causes"].dump();
  EXPECT_EQ(doc["root_causes"][0]["evidence"][0]["kind"], "stage");
  EXPECT_EQ(doc["root_causes"][0]["evidence"][0]["id"], "1 (ranks 8-15)");
  const json& bubble = doc["details"]["pipeline"]["pipeline.bubble_share{stage=1 (ranks 8-15)}"];
  EXPECT_NEAR(bubble["value"].get<double>(), 0.47, 0.01);
  ASSERT_EQ(run({"diagnose", "--input", cluster.string()}), 0) << child_->err();
  const std::string out = child_->out();
  // The 6% spread of stage 1's collectives is an observation beside the bubble, never its direction.
  EXPECT_EQ(out.find("Direction:"), std::string::npos) << out;
  EXPECT_NE(out.find("Observed:   rank 5 reached the collectives last"), std::string::npos) << out;
  EXPECT_NE(out.find("micro-batches per step"), std::string::npos) << out;
  // Evidence names files relative to --input, and one line holds the references that differ only in a
  // number (the two stages, the two ranks of the gap).
  EXPECT_NE(out.find("] series cluster_analysis_output/cluster_step_trace_time.csv\n"), std::string::npos)
      << out;
  EXPECT_EQ(out.find("Evidence: stage 1 (ranks 8-15); series " + cluster.string()), std::string::npos) << out;
  EXPECT_NE(out.find("[pipeline_bubble] rank rank5; also rank7\n"), std::string::npos) << out;
}

// The ranks' own ASCEND_PROFILER_OUTPUT folders without msprof-analyze's cluster files: a job of as many
// ranks, its step split read from each rank's step_trace_time.csv. One rank's folder used to be taken for a
// training console log (operator_details.csv quotes pretrain_gpt.py in its call stacks), and a ragged row
// of its kernel_details.csv stopped the folder's reader.
TEST_F(DiagnoseCli, TheRanksOwnAscendProfilerFoldersAreADistributedJob) {
  const fs::path cluster = kShared / "real/ascend/msinsight_gpt3_16rank_pp2";
  if (!fs::is_directory(cluster)) GTEST_SKIP() << "no shared 16-rank Ascend cluster folder";
  const fs::path job = scratch_ / "two_ranks";
  fs::create_directories(job);
  for (const char* rank : {"rank_0", "rank_1"})
    fs::copy(cluster / rank, job / rank, fs::copy_options::recursive);
  ASSERT_EQ(run({"diagnose", "--input", job.string(), "--json"}), 0) << child_->err();
  const json doc = json::parse(child_->out());
  EXPECT_EQ(doc["scenario"], "distributed");
  EXPECT_EQ(doc["scenario_from"], "Ascend profiler output of 2 rank(s) with collectives");
  ASSERT_EQ(run({"diagnose", "--input", job.string()}), 0) << child_->err();
  const std::string out = child_->out();
  EXPECT_NE(out.find("  rank 1          294.6 = 75.4 / 151.3 / 67.9"), std::string::npos) << out;
  EXPECT_NE(out.find("  rank 0          291.7 = 75.2 / 146.6 / 69.9"), std::string::npos) << out;
  ASSERT_EQ(run({"diagnose", "--input", (job / "rank_0").string(), "--json"}), 0) << child_->err();
  EXPECT_EQ(json::parse(child_->out())["scenario"], "distributed");
}

// The 16-rank profile scaled to a 1024-rank job (64 data-parallel replicas, each rank jittered on its own):
// healthy stays healthy, and one straggler among 1024 ranks is named (scripts/bench-cluster-scale.py times
// it up to 4096 ranks).
TEST_F(DiagnoseCli, AThousandRankJobNamesItsStraggler) {
  const fs::path cluster = kShared / "real/ascend/msinsight_gpt3_16rank_pp2";
  if (!fs::is_directory(cluster)) GTEST_SKIP() << "no shared 16-rank Ascend cluster folder";
  if (!fs::exists("/usr/bin/python3")) GTEST_SKIP() << "no /usr/bin/python3";
  for (const std::string fault : {"none", "straggler_rank"}) {
    const fs::path dir = scratch_ / ("ranks1024-" + fault);
    const ScriptRun injected = run_script(scratch_, "inject-ascend-cluster-faults.py",
                                          {"--input", cluster.string(), "--ranks", "1024", "--fault", fault,
                                           "--rank", "777", "--seed", "2", "--output", dir.string()},
                                          std::chrono::seconds(120));
    ASSERT_EQ(injected.status, 0) << fault << ": " << injected.err;
    ASSERT_EQ(run({"diagnose", "--input", dir.string(), "--json"}), 0) << child_->err();
    const json doc = json::parse(child_->out());
    if (fault == "none") {
      EXPECT_EQ(doc["root_causes"][0]["id"], "healthy") << doc["root_causes"].dump();
      continue;
    }
    EXPECT_EQ(doc["root_causes"][0]["id"], "straggler_rank") << doc["root_causes"].dump();
    EXPECT_EQ(doc["details"]["who_waited_for_whom"]["late_rank"].get<double>(), 777.0);
  }
}

// One device's Ascend profiler folder without collectives goes to the operator view: a real
// kernel_details.csv as recorded (0.2% of its task time on the AI CPU) is not a fallback; the same file with
// its hottest AI Core operator moved to the AI CPU (scripts/inject-ascend-aicpu-fallback.py) is, and the
// operator is named and answered.
TEST_F(DiagnoseCli, AnAiCpuFallbackInARealKernelDetailsFileIsNamed) {
  const fs::path kernels = kShared / "real/ascend/mstt/kernel_details_2023_arithutil.csv";
  if (!fs::exists(kernels)) GTEST_SKIP() << "no shared Ascend kernel_details.csv";
  if (!fs::exists("/usr/bin/python3")) GTEST_SKIP() << "no /usr/bin/python3";
  for (const std::string fault : {"none", "aicpu_fallback"}) {
    const fs::path dir = scratch_ / ("device-" + fault);
    const ScriptRun injected =
        run_script(scratch_, "inject-ascend-aicpu-fallback.py",
                   {"--input", kernels.string(), "--fault", fault, "--output", dir.string()});
    ASSERT_EQ(injected.status, 0) << fault << ": " << injected.err;
    ASSERT_EQ(run({"diagnose", "--input", dir.string(), "--json"}), 0) << child_->err();
    const json doc = json::parse(child_->out());
    EXPECT_EQ(doc["scenario"], "inference");
    EXPECT_FALSE(doc["details"].contains("undetermined")) << doc["details"].dump();
    if (fault == "none") {
      EXPECT_NE(doc["root_causes"][0]["id"], "aicpu_fallback") << doc["root_causes"].dump();
      continue;
    }
    ASSERT_EQ(doc["root_causes"][0]["id"], "aicpu_fallback") << doc["root_causes"].dump();
    EXPECT_EQ(doc["root_causes"][0]["evidence"][0]["id"], "MatMul");
    ASSERT_FALSE(doc["suggestions"].empty());
    EXPECT_EQ(doc["suggestions"][0]["title"],
              "Keep MatMul on the AI Core: give it a dtype and a shape the AI Core supports");
    // The file named on its own reads the same.
    ASSERT_EQ(run({"diagnose", "--input",
                   (dir / "device_ascend_pt" / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv").string(),
                   "--json"}),
              0)
        << child_->err();
    EXPECT_EQ(json::parse(child_->out())["root_causes"][0]["id"], "aicpu_fallback");
    EXPECT_EQ(child_->err().find("warning"), std::string::npos) << child_->err();
  }
}

TEST_F(DiagnoseCli, FaultsInjectedIntoTheAscendClusterProfileAreNamedWithTheirRankOrLink) {
  const fs::path cluster = kShared / "real/ascend/msinsight_gpt3_16rank_pp2";
  if (!fs::is_directory(cluster)) GTEST_SKIP() << "no shared 16-rank Ascend cluster folder";
  if (!fs::exists("/usr/bin/python3")) GTEST_SKIP() << "no /usr/bin/python3";
  struct Case {
    std::vector<std::string> args;
    std::string cause, named;  // named: a rank the Direction line names, or the link in the evidence
  };
  const std::vector<Case> cases{
      {{"--fault", "none"}, "healthy", ""},
      {{"--fault", "pipeline_bubble", "--magnitude", "medium"}, "pipeline_bubble", ""},
      {{"--fault", "straggler_rank", "--rank", "3", "--seed", "0"}, "straggler_rank", "rank 3"},    // compute
      {{"--fault", "straggler_rank", "--rank", "10", "--seed", "1"}, "straggler_rank", "rank 10"},  // host
      {{"--fault", "slow_link", "--rank", "1"}, "slow_link", ":rank1"},
      {{"--fault", "small_packets"}, "small_packets", ""},
  };
  int n = 0;
  for (const Case& c : cases) {
    const fs::path dir = scratch_ / fmt::format("ascend{}", n++);
    std::vector<std::string> args{"--input", cluster.string(), "--output", dir.string()};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const ScriptRun injected = run_script(scratch_, "inject-ascend-cluster-faults.py", args);
    ASSERT_EQ(injected.status, 0) << injected.err;
    ASSERT_EQ(run({"diagnose", "--input", dir.string(), "--json"}), 0) << child_->err();
    const json doc = json::parse(child_->out());
    EXPECT_EQ(doc["root_causes"][0]["id"], c.cause) << c.args[1] << ": " << doc["root_causes"].dump();
    if (c.named.rfind(":rank", 0) == 0) {
      EXPECT_EQ(doc["root_causes"][0]["evidence"][0]["kind"], "link");
      EXPECT_TRUE(doc["root_causes"][0]["evidence"][0]["id"].get<std::string>().ends_with(c.named))
          << doc["root_causes"][0]["evidence"].dump();
    } else if (!c.named.empty()) {
      ASSERT_EQ(run({"diagnose", "--input", dir.string()}), 0);
      EXPECT_NE(child_->out().find("Direction:  " + c.named + " held the others up"), std::string::npos)
          << child_->out();
    }
  }
}

}  // namespace
