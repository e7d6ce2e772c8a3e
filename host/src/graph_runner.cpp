#include "graph_runner.hpp"

#include <oneapi/tbb/flow_graph.h>
#include <oneapi/tbb/info.h>
#include <oneapi/tbb/task_group.h>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include "cann_debug/messages.hpp"
#include "host_services_impl.hpp"
#include "wakeup.hpp"

namespace cann_debug::host {

namespace flow = oneapi::tbb::flow;
using Clock = std::chrono::steady_clock;

// Hot-path costs, measured by tests/bench (a 5-stage chain of trivial components):
// - one process()/poll() call in kTimingSample is timed (two clock reads cost ~60 ns, as much as a hop);
//   busy time is scaled up from the sample;
// - a source that found room for k more messages in every queue downstream emits min(k, kRoomCheckEvery)
//   messages before it looks at those queues again (each look reads counters other threads keep writing).
//   Its direct consumers stay within queue_capacity as before; a node further down that emits several
//   messages per input can overshoot by that factor times kRoomCheckEvery.
constexpr std::uint64_t kTimingSample = 64;
constexpr std::int64_t kRoomCheckEvery = 16;

std::string RuntimeError::to_string() const {
  std::string where_s = where.file;
  if (where.line > 0) where_s += fmt::format(":{}:{}", where.line, std::max(where.column, 1));
  if (contained)
    return fmt::format("{}: warning: {}: {} failed: {} (on_error: {}: {})", where_s, component, phase,
                       message, cann_debug::host::to_string(policy),
                       policy == ErrorPolicy::kSkip && phase == "process" ? "the message was dropped"
                                                                          : "it stopped, the run went on");
  return fmt::format("{}: error: {}: {} failed: {}", where_s, component, phase, message);
}

namespace {

struct Delivery {
  Envelope envelope;
  std::size_t port = 0;
};

// Counters a serial node (or a source thread) alone writes take a plain store, not a locked add.
template <typename T>
void add(std::atomic<T>& counter, T by, bool single_writer) {
  if (single_writer)
    counter.store(counter.load(std::memory_order_relaxed) + by, std::memory_order_relaxed);
  else
    counter.fetch_add(by, std::memory_order_relaxed);
}

using QueueingBody = flow::function_node<Delivery, flow::continue_msg, flow::queueing>;
// A lightweight node that is free runs the body right away in the thread that emits to it (no task, no
// copy into a queue); a busy one queues as usual. Takes effect only for a noexcept body.
using LightweightBody = flow::function_node<Delivery, flow::continue_msg, flow::queueing_lightweight>;

struct Node;
struct Target {
  Node* node;
  std::size_t port;
  bool expand_frames = false;  // deliver a metric.frame/1 as the metric.batch/1 of its points
};

class NodeEmitter : public Emitter {
 public:
  NodeEmitter(Node& self, GraphRunner::Impl& runner, bool blocking)
      : self_(self), runner_(runner), blocking_(blocking) {}
  void emit(std::size_t port, Envelope envelope) override;
  void set_blocking(bool b) { blocking_ = b; }

 private:
  Node& self_;
  GraphRunner::Impl& runner_;
  bool blocking_;
};

struct Node {
  std::size_t index = 0;
  std::string id;
  std::string_view
      plan_id;  // the plan's copy of the id: envelopes point at it, and the plan outlives the run
  SourceRef where;
  const Manifest* manifest = nullptr;
  bool source = false;
  ErrorPolicy policy = ErrorPolicy::kCancel;
  std::vector<int> tap_of_port;  // per output port: index into RunOptions::taps, or -1
  std::unique_ptr<ComponentServices> services;
  std::unique_ptr<Component> component;
  std::vector<std::vector<Target>> outputs;  // per output port
  std::vector<Node*> downstream;             // every node reachable from this one (sources: back-pressure)
  std::unique_ptr<flow::graph_node> body;
  flow::receiver<Delivery>* input = nullptr;  // = body
  std::unique_ptr<NodeEmitter> emitter;
  bool single_writer = true;     // serial node or source: only one thread at a time runs its code
  std::int64_t room_credit = 0;  // sources: emits left before the downstream queues are looked at again
  bool started = false;
  // Set when the node failed under `drain` (or could not be created or started under drain/skip): it
  // takes no more input, is not polled, flushed or started.
  std::atomic<bool> stopped{false};
  // Written by every upstream emitter and by the node's own body: a cache line of its own, so these writes
  // do not keep evicting the read-mostly fields above (outputs, body, emitter) from other threads' caches.
  alignas(64) std::atomic<std::int64_t> queued{0};
  std::atomic<std::int64_t> max_queued{0};
  // Written by the node's own body (or source thread) only.
  alignas(64) std::atomic<std::uint64_t> received{0};
  std::atomic<std::uint64_t> emitted{0};
  std::atomic<std::int64_t> busy_ns{0};
};

}  // namespace

struct GraphRunner::Impl {
  const PipelinePlan& plan;
  RunOptions options;
  Wakeup wakeup;  // after options: built from options.interrupt_fd
  RunClock clock;
  std::atomic<bool> cancelled{false};
  oneapi::tbb::task_group_context context;
  flow::graph graph{context};
  std::vector<std::unique_ptr<Node>> nodes;
  std::mutex errors_mu;
  std::vector<RuntimeError> errors;
  std::mutex progress_mu;
  std::condition_variable progress_cv;
  std::mutex spilled_mu;
  std::vector<std::thread> spilled;  // sources the shared source thread gave threads of their own
  std::mutex tap_mu;

