#include "collect_workload.hpp"

#include <fcntl.h>
#include <glob.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <thread>

#include <fmt/format.h>

#include <fmt/ranges.h>
#include "cann_debug/time.hpp"

#include "cann_debug/whole_file.hpp"
#include "child_process.hpp"
#include "cli_common.hpp"
#include "fusion_summary.hpp"
#include "interrupt.hpp"
#include "online_diagnosis.hpp"
#include "stream_capture.hpp"

namespace cann_debug::cli {
namespace {

namespace fs = std::filesystem;

constexpr int kPipeGraceMs = 2000;  // after the workload exited, how long its children may hold the pipes

/// What the runner watches instead of the signal handler's flag: raised once the workload is gone.
class StopSignal {
 public:
  StopSignal() {
    if (::pipe2(fds_, O_CLOEXEC | O_NONBLOCK) != 0) fds_[0] = fds_[1] = -1;
  }
  ~StopSignal() {
    for (int fd : fds_)
      if (fd >= 0) ::close(fd);
  }
  void raise(int level) {
    if (level_.load() >= level) return;
    level_.store(level);
    const char byte = 1;
    if (fds_[1] >= 0) [[maybe_unused]]
      ssize_t n = ::write(fds_[1], &byte, 1);
  }
  const std::atomic<int>* level() const { return &level_; }
  int fd() const { return fds_[0]; }

 private:
  std::atomic<int> level_{0};
  int fds_[2] = {-1, -1};
};

/// Reads what the signal handler wrote: how many SIGINT/SIGTERM arrived since the last call.
int signals_arrived(int wake_fd, int timeout_ms) {
  if (wake_fd < 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(timeout_ms));
    return 0;
  }
  pollfd p{wake_fd, POLLIN, 0};
  if (::poll(&p, 1, timeout_ms) <= 0) return 0;
  char buf[64];
  int count = 0;
  for (ssize_t n; (n = ::read(wake_fd, buf, sizeof buf)) > 0;) count += static_cast<int>(n);
  return count;
}

/// Whether `pid` still runs: it exists and is not a zombie waiting for its parent to reap it (a process that
/// exited but whose parent has not called wait() yet still answers kill(pid, 0)).
bool process_alive(long pid) {
  if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno != EPERM) return false;
  std::ifstream stat(fmt::format("/proc/{}/stat", pid));
  std::string line;
  if (!std::getline(stat, line)) return true;  // no /proc here: kill(0) is all there is
  const auto paren = line.rfind(')');          // the command name may hold spaces and parentheses
  return paren == std::string::npos || paren + 2 >= line.size() || line[paren + 2] != 'Z';
}

std::string signal_name(int sig) {
  const char* abbrev = ::sigabbrev_np(sig);
  return abbrev ? fmt::format("SIG{}", abbrev) : std::to_string(sig);
}

void write_json_atomically(const fs::path& path, const nlohmann::json& doc) {
  write_file_atomically(path.string(), doc.dump(2) + "\n");
}

// Copies what --logs and --traces name into the run folder (logs/, traces/), so it holds the whole run.
std::vector<std::string> pick_up(const WorkloadRequest& request, const fs::path& run_dir) {
  std::vector<std::string> copied;
  auto copy_into = [&](const fs::path& from, const fs::path& to) {
    std::error_code ec;
    fs::create_directories(to.parent_path(), ec);
    fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::overwrite_existing, ec);
    if (ec)
      fmt::print(stderr, "collect: cannot copy {} into the run folder: {}\n", from.string(), ec.message());
    else
      copied.push_back(fs::relative(to, run_dir).generic_string());
  };
  for (const auto& pattern : request.logs) {
    glob_t g{};
    const int rc = ::glob(pattern.c_str(), GLOB_NOSORT | GLOB_BRACE | GLOB_TILDE, nullptr, &g);
    if (rc == GLOB_NOMATCH) fmt::print(stderr, "collect: --logs {}: matched no file\n", pattern);
    for (std::size_t i = 0; rc == 0 && i < g.gl_pathc; ++i) {
      const fs::path p(g.gl_pathv[i]);
      std::error_code ec;
      if (fs::equivalent(p.parent_path(), run_dir, ec)) continue;  // already in the run folder
      copy_into(p, run_dir / "logs" / p.filename());
    }
    ::globfree(&g);
  }
  for (const auto& dir : request.traces) {
    std::error_code ec;
    if (!fs::exists(dir, ec)) {
      fmt::print(stderr, "collect: --traces {}: no such folder\n", dir);
      continue;
    }
    copy_into(dir, run_dir / "traces" / fs::path(dir).lexically_normal().filename());
  }
  return copied;
}

