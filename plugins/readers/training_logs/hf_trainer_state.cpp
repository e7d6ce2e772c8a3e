// hf_trainer_state: a Hugging Face Trainer's trainer_state.json -> one record per log_history entry.
#include "hf_trainer_state.hpp"

#include <fmt/format.h>

#include "cann_debug/reader/json_document.hpp"
#include "cann_debug/reader/numbers.hpp"
#include "cann_debug/reader/reader_component.hpp"
#include "cann_debug/reader/reader_options.hpp"
#include "cann_debug/reader/sniff_helpers.hpp"
#include "cann_debug/reader/text.hpp"

namespace cann_debug::plugins {
namespace {

using readers::JsonDocument;
using readers::OrderedJson;

class TrainerStateSource final : public readers::QueuedSource {
 public:
  explicit TrainerStateSource(const readers::ReaderContext& ctx)
      : path_(ctx.path),
        max_file_bytes_(static_cast<std::size_t>(ctx.config.bytes("max_file_bytes"))),
        rank_(static_cast<std::int32_t>(ctx.config.integer("rank"))),
        node_(ctx.config.str("node")) {}

 private:
  void fill() override {
    const JsonDocument doc = readers::load_json(path_, max_file_bytes_);
    if (doc.empty) return;
    if (!doc.root.is_object())
      readers::fail_at(doc, {},
                       fmt::format("expected a trainer state object, got {}", readers::json_kind(doc.root)));
    const auto history = doc.root.find("log_history");
    if (history == doc.root.end())
      readers::fail_at(doc, {},
                       "expected a \"log_history\" array (a Hugging Face trainer_state.json), got none");
    if (!history->is_array())
      readers::fail_at(doc, {"log_history"},
                       fmt::format("expected an array of log entries, got {}", readers::json_kind(*history)));
    std::size_t index = 0;
    for (const auto& entry : *history) {
      const readers::JsonPath where{"log_history", std::to_string(index++)};
      if (!entry.is_object())
        readers::fail_at(doc, where,
                         fmt::format("expected a log entry object, got {}", readers::json_kind(entry)));
      Record r;
      r.fields = readers::to_plain(entry);
      if (auto step = entry.find("step"); step != entry.end()) {
        const bool integral =
            step->is_number_integer() || step->is_number_unsigned() ||
            (step->is_number_float() &&
             step->get<double>() == static_cast<double>(static_cast<std::int64_t>(step->get<double>())));
        if (!integral || step->get<double>() < 0)
          readers::fail_at(doc, {where[0], where[1], "step"},
                           fmt::format("expected \"step\" to be an integer >= 0, got {}",
                                       step->is_number() ? readers::shortest_decimal(step->get<double>())
                                                         : std::string(readers::json_kind(*step))));
        r.key.step_id = static_cast<std::int64_t>(step->get<double>());
      }
      if (auto epoch = entry.find("epoch"); epoch != entry.end() && !epoch->is_number() && !epoch->is_null())
        readers::fail_at(
            doc, {where[0], where[1], "epoch"},
            fmt::format("expected \"epoch\" to be a number, got {}", readers::json_kind(*epoch)));
      r.fields["log_kind"] = kind_of(entry);
      if (rank_ >= 0) r.key.rank = rank_;
      if (!node_.empty()) r.key.node_id = node_;
      records_.push_back(std::move(r));
    }
  }

  // train (has "loss"), eval (eval_* keys), summary (train_runtime, total_flos), other.
  static std::string kind_of(const OrderedJson& entry) {
    if (entry.contains("train_runtime") || entry.contains("total_flos")) return "summary";
    for (const auto& [k, v] : entry.items())
      if (k.starts_with("eval_")) return "eval";
    if (entry.contains("loss")) return "train";
    return "other";
  }

  std::string path_;
  std::size_t max_file_bytes_;
  std::int32_t rank_;
  std::string node_;
};

int hf_trainer_state_sniff(const SniffInput& in) {
  const auto first = in.head.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || in.head[first] != '{') return 0;
  if (in.head.find("\"log_history\"") == std::string_view::npos) return 0;
  return readers::base_name(in.path) == "trainer_state.json" ? 95 : 90;
}

readers::ReaderSpec hf_trainer_state_spec() {
  Manifest m;
  m.type = "hf_trainer_state";
  m.kind = ComponentKind::kReader;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description = "Reads a Hugging Face trainer_state.json: one record per log_history entry";
  m.outputs = {{"records", std::string(RecordBatch::type_id), "one record per log_history entry"}};
  m.options = {readers::path_option("the trainer_state.json to read"), readers::batch_size_option(),
               readers::max_file_bytes_option(), readers::rank_option(), readers::node_option()};
  m.concurrency = Concurrency::serial();
  m.sample_yaml = "hf_trainer_state/run:\n  path: \"${input}/checkpoint-500/trainer_state.json\"\n";
  readers::ReaderSpec spec;
  spec.manifest = std::move(m);
  spec.open = [](const readers::ReaderContext& ctx) -> std::unique_ptr<readers::ItemSource> {
    return std::make_unique<TrainerStateSource>(ctx);
  };
  spec.sniff = hf_trainer_state_sniff;
  return spec;
}

}  // namespace

const ComponentFactory& hf_trainer_state_factory() {
  static const readers::ReaderFactory factory(hf_trainer_state_spec());
  return factory;
}

}  // namespace cann_debug::plugins
