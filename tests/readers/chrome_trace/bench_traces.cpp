// Throughput and memory of the chrome_trace reader on a large Kineto trace, against a plain nlohmann::json
// DOM parse of the same file (docs/traces.md, "Benchmark").
//
//   cann_debug_bench_traces [--size-mb 500] [--source trace.json[.gz]] [--dir /tmp] [--batch-size 4096]
//                           [--keep-all] [--skip-dom] [--keep-file] [--quiet]
//
// The trace is generated from a real one (by default ../shared/real/kineto/.../df_index_resolver.json.gz,
// else tests/data/traces/kineto_small.json): its events are copied byte for byte, formatting included, with
// `ts` shifted by one span per copy, until the file has --size-mb megabytes. Each parse runs in a child
// process of its own so that its peak RSS (VmHWM) is its own; both run on one thread.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cann_debug/messages.hpp"
#include "cann_debug/testing.hpp"
#include "chrome_trace.hpp"
#include "decimal_time.hpp"
#include "trace_scanner.hpp"

namespace fs = std::filesystem;
using namespace cann_debug;
using nlohmann::json;

namespace {

struct Args {
  double size_mb = 500;
  std::string source;
  std::string dir = fs::temp_directory_path().string();
  long batch_size = 4096;
  bool keep_all = false;
  bool skip_dom = false;
  bool keep_file = false;
  bool quiet = false;
};

Args parse_args(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--size-mb")
      a.size_mb = std::stod(next());
    else if (arg == "--source")
      a.source = next();
    else if (arg == "--dir")
      a.dir = next();
    else if (arg == "--batch-size")
      a.batch_size = std::stol(next());
    else if (arg == "--keep-all")
      a.keep_all = true;
    else if (arg == "--skip-dom")
      a.skip_dom = true;
    else if (arg == "--keep-file")
      a.keep_file = true;
    else if (arg == "--quiet")
      a.quiet = true;
    else
      throw std::invalid_argument("unknown argument " + arg);
  }
  return a;
}

std::int64_t status_kib(const char* field) {  // VmHWM, VmRSS of this process
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(field, 0) == 0) return std::stoll(line.substr(std::strlen(field) + 1));
  return -1;
}

double cpu_seconds() {
  rusage r{};
  getrusage(RUSAGE_SELF, &r);
  return static_cast<double>(r.ru_utime.tv_sec + r.ru_stime.tv_sec) +
         static_cast<double>(r.ru_utime.tv_usec + r.ru_stime.tv_usec) * 1e-6;
}

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// ---- generating the big trace
// -------------------------------------------------------------------------------

// The raw bytes of every event and every other top-level member of a trace.
struct SourceTrace {
  std::vector<std::string> events;
  std::string members;  // "\"key\": value, " for each top-level member but traceEvents
  std::int64_t span_ns = 0;
};

SourceTrace load_source(const std::string& path) {
  using namespace plugins::chrome_trace;
  SourceTrace s;
  auto source = open_byte_source(path);
  TraceScanner scanner(*source, ScanLimits{});
  scanner.on_member([&](std::string_view key, const Slice& v) {
    s.members += fmt::format("\"{}\": {},\n", key, v.view());
  });
  Slice e;
  std::int64_t lo = INT64_MAX, hi = INT64_MIN;
  while (scanner.next_event(e)) {
    s.events.emplace_back(e.view());
    const auto j = json::parse(e.view());
    if (j.contains("ts") && j["ts"].is_number()) {
      const double ts = j["ts"].get<double>();
      const double dur = j.value("dur", 0.0);
      lo = std::min(lo, static_cast<std::int64_t>(ts * 1000));
      hi = std::max(hi, static_cast<std::int64_t>((ts + dur) * 1000));
    }
  }
  s.span_ns = hi > lo ? hi - lo : 1000000;
  return s;
}

// The event's bytes with "ts" moved by `shift_ns`, written the way it was (integer or 3 decimals).
std::string shifted(const std::string& event, std::int64_t shift_ns) {
  const auto key = event.find("\"ts\"");
  if (key == std::string::npos) return event;
  auto begin = event.find(':', key) + 1;
  while (event[begin] == ' ') ++begin;
  auto end = begin;
  while (end < event.size() &&
         (std::isdigit(static_cast<unsigned char>(event[end])) || event[end] == '.' || event[end] == '-' ||
          event[end] == 'e' || event[end] == 'E' || event[end] == '+'))
    ++end;
  const std::string text = event.substr(begin, end - begin);
  std::string why;
  const auto ns = plugins::chrome_trace::decimal_us_to_ns(text, why);
  if (!ns) return event;
  const std::int64_t v = *ns + shift_ns;
  const std::string out =
      text.find('.') == std::string::npos
          ? std::to_string(v / 1000)
          : fmt::format("{}{}.{:03d}", v < 0 ? "-" : "", std::llabs(v / 1000), std::llabs(v % 1000));
  return event.substr(0, begin) + out + event.substr(end);
}

