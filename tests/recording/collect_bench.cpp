// Benchmark of `cann-debug collect`: CPU overhead (user+sys seconds per wall second), RSS over time and
// bytes per sample with every sampler at 10 ms on fixture trees and the fake vendor libraries, against a
// baseline collector (procfs alone at 1 s) and a floor measured in the same run.
//
//   cann_debug_bench_collect [--seconds 600] [--interval 10ms] [--devices 8] [--baseline-seconds 60]
//                            [--json FILE] [--smoke] [--setup-only DIR]
//                            [--binary PATH] [--source-dir DIR] [--fakes DIR]
//
// Three collectors run one after the other: the baseline, every sampler recording every sample, and every
// sampler with --compress. Each is sampled once a second from /proc/<pid>: steady CPU is measured from the
// 5th second to the last, RSS growth as the least-squares slope from the 10th second on (and over the
// second half). Beside each every-sampler collector, from its 5th second, runs the floor: no collector, a
// bare loop that wakes at the same interval and reads (pread from offset 0) the files the collector keeps
// open, as many per wake-up as the collector read per sample between its 3rd and 5th second (/proc/<pid>/io
// syscr; slow readings make that fewer than the files), and nothing else: the cost of waking and of the
// kernel making those files' text, which no collector reading them at that rate can go below. --smoke (CI)
// runs a few seconds each and asserts nothing: it proves the benchmark still runs. --setup-only DIR writes
// the fixture tree and the fake libraries' scripts into DIR and prints the environment and command of the
// every-sampler collector, to profile it by hand (perf, strace). --binary, --source-dir (for tests/data) and
// --fakes (a directory with libdcmi.so and libnvidia-ml.so) run a copy of the build on another machine.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cann_debug/options.hpp"

extern char** environ;

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Where the collector, the fixture trees and the fake libraries are: the build's own paths, or others given
// with --binary, --source-dir and --fakes (to run a copy of the build on another machine).
std::string kBinary = std::string(CANN_DEBUG_BINARY_DIR) + "/bin/cann-debug";
std::string kSource = CANN_DEBUG_SOURCE_DIR;
std::string kFakeDcmi = FAKE_DCMI_LIBRARY;
std::string kFakeNvml = FAKE_NVML_LIBRARY;

struct ProcSample {
  double t = 0;            // seconds since start
  double cpu_seconds = 0;  // utime + stime
  double rss_kib = 0;
};

std::optional<ProcSample> read_proc(pid_t pid, double t) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), {});
  const auto close = text.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream rest(text.substr(close + 2));
  std::string field;
  std::vector<std::string> f;
  while (rest >> field) f.push_back(field);
  if (f.size() < 13) return std::nullopt;  // f[0] = state (field 3); utime = field 14 = f[11]
  const double hz = static_cast<double>(::sysconf(_SC_CLK_TCK));
  ProcSample s;
  s.t = t;
  s.cpu_seconds = (std::stod(f[11]) + std::stod(f[12])) / hz;
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0) s.rss_kib = std::stod(line.substr(6));
  return s;
}

/// Least-squares slope of y over t (per second).
double slope(const std::vector<ProcSample>& v, double from_t) {
  double n = 0, st = 0, sy = 0, stt = 0, sty = 0;
  for (const auto& s : v)
    if (s.t >= from_t) {
      n += 1;
      st += s.t;
      sy += s.rss_kib;
      stt += s.t * s.t;
      sty += s.t * s.rss_kib;
    }
  const double d = n * stt - st * st;
  return n >= 3 && d > 0 ? (n * sty - st * sy) / d : 0.0;
}

struct RunResult {
  std::string name;
  std::size_t floor_files = 0;  // regular files the collector held open at the 5th second
  double floor_reads = 0;       // reads per wake-up of the floor (the collector's per sample)
  double floor = 0;             // CPU (cores) of the floor run beside it, 0 if none
  double wall = 0, cpu_total = 0, cpu_steady = 0;  // cpu_* in cores (seconds per wall second)
  double rss_start = 0, rss_end = 0, rss_max = 0, rss_slope_kib_per_min = 0;
  double rss_late_slope_kib_per_min = 0;  // over the second half: caches and buffers fill early on
  json recording;
  int exit_code = -1;
};

