// Parsing of log rows and config values for the training feature extractor.
#include "training_log.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <set>
#include <string_view>

namespace cann_debug::plugins::training_detail {
namespace {

using nlohmann::json;

std::optional<double> nonfinite_from_string(std::string_view s) {
  if (s.size() > 9) return std::nullopt;
  std::string t;
  for (char c : s) t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (t == "nan" || t == "-nan" || t == "+nan") return std::numeric_limits<double>::quiet_NaN();
  if (t == "inf" || t == "+inf" || t == "infinity" || t == "+infinity")
    return std::numeric_limits<double>::infinity();
  if (t == "-inf" || t == "-infinity") return -std::numeric_limits<double>::infinity();
  return std::nullopt;
}

std::optional<std::int64_t> integer_field(const json& value) {
  if (value.is_number_integer()) return value.get<std::int64_t>();
  if (value.is_number_float()) {
    const double d = value.get<double>();
    if (std::isfinite(d) && d == std::floor(d)) return static_cast<std::int64_t>(d);
  }
  return std::nullopt;
}

// Splits "3.c1.weight" into {"3", "c1", "weight"}.
std::vector<std::string_view> dotted_parts(std::string_view name) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = name.find('.', start);
    parts.push_back(name.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return parts;
}

std::optional<std::uint64_t> as_index(std::string_view part) {
  if (part.empty() || part.size() > 18) return std::nullopt;
  std::uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
  if (ec != std::errc{} || ptr != part.data() + part.size()) return std::nullopt;
  return v;
}

}  // namespace

std::optional<double> numeric_field(const json& value) {
  if (value.is_number()) return value.get<double>();
  if (value.is_string()) return nonfinite_from_string(value.get_ref<const std::string&>());
  return std::nullopt;
}

LogRow row_from_record(const Record& record, std::int64_t index) {
  LogRow row;
  row.index = index;
  row.step = record.key.step_id;
  row.time_ns = record.key.timestamp_ns;
  const json& f = record.fields;
  if (!f.is_object()) return row;
  if (row.step < 0 && f.contains("step"))
    if (auto s = integer_field(f.at("step")); s && *s >= 0) row.step = *s;
  if (f.contains("epoch")) row.epoch = integer_field(f.at("epoch"));
  for (const char* key : {"loss", "train_loss"}) {
    if (f.contains(key)) {
      row.loss = numeric_field(f.at(key));
      if (row.loss) break;
    }
  }
  if (f.contains("grad_norm")) row.grad_norm = numeric_field(f.at("grad_norm"));
  for (const char* key : {"lr", "learning_rate"}) {  // learning_rate: Hugging Face's name
    if (f.contains(key)) {
      row.lr = numeric_field(f.at(key));
      if (row.lr) break;
    }
  }
  if (f.contains("segment"))
    if (auto s = integer_field(f.at("segment")); s && *s >= 0) row.segment = *s;
  if (f.contains("skipped_iterations")) row.skipped_iterations = numeric_field(f.at("skipped_iterations"));
  if (f.contains("nan_iterations")) row.nan_iterations = numeric_field(f.at("nan_iterations"));
  if (f.contains("loss_scale")) row.loss_scale = numeric_field(f.at("loss_scale"));
  if (f.contains("iteration_time_ms")) row.iteration_time_ms = numeric_field(f.at("iteration_time_ms"));
  if (f.contains("tokens_per_second")) row.tokens_per_second = numeric_field(f.at("tokens_per_second"));
  if (f.contains("global_batch_size")) row.global_batch_size = numeric_field(f.at("global_batch_size"));
  if (f.contains("clip_threshold")) {
    const json& c = f.at("clip_threshold");
    row.has_clip_field = true;
    if (!c.is_null()) row.clip_threshold = numeric_field(c);
  }
  if (f.contains("layer_grad_norms") && f.at("layer_grad_norms").is_object()) {
    for (const auto& [name, v] : f.at("layer_grad_norms").items())
      if (auto x = numeric_field(v)) row.layer_grad_norms[name] = *x;
  }
  return row;
}

RunConfig config_from(const RunConfiguration& config) {
  const auto positive = [](auto v) { return v && *v > 0 ? v : decltype(v){}; };
  RunConfig c;
  c.steps_per_epoch = positive(config.integer("steps_per_epoch"));
  c.batch_size = positive(config.integer("batch_size"));
  c.clip_threshold = positive(config.number("clip_threshold"));
  c.lr = positive(config.number("lr"));
  if (!c.lr) c.lr = positive(config.number("optimizer.lr"));
  c.dataset_samples = positive(config.integer("dataset.num_samples"));
  return c;
}

bool layer_name_less(const std::string& a, const std::string& b) {
  const auto pa = dotted_parts(a), pb = dotted_parts(b);
  for (std::size_t i = 0; i < pa.size() && i < pb.size(); ++i) {
    if (pa[i] == pb[i]) continue;
    const auto ia = as_index(pa[i]), ib = as_index(pb[i]);
    if (ia && ib) return *ia < *ib;
    if (ia != ib) return ia.has_value();  // numbered modules before named ones
    return pa[i] < pb[i];
  }
  return pa.size() < pb.size();
}

std::vector<std::string> logged_layers(const std::vector<LogRow>& rows) {
  std::set<std::string> names;
  for (const LogRow& r : rows)
    for (const auto& [name, norm] : r.layer_grad_norms) names.insert(name);
  std::vector<std::string> out(names.begin(), names.end());
  std::sort(out.begin(), out.end(), layer_name_less);
  return out;
}

bool one_row_per_step(const std::vector<LogRow>& rows) {
  for (std::size_t i = 1; i < rows.size(); ++i)
    if (step_of(rows[i]) != step_of(rows[i - 1]) + 1) return false;
  return true;
}

std::optional<std::string> output_layer_bias(const std::vector<LogRow>& rows) {
  // The names PyTorch model code gives its output layer (torchvision's fc and classifier, timm's head,
  // Hugging Face's classifier, lm_head and score): the last such module that logs a bias, else the module
  // of the last parameter in network order.
  static const std::set<std::string, std::less<>> kOutputModules = {
      "head", "fc", "classifier", "lm_head", "output", "logits", "score", "out"};
  const std::vector<std::string> layers = logged_layers(rows);
  if (layers.empty()) return std::nullopt;
  const auto module_of = [](const std::string& name) {
    const std::size_t dot = name.rfind('.');
    return dot == std::string::npos ? std::string() : name.substr(0, dot);
  };
  const auto logs = [&](const std::string& name) {
    return std::find(layers.begin(), layers.end(), name) != layers.end();
  };
  for (auto it = layers.rbegin(); it != layers.rend(); ++it) {
    const std::string module = module_of(*it);
    const std::size_t dot = module.rfind('.');
    const std::string last = dot == std::string::npos ? module : module.substr(dot + 1);
    if (kOutputModules.count(last) > 0 && logs(module + ".bias")) return module + ".bias";
  }
  const std::string module = module_of(layers.back());
  const std::string bias = module.empty() ? std::string("bias") : module + ".bias";
  if (!logs(bias)) return std::nullopt;
  return bias;
}

}  // namespace cann_debug::plugins::training_detail
