#include "config_facts.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "feature_builder.hpp"

namespace cann_debug::plugins::inference {
namespace {

using nlohmann::json;

std::optional<double> number(const json& doc, const std::string& path, const char* key) {
  const auto it = doc.find(key);
  if (it == doc.end() || it->is_null()) return std::nullopt;
  if (!it->is_number() || it->get<double>() < 0.0)
    throw std::runtime_error(
        fmt::format("inference_features: {}: in /{}: expected a number >= 0, got {}", path, key, it->dump()));
  return it->get<double>();
}

EvidenceRef config_ref(const std::string& path, const char* key) {
  EvidenceRef ref;
  ref.kind = "config";
  ref.id = path.empty() ? std::string(key) : path + "#/" + key;
  return ref;
}

}  // namespace

ConfigFacts read_config(const RunConfiguration& config) {
  ConfigFacts facts;
  facts.path = config.source_path;
  const json& doc = config.values;
  const std::string where = facts.path.empty() ? "<config>" : facts.path;
  if (!doc.is_object())
    throw std::runtime_error(
        fmt::format("inference_features: {}: expected a JSON object, got {}", where, doc.type_name()));
  facts.cpu_count = number(doc, where, "cpu_count");
  facts.num_threads = number(doc, where, "num_threads");
  facts.max_batch_size = number(doc, where, "max_batch_size");
  facts.warmup_requests = number(doc, where, "warmup_requests");
  if (const auto it = doc.find("model_format"); it != doc.end() && !it->is_null()) {
    if (!it->is_string())
      throw std::runtime_error(fmt::format(
          "inference_features: {}: in /model_format: expected a string, got {}", where, it->dump()));
    facts.model_format = it->get<std::string>();
  }
  return facts;
}

void config_features(const ConfigFacts& config, std::vector<Feature>& out) {
  FeatureBuilder f(out);
  if (config.num_threads && config.cpu_count && *config.cpu_count > 0.0)
    f.add("config.threads_per_core", *config.num_threads / *config.cpu_count, "ratio",
          {config_ref(config.path, "num_threads"), config_ref(config.path, "cpu_count")});
  if (config.max_batch_size)
    f.add("config.max_batch_size", *config.max_batch_size, "requests",
          {config_ref(config.path, "max_batch_size")});
  if (config.warmup_requests)
    f.add("config.warmup_requests", *config.warmup_requests, "requests",
          {config_ref(config.path, "warmup_requests")});
  if (config.model_format)
    f.add("config.eager_model", *config.model_format == "eager" ? 1.0 : 0.0, "bool",
          {config_ref(config.path, "model_format")});
}

}  // namespace cann_debug::plugins::inference
