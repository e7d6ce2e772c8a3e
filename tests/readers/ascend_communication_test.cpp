// ascend_communication and ascend_communication_matrix: the real cluster_communication.json, fixtures of
// the per-rank and matrix layouts, unit conversion, and bad input with JSON-pointer positions.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ascend_communication.hpp"
#include "ascend_communication_matrix.hpp"
#include "readers_test_support.hpp"

namespace cann_debug::plugins {
namespace {

using namespace readers_test;
using testing::Harness;

// "<line>: in <pointer>: <what> (at byte offset N)" for the value whose key is the last occurrence of
// `key_text` in `text` (keys here are unique enough).
std::string at_key(const std::string& text, const std::string& key_text, const std::string& pointer,
                   const std::string& what) {
  const auto offset = text.rfind("\"" + key_text + "\"");
  const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n');
  return std::to_string(line) + ": in " + pointer + ": " + what + " (at byte offset " +
         std::to_string(offset) + ")";
}

TEST(AscendCommunication, RealClusterCommunication) {
  if (!have_real("ascend/mstt/cluster_communication.json")) GTEST_SKIP() << "shared real data absent";
  EXPECT_THAT(check_manifest(ascend_communication_factory().manifest()), ::testing::IsEmpty());
  Harness h(ascend_communication_factory(), {{"path", real("ascend/mstt/cluster_communication.json")}});
  ASSERT_EQ(run(h), "");
  const auto r = records(h);
  ASSERT_EQ(r.size(), 4u);  // 2 ops x 2 ranks
  const auto& f = r[0].fields;
  EXPECT_EQ(f["op"], "hcom_broadcast__501_0");
  EXPECT_EQ(f["group"], "6297232067196334501");
  EXPECT_EQ(f["group_ranks"], nlohmann::json::array({0, 1}));
  EXPECT_EQ(f["step"], "step");
  EXPECT_FALSE(r[0].key.has_step());  // "step" carries no number in cluster files
  EXPECT_EQ(r[0].key.rank, 0);
  EXPECT_EQ(r[1].key.rank, 1);
  EXPECT_EQ(r[0].key.timestamp_ns, 1695054582608213000);
  EXPECT_EQ(r[1].key.timestamp_ns, 1695054582707330200);  // 1695054582707330.2 us, exact
  EXPECT_EQ(f["elapse_time_ns"], 121736944);              // 121.73694384375 ms
  EXPECT_EQ(f["transit_time_ns"], 8060);                  // 0.0080599375 ms
  EXPECT_EQ(f["wait_time_ns"], 115960642);
  EXPECT_EQ(f["synchronization_time_ns"], 102699834);
  EXPECT_EQ(f["idle_time_ns"], 5768242);
  EXPECT_DOUBLE_EQ(f["wait_time_ratio"].get<double>(), 0.9999);
  const auto& hccs = f["bandwidth"]["HCCS"];
  EXPECT_EQ(hccs["transit_size_bytes"], 63936);  // 0.06393599999999998 MB
  EXPECT_EQ(hccs["transit_time_ns"], 23670);
  EXPECT_DOUBLE_EQ(hccs["bandwidth_bytes_per_s"].get<double>(), 2.7012e9);
  EXPECT_EQ(hccs["size_distribution"][0],
            (nlohmann::json{{"size_bytes", 3072}, {"count", 18.0}, {"total_time_ns", 20250}}));
  EXPECT_EQ(hccs["size_distribution"].size(), 3u);
  EXPECT_EQ(f["bandwidth"]["RDMA"]["transit_size_bytes"], 0);
  EXPECT_EQ(r[1].fields["synchronization_time_ns"], 10);  // 1e-05 ms
  EXPECT_EQ(r[1].fields["wait_time_ns"], 150);            // 0.00015000000000000001 ms

  const auto m = metrics(h);
  EXPECT_EQ(m.size(), 68u);  // 7 op points per record + 4 per used transport (3, 3, 2, 2)
  const auto elapse = one(m, "comm.op.elapse_time", {{"rank", "0"}, {"op", "hcom_broadcast__501_0"}});
  EXPECT_EQ(elapse.unit, "ns");
  EXPECT_EQ(elapse.value, 121736944.0);
  EXPECT_EQ(elapse.key.timestamp_ns, 1695054582608213000);
  EXPECT_EQ(elapse.labels.at("source_name"), "Elapse Time(ms)");
  const auto bw = one(m, "comm.transport.bandwidth",
                      {{"rank", "1"}, {"op", "hcom_broadcast__501_0"}, {"transport", "PCIE"}});
  EXPECT_EQ(bw.unit, "bytes/s");
  EXPECT_DOUBLE_EQ(bw.value, 1.8639e9);
  EXPECT_EQ(find(m, "comm.transport.bandwidth", {{"transport", "RDMA"}}).size(), 0u);  // unused transport
  EXPECT_EQ(one(m, "comm.op.wait_time_ratio", {{"rank", "1"}, {"op", "hcom_broadcast__501_0"}}).unit,
            "ratio");
}

TEST(AscendCommunication, PerRankLayoutWithTotalsP2pAndPythonNaN) {
  Harness h(ascend_communication_factory(), {{"path", fixture("ascend/communication.json")}, {"rank", 0}});
  ASSERT_EQ(run(h), "");
  const auto r = records(h);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].key.step_id, 1);
  EXPECT_EQ(r[0].key.rank, 0);
  EXPECT_EQ(r[0].fields["comm_kind"], "collective");
  EXPECT_EQ(r[0].fields["op"], "hcom_allReduce__123_0");
  EXPECT_EQ(r[0].fields["group"], "14379187617212478612");
  EXPECT_EQ(r[0].key.timestamp_ns, 1702866902796800500);
  EXPECT_EQ(r[0].fields["elapse_time_ns"], 1500250);
  EXPECT_EQ(r[0].fields["idle_time_ns"], 100250);
  EXPECT_EQ(r[0].fields["bandwidth"]["HCCS"]["transit_size_bytes"], 16777216);
  EXPECT_EQ(r[0].fields["bandwidth"]["HCCS"]["size_distribution"][0]["size_bytes"], 4194304);
  EXPECT_EQ(r[1].fields["op"], "Total Op Info");
  EXPECT_EQ(r[1].fields["aggregate"], true);
  EXPECT_EQ(r[2].fields["comm_kind"], "p2p");
  EXPECT_EQ(r[2].fields["elapse_time_ns"], "nan");  // a bare NaN in the file
  EXPECT_EQ(r[2].fields["transit_time_ns"], 250000);
  const auto m = metrics(h);
  EXPECT_EQ(m.size(), 24u);  // 7 + 4 (HCCS only), 7 (totals), 6 (the NaN elapse has no point)
  EXPECT_EQ(one(m, "comm.transport.transit_size", {{"op", "hcom_allReduce__123_0"}}).value, 16777216.0);
  EXPECT_EQ(one(m, "comm.transport.transit_size", {{"op", "hcom_allReduce__123_0"}}).unit, "bytes");
  EXPECT_EQ(find(m, "comm.op.elapse_time", {{"comm_kind", "p2p"}}).size(), 0u);
}