/// The regular files (not the recording) process `pid` holds open: what its samplers read (some every
/// sample, slow readings once per slow_interval).
std::vector<std::string> open_files(pid_t pid) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& fd : fs::directory_iterator(fmt::format("/proc/{}/fd", pid), ec)) {
    const fs::path target = fs::read_symlink(fd.path(), ec);
    if (ec || !target.is_absolute() || target.extension() == ".cdr" || !fs::is_regular_file(target, ec))
      continue;
    files.push_back(target.string());
  }
  return files;
}

/// The read system calls (read, pread, ...) process `pid` has made: syscr of /proc/<pid>/io.
std::optional<double> read_syscalls(pid_t pid) {
  std::ifstream io(fmt::format("/proc/{}/io", pid));
  std::string key;
  double value = 0;
  while (io >> key >> value)
    if (key == "syscr:") return value;
  return std::nullopt;
}

/// The floor: a child process that wakes every `interval_ns` for `seconds` and preads `reads_per_wake`
/// of `files` (in turn, from offset 0; fractions carry over to the next wake-up), nothing else. It runs
/// beside a collector, so both see the same machine at the same time (this benchmark's machines vary by tens
/// of percent from one minute to the next).
struct Floor {
  pid_t pid = -1;
  std::chrono::steady_clock::time_point t0;
};

/// User + system seconds of a finished child.
double cpu_seconds(const rusage& usage) {
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
}

Floor start_floor(const std::vector<std::string>& files, double reads_per_wake, std::int64_t interval_ns,
                  double seconds) {
  Floor f;
  f.t0 = std::chrono::steady_clock::now();
  f.pid = ::fork();
  if (f.pid == 0) {
    std::vector<int> fds;
    for (const auto& path : files)
      if (const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC); fd >= 0) fds.push_back(fd);
    char buf[16384];
    auto next = std::chrono::steady_clock::now();
    const auto end = next + std::chrono::duration<double>(seconds);
    double owed = 0;  // reads due, fractions carried over
    std::size_t turn = 0;
    while (next < end) {
      for (owed += reads_per_wake; owed >= 1 && !fds.empty(); owed -= 1, turn = (turn + 1) % fds.size())
        if (::pread(fds[turn], buf, sizeof buf, 0) < 0) ::_exit(3);
      next += std::chrono::nanoseconds(interval_ns);
      std::this_thread::sleep_until(next);
    }
    ::_exit(0);
  }
  return f;
}

/// The floor's CPU in cores (user+sys seconds per wall second), nullopt if it failed.
std::optional<double> finish_floor(const Floor& f) {
  if (f.pid <= 0) return std::nullopt;
  int status = 0;
  rusage usage{};
  ::wait4(f.pid, &status, 0, &usage);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - f.t0).count();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || wall <= 0) return std::nullopt;
  return cpu_seconds(usage) / wall;
}

RunResult run_collector(const std::string& name, std::vector<std::string> args, double seconds,
                        const fs::path& dir, std::int64_t floor_interval_ns = 0) {
  RunResult r;
  r.name = name;
  args.insert(args.begin(), kBinary);
  args.insert(args.end(), {"--duration", fmt::format("{}s", seconds), "--output",
                           (dir / (name + ".cdr")).string(), "--progress", "never", "--json"});
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  const auto out = (dir / (name + ".out")).string();
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, (dir / (name + ".err")).c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  pid_t pid = 0;
  const auto t0 = std::chrono::steady_clock::now();
  if (posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ) != 0) {
    fmt::print(stderr, "cannot start {}\n", kBinary);
    return r;
  }
  posix_spawn_file_actions_destroy(&actions);
  std::vector<ProcSample> samples;
  int status = 0;
  rusage usage{};
  Floor floor;
  std::optional<double> reads_at_3;
  for (int tick = 1;; ++tick) {
    const auto next = t0 + std::chrono::seconds(tick);
    while (std::chrono::steady_clock::now() < next) {
      if (wait4(pid, &status, WNOHANG, &usage) == pid) goto done;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (auto s = read_proc(pid, t)) samples.push_back(*s);
    if (tick == 3) reads_at_3 = read_syscalls(pid);
    if (tick == 5 && floor_interval_ns > 0 && seconds >= 8) {
      const auto files = open_files(pid);
      r.floor_files = files.size();
      const auto reads_at_5 = read_syscalls(pid);
      // Without /proc/<pid>/io: every held file every wake-up, as a collector without slow readings does.
      r.floor_reads = static_cast<double>(files.size());
      if (reads_at_3 && reads_at_5)
        r.floor_reads = (*reads_at_5 - *reads_at_3) / (2e9 / static_cast<double>(floor_interval_ns));
      floor = start_floor(files, r.floor_reads, floor_interval_ns, seconds - 6);
    }
  }
done:
  r.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (auto f = finish_floor(floor)) r.floor = *f;
  r.cpu_total = cpu_seconds(usage) / r.wall;
  // Steady state: from the 5th second (plugins loaded, first chunks written) to the last reading.
  const ProcSample* first = nullptr;
  for (const auto& s : samples)
    if (s.t >= std::min(5.0, seconds / 2)) {
      first = &s;
      break;
    }
  if (first && samples.back().t > first->t)
    r.cpu_steady = (samples.back().cpu_seconds - first->cpu_seconds) / (samples.back().t - first->t);
  for (const auto& s : samples) r.rss_max = std::max(r.rss_max, s.rss_kib);
  if (first) r.rss_start = first->rss_kib;
  if (!samples.empty()) r.rss_end = samples.back().rss_kib;
  r.rss_slope_kib_per_min = 60.0 * slope(samples, std::min(10.0, seconds / 2));
  r.rss_late_slope_kib_per_min = 60.0 * slope(samples, seconds / 2);
  std::ifstream summary(out);
  const json j = json::parse(summary, nullptr, false);
  if (!j.is_discarded() && j.contains("recording")) r.recording = j["recording"];
  if (r.exit_code != 0) {
    std::ifstream err(dir / (name + ".err"));
    fmt::print(stderr, "{} failed (exit {}):\n{}\n", name, r.exit_code,
               std::string((std::istreambuf_iterator<char>(err)), {}));
  }
  return r;
}

