// Learning rate over the optimizer's customary rate; see optimizer_rate.hpp and docs/features-training.md
// ("Data features").
#include "optimizer_rate.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>

namespace cann_debug::plugins::training_detail {
namespace {

struct CustomaryRate {
  std::string_view family;  // a part of the lowercase class name
  double lr;
};

// Most specific first: "adamw" and "nadam" contain "adam", "adamax" too. LARS and LARC (layer-wise rate
// scaling over SGD) are left out: their global rate runs from 1 to 30 at large batches.
constexpr std::array<CustomaryRate, 10> kCustomaryRates{{{"adadelta", 1.0},
                                                         {"adagrad", 1e-2},
                                                         {"adamax", 2e-3},
                                                         {"nadam", 2e-3},
                                                         {"radam", 1e-3},
                                                         {"adam", 1e-3},
                                                         {"lamb", 1e-3},
                                                         {"rmsprop", 1e-2},
                                                         {"sgd", 0.1},
                                                         {"momentum", 0.1}}};  // MindSpore's nn.Momentum

std::string lowercase(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace

std::optional<double> customary_learning_rate(std::string_view optimizer) {
  const std::string name = lowercase(optimizer);
  for (const CustomaryRate& r : kCustomaryRates)
    if (name.find(r.family) != std::string::npos) return r.lr;
  return std::nullopt;
}

std::optional<std::string> optimizer_of_step_event(std::string_view event_name) {
  constexpr std::string_view kPrefix = "Optimizer.step#";
  constexpr std::string_view kSuffix = ".step";
  if (!event_name.starts_with(kPrefix) || !event_name.ends_with(kSuffix)) return std::nullopt;
  const std::string_view name =
      event_name.substr(kPrefix.size(), event_name.size() - kPrefix.size() - kSuffix.size());
  if (name.empty()) return std::nullopt;
  return std::string(name);
}

void TraceOptimizerScanner::add(const EventBatch& batch) {
  for (const Event& e : batch.events) {
    if (e.start_ns == kNoTimestamp) continue;
    const auto name = optimizer_of_step_event(e.name);
    if (!name || (found_ && found_->source.start_ns <= e.start_ns)) continue;
    found_ = NamedOptimizer{*name, operator_ref(e)};
  }
}

std::optional<NamedOptimizer> optimizer_of_config(const RunConfiguration& config) {
  std::optional<std::string> name = config.text("optimizer.name");
  if (!name) name = config.text("optimizer");
  if (!name || name->empty()) return std::nullopt;
  return NamedOptimizer{*name, {"config", "optimizer " + *name, kNoTimestamp, kNoTimestamp, -1, -1}};
}

std::optional<NamedOptimizer> optimizer_of_log_arguments(const Record& record) {
  const nlohmann::json& f = record.fields;
  if (!f.is_object() || f.value("log_kind", "") != "arguments") return std::nullopt;
  const auto args = f.find("arguments");
  if (args == f.end() || !args->is_object()) return std::nullopt;
  const auto name = args->find("optimizer");
  if (name == args->end() || !name->is_string() || name->get_ref<const std::string&>().empty())
    return std::nullopt;
  std::int64_t line = record.line;
  if (const auto lines = f.find("argument_lines"); lines != f.end() && lines->is_object())
    if (const auto at = lines->find("optimizer"); at != lines->end() && at->is_number_integer())
      line = at->get<std::int64_t>();
  const std::string& optimizer = name->get_ref<const std::string&>();
  return NamedOptimizer{optimizer,
                        {"line", "optimizer " + optimizer, kNoTimestamp, kNoTimestamp, line, line}};
}

void add_rate_over_customary(const std::vector<LogRow>& rows, const RunConfig& config,
                             const std::optional<NamedOptimizer>& optimizer, FeatureList& out) {
  if (!optimizer) return;
  const std::optional<double> customary = customary_learning_rate(optimizer->name);
  if (!customary) return;
  std::optional<std::size_t> peak;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i].lr && std::isfinite(*rows[i].lr) && *rows[i].lr > 0.0 &&
        (!peak || *rows[i].lr > *rows[*peak].lr))
      peak = i;
  if (!peak && !config.lr) return;
  const double rate = peak ? *rows[*peak].lr : *config.lr;
  const EvidenceRef rate_ref =
      peak ? row_ref(rows, *peak, "lr") : EvidenceRef{"config", "lr", kNoTimestamp, kNoTimestamp, -1, -1};
  out.add("lr.customary", *customary, "lr", {optimizer->source});
  out.add("lr.peak_over_customary", rate / *customary, "ratio", {rate_ref, optimizer->source});
}

}  // namespace cann_debug::plugins::training_detail