std::uint64_t generate(const SourceTrace& s, const std::string& path, double size_mb, std::uint64_t* events) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << "{\n" << s.members << "\"traceEvents\": [\n";
  const auto target = static_cast<std::uint64_t>(size_mb * 1024 * 1024);
  std::uint64_t written = 0, n = 0;
  bool first = true;
  for (std::int64_t copy = 0; written < target; ++copy) {
    const std::int64_t shift = copy * (s.span_ns + 1000000);
    for (const auto& e : s.events) {
      if (written >= target) break;
      const std::string text = shifted(e, shift);
      if (!first) out << ",\n  ";
      out << text;
      first = false;
      written += text.size() + 4;
      ++n;
    }
  }
  out << "\n]}\n";
  out.close();
  *events = n;
  return fs::file_size(path);
}

// ---- measuring --------------------------------------------------------------------------------------------

std::uint64_t string_bytes(const std::string& s) {
  return s.capacity() > 15 ? s.capacity() + 1 : 0;
}

// Heap bytes held by a JSON value (an estimate following libstdc++'s node and vector layouts).
std::uint64_t json_bytes(const json& j) {
  switch (j.type()) {
    case json::value_t::string:
      return sizeof(std::string) + string_bytes(j.get_ref<const std::string&>());
    case json::value_t::array: {
      const auto& a = j.get_ref<const json::array_t&>();
      std::uint64_t b = sizeof(json::array_t) + a.capacity() * sizeof(json);
      for (const auto& x : a) b += json_bytes(x);
      return b;
    }
    case json::value_t::object: {
      const auto& o = j.get_ref<const json::object_t&>();
      std::uint64_t b = sizeof(json::object_t);
      for (const auto& [k, v] : o)
        b += 32 + sizeof(std::string) + sizeof(json) + string_bytes(k) + json_bytes(v);
      return b;
    }
    default:
      return 0;
  }
}

std::uint64_t event_bytes(const Event& e) {
  return sizeof(Event) + string_bytes(e.name) + string_bytes(e.category) + json_bytes(e.args);
}

class Consumer final : public Emitter {
 public:
  explicit Consumer(bool keep) : keep_(keep) {}
  void emit(std::size_t, Envelope env) override {
    const auto& b = env.as<EventBatch>();
    std::uint64_t bytes = sizeof(EventBatch) + b.events.capacity() * sizeof(Event);
    for (const auto& e : b.events) bytes += event_bytes(e) - sizeof(Event);
    events += b.events.size();
    max_batch_bytes = std::max(max_batch_bytes, bytes);
    if (keep_) {
      kept_bytes += bytes;
      kept.push_back(std::move(env));
    }
  }
  std::uint64_t events = 0, max_batch_bytes = 0, kept_bytes = 0;
  std::vector<Envelope> kept;

 private:
  bool keep_;
};

json measure_reader(const std::string& path, long batch_size, bool keep_all) {
  json r;
  r["baseline_rss_kib"] = status_kib("VmRSS:");
  testing::FakeHost host;
  std::vector<OptionIssue> issues;
  const auto& factory = plugins::chrome_trace_factory();
  const Config config =
      resolve_config(factory.manifest().options, {{"path", path}, {"batch_size", batch_size}}, issues);
  auto reader = factory.create({"chrome_trace/bench", host}, config);
  Consumer out(keep_all);
  const double t0 = now(), c0 = cpu_seconds();
  reader->start();
  const double prescan = now() - t0;
  while (reader->poll(out) != PollResult::kDone) {
  }
  reader->stop();
  r["wall_s"] = now() - t0;
  r["cpu_s"] = cpu_seconds() - c0;
  r["prescan_wall_s"] = prescan;
  r["events"] = out.events;
  r["max_batch_bytes"] = out.max_batch_bytes;
  r["kept_bytes"] = keep_all ? out.kept_bytes : out.max_batch_bytes;
  r["vm_hwm_kib"] = status_kib("VmHWM:");
  return r;
}

json measure_dom(const std::string& path) {
  json r;
  r["baseline_rss_kib"] = status_kib("VmRSS:");
  const double t0 = now(), c0 = cpu_seconds();
  std::ifstream in(path, std::ios::binary);
  const json doc = json::parse(in);
  r["wall_s"] = now() - t0;
  r["cpu_s"] = cpu_seconds() - c0;
  r["events"] = doc.at("traceEvents").size();
  r["vm_hwm_kib"] = status_kib("VmHWM:");
  return r;
}

// Runs `fn` in a child process and returns its JSON result (so VmHWM is the child's own).
template <typename F>
json in_child(F fn) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    std::string text;
    try {
      text = fn().dump();
    } catch (const std::exception& e) {
      text = json{{"error", e.what()}}.dump();
    }
    const ssize_t w = write(fds[1], text.data(), text.size());
    (void)w;
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  std::string text;
  char buf[4096];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof(buf))) > 0) text.append(buf, static_cast<std::size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (text.empty()) throw std::runtime_error("the measuring child process died");
  return json::parse(text);
}