/// Scripts for the fake libdcmi.so and libnvidia-ml.so: `devices` NPUs and GPUs under steady load with
/// small noise, one incident every 100 s on device 1.
void write_scripts(const fs::path& dir, int devices, int incidents_every_calls) {
  json dcmi = {{"devices", json::array()}};
  json nvml = {{"devices", json::array()}};
  for (int d = 0; d < devices; ++d) {
    json anomalies = json::array();
    if (d == 1)
      for (int k = incidents_every_calls; k < 1'000'000; k += incidents_every_calls)
        anomalies.push_back({{"from", k}, {"to", k + 50}, {"value", 3}});
    auto steady = [&](double base, double noise, int seed, json a = json::array()) {
      return json{{"base", base}, {"noise", noise}, {"seed", seed + 17 * d}, {"anomalies", std::move(a)}};
    };
    json v = {{"utilization.2", steady(85, 2, 1, anomalies)},
              {"utilization.3", steady(10, 1, 2)},
              {"utilization.12", steady(60, 2, 3)},
              {"power", steady(2800, 30, 4)},
              {"temperature", steady(55, 0.4, 5)},
              {"frequency.7", 1800},
              {"frequency.9", 1800},
              {"hbm.memory_size", 65536},
              {"hbm.memory_usage", steady(30000, 100, 6)},
              {"hbm.freq", 1600},
              {"hbm.temp", 50},
              {"hbm.bandwith_util_rate", steady(40, 2, 7)},
              {"health", 0}};
    for (int link = 0; link < 7; ++link) {
      v[fmt::format("hccs.tx_bandwidth.{}", link)] = steady(20, 0.3, 10 + link);
      v[fmt::format("hccs.rx_bandwidth.{}", link)] = steady(20, 0.3, 20 + link);
      v[fmt::format("hccs.tx_cnt.{}", link)] = {{"base", 0}, {"per_second", 1e7}};
      v[fmt::format("hccs.rx_cnt.{}", link)] = {{"base", 0}, {"per_second", 1e7}};
    }
    for (const char* c :
         {"roce_rx_all_pkt_num", "roce_tx_all_pkt_num", "mac_tx_total_oct_num", "mac_rx_total_oct_num"})
      v[std::string("netdev.") + c] = {{"base", 0}, {"per_second", 5e6}};
    dcmi["devices"].push_back({{"card", d}, {"device", 0}, {"logic_id", d}, {"values", v}});
    nvml["devices"].push_back({{"name", "Fake H100"},
                               {"metrics",
                                {{"utilization.gpu", steady(90, 2, 30, anomalies)},
                                 {"utilization.memory", steady(50, 2, 31)},
                                 {"memory.total", 85899345920.0},
                                 {"memory.used", steady(40e9, 1e8, 32)},
                                 {"power", steady(550000, 5000, 33)},
                                 {"clock.sm", 1980},
                                 {"temperature", steady(60, 0.5, 34)},
                                 {"pcie.tx", steady(2e6, 1e4, 35)},
                                 {"pcie.rx", steady(2e6, 1e4, 36)},
                                 {"nvlink.tx", {{"base", 0}, {"per_second", 1e8}}},
                                 {"nvlink.rx", {{"base", 0}, {"per_second", 1e8}}}}}});
  }
  std::ofstream(dir / "dcmi.json") << dcmi.dump(1);
  std::ofstream(dir / "nvml.json") << nvml.dump(1);
}