  Impl(const PipelinePlan& p, RunOptions o) : plan(p), options(o), wakeup(options.interrupt_fd) {
    if (options.queue_capacity == 0) options.queue_capacity = plan.document.queue_capacity;
    if (options.idle_interval_ns == 0) options.idle_interval_ns = plan.document.idle_interval_ns;
  }

  int interrupt_level() const {
    return options.interrupt ? options.interrupt->load(std::memory_order_relaxed) : 0;
  }

  // noexcept: it runs inside node bodies, which must not throw (lightweight nodes require noexcept bodies).
  // The node's policy decides what the failure costs: the run (cancel), the node (drain), the message
  // (skip, in process()).
  void fail(Node& n, std::string_view phase, std::string_view message) noexcept {
    const bool contained = n.policy != ErrorPolicy::kCancel;
    try {
      RuntimeError e;
      e.component = n.id;
      e.where = n.where;
      e.phase = std::string(phase);
      e.message = std::string(message);
      e.contained = contained;
      e.policy = n.policy;
      std::lock_guard lock(errors_mu);
      errors.push_back(std::move(e));
    } catch (...) {
      // Out of memory while recording an error: the policy still applies below.
    }
    if (!contained) {
      cancel();
      return;
    }
    if (n.policy == ErrorPolicy::kDrain || n.source || phase != "process") n.stopped = true;
  }
  void cancel() {
    if (!cancelled.exchange(true)) {
      context.cancel_group_execution();
      wakeup.wake_all();
    }
  }

  // Runs f (a call into plugin code); times one call in kTimingSample. `call` numbers the calls of the node.
  template <typename F>
  void timed(Node& n, std::uint64_t call, F&& f) {
    if (call % kTimingSample != 0) {
      f();
      return;
    }
    auto t0 = Clock::now();
    f();
    add<std::int64_t>(n.busy_ns, (Clock::now() - t0).count() * static_cast<std::int64_t>(kTimingSample),
                      n.single_writer);
  }

  // Every call into plugin code goes through here: exceptions are copied into host-owned errors
  // inside the call, so none crosses the package boundary alive.
  template <typename F>
  bool guarded(Node& n, const char* phase, F&& f) {
    try {
      f();
      return true;
    } catch (const std::exception& e) {
      fail(n, phase, e.what());
    } catch (...) {
      fail(n, phase, "unknown exception");
    }
    return false;
  }

  // The free space of the fullest queue downstream of a source (<= 0: one is full).
  std::int64_t headroom(const Node& source) const {
    const auto capacity = static_cast<std::int64_t>(options.queue_capacity);
    std::int64_t room = capacity;
    for (const Node* d : source.downstream)
      room = std::min(room, capacity - d->queued.load(std::memory_order_relaxed));
    return room;
  }