/// The command as one line a shell would take back: words quoted where needed, newlines shown as \n, cut at
/// `limit` characters.
std::string one_line(const std::vector<std::string>& argv, std::size_t limit = 100) {
  std::string line;
  for (const auto& word : argv) {
    if (!line.empty()) line += ' ';
    const bool plain = !word.empty() && word.find_first_not_of(
                                            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                            "0123456789-_./=:,+@%") == std::string::npos;
    std::string shown;
    for (char c : word)
      shown += c == '\n' ? std::string("\\n") : c == '\'' ? std::string("'\\''") : std::string(1, c);
    line += plain ? shown : "'" + shown + "'";
  }
  if (line.size() > limit) line = line.substr(0, limit - 3) + "...";
  return line;
}

std::string plural(std::uint64_t n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

// On stderr: stdout carries the workload's own output (collect -- train.py > out.txt keeps only it).
void print_summary(const nlohmann::json& fusion) {
  const auto& w = fusion["workload"];
  const std::string what = w.contains("command") ? one_line(w["command"].get<std::vector<std::string>>())
                                                 : fmt::format("pid {}", w.value("pid", 0L));
  if (w.contains("start_error"))
    fmt::print(stderr, "collect: {}\n", w["start_error"].get<std::string>());
  else
    fmt::print(stderr, "collect: {} {} after {:.1f} s\n", what, w.value("ended", std::string("ran")),
               w.value("seconds", 0.0));
  fmt::print(stderr, "  run folder: {}\n", fusion.value("run_dir", std::string()));
  for (const auto& s : fusion["sources"]) {
    const std::string kind = s.value("kind", std::string());
    std::string counts;
    if (kind == "hardware")
      counts = fmt::format("{} in {}", plural(s.value("samples", 0ULL), "sample", "samples"),
                           plural(s.value("series", 0ULL), "series", "series"));
    else
      counts = fmt::format("{}, {}, {}", plural(s.value("records", 0ULL), "record", "records"),
                           plural(s.value("metric_points", 0ULL), "metric point", "metric points"),
                           plural(s.value("events", 0ULL), "trace event", "trace events"));
    fmt::print(stderr, "  {:<28} {:<9} {:<16} {}{}\n", s.value("path", std::string()), kind,
               s.value("reader", std::string()), counts,
               s.contains("error") ? " (read with an error: " + s["error"].get<std::string>() + ")" : "");
  }
  if (!fusion["streams"].empty())
    fmt::print(stderr, "  captured output (also read above when a reader claims it):\n");
  for (const auto& [name, st] : fusion["streams"].items()) {
    const auto& off = st["clock_offset"];
    std::string clock;
    if (off.value("lines_compared", 0) > 0)
      clock = fmt::format(", own-time lines arrive {:+.3f} s (median; p95 |offset| {:.3f} s)",
                          off.value("median_s", 0.0), off.value("p95_abs_s", 0.0));
    fmt::print(stderr, "    {:<26} {} lines, {} bytes{}{}\n", st.value("file", std::string()),
               st.value("lines", 0), st.value("bytes", 0),
               st.value("bytes_left_out", 0) > 0
                   ? fmt::format(" ({} bytes left out of the file)", st.value("bytes_left_out", 0))
                   : "",
               clock);
  }
  const auto& online = fusion["online"];
  if (online.value("diagnose", false)) {
    const std::string latency = latency_text(online);
    fmt::print(stderr, "  anomaly windows: {} diagnosed{} (diagnoses.jsonl)\n", online.value("diagnosed", 0),
               latency.empty() ? "" : ", " + latency);
  } else if (online.is_object()) {
    fmt::print(stderr, "  anomaly windows: {} marked (fusion.json)\n", online.value("windows", 0));
  }
  fmt::print(stderr, "  stored {} bytes for {} raw ({:.2f}); fusion.json written\n",
             fusion.value("stored_bytes", 0), fusion.value("raw_bytes", 0),
             fusion.value("stored_over_raw", 1.0));
}

/// The plan with procfs following the workload's process (its CPU, memory and threads beside the host's),
/// unless the user named a pid with --set procfs.pid=...
host::PipelinePlan follow_workload(const host::PipelinePlan& plan, long pid) {
  host::PipelinePlan out = plan;
  for (auto& c : out.components) {
    if (c.manifest().type != "procfs" || (c.config.has("pid") && c.config.str("pid") != "0")) continue;
    nlohmann::json values = c.config.json();
    values["pid"] = std::to_string(pid);
    c.config = Config(std::move(values));
  }
  return out;
}

}  // namespace

