// correlate: aligns two inputs by step id (when both carry one) or by time window, with bounded memory.
#include "correlate.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "cann_debug/messages.hpp"
#include "join_state.hpp"

namespace cann_debug::plugins {
namespace {

using correlate::JoinOptions;
using correlate::JoinState;
using correlate::Mode;

Manifest make_manifest() {
  const std::vector<std::string> accepted = {
      std::string(RecordBatch::type_id), std::string(MetricBatch::type_id), std::string(EventBatch::type_id)};
  Manifest m;
  m.type = "correlate";
  m.kind = ComponentKind::kExtractor;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description = "Joins two record, metric or event streams by step id or time window into json/1 rows.";
  m.inputs = {{"a", accepted, false, "first stream"}, {"b", accepted, false, "second stream"}};
  m.outputs = {
      {"joined", std::string(JsonMessage::type_id), "one row per joined step or window, then a summary"}};
  m.options = {
      {.name = "mode",
       .type = OptionType::kEnum,
       .description = "join key: auto (steps when both inputs carry them, else time windows), step (items "
                      "without a step are unkeyed), time (steps ignored)",
       .default_value = "auto",
       .enum_values = {"auto", "step", "time"}},
      {.name = "window",
       .type = OptionType::kDuration,
       .description = "width of the time windows",
       .default_value = "1s",
       .min = 1},
      {.name = "max_pending_steps",
       .type = OptionType::kInt,
       .description = "how many steps behind the newest one a step may stay open (also: most windows held)",
       .default_value = 64,
       .min = 1,
       .max = 1e7},
      {.name = "lateness",
       .type = OptionType::kDuration,
       .description = "how long past a window's end items may still arrive before it closes",
       .default_value = "5s",
       .min = 0},
      {.name = "max_records_per_key",
       .type = OptionType::kInt,
       .description = "records kept per input and key (more are counted in records_dropped)",
       .default_value = 256,
       .min = 0,
       .max = 1e6},
  };
  m.concurrency = Concurrency::serial();
  m.sample_yaml =
      "correlate/steps:\n"
      "  max_pending_steps: 16   # a step one input never reaches is dropped 16 steps later\n"
      "# links: jsonl/train.records -> correlate/steps.a ; ascend_step_trace/r0.metrics -> "
      "correlate/steps.b\n";
  return m;
}

class Correlate final : public Component {
 public:
  Correlate(const CreateContext& /*ctx*/, const Config& config) : state_(options(config)) {}

  void process(const Envelope& message, std::size_t port, Emitter& out) override {
    const int side = port == 0 ? 0 : 1;
    if (message.is<RecordBatch>()) {
      for (const auto& r : message.as<RecordBatch>().records) state_.add(side, r);
    } else if (message.is<MetricBatch>()) {
      for (const auto& p : message.as<MetricBatch>().points) state_.add(side, p);
    } else if (message.is<EventBatch>()) {
      for (const auto& e : message.as<EventBatch>().events) state_.add(side, e);
    } else {
      // The host checked the link's type names: a mismatch here is a package built against other SDK headers.
      throw std::runtime_error(fmt::format(
          "input '{}': expected record.batch/1, metric.batch/1 or event.batch/1, got '{}' (type hash {:#x}; "
          "this "
          "package expects {:#x} for metric.batch/1: were the packages built against different SDK headers?)",
          side == 0 ? "a" : "b", message.type_id(), message.type_hash(), type_hash_of<MetricBatch>));
    }
    send(state_.take_ready(), out);
  }

  void flush(Emitter& out) override { send(state_.flush(), out); }

 private:
  static JoinOptions options(const Config& config) {
    JoinOptions o;
    const std::string mode = config.str("mode");
    o.mode = mode == "step" ? Mode::kStep : mode == "time" ? Mode::kTime : Mode::kAuto;
    o.window_ns = config.duration_ns("window");
    o.max_pending_steps = config.integer("max_pending_steps");
    o.lateness_ns = config.duration_ns("lateness");
    o.max_records_per_key = static_cast<std::size_t>(config.integer("max_records_per_key"));
    return o;
  }

  static void send(std::vector<correlate::Row> rows, Emitter& out) {
    for (auto& row : rows) out.emit(0, std::move(row.key), JsonMessage{std::move(row.value)});
  }

  JoinState state_;
};

}  // namespace

const ComponentFactory& correlate_factory() {
  static const SimpleFactory<Correlate> factory(make_manifest());
  return factory;
}

}  // namespace cann_debug::plugins