  // Waits until every queue downstream of the source has room; returns how many messages the source may
  // emit before it looks again (at least 1).
  std::int64_t wait_for_room(const Node& source) {
    int spins = 0;
    std::int64_t room = 0;
    while ((room = headroom(source)) <= 0 && !cancelled.load(std::memory_order_relaxed) &&
           interrupt_level() < 2) {
      if (++spins < 64)
        std::this_thread::yield();
      else
        std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    return std::clamp<std::int64_t>(room, 1, kRoomCheckEvery);
  }

  bool build() {
    const std::size_t n = plan.components.size();
    nodes.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      const auto& pc = plan.components[i];
      auto node = std::make_unique<Node>();
      node->index = i;
      node->id = pc.id;
      node->plan_id = pc.id;
      node->where = pc.where;
      node->manifest = &pc.manifest();
      node->source = is_source(pc.manifest().kind);
      node->outputs.resize(pc.manifest().outputs.size());
      node->policy = pc.on_error;
      node->tap_of_port.assign(pc.manifest().outputs.size(), -1);
      node->services = std::make_unique<ComponentServices>(pc.id, clock, cancelled);
      node->emitter = std::make_unique<NodeEmitter>(*node, *this, node->source);
      nodes.push_back(std::move(node));
    }
    for (const auto& l : plan.links)
      nodes[l.from]->outputs[l.from_port].push_back({nodes[l.to].get(), l.to_port, l.expand_frames});
    if (!resolve_taps()) return false;
    for (auto& node : nodes) {
      std::vector<bool> seen(n, false);
      std::vector<Node*> stack{node.get()};
      while (!stack.empty()) {
        Node* v = stack.back();
        stack.pop_back();
        for (const auto& port : v->outputs)
          for (const auto& t : port)
            if (!seen[t.node->index]) {
              seen[t.node->index] = true;
              node->downstream.push_back(t.node);
              stack.push_back(t.node);
            }
      }
    }
    for (std::size_t i = 0; i < n; ++i) {
      Node& node = *nodes[i];
      const auto& pc = plan.components[i];
      CreateContext ctx{pc.id, *node.services};
      const bool created =
          guarded(node, "create", [&] { node.component = pc.entry->factory->create(ctx, pc.config); });
      if (created && !node.component) fail(node, "create", "the factory returned no component");
      if (cancelled) return false;
      if (node.source) continue;
      const Concurrency& c = node.manifest->concurrency;
      std::size_t concurrency = c.limit;
      const bool lightweight = c.mode == Concurrency::Mode::kLightweight;
      node.single_writer = c.mode == Concurrency::Mode::kSerial || lightweight ||
                           (c.mode == Concurrency::Mode::kLimited && c.limit == 1);
      if (c.mode == Concurrency::Mode::kSerial || lightweight) concurrency = flow::serial;
      if (c.mode == Concurrency::Mode::kReentrant) concurrency = flow::unlimited;
      Node* self = &node;
      auto body = [this, self](const Delivery& d) noexcept {
        if (interrupt_level() >= 2) cancel();  // second Ctrl-C: drop what is queued instead of draining it
        if (!cancelled.load(std::memory_order_relaxed) && !self->stopped.load(std::memory_order_relaxed)) {
          const std::uint64_t call = self->received.load(std::memory_order_relaxed);
          add<std::uint64_t>(self->received, 1, self->single_writer);
          timed(*self, call, [&] {
            guarded(*self, "process", [&] { self->component->process(d.envelope, d.port, *self->emitter); });
          });
        }
        self->queued.fetch_sub(1, std::memory_order_relaxed);
        return flow::continue_msg();
      };
      if (lightweight) {
        auto f = std::make_unique<LightweightBody>(graph, concurrency, body);
        node.input = f.get();
        node.body = std::move(f);
      } else {
        auto f = std::make_unique<QueueingBody>(graph, concurrency, body);
        node.input = f.get();
        node.body = std::move(f);
      }
    }
    return true;
  }

  void source_loop(Node& node, Clock::time_point deadline) {
    const bool has_deadline = options.duration_ns > 0;
    std::uint64_t polls = 0;
    std::optional<Clock::time_point> tick;  // this source's schedule: polls `wait` apart, not `wait` after
    while (!cancelled.load(std::memory_order_relaxed) && interrupt_level() == 0 &&
           !(has_deadline && Clock::now() >= deadline)) {
      PollResult r = PollResult::kDone;
      bool ok = true;
      const auto started = Clock::now();
      timed(node, polls++,
            [&] { ok = guarded(node, "poll", [&] { r = node.component->poll(*node.emitter); }); });
      if (!ok || r == PollResult::kDone) break;
      if (r == PollResult::kIdle) {
        auto until = next_tick(tick, poll_interval(node), started);
        if (has_deadline) until = std::min(until, deadline);
        nap_until(until);
      }
    }
    graph.release_wait();
  }

  // How long a source waits after a poll that returned idle.
  std::chrono::nanoseconds poll_interval(Node& node) const {
    const std::int64_t wait = node.component->idle_interval_ns();
    return std::chrono::nanoseconds(wait > 0 ? wait : options.idle_interval_ns);
  }

