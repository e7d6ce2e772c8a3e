// bench_chain: the trivial components of the throughput benchmark, built as a real plugin package.
//
//   bench_source  reader     emits `count` bench.tick/1 messages, `per_poll` of them per poll()
//   bench_pass    extractor  forwards every message unchanged (a copy of the envelope; the payload is shared)
//   bench_sink    sink       counts messages; with `expect` set, fails at flush unless every one of
//                            seq 0..expect-1 arrived exactly once (order is not checked: a flow graph
//                            need not keep it)
#include <cstdint>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "bench_message.hpp"
#include "cann_debug/package.hpp"

namespace cann_debug::bench {
namespace {

const std::string kTick(BenchTick::type_id);

Manifest source_manifest() {
  Manifest m;
  m.type = "bench_source";
  m.kind = ComponentKind::kReader;
  m.stability = Stability::kDevelopment;
  m.description = "Benchmark source: emits `count` bench.tick/1 messages (seq 0..count-1) on port 'out'.";
  m.outputs = {{"out", kTick, "the generated messages"}};
  m.options = {
      {.name = "count",
       .type = OptionType::kInt,
       .description = "number of messages to emit",
       .default_value = 1000,
       .min = 0,
       .max = 1e12},
      {.name = "per_poll",
       .type = OptionType::kInt,
       .description = "messages emitted per poll() call",
       .default_value = 1,
       .min = 1,
       .max = 1 << 20},
  };
  m.sample_yaml = "bench_source/src: { count: 100000, per_poll: 1 }\n";
  return m;
}

Manifest pass_manifest(const char* type, Concurrency concurrency) {
  Manifest m;
  m.type = type;
  m.concurrency = concurrency;
  m.kind = ComponentKind::kExtractor;
  m.stability = Stability::kDevelopment;
  m.description = "Benchmark stage: forwards every bench.tick/1 message from 'in' to 'out' unchanged.";
  m.inputs = {{"in", {kTick}, true, "messages to forward"}};
  m.outputs = {{"out", kTick, "the same messages"}};
  m.sample_yaml = "bench_pass/p1: {}\n";
  return m;
}

Manifest sink_manifest(const char* type, Concurrency concurrency) {
  Manifest m;
  m.type = type;
  m.concurrency = concurrency;
  m.kind = ComponentKind::kSink;
  m.stability = Stability::kDevelopment;
  m.description =
      "Benchmark sink: counts bench.tick/1 messages; with `expect` set, fails at end of stream unless "
      "messages 0..expect-1 all arrived (count and checksum; order is not checked).";
  m.inputs = {{"in", {kTick}, true, "messages to count"}};
  m.options = {
      {.name = "expect",
       .type = OptionType::kInt,
       .description = "number of messages that must arrive (-1 = do not check)",
       .default_value = -1,
       .min = -1,
       .max = 1e12},
  };
  m.sample_yaml = "bench_sink/sink: { expect: 100000 }\n";
  return m;
}

class Source final : public Component {
 public:
  Source(const CreateContext& /*ctx*/, const Config& config)
      : count_(static_cast<std::uint64_t>(config.integer("count"))),
        per_poll_(static_cast<std::uint64_t>(config.integer("per_poll"))) {}

  PollResult poll(Emitter& out) override {
    for (std::uint64_t i = 0; i < per_poll_ && next_ < count_; ++i) out.emit(0, make_tick(next_++));
    return next_ < count_ ? PollResult::kMore : PollResult::kDone;
  }

 private:
  std::uint64_t count_;
  std::uint64_t per_poll_;
  std::uint64_t next_ = 0;
};

class Pass final : public Component {
 public:
  Pass(const CreateContext& /*ctx*/, const Config& /*config*/) {}
  void process(const Envelope& message, std::size_t /*port*/, Emitter& out) override { out.emit(0, message); }
};

class Sink final : public Component {
 public:
  Sink(const CreateContext& /*ctx*/, const Config& config) : expect_(config.integer("expect")) {}
  void process(const Envelope& message, std::size_t /*port*/, Emitter& /*out*/) override {
    sum_ += message.as<BenchTick>().seq;
    ++count_;
  }
  void flush(Emitter& /*out*/) override {
    if (expect_ < 0) return;
    const auto n = static_cast<std::uint64_t>(expect_);
    if (!tick_checksum_ok(count_, sum_, n))
      throw std::runtime_error(
          fmt::format("expected messages 0..{} once each, got {} messages with seq sum {}",
                      n == 0 ? 0 : n - 1, count_, sum_));
  }

 private:
  std::int64_t expect_;
  std::uint64_t count_ = 0;
  std::uint64_t sum_ = 0;
};

}  // namespace

const ComponentFactory& source_factory() {
  static const SimpleFactory<Source> f(source_manifest());
  return f;
}
// Trivial stages declare themselves lightweight, as such plugins should; the *_serial twins measure the
// default (a task per message per stage).
const ComponentFactory& pass_factory() {
  static const SimpleFactory<Pass> f(pass_manifest("bench_pass", Concurrency::lightweight()));
  return f;
}
const ComponentFactory& sink_factory() {
  static const SimpleFactory<Sink> f(sink_manifest("bench_sink", Concurrency::lightweight()));
  return f;
}
const ComponentFactory& pass_serial_factory() {
  static const SimpleFactory<Pass> f(pass_manifest("bench_pass_serial", Concurrency::serial()));
  return f;
}
const ComponentFactory& sink_serial_factory() {
  static const SimpleFactory<Sink> f(sink_manifest("bench_sink_serial", Concurrency::serial()));
  return f;
}

}  // namespace cann_debug::bench

CANN_DEBUG_PACKAGE("bench_chain", "0.1.0", &cann_debug::bench::source_factory(),
                   &cann_debug::bench::pass_factory(), &cann_debug::bench::sink_factory(),
                   &cann_debug::bench::pass_serial_factory(), &cann_debug::bench::sink_serial_factory());
