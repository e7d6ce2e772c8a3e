// TensorBoard scalar tags as the trainers write them -> the record fields the training features read.
#pragma once

#include <string>
#include <string_view>

namespace cann_debug::plugins::tensorboard {

/// "" for a tag whose x axis is not the step ("lm loss vs samples", "... vs tokens"): left out.
std::string field_of_tag(std::string_view tag);

}  // namespace cann_debug::plugins::tensorboard