TEST(AscendCommunication, EmptyFileGivesNothing) {
  TempDir dir;
  Harness h(ascend_communication_factory(), {{"path", dir.write("communication.json", "")}});
  EXPECT_EQ(run(h), "");
  EXPECT_TRUE(records(h).empty());
}

TEST(AscendCommunication, LeavesBeforeABadOneArePartial) {
  TempDir dir;
  const std::string text =
      "{\"step1\": {\"collective\": {"
      "\"a@1\": {\"Communication Time Info\": {\"Elapse Time(ms)\": 1}},"
      "\"b@1\": {\"Communication Time Info\": {\"Elapse Time(ms)\": \"slow\"}}}}}";
  const std::string path = dir.write("communication.json", text);
  Harness h(ascend_communication_factory(), {{"path", path}});
  const std::string error = run(h);
  EXPECT_EQ(error, path + ":" +
                       at_key(text, "Elapse Time(ms)",
                              "/step1/collective/b@1/Communication Time Info/Elapse Time(ms)",
                              "expected a number for 'Elapse Time(ms)', got the string \"slow\""));
  const auto batches = record_batches(h);
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_TRUE(batches[0].partial);
  ASSERT_EQ(batches[0].records.size(), 1u);
  EXPECT_EQ(batches[0].records[0].fields["op"], "a");
  EXPECT_EQ(batches[0].error, error);
}

