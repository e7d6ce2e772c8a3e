// Scalar tag names of Megatron(-DeepSpeed), Hugging Face, Lightning and hand-written loops -> fields.
#include "scalar_names.hpp"

#include <array>
#include <cctype>
#include <utility>

#include "cann_debug/reader/text.hpp"

namespace cann_debug::plugins::tensorboard {
namespace {

constexpr std::array<std::pair<std::string_view, std::string_view>, 22> kNames{{
    {"lm loss", "loss"},
    {"loss", "loss"},
    {"train/loss", "loss"},
    {"loss/train", "loss"},
    {"training loss", "loss"},
    {"train_loss", "loss"},
    {"learning-rate", "lr"},
    {"learning_rate", "lr"},
    {"train/learning_rate", "lr"},
    {"lr", "lr"},
    {"grad-norm", "grad_norm"},
    {"grad_norm", "grad_norm"},
    {"train/grad_norm", "grad_norm"},
    {"loss-scale", "loss_scale"},
    {"num-zeros", "num_zeros"},
    {"iteration-time", "iteration_time_s"},  // Megatron writes seconds
    {"lm loss validation", "val_loss"},
    {"eval/loss", "val_loss"},
    {"loss/val", "val_loss"},
    {"val_loss", "val_loss"},
    {"validation loss", "val_loss"},
    {"params-norm", "params_norm"},
}};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::string field_of_tag(std::string_view tag) {
  std::string t = lower(readers::trim(tag));
  if (t.ends_with(" vs samples") || t.ends_with(" vs tokens")) return {};
  // Megatron-DeepSpeed nests a tag under a group of (nearly) its own name: "grad-norm/grad-norm",
  // "lm-loss-training/lm loss", "lm-loss-validation/lm loss validation".
  if (const auto slash = t.find('/'); slash != std::string::npos) {
    const std::string group = t.substr(0, slash), leaf = t.substr(slash + 1);
    if (group == leaf || group.starts_with("lm-loss-") || group == "learning-rate" || group == "loss-scale")
      t = leaf;
  }
  for (const auto& [from, to] : kNames)
    if (t == from) return std::string(to);
  return readers::snake_case(tag);
}

}  // namespace cann_debug::plugins::tensorboard
