#include "builtin_components.hpp"

#include <map>
#include <mutex>

#include "cann_debug/messages.hpp"

namespace cann_debug::host {

struct CaptureStore::Impl {
  std::mutex mu;
  std::map<std::string, std::vector<Envelope>> kept;
};

CaptureStore::CaptureStore() : impl_(new Impl) {}

CaptureStore& CaptureStore::instance() {
  static auto* store = new CaptureStore();  // lives as long as the process, like the packages it refers to
  return *store;
}

void CaptureStore::add(const std::string& key, Envelope e) {
  std::lock_guard lock(impl_->mu);
  impl_->kept[key].push_back(std::move(e));
}

std::vector<Envelope> CaptureStore::take(const std::string& key) {
  std::lock_guard lock(impl_->mu);
  auto it = impl_->kept.find(key);
  if (it == impl_->kept.end()) return {};
  std::vector<Envelope> out = std::move(it->second);
  impl_->kept.erase(it);
  return out;
}

namespace {

class CaptureSink : public Component {
 public:
  CaptureSink(const CreateContext& ctx, const Config& config) : id_(ctx.id), key_(config.str("key")) {}
  void process(const Envelope& message, std::size_t, Emitter&) override {
    // The envelope's source id points into the PipelinePlan: read the store while the plan is alive.
    CaptureStore::instance().add(key_, message);
  }

 private:
  std::string id_;
  std::string key_;
};

Manifest capture_manifest() {
  Manifest m;
  m.type = "capture";
  m.kind = ComponentKind::kSink;
  m.version = "1.0.0";
  m.stability = Stability::kStable;
  m.description = "Keeps every message in memory for the command that runs the pipeline (stats, infer, ...).";
  InputPort in{"in", {}, true, "any core message type"};
  // Not metric.frame/1: the host expands frames into metric.batch/1, which the commands read.
  for (auto id : kCoreMessageTypes)
    if (id != MetricFrame::type_id) in.accepts.emplace_back(id);
  m.inputs = {std::move(in)};
  m.options = {{.name = "key",
                .type = OptionType::kString,
                .description = "name the command reads the messages by",
                .required = true}};
  m.sample_yaml = "capture/out: { key: result }\n";
  return m;
}

}  // namespace

const ComponentFactory& capture_factory() {
  static const SimpleFactory<CaptureSink> factory(capture_manifest());
  return factory;
}

void register_builtins(PluginRegistry& registry) {
  registry.add_builtin(&capture_factory());
}

}  // namespace cann_debug::host