  // Fixed rate: a sampler at 10 ms polls 100 times a second however long a poll takes. A source more than
  // one interval behind (a slow poll, a stopped machine) restarts its schedule from `from` instead of
  // polling in a burst to catch up.
  static Clock::time_point next_tick(std::optional<Clock::time_point>& tick, Clock::duration period,
                                     Clock::time_point from) {
    tick = !tick || *tick + period < from ? from + period : *tick + period;
    return *tick;
  }

  // Sleeps until `until`; a cancel or an interrupt ends the nap at once (see Wakeup).
  void nap_until(Clock::time_point until) const {
    while (Clock::now() < until && !cancelled.load(std::memory_order_relaxed) && interrupt_level() == 0)
      wakeup.nap_until(until);
  }

  // settings.source_threads: shared. One thread polls every source when it is due, so samplers at 10 ms
  // cost one wake-up per tick between them instead of one each. A source whose polls block (a vendor call
  // that measures over a window, a tool that runs) would make the others late: after two polls longer than
  // a quarter of the shortest interval it is given a thread of its own.
  void shared_source_loop(std::vector<Node*> sources, Clock::time_point deadline) {
    struct Slot {
      Node* node;
      Clock::time_point due;
      std::optional<Clock::time_point> tick;
      std::uint64_t polls = 0;
      int slow = 0;
      bool active = true;
    };
    const bool has_deadline = options.duration_ns > 0;
    auto stopping = [&] {
      return cancelled.load(std::memory_order_relaxed) || interrupt_level() != 0 ||
             (has_deadline && Clock::now() >= deadline);
    };
    std::vector<Slot> slots;
    Clock::duration shortest = std::chrono::hours(1);
    for (Node* n : sources) {
      slots.push_back({n, Clock::now(), std::nullopt});
      shortest = std::min<Clock::duration>(shortest, poll_interval(*n));
    }
    const Clock::duration slow_poll = std::max<Clock::duration>(shortest / 4, std::chrono::milliseconds(1));
    // Sources due within this much of each other are polled in one round: one wake-up per tick.
    const Clock::duration together = std::max<Clock::duration>(shortest / 20, std::chrono::microseconds(100));
    std::size_t active = slots.size();
    while (active > 0 && !stopping()) {
      const auto round = Clock::now();
      for (auto& s : slots) {
        if (!s.active) continue;
        if (round + together < s.due) continue;
        const auto started = Clock::now();
        PollResult r = PollResult::kDone;
        bool ok = true;
        Node& node = *s.node;
        timed(node, s.polls++,
              [&] { ok = guarded(node, "poll", [&] { r = node.component->poll(*node.emitter); }); });
        const auto finished = Clock::now();
        if (!ok || r == PollResult::kDone) {
          s.active = false;
          --active;
          graph.release_wait();
          continue;
        }
        if (r == PollResult::kMore) {
          s.due = finished;
          continue;
        }
        // The schedule counts from the round, so sources with one interval stay in step.
        s.due = next_tick(s.tick, poll_interval(node), round);
        s.slow = finished - started > slow_poll ? s.slow + 1 : 0;
        if (s.slow >= 2 && active > 1) {
          spdlog::info("{}: polls take {:.1f} ms: moved to a thread of its own", node.id,
                       std::chrono::duration<double, std::milli>(finished - started).count());
          s.active = false;
          --active;
          std::lock_guard lock(spilled_mu);
          spilled.emplace_back([this, n = &node, deadline] { source_loop(*n, deadline); });
        }
      }
      if (active == 0) break;  // the last source finished in this round: no nap until "never"
      auto until = Clock::time_point::max();
      for (const auto& s : slots)
        if (s.active) until = std::min(until, s.due);
      if (has_deadline) until = std::min(until, deadline);
      nap_until(until);
    }
    for (const auto& s : slots)
      if (s.active) graph.release_wait();
  }

  void wait_graph() {
    try {
      graph.wait_for_all();
    } catch (const std::exception& e) {
      // Bodies catch everything; this is the graph itself failing.
      // Field by field: GCC 12 -O3 warns (maybe-uninitialized, a false positive) on {"(graph)", {}, ...}.
      RuntimeError error;
      error.component = "(graph)";
      error.phase = "run";
      error.message = e.what();
      std::lock_guard lock(errors_mu);
      errors.push_back(std::move(error));
      cancelled = true;
    }
  }