void print(const RunResult& r, const RunResult* base) {
  const json rec = r.recording.is_object() ? r.recording : json::object();
  const double samples = rec.value("samples_total", 0.0);
  fmt::print(
      "{:<12} exit {:>3}  wall {:>6.1f} s  cpu steady {:>6.3f}% of a core (total {:>6.3f}%){}{}  "
      "rss {:.0f} -> {:.0f} KiB (max {:.0f}, slope {:+.1f} KiB/min, second half {:+.1f})  "
      "{:.0f} samples, {:.3f} bytes/sample, {} bytes, retained {:.2f}%\n",
      r.name, r.exit_code, r.wall, 100 * r.cpu_steady, 100 * r.cpu_total,
      base && base->cpu_steady > 0 ? fmt::format(" = {:.1f}x baseline", r.cpu_steady / base->cpu_steady) : "",
      r.floor > 0 ? fmt::format(" = {:.2f}x floor", r.cpu_steady / r.floor) : "", r.rss_start, r.rss_end,
      r.rss_max, r.rss_slope_kib_per_min, r.rss_late_slope_kib_per_min, samples,
      rec.value("bytes_per_sample", 0.0), rec.value("file_bytes", 0), 100 * rec.value("retained_share", 1.0));
  if (r.floor > 0)
    fmt::print(
        "{:<12} floor beside it: {:.3f}% of a core (waking every interval and reading {:.1f} of the {} files "
        "it keeps open, as many as it reads per sample; nothing else)\n",
        "", 100 * r.floor, r.floor_reads, r.floor_files);
}

