// kernel_log: Xid, NVLink, EDAC, PCIe AER, OOM-kill, hung-task and lockup messages of dmesg / journal logs,
// their timestamps, tolerated oddities, bad input, and the real Xid 119 log of ../shared/real/gpu_host.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kernel_log.hpp"
#include "readers_test_support.hpp"

namespace cann_debug::plugins {
namespace {

using namespace readers_test;
using testing::Harness;

std::vector<Record> read_kernel_log(const std::string& path) {
  Harness h(kernel_log_factory(), {{"path", path}});
  const std::string error = run(h);
  if (!error.empty()) throw std::runtime_error(error);
  return records(h);
}

TEST(KernelLog, EveryKindOfEventWithItsTimestamp) {
  EXPECT_THAT(check_manifest(kernel_log_factory().manifest()), ::testing::IsEmpty());
  TempDir dir;
  const auto r = read_kernel_log(dir.write(
      "dmesg.log",
      "[Mon Jan  6 10:00:00 2025] NVRM: Xid (PCI:0000:10:1c): 63, pid=1896, Row Remapper: New row marked for "
      "remapping, reset gpu to activate.\n"
      "[Mon Jan  6 10:00:01 2025] NVRM: Xid (PCI:0000:10:1c): 45, pid=1896, Ch 00000008\n"
      "[Mon Jan  6 10:00:02 2025] NVRM: Xid (PCI:0000:3b:00): 13, Graphics SM Warp Exception\n"
      "[ 8123.456789] pcieport 0000:00:01.0: AER: Uncorrected (Fatal) error received: 0000:3b:00.0\n"
      "[ 8124.000000] EDAC MC0: 1 CE memory read error on CPU_SrcID#0_Ha#0_Chan#1_DIMM#0\n"
      "[ 8125.000000] Out of memory: Killed process 4242 (python3) total-vm:1234kB\n"
      "[ 8126.000000] INFO: task kworker/3:1:123 blocked for more than 120 seconds.\n"
      "[ 8127.000000] watchdog: BUG: soft lockup - CPU#3 stuck for 22s! [python3:4242]\n"
      "[ 8128.000000] NVRM: NVLink: fatal error detected on link 3\n"
      "Feb 23 16:24:18 node7 kernel: NVRM: Xid (PCI:0000:9b:00): 79, pid=77, GPU has fallen off the bus.\n"
      "[ 8129.000000] usb 1-1: new high-speed USB device number 2 using xhci_hcd\n"));
  ASSERT_EQ(r.size(), 10u);
  EXPECT_EQ(r[0].fields["event"], "xid");
  EXPECT_EQ(r[0].fields["code"], "63");
  EXPECT_EQ(r[0].fields["device"], "0000:10:1c");
  EXPECT_EQ(r[0].fields["pid"], 1896);
  EXPECT_EQ(r[0].fields["hardware"], true);
  EXPECT_EQ(r[0].fields["meaning"], "row remapping recorded (page retirement)");
  EXPECT_EQ(r[0].key.timestamp_ns, 1736157600000000000);
  EXPECT_EQ(r[1].fields["severity"], "warning");  // Xid 45 follows an earlier error
  EXPECT_EQ(r[2].fields["hardware"], false);      // Xid 13: usually the application
  EXPECT_EQ(r[3].fields["event"], "pcie_aer");
  EXPECT_EQ(r[3].fields["severity"], "error");
  EXPECT_DOUBLE_EQ(r[3].fields["uptime_s"].get<double>(), 8123.456789);
  EXPECT_FALSE(r[3].key.has_timestamp());
  EXPECT_EQ(r[4].fields["event"], "ecc");
  EXPECT_EQ(r[4].fields["severity"], "warning");  // a corrected error
  EXPECT_EQ(r[5].fields["event"], "oom_kill");
  EXPECT_EQ(r[5].fields["pid"], 4242);
  EXPECT_EQ(r[5].fields["process"], "python3");
  EXPECT_EQ(r[6].fields["event"], "hung_task");
  EXPECT_EQ(r[7].fields["event"], "soft_lockup");
  EXPECT_EQ(r[8].fields["event"], "nvlink");
  EXPECT_EQ(r[9].fields["code"], "79");
  EXPECT_EQ(r[9].fields["message"], "NVRM: Xid (PCI:0000:9b:00): 79, pid=77, GPU has fallen off the bus.");
  EXPECT_EQ(r[9].line, 10);
}

// Odd lines are read for what they hold, never guessed at.
TEST(KernelLog, MalformedButReadableLines) {
  TempDir dir;
  const auto r = read_kernel_log(dir.write(
      "odd.log",
      "[Sun Feb 30 16:24:18 2025] NVRM: Xid (PCI:0000:9b:00): 119, pid=1, GSP\n"  // no Feb 30: stamp kept in
                                                                                  // text
      "[Sun Feb 23 16:24:18] NVRM: Xid (PCI:0000:9b:00): 119, pid=1, GSP\n"       // no year
      "[Sun Feb 23 16:24:18 2025] NVRM: Xid (PCI:0000:9b:00): , pid=x\n"          // no code, no pid
      "[Sun Feb 23 16:24:18 2025] NVRM: Xid (PCI:0000:9b:00): 99999999, pid=1\n"  // unknown code
      "[Sun Feb 23 16:24:18 2025] NVRM: Xid PCI:0000:9b:00 119\n"                 // no parentheses
      "[Sun Feb 23 16:24:18 2025\n"                                               // cut stamp
      "[    abc] EDAC MC0: 1 UE memory read error\n"));                           // garbage uptime
  ASSERT_EQ(r.size(), 6u);
  EXPECT_FALSE(r[0].key.has_timestamp());
  EXPECT_EQ(r[0].fields["code"], "119");
  EXPECT_FALSE(r[1].key.has_timestamp());
  EXPECT_FALSE(r[2].fields.contains("code"));
  EXPECT_FALSE(r[2].fields.contains("pid"));
  EXPECT_EQ(r[3].fields["code"], "99999999");
  EXPECT_FALSE(r[3].fields.contains("meaning"));
  EXPECT_EQ(r[3].fields["hardware"], false);
  EXPECT_FALSE(r[4].fields.contains("code"));
  EXPECT_FALSE(r[4].fields.contains("device"));
  EXPECT_EQ(r[5].fields["event"], "ecc");
  EXPECT_EQ(r[5].fields["severity"], "error");
  EXPECT_FALSE(r[5].fields.contains("uptime_s"));
}

TEST(KernelLog, MalformedInputs) {
  TempDir dir;
  const std::string good = "[ 1.000000] NVRM: Xid (PCI:0000:9b:00): 79, pid=1, off the bus\n";
  const std::string g = std::to_string(good.size());
  const std::vector<BadInput> bad = {
      {"nul", good + std::string("[ 2.0] \0 x\n", 11),
       "2: expected text, got the control byte \\x00 at column 8 (binary data?) (line starts at byte "
       "offset " +
           g + ")"},
      {"utf8", good + "[ 2.0] \xc3\x28\n",
       "2: expected UTF-8 text, got the byte \\xc3 at column 8 (binary data or another encoding?) (line "
       "starts "
       "at byte offset " +
           g + ")"},
      {"long", good + std::string(300, 'x') + "\n",
       "2: expected a line of at most max_line_bytes = 256 bytes, got a longer one (binary data or a missing "
       "newline?) (line starts at byte offset " +
           g + ")"},
  };
  for (const auto& b : bad)
    EXPECT_EQ(check_bad_input(kernel_log_factory(), {{"max_line_bytes", 256}}, b, dir, "dmesg.log"), "")
        << b.name;
}

TEST(KernelLog, SniffAndFolders) {
  const auto& f = kernel_log_factory();
  EXPECT_EQ(f.sniff({"x/dmesg.log", "[ 0.000000] Linux version 6.1\n[ 0.1] NVRM: loading\n", false}), 80);
  EXPECT_EQ(f.sniff({"x/kern.log", "Feb 23 16:24:18 node7 kernel: usb 1-1: new device\n", false}), 65);
  EXPECT_EQ(f.sniff({"x/train.log", " iteration 1/10 | lm loss: 9.0 |\n", false}), 0);
  TempDir dir;
  dir.write("node/dmesg.log", "[ 1.0] NVRM: Xid (PCI:0000:9b:00): 79, pid=1, off the bus\n");
  dir.write("node/train.log", " iteration 1/10 | lm loss: 9.0 |\n");
  Harness h(kernel_log_factory(), {{"path", dir / "node"}});
  ASSERT_EQ(run(h), "");
  const auto batches = record_batches(h);
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_THAT(batches[0].source_path, ::testing::EndsWith("dmesg.log"));
  EXPECT_EQ(batches[0].schema, "kernel_log.events/1");
}

TEST(KernelLog, RealXid119Log) {
  if (!have_real("gpu_host/dmesg-with-xid-119.log")) GTEST_SKIP() << "no ../shared/real";
  const std::string path = real("gpu_host/dmesg-with-xid-119.log");
  EXPECT_EQ(kernel_log_factory().sniff({path, read_text(path), false}), 80);
  const auto r = read_kernel_log(path);
  ASSERT_EQ(r.size(), 5u);  // the five Xid lines; the GSP RPC history lines are not events
  for (const auto& e : r) {
    EXPECT_EQ(e.fields["code"], "119");
    EXPECT_EQ(e.fields["device"], "0000:9b:00");
    EXPECT_EQ(e.fields["hardware"], true);
    EXPECT_EQ(e.fields["meaning"], "GSP RPC timeout");
  }
  EXPECT_EQ(r[0].line, 3);
  EXPECT_EQ(r[0].fields["process"], "nvidia-smi");
  EXPECT_EQ(r[0].fields["pid"], 2024380);
  EXPECT_EQ(r[4].fields["process"], "gpud");
  EXPECT_EQ(r[0].key.timestamp_ns, 1740327858000000000);
}

}  // namespace
}  // namespace cann_debug::plugins
