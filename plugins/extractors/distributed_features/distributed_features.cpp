// distributed_features extractor: collects per-rank trace events, log rows and the config; at flush()
// computes the features (feature_builder.cpp) and emits them.
#include "distributed_features.hpp"

#include <map>
#include <set>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "cann_debug/messages.hpp"
#include "feature_builder.hpp"
#include "run_inputs.hpp"

namespace cann_debug::plugins {
namespace {

using namespace distributed;
using nlohmann::json;

// The record schemas of the Ascend profiler readers (docs/readers.md) this extractor reads.
constexpr std::string_view kAscendCommunicationSchema = "ascend.communication/1";
constexpr std::string_view kAscendStepTraceSchema = "ascend.step_trace_time/1";

enum Port : std::size_t { kRecords = 0, kEvents = 1, kConfig = 2 };

Manifest make_manifest() {
  Manifest m;
  m.type = "distributed_features";
  m.kind = ComponentKind::kExtractor;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description =
      "Features of a data-parallel training run (step split, communication, rank skews) as feature.set/1.";
  m.inputs = {
      {"records",
       {std::string(RecordBatch::type_id)},
       false,
       "per-rank step log (metrics.jsonl) and/or ascend_communication records"},
      {"events", {std::string(EventBatch::type_id)}, false, "profiler traces of the ranks (chrome_trace)"},
      {"config",
       {std::string(RunConfiguration::type_id)},
       false,
       "the run's configuration (run_config reader)"},
  };
  m.outputs = {{"features", std::string(FeatureSet::type_id), "per-rank sets, then the run set"}};
  m.concurrency = Concurrency::serial();
  m.sample_yaml =
      "distributed_features/main: {}\n"
      "# links: chrome_trace/ranks.events -> distributed_features/main.events\n"
      "#        jsonl/steps.records      -> distributed_features/main.records\n"
      "#        run_config/config.config -> distributed_features/main.config\n";
  return m;
}

class DistributedFeatures final : public Component {
 public:
  DistributedFeatures(const CreateContext& ctx, const Config& /*config*/) : host_(ctx.host) {}

  void process(const Envelope& message, std::size_t port, Emitter& /*out*/) override {
    if (message.is<EventBatch>()) {
      if (first_reader_of(message.as<EventBatch>().source_path, message.source()))
        add_events(message.as<EventBatch>());
    } else if (message.is<RecordBatch>()) {
      add_records(message.as<RecordBatch>());
    } else if (message.is<RunConfiguration>()) {
      inputs_.config = read_run_config(message.as<RunConfiguration>());
    } else {
      throw std::runtime_error(
          fmt::format("distributed_features: cannot read a '{}' message (port {})", message.type_id(), port));
    }
  }

  void flush(Emitter& out) override {
    for (FeatureSet& set : build_feature_sets(inputs_)) out.emit(0, CorrelationKey{}, std::move(set));
  }

 private:
  void add_events(const EventBatch& batch) {
    for (const Event& e : batch.events) {
      const std::int64_t rank = e.key.has_rank() ? e.key.rank : unknown_rank(batch.source_path);
      RankTrace& trace = inputs_.traces[rank];
      trace.set_source(batch.source_path);
      trace.add(e);
    }
  }

  // Whether `reader` is the first component that delivered events of `file`. Overlapping file patterns
  // (rank*.trace.json and *.pt.trace.json both match rank-0.<host>.pt.trace.json) would otherwise count
  // every event twice; the later reader's copy is dropped.
  bool first_reader_of(const std::string& file, std::string_view reader) {
    const auto [it, inserted] = reader_of_file_.try_emplace(file, reader);
    if (inserted || it->second == reader) return true;
    if (warned_duplicates_.insert(file).second)
      host_.logger().info("distributed_features: {} is read by both {} and {}; the copy from {} is ignored",
                          file, it->second, reader, reader);
    return false;
  }

  // A trace without a rank (neither in the file nor in its name nor set as an option) gets the next
  // rank after those seen, one per source file, so two such files are never mixed up.
  std::int64_t unknown_rank(const std::string& source) {
    const auto it = unranked_sources_.find(source);
    if (it != unranked_sources_.end()) return it->second;
    std::int64_t rank = inputs_.traces.empty() ? 0 : inputs_.traces.rbegin()->first + 1;
    host_.logger().warn("distributed_features: {}: no rank in the trace; counted as rank {}", source, rank);
    unranked_sources_.emplace(source, rank);
    return rank;
  }

  void add_records(const RecordBatch& batch) {
    // Dispatch on what the reader says the rows are; a generic log (no schema) gives per-rank steps.
    if (batch.schema == kAscendCommunicationSchema) {
      for (const Record& r : batch.records)
        if (r.fields.is_object()) inputs_.ascend.add(r, batch.source_path);
      return;
    }
    if (batch.schema == kAscendStepTraceSchema) {
      for (const Record& r : batch.records)
        if (r.fields.is_object()) inputs_.step_trace.add(r, batch.source_path);
      return;
    }
    for (const Record& r : batch.records) {
      if (!r.fields.is_object()) continue;
      std::int64_t rank = r.key.has_rank() ? r.key.rank : -1;
      if (rank < 0) {
        const auto it = r.fields.find("rank");
        if (it == r.fields.end() || !it->is_number_integer()) continue;  // not a per-rank row
        rank = it->get<std::int64_t>();
      }
      std::optional<double> batch_size;
      if (const auto it = r.fields.find("batch_size"); it != r.fields.end() && it->is_number())
        batch_size = it->get<double>();
      RankLog& log = inputs_.logs[rank];
      if (log.source.empty()) log.source = batch.source_path;
      log.add(r.key.step_id, r.key.timestamp_ns, batch_size);
      if (const nlohmann::json* tokens = expert_token_field(r.fields)) log.add_expert_tokens(*tokens);
    }
  }

  HostServices& host_;
  RunInputs inputs_;
  std::map<std::string, std::int64_t> unranked_sources_;
  std::map<std::string, std::string, std::less<>> reader_of_file_;  // trace file -> the reader used for it
  std::set<std::string, std::less<>> warned_duplicates_;
};

}  // namespace

const ComponentFactory& distributed_features_factory() {
  static const SimpleFactory<DistributedFeatures> factory(make_manifest());
  return factory;
}

}  // namespace cann_debug::plugins