  // Marks the tapped output ports; a tap that names no output port fails the run.
  bool resolve_taps() {
    if (!options.taps.empty() && !options.on_tap) {
      fail_run("tap", "taps were given without an on_tap callback");
      return false;
    }
    for (std::size_t t = 0; t < options.taps.size(); ++t) {
      const PortTap& tap = options.taps[t];
      auto it =
          std::find_if(nodes.begin(), nodes.end(), [&](const auto& n) { return n->id == tap.component; });
      if (it == nodes.end()) {
        fail_run("tap", fmt::format("no component '{}' in the pipeline to tap", tap.component));
        return false;
      }
      Node& node = **it;
      const int port = node.manifest->output_index(tap.port);
      if (port < 0) {
        std::vector<std::string> names;
        for (const auto& p : node.manifest->outputs) names.push_back(p.name);
        fail_run("tap", fmt::format(
                            "'{}' has no output port '{}' (outputs: {})", tap.component, tap.port,
                            names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", "))));
        return false;
      }
      node.tap_of_port[static_cast<std::size_t>(port)] = static_cast<int>(t);
    }
    return true;
  }

  // An error of the run itself, not of one component.
  void fail_run(std::string_view phase, std::string message) {
    RuntimeError error;
    error.component = "(runner)";
    error.phase = std::string(phase);
    error.message = std::move(message);
    std::lock_guard lock(errors_mu);
    errors.push_back(std::move(error));
    cancelled = true;
  }

  void deliver_tap(int tap, const Envelope& message) {
    std::lock_guard lock(tap_mu);
    options.on_tap(static_cast<std::size_t>(tap), message);
  }

  bool consumers_lightweight() const {
    for (const auto& node : nodes)
      if (!node->source && node->manifest->concurrency.mode != Concurrency::Mode::kLightweight) return false;
    return true;
  }

  std::vector<NodeStats> snapshot() const {
    std::vector<NodeStats> out;
    for (const auto& node : nodes)
      out.push_back({node->id, node->source ? 0 : node->received.load(std::memory_order_relaxed),
                     node->emitted.load(std::memory_order_relaxed),
                     node->max_queued.load(std::memory_order_relaxed),
                     static_cast<double>(node->busy_ns.load(std::memory_order_relaxed)) * 1e-9});
    return out;
  }

  // Wakes once per progress period (and when the sources are done), not in short naps.
  void progress_loop(Clock::time_point t0, const std::atomic<bool>& done) {
    const auto period =
        std::chrono::nanoseconds(std::max<std::int64_t>(options.progress_interval_ns, 1'000'000));
    auto next = Clock::now() + period;
    while (!done.load(std::memory_order_relaxed)) {
      {
        std::unique_lock lock(progress_mu);
        progress_cv.wait_until(lock, next, [&] { return done.load(std::memory_order_relaxed); });
      }
      if (done.load(std::memory_order_relaxed)) break;
      if (Clock::now() < next) continue;
      next += period;
      RunProgress p;
      p.elapsed_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
      p.nodes = snapshot();
      try {
        options.on_progress(p);
      } catch (...) {
        // A progress display must not take the run down.
      }
    }
  }

  RunReport run() {
    RunReport report;
    auto t0 = Clock::now();
    if (build()) {
      // Consumers start before producers.
      bool started_all = true;
      for (auto it = plan.topological_order.rbegin(); it != plan.topological_order.rend(); ++it) {
        Node& node = *nodes[*it];
        if (node.stopped) continue;
        if (!guarded(node, "start", [&] { node.component->start(); })) {
          if (cancelled) {
            started_all = false;
            break;
          }
          continue;  // contained: the node stays stopped
        }
        node.started = true;
      }
      if (started_all) {
        std::vector<std::thread> threads;
        auto deadline = Clock::now() + std::chrono::nanoseconds(options.duration_ns);
        std::vector<Node*> sources;
        for (auto& node : nodes)
          if (node->source && !node->stopped) {
            graph.reserve_wait();
            sources.push_back(node.get());
          }
        if (plan.document.shared_source_thread && sources.size() > 1)
          threads.emplace_back([this, sources, deadline] { shared_source_loop(sources, deadline); });
        else
          for (Node* n : sources) threads.emplace_back([this, n, deadline] { source_loop(*n, deadline); });
        std::atomic<bool> sources_done{false};
        std::thread progress;
        if (options.on_progress)
          progress = std::thread([this, t0, &sources_done] { progress_loop(t0, sources_done); });
        // When every consumer is lightweight (runs in its producer's thread, as in `collect`), this thread
        // has nothing to help with: it waits for the sources instead of inside wait_for_all, where it would
        // spin and yield between messages. Otherwise it stays a worker of the graph (with one hardware
        // thread it is the only one).
        if (consumers_lightweight() && oneapi::tbb::info::default_concurrency() > 1)
          for (auto& t : threads) t.join();
        wait_graph();  // returns once every source released its wait and the graph is idle
        for (auto& t : threads)
          if (t.joinable()) t.join();
        // Sources moved off the shared thread: that thread has ended, so the list is complete.
        for (auto& t : spilled)
          if (t.joinable()) t.join();
        {
          std::lock_guard lock(progress_mu);
          sources_done = true;
        }
        progress_cv.notify_all();
        if (progress.joinable()) progress.join();
        // End of stream: flush upstream first, draining after each, so buffered state reaches consumers
        // before they flush.
        for (std::size_t i : plan.topological_order) {
          if (cancelled) break;
          Node& node = *nodes[i];
          if (node.stopped) continue;
          node.emitter->set_blocking(false);
          guarded(node, "flush", [&] { node.component->flush(*node.emitter); });
          wait_graph();
        }
      }
      for (std::size_t i : plan.topological_order) {
        Node& node = *nodes[i];
        if (node.component && node.started) guarded(node, "stop", [&] { node.component->stop(); });
      }
    }
    report.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    report.interrupted = interrupt_level() > 0;
    report.cancelled = cancelled.load();
    report.errors = errors;
    report.ok =
        std::none_of(errors.begin(), errors.end(), [](const RuntimeError& e) { return !e.contained; });
    report.nodes = snapshot();
    return report;
  }

  ~Impl() {
    wait_graph();
    // Nodes before components, components (plugin code) before anything else the plugins gave us.
    for (auto& node : nodes) node->body.reset();
    for (auto it = plan.topological_order.rbegin(); it != plan.topological_order.rend(); ++it)
      if (*it < nodes.size()) nodes[*it]->component.reset();
    nodes.clear();
  }
};