int collect_workload(const GlobalOptions& g, const WorkloadRequest& request, const CollectPlan& plan,
                     const host::PluginRegistry& registry, host::RunOptions options) {
  const fs::path run_dir = fs::absolute(request.run_dir).lexically_normal();
  std::error_code ec;
  fs::create_directories(run_dir, ec);
  if (ec) {
    fmt::print(stderr, "error: {}: cannot create the run folder: {}\n", run_dir.string(), ec.message());
    return static_cast<int>(kUsage);
  }
  const std::string recording = (run_dir / "recording.cdr").string();

  WorkloadRun run;
  run.command = request.command;
  run.attached = request.pid > 0;
  InterruptScope interrupt;
  StopSignal stop;
  std::unique_ptr<ChildProcess> child;
  std::vector<std::unique_ptr<StreamCapture>> captures;
  run.started_ns = wall_clock_ns();
  if (run.attached) {
    run.pid = request.pid;
    if (!process_alive(request.pid)) {
      fmt::print(stderr, "error: --pid {}: no such process\n", request.pid);
      return static_cast<int>(kNotFound);
    }
  } else {
    ChildSpec spec;
    spec.argv = request.command;
    spec.env.emplace_back("CANN_DEBUG_RUN_DIR", run_dir.string());
    // Python block-buffers a pipe: its lines would arrive seconds late and in 8 KiB lumps.
    if (!std::getenv("PYTHONUNBUFFERED")) spec.env.emplace_back("PYTHONUNBUFFERED", "1");
    try {
      child = std::make_unique<ChildProcess>(spec);
    } catch (const StartError& e) {
      run.start_error = e.what();
      run.ended_ns = wall_clock_ns();
      fmt::print(stderr, "error: {}\n", e.what());
      write_json_atomically(run_dir / "fusion.json",
                            fusion_summary(registry, run_dir.string(), run, recording));
      return e.error == ENOENT ? 127 : 126;
    }
    run.pid = child->pid();
    captures.push_back(std::make_unique<StreamCapture>(
        child->stdout_fd(),
        CaptureOptions{"stdout", (run_dir / "stdout.log").string(), STDOUT_FILENO, request.max_log_bytes}));
    captures.push_back(std::make_unique<StreamCapture>(
        child->stderr_fd(),
        CaptureOptions{"stderr", (run_dir / "stderr.log").string(), STDERR_FILENO, request.max_log_bytes}));
  }

  // The workload's lifetime decides when sampling stops; signals go to it, not to the samplers.
  std::thread supervisor([&] {
    const std::int64_t deadline = request.duration_ns > 0 ? run.started_ns + request.duration_ns : 0;
    bool duration_signalled = false;
    for (;;) {
      const int arrived = signals_arrived(interrupt.wake_fd(), 50);
      for (int i = 0; i < arrived; ++i) {
        ++run.signals_forwarded;
        run.interrupted = true;
        if (!child) continue;
        const int sig = run.signals_forwarded == 1 ? SIGINT : run.signals_forwarded == 2 ? SIGTERM : SIGKILL;
        child->signal_group(sig);
        fmt::print(stderr, "\ncollect: sent {} to the workload (pid {}){}\n", signal_name(sig), run.pid,
                   sig == SIGKILL ? "" : "; again to escalate");
      }
      if (deadline > 0 && !duration_signalled && wall_clock_ns() >= deadline) {
        duration_signalled = true;
        if (child) {
          child->signal_group(SIGTERM);
          fmt::print(stderr, "collect: --duration reached: sent SIGTERM to the workload (pid {})\n", run.pid);
        }
      }
      if (child && child->try_wait()) break;
      if (!child && (!process_alive(run.pid) || run.interrupted || duration_signalled)) break;
    }
    run.ended_ns = wall_clock_ns();
    stop.raise(1);
  });

  // Anomaly windows are marked online from the recording as the writer completes its chunks (and, with
  // --diagnose, each is diagnosed as it closes). The follower ends when the writer closes the recording.
  StopSignal follower_stop;
  FollowRequest follow;
  follow.run_dir = run_dir.string();
  follow.diagnose = request.diagnose;
  follow.kb_outcomes = request.kb_outcomes;
  follow.scenario = request.scenario;
  follow.print_to = request.diagnose ? stderr : nullptr;
  follow.interrupt = follower_stop.level();
  follow.interrupt_fd = follower_stop.fd();
  std::future<FollowResult> follower = std::async(std::launch::async, [&] { return follow_run(g, follow); });

  options.interrupt = stop.level();
  options.interrupt_fd = stop.fd();
  host::RunReport report;
  {
    const host::PipelinePlan pipeline = follow_workload(*plan.plan, run.pid);
    host::GraphRunner runner(pipeline, options);
    report = runner.run();
  }
  supervisor.join();
  // The recording is closed now: the follower reads its last chunks and ends by itself. If the writer never
  // made a file (the samplers failed), it is told to stop.
  if (follower.wait_for(std::chrono::seconds(10)) == std::future_status::timeout) follower_stop.raise(1);
  const FollowResult followed = follower.get();
  for (const auto& e : report.errors) fmt::print(stderr, "{}\n", e.to_string());

  if (child) {
    run.ended = child->how_it_ended();
    run.exit_code = child->exit_code().value_or(0);
    for (auto& c : captures) {
      const auto& t = c->finish(kPipeGraceMs);
      if (!t.eof) {
        fmt::print(stderr,
                   "collect: the workload exited but processes of its group still held its output open "
                   "after {} ms: sent them SIGTERM\n",
                   kPipeGraceMs);
        child->signal_group(SIGTERM);
      }
    }
    run.streams.emplace_back("stdout", captures[0]->finish(0));
    run.streams.emplace_back("stderr", captures[1]->finish(0));
  } else {
    run.ended = process_alive(run.pid) ? "still running (collect stopped)" : "exited";
  }
  run.copied = pick_up(request, run_dir);

  auto fusion = fusion_summary(registry, run_dir.string(), run, recording);
  fusion["anomaly_windows"] = followed.windows;
  fusion["online"] = followed.summary;
  fusion["online"]["diagnose"] = request.diagnose;
  if (!followed.error.empty()) fusion["online"]["error"] = followed.error;
  write_json_atomically(run_dir / "fusion.json", fusion);
  if (request.json)
    fmt::print("{}\n", fusion.dump(2));
  else
    print_summary(fusion);
  if (!report.ok) fmt::print(stderr, "collect: the samplers failed (above); the workload's files are kept\n");
  if (run.attached) return static_cast<int>(!report.ok ? kRunFailed : run.interrupted ? kInterrupted : kOk);
  return run.exit_code;
}

}  // namespace cann_debug::cli