std::string default_source() {
  const fs::path shared(CANN_DEBUG_SHARED_DIR);
  const fs::path real = shared / "real/kineto/hta_tests/v100_ddp_rank1of2/df_index_resolver.json.gz";
  std::error_code ec;
  if (fs::exists(real, ec)) return real.string();
  return (fs::path(CANN_DEBUG_SOURCE_DIR) / "tests/data/traces/kineto_small.json").string();
}

}  // namespace

int main(int argc, char** argv) {
  try {
    Args a = parse_args(argc, argv);
    if (a.source.empty()) a.source = default_source();
    const std::string path = (fs::path(a.dir) / fmt::format("cann_debug_bench_{}.json", getpid())).string();
    // Generated in a child process, so that the measuring children fork from a small parent.
    const json made = in_child([&] {
      const SourceTrace src = load_source(a.source);
      std::uint64_t n = 0;
      const std::uint64_t bytes = generate(src, path, a.size_mb, &n);
      return json{{"bytes", bytes}, {"events", n}, {"source_events", src.events.size()}};
    });
    if (made.contains("error")) throw std::runtime_error("generating: " + made["error"].get<std::string>());
    const std::uint64_t events = made["events"];
    const double mb = made["bytes"].get<double>() / (1024.0 * 1024.0);
    std::FILE* sink = stdout;
    if (!a.quiet)
      fmt::print("trace: {} ({:.1f} MiB, {} events: {:.2f} copies of the {} events of {})\n", path, mb,
                 events,
                 static_cast<double>(events) / std::max<double>(made["source_events"].get<double>(), 1),
                 made["source_events"].get<std::uint64_t>(), a.source);

    const json reader = in_child([&] { return measure_reader(path, a.batch_size, a.keep_all); });
    const json dom = a.skip_dom ? json() : in_child([&] { return measure_dom(path); });
    if (!a.keep_file) fs::remove(path);
    if (reader.contains("error")) throw std::runtime_error("reader: " + reader["error"].get<std::string>());
    if (dom.contains("error")) throw std::runtime_error("dom: " + dom["error"].get<std::string>());

    const double r_wall = reader["wall_s"], r_cpu = reader["cpu_s"];
    const double hwm = reader["vm_hwm_kib"].get<double>() * 1024,
                 base = reader["baseline_rss_kib"].get<double>() * 1024;
    const double kept = reader["kept_bytes"];
    fmt::print(
        sink, "simdjson reader: {:.1f} MB/s wall, {:.1f} MB/s cpu ({:.2f} s, {} events, pre-scan {:.2f} s)\n",
        mb / r_wall, mb / r_cpu, r_wall, reader["events"].get<std::uint64_t>(),
        reader["prescan_wall_s"].get<double>());
    fmt::print(sink,
               "  peak RSS (VmHWM) {:.1f} MiB = baseline {:.1f} MiB + {:.1f} MiB; data kept ({}) {:.1f} MiB; "
               "VmHWM / kept = {:.2f}, (VmHWM - baseline) / kept = {:.2f}\n",
               hwm / 1048576, base / 1048576, (hwm - base) / 1048576,
               a.keep_all ? "all events" : fmt::format("largest batch of {} events", a.batch_size),
               kept / 1048576, hwm / kept, (hwm - base) / kept);
    int rc = 0;
    if (!dom.is_null()) {
      const double d_wall = dom["wall_s"], d_cpu = dom["cpu_s"];
      fmt::print(sink,
                 "nlohmann::json DOM: {:.1f} MB/s wall, {:.1f} MB/s cpu ({:.2f} s), peak RSS {:.1f} MiB\n",
                 mb / d_wall, mb / d_cpu, d_wall, dom["vm_hwm_kib"].get<double>() / 1024);
      fmt::print(sink, "speed-up {:.1f}x (cpu), peak RSS {:.1f}x smaller\n", d_cpu / r_cpu,
                 dom["vm_hwm_kib"].get<double>() / reader["vm_hwm_kib"].get<double>());
      if (dom["events"].get<std::uint64_t>() + 1 != reader["events"].get<std::uint64_t>()) {
        fmt::print(stderr, "event counts differ: DOM {} vs reader {} (trace_info included)\n",
                   dom["events"].get<std::uint64_t>(), reader["events"].get<std::uint64_t>());
        rc = 1;
      }
    }
    if (reader["events"].get<std::uint64_t>() != events + 1) {
      fmt::print(stderr, "the reader emitted {} events, the file has {} (+ trace_info)\n",
                 reader["events"].get<std::uint64_t>(), events);
      rc = 1;
    }
    return rc;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cann_debug_bench_traces: %s\n", e.what());
    return 2;
  }
}