void NodeEmitter::emit(std::size_t port, Envelope envelope) {
  if (port >= self_.outputs.size())
    throw std::out_of_range(fmt::format("emitted on output port {}, but '{}' declares {} output port(s)",
                                        port, self_.manifest->type, self_.outputs.size()));
  const std::string& declared = self_.manifest->outputs[port].produces;
  if (envelope.type_id() != declared)
    throw std::logic_error(
        fmt::format("emitted a '{}' message on output port '{}', which is declared to produce '{}'",
                    envelope.type_id(), self_.manifest->outputs[port].name, declared));
  if (blocking_) {
    if (self_.room_credit <= 0) self_.room_credit = runner_.wait_for_room(self_);
    --self_.room_credit;
  }
  envelope.set_source(self_.plan_id);
  add<std::uint64_t>(self_.emitted, 1, self_.single_writer);
  if (const int tap = self_.tap_of_port[port]; tap >= 0) runner_.deliver_tap(tap, envelope);
  auto& targets = self_.outputs[port];
  Envelope expanded;  // a frame as the batch of its points, made once for every target that needs it
  for (std::size_t i = 0; i < targets.size(); ++i) {
    Node& target = *targets[i].node;
    std::int64_t q = target.queued.fetch_add(1, std::memory_order_relaxed) + 1;
    std::int64_t prev = target.max_queued.load(std::memory_order_relaxed);
    while (q > prev && !target.max_queued.compare_exchange_weak(prev, q, std::memory_order_relaxed)) {
    }
    if (targets[i].expand_frames && envelope.is<MetricFrame>()) {
      if (expanded.empty()) {
        expanded = Envelope::make(envelope.key(), to_metric_batch(envelope.as<MetricFrame>()));
        expanded.set_source(self_.plan_id);
      }
      target.input->try_put(Delivery{expanded, targets[i].port});
    } else if (i + 1 == targets.size()) {
      target.input->try_put(Delivery{std::move(envelope), targets[i].port});
    } else {
      target.input->try_put(Delivery{envelope, targets[i].port});
    }
  }
}

GraphRunner::GraphRunner(const PipelinePlan& plan, RunOptions options)
    : impl_(std::make_unique<Impl>(plan, options)) {}
GraphRunner::~GraphRunner() = default;
RunReport GraphRunner::run() {
  return impl_->run();
}

}  // namespace cann_debug::host
