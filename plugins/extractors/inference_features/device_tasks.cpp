#include "device_tasks.hpp"

#include <algorithm>
#include <utility>

#include "feature_builder.hpp"

namespace cann_debug::plugins::inference {
namespace {

std::string text(const nlohmann::json& fields, const char* key) {
  const auto it = fields.find(key);
  return it != fields.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Communication tasks are not compute: an HCCL collective's time is the link's, not an operator's.
bool communication(const std::string& core, const std::string& type) {
  return core == "HCCL" || core == "COMMUNICATION" || type.starts_with("hcom_") || type.starts_with("Hcom");
}

std::vector<std::pair<std::string, double>> largest(const std::map<std::string, double>& by_type,
                                                    std::size_t n) {
  std::vector<std::pair<std::string, double>> v(by_type.begin(), by_type.end());
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  if (v.size() > n) v.resize(n);
  return v;
}

}  // namespace

void DeviceTasks::add(const RecordBatch& batch) {
  if (source_.empty()) source_ = batch.source_path;
  for (const Record& r : batch.records) {
    if (!r.fields.is_object()) continue;
    const auto d = r.fields.find("duration_ns");
    if (d == r.fields.end() || !d->is_number()) continue;
    const double ns = d->get<double>();
    if (!(ns > 0.0)) continue;
    const std::string core = text(r.fields, "accelerator_core");
    std::string type = text(r.fields, "type");
    if (type.empty() || type == "N/A") type = text(r.fields, "name");
    if (communication(core, type)) continue;
    compute_ns_ += ns;
    by_type_[type] += ns;
    if (core == "AI_CPU") {
      aicpu_ns_ += ns;
      aicpu_by_type_[type] += ns;
    }
  }
}

void DeviceTasks::features(std::vector<Feature>& out) const {
  if (empty()) return;
  FeatureBuilder add(out);
  EvidenceRef file;
  file.kind = "series";
  file.id = source_;
  add.add("device.compute_task_ms", compute_ns_ / 1e6, "ms", {file});
  std::vector<EvidenceRef> aicpu;
  for (const auto& [type, ns] : largest(aicpu_by_type_, 3)) aicpu.push_back({.kind = "operator", .id = type});
  aicpu.push_back(file);
  add.add("device.aicpu_share", aicpu_ns_ / compute_ns_, "ratio", std::move(aicpu));
  const auto top = largest(by_type_, 1);
  if (!top.empty())
    add.add("device.top_op_share", top.front().second / compute_ns_, "ratio",
            {{.kind = "operator", .id = top.front().first}, file});
}

}  // namespace cann_debug::plugins::inference