std::string comm(const std::string& leaf) {
  return "{\n\"step1\": {\n\"collective\": {\n\"op@g\": " + leaf + "\n}\n}\n}\n";
}

TEST(AscendCommunication, MalformedInputs) {
  TempDir dir;
  const std::string ti = "/step1/collective/op@g/Communication Time Info";
  const std::string bi = "/step1/collective/op@g/Communication Bandwidth Info";
  std::vector<BadInput> cases;
  auto add = [&](std::string name, std::string text, std::string key, std::string pointer, std::string what) {
    cases.push_back({name, text, at_key(text, key, pointer, what)});
  };
  add("time_info_number", comm("{\"Communication Time Info\": 5}"), "Communication Time Info", ti,
      "expected an object, got a number");
  add("elapse_string", comm("{\"Communication Time Info\": {\"Elapse Time(ms)\": \"fast\"}}"),
      "Elapse Time(ms)", ti + "/Elapse Time(ms)",
      "expected a number for 'Elapse Time(ms)', got the string \"fast\"");
  add("elapse_bool", comm("{\"Communication Time Info\": {\"Elapse Time(ms)\": true}}"), "Elapse Time(ms)",
      ti + "/Elapse Time(ms)", "expected a number for 'Elapse Time(ms)', got a boolean");
  add("ratio_string", comm("{\"Communication Time Info\": {\"Wait Time Ratio\": \"high\"}}"),
      "Wait Time Ratio", ti + "/Wait Time Ratio",
      "expected a number for 'Wait Time Ratio', got the string \"high\"");
  add("bandwidth_array", comm("{\"Communication Bandwidth Info\": [1]}"), "Communication Bandwidth Info", bi,
      "expected an object of transports, got an array");
  add("transport_number", comm("{\"Communication Bandwidth Info\": {\"HCCS\": 3}}"), "HCCS", bi + "/HCCS",
      "expected an object for transport 'HCCS', got a number");
  add("size_key",
      comm("{\"Communication Bandwidth Info\": {\"HCCS\": {\"Size Distribution\": {\"big\": [1, 0.1]}}}}"),
      "big", bi + "/HCCS/Size Distribution/big", "expected a packet size in MB as the key, got 'big'");
  add("size_entry",
      comm("{\"Communication Bandwidth Info\": {\"HCCS\": {\"Size Distribution\": {\"0.5\": [1]}}}}"), "0.5",
      bi + "/HCCS/Size Distribution/0.5", "expected [count, total time in ms], got an array");
  add("size_mb_text",
      comm("{\"Communication Bandwidth Info\": {\"SDMA\": {\"Transit Size(MB)\": \"16MB\"}}}"),
      "Transit Size(MB)", bi + "/SDMA/Transit Size(MB)",
      "expected a number for 'Transit Size(MB)', got the string \"16MB\"");
  {
    std::string deep = "{\"a\":{\"b\":{\"c\":{\"d\":{\"e\":{\"f\":{\"g\":{\"h\":{\"i\":{}}}}}}}}}}";
    cases.push_back({"too_deep", deep,
                     at_key(deep, "i", "/a/b/c/d/e/f/g/h/i",
                            "expected a communication record within 8 levels of nesting, got deeper "
                            "objects")});
  }
  cases.push_back(
      {"top_array", "[1, 2]", "1: in /: expected a JSON object at the top, got an array (at byte offset 0)"});
  cases.push_back(
      {"truncated", comm("{\"Communication Time Info\": {\"Elapse Time(ms)\": 1.").substr(0, 60),
       "4: expected valid JSON, got syntax error while parsing object key - invalid string: missing closing "
       "quote; last read: '\"Communication Time In'; expected string literal (at byte offset 60)"});
  cases.push_back(
      {"binary", std::string("{\"a\": \"\xff\xfe\"}"),
       "1: expected valid JSON, got syntax error while parsing value - invalid string: ill-formed UTF-8 "
       "byte; last read: '\"\\xff' (at byte offset 7)"});
  for (const auto& bad : cases)
    EXPECT_EQ(check_bad_input(ascend_communication_factory(), nlohmann::json::object(), bad, dir,
                              "communication.json"),
              "")
        << bad.name;
  // A file over max_file_bytes is refused before it is read.
  const BadInput big{"too_big", comm("{\"Communication Time Info\": {\"Elapse Time(ms)\": 1}}"),
                     " expected a file of at most max_file_bytes = 64 bytes, got 95 bytes"};
  EXPECT_EQ(check_bad_input(ascend_communication_factory(), {{"max_file_bytes", 64}}, big, dir,
                            "communication.json"),
            "");
}