json to_json(const RunResult& r) {
  return {{"name", r.name},
          {"exit_code", r.exit_code},
          {"wall_s", r.wall},
          {"cpu_cores_steady", r.cpu_steady},
          {"cpu_cores_total", r.cpu_total},
          {"rss_kib_start", r.rss_start},
          {"rss_kib_end", r.rss_end},
          {"rss_kib_max", r.rss_max},
          {"rss_slope_kib_per_min", r.rss_slope_kib_per_min},
          {"rss_late_slope_kib_per_min", r.rss_late_slope_kib_per_min},
          {"floor_cpu_cores", r.floor},
          {"floor_files", r.floor_files},
          {"floor_reads_per_wake", r.floor_reads},
          {"recording", r.recording}};
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 600, baseline_seconds = 60;
  std::string interval = "10ms", json_path;
  int devices = 8;
  bool smoke = false;
  std::string setup_dir;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--seconds")
      seconds = std::stod(value());
    else if (a == "--baseline-seconds")
      baseline_seconds = std::stod(value());
    else if (a == "--interval")
      interval = value();
    else if (a == "--devices")
      devices = std::stoi(value());
    else if (a == "--json")
      json_path = value();
    else if (a == "--smoke")
      smoke = true;
    else if (a == "--setup-only")
      setup_dir = value();
    else if (a == "--binary")
      kBinary = value();
    else if (a == "--source-dir")
      kSource = value();
    else if (a == "--fakes") {  // a directory holding libdcmi.so and libnvidia-ml.so
      const std::string fakes = value();
      kFakeDcmi = fakes + "/libdcmi.so";
      kFakeNvml = fakes + "/libnvidia-ml.so";
    } else {
      fmt::print(stderr,
                 "usage: {} [--seconds S] [--baseline-seconds S] [--interval D] [--devices N] [--json FILE] "
                 "[--smoke] [--setup-only DIR] [--binary PATH] [--source-dir DIR] [--fakes DIR]\n",
                 argv[0]);
      return 2;
    }
  }
  if (smoke) seconds = baseline_seconds = 3;
  const fs::path dir =
      setup_dir.empty() ? fs::temp_directory_path() / fmt::format("cann_debug_bench_collect_{}", ::getpid())
                        : fs::absolute(setup_dir);
  fs::create_directories(dir);
  write_scripts(dir, devices, 10'000);  // 10 ms interval: an incident every 100 s
  // One host tree: /proc/stat, meminfo, loadavg (procfs fixture) with a process and network interfaces.
  const fs::path host = dir / "host";
  const auto copy = fs::copy_options::recursive | fs::copy_options::overwrite_existing;
  fs::copy(kSource + "/tests/data/procfs/t0", host, copy);
  fs::copy(kSource + "/tests/data/procfs_host/t0", host, copy);
  ::setenv("CANN_DEBUG_FAKE_DCMI_SCRIPT", (dir / "dcmi.json").c_str(), 1);
  ::setenv("CANN_DEBUG_FAKE_NVML_SCRIPT", (dir / "nvml.json").c_str(), 1);

  const std::vector<std::string> all = {"collect",
                                        "--sources",
                                        "procfs,ddr,ascend_chip,hccs,roce,nvml",
                                        "--interval",
                                        interval,
                                        "--set",
                                        "procfs.root=" + host.string(),
                                        "--set",
                                        "procfs.pid=4242",
                                        "--set",
                                        "ddr.root=" + kSource + "/tests/data/ddr/t0",
                                        "--set",
                                        "ddr.backends=[resctrl,meminfo,dcmi]",
                                        "--set",
                                        "ddr.dcmi_library=" + kFakeDcmi,
                                        "--set",
                                        "ascend_chip.library=" + kFakeDcmi,
                                        "--set",
                                        "hccs.library=" + kFakeDcmi,
                                        "--set",
                                        "hccs.bandwidth_window=1ms",
                                        "--set",
                                        "roce.root=" + kSource + "/tests/data/samplers/roce",
                                        "--set",
                                        "roce.library=" + kFakeDcmi,
                                        "--set",
                                        "nvml.library=" + kFakeNvml};
  if (!setup_dir.empty()) {
    std::string command = fmt::format("CANN_DEBUG_FAKE_DCMI_SCRIPT={} CANN_DEBUG_FAKE_NVML_SCRIPT={} {}",
                                      (dir / "dcmi.json").string(), (dir / "nvml.json").string(), kBinary);
    for (const auto& a : all) command += " '" + a + "'";
    fmt::print("{} --duration 30s --output {}/all.cdr\n", command, dir.string());
    return 0;
  }
  auto compressed = all;
  compressed.push_back("--compress");

  fmt::print(
      "collect benchmark: {} s per run, interval {}, {} NPUs + {} GPUs (fake libraries), fixture trees\n",
      seconds, interval, devices, devices);
  const RunResult base = run_collector(
      "baseline",
      {"collect", "--sources", "procfs", "--interval", "1s", "--set", "procfs.root=" + host.string()},
      baseline_seconds, dir);
  print(base, nullptr);
  // The floor wakes at the collectors' interval, read as collect reads --interval (0: no floor).
  const std::int64_t interval_ns = cann_debug::parse_duration_ns(interval).value_or(0);
  const RunResult raw = run_collector("all_raw", all, seconds, dir, interval_ns);
  print(raw, &base);
  const RunResult kept = run_collector("all_compress", compressed, seconds, dir, interval_ns);
  print(kept, &base);
  const double raw_bytes = raw.recording.is_object() ? raw.recording.value("file_bytes", 0.0) : 0.0;
  const double kept_bytes = kept.recording.is_object() ? kept.recording.value("file_bytes", 0.0) : 0.0;
  if (raw_bytes > 0)
    fmt::print("--compress: {:.1f}% smaller than recording every sample ({} vs {} bytes)\n",
               100.0 * (1.0 - kept_bytes / raw_bytes), kept_bytes, raw_bytes);
  if (!json_path.empty())
    std::ofstream(json_path) << json{{"seconds", seconds},
                                     {"interval", interval},
                                     {"devices", devices},
                                     {"runs", {to_json(base), to_json(raw), to_json(kept)}},
                                     {"compress_size_ratio", raw_bytes > 0 ? kept_bytes / raw_bytes : 0.0}}
                                    .dump(2);
  fs::remove_all(dir);
  const bool ran = base.exit_code == 0 && raw.exit_code == 0 && kept.exit_code == 0;
  if (!ran)
    fmt::print(stderr, "a collector failed (exit codes {}, {}, {})\n", base.exit_code, raw.exit_code,
               kept.exit_code);
  return ran ? 0 : 1;
}