TEST(AscendCommunicationMatrix, PerRankMatrix) {
  EXPECT_THAT(check_manifest(ascend_communication_matrix_factory().manifest()), ::testing::IsEmpty());
  Harness h(ascend_communication_matrix_factory(), {{"path", fixture("ascend/communication_matrix.json")}});
  ASSERT_EQ(run(h), "");
  const auto r = records(h);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].fields["link"], "0-1");
  EXPECT_EQ(r[0].fields["op"], "allreduce-top1");
  EXPECT_EQ(r[0].fields["op_type"], "allreduce");
  EXPECT_EQ(r[0].fields["selection"], "top1");
  EXPECT_EQ(r[0].fields["group"], "14379187617212478612");
  EXPECT_EQ(r[0].fields["transport_type"], "HCCS");
  EXPECT_EQ(r[0].fields["transit_size_bytes"], 16777216);
  EXPECT_EQ(r[0].fields["transit_time_ns"], 900000);
  EXPECT_DOUBLE_EQ(r[0].fields["bandwidth_bytes_per_s"].get<double>(), 18.6414e9);
  EXPECT_EQ(r[0].fields["op_name"], "hcom_allReduce__123_0");
  EXPECT_EQ(r[0].key.step_id, 1);
  EXPECT_EQ(r[0].key.rank, 0);
  EXPECT_EQ(r[1].fields["transport_type"], "LOCAL");
  EXPECT_EQ(r[2].fields["selection"], "total");
  const auto m = metrics(h);
  EXPECT_EQ(m.size(), 9u);
  const auto bw = one(m, "comm.link.bandwidth", {{"link", "0-1"}, {"selection", "top1"}});
  EXPECT_EQ(bw.unit, "bytes/s");
  EXPECT_EQ(bw.labels.at("transport"), "HCCS");
  EXPECT_EQ(bw.labels.at("rank"), "0");
  EXPECT_EQ(bw.labels.at("dst_rank"), "1");
  EXPECT_EQ(one(m, "comm.link.transit_size", {{"link", "0-0"}}).value, 45390000.0);
}

TEST(AscendCommunicationMatrix, ClusterMatrixWithArrowLinks) {
  Harness h(ascend_communication_matrix_factory(),
            {{"path", fixture("ascend/cluster_communication_matrix.json")}});
  ASSERT_EQ(run(h), "");
  const auto r = records(h);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].fields["link"], "0-1");
  EXPECT_EQ(r[0].fields["group_ranks"], nlohmann::json::array({0, 1}));
  EXPECT_EQ(r[0].key.step_id, 5);
  EXPECT_EQ(r[1].key.rank, 1);
  EXPECT_EQ(r[1].fields["dst_rank"], 0);
  EXPECT_EQ(r[1].fields["transit_time_ns"], 600000);
  EXPECT_DOUBLE_EQ(one(metrics(h), "comm.link.bandwidth", {{"link", "1-0"}}).value, 17.15e9);
}

std::string matrix(const std::string& link_key, const std::string& leaf) {
  return "{\n\"step1\": {\"collective\": {\"allreduce-top1@9\": {\n\"" + link_key + "\": " + leaf +
         "\n}}}}\n";
}

TEST(AscendCommunicationMatrix, MalformedInputs) {
  TempDir dir;
  const std::string base = "/step1/collective/allreduce-top1@9/";
  std::vector<BadInput> cases;
  auto add = [&](std::string name, std::string link, std::string leaf, std::string key, std::string pointer,
                 std::string what) {
    const std::string text = matrix(link, leaf);
    cases.push_back({name, text, at_key(text, key, pointer, what)});
  };
  add("link_letters", "a-b", "{\"Transport Type\": \"HCCS\"}", "a-b", base + "a-b",
      "expected a link key like '0-1' or '0->1', got 'a-b'");
  add("link_three", "0-1-2", "{\"Transport Type\": \"HCCS\"}", "0-1-2", base + "0-1-2",
      "expected a link key like '0-1' or '0->1', got '0-1-2'");
  add("link_no_dash", "01", "{\"Transport Type\": \"HCCS\"}", "01", base + "01",
      "expected a link key like '0-1' or '0->1', got '01'");
  add("transport_number", "0-1", "{\"Transport Type\": 3}", "Transport Type", base + "0-1/Transport Type",
      "expected a transport name (LOCAL, HCCS, PCIE, RDMA, SIO, SDMA), got a number");
  add("size_text", "0-1", "{\"Transport Type\": \"HCCS\", \"Transit Size(MB)\": \"big\"}", "Transit Size(MB)",
      base + "0-1/Transit Size(MB)", "expected a number for 'Transit Size(MB)', got the string \"big\"");
  add("bandwidth_array", "0-1", "{\"Bandwidth(GB/s)\": [1]}", "Bandwidth(GB/s)",
      base + "0-1/Bandwidth(GB~1s)",  // RFC 6901: '/' in a key is ~1
      "expected a number for 'Bandwidth(GB/s)', got an array");
  add("time_bool", "0-1", "{\"Transport Type\": \"HCCS\", \"Transit Time(ms)\": false}", "Transit Time(ms)",
      base + "0-1/Transit Time(ms)", "expected a number for 'Transit Time(ms)', got a boolean");
  cases.push_back({"top_string", "\"matrix\"",
                   "1: in /: expected a JSON object at the top, got a string (at byte offset 0)"});
  cases.push_back(
      {"trailing_comma", "{\"a\": {\"0-1\": {\"Transport Type\": \"HCCS\"},}}",
       "1: expected valid JSON, got syntax error while parsing object key - unexpected '}'; expected string "
       "literal (at byte offset 41)"});
  cases.push_back({"nul_byte", std::string("{\"a\": \0}", 8),
                   "1: expected JSON text, got the control byte \\x00 (binary data?) (at byte offset 6)"});
  for (const auto& bad : cases)
    EXPECT_EQ(check_bad_input(ascend_communication_matrix_factory(), nlohmann::json::object(), bad, dir,
                              "communication_matrix.json"),
              "")
        << bad.name;
}

}  // namespace
}  // namespace cann_debug::plugins
