// The few messages of TensorBoard's event files this reader needs, decoded from the protobuf wire format
// (tensorflow/core/util/event.proto, framework/summary.proto, framework/tensor.proto):
//   Event   { 1 wall_time double, 2 step int64, 3 file_version string, 5 summary Summary }
//   Summary { 1 repeated Value }
//   Value   { 1 tag, 2 simple_value float, 8 tensor TensorProto, 9 metadata { 1 plugin_data { 1 plugin_name }
//   } } TensorProto { 1 dtype, 2 tensor_shape, 4 tensor_content, 5 float_val, 6 double_val, 7 int_val,
//                 10 int64_val, 13 half_val }
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cann_debug::plugins::tensorboard {

struct Scalar {
  std::string tag;
  double value = 0;
};

struct Event {
  double wall_time = 0;  // Unix seconds
  std::int64_t step = 0;
  std::string file_version;     // "brain.Event:2" in the first event of a file
  std::vector<Scalar> scalars;  // simple_value, or a rank-0 numeric tensor (the "scalars" plugin's new style)
};

/// Decodes one Event. Returns "" and sets `out`, or what was expected instead, naming the byte of the
/// record where decoding stopped.
std::string decode_event(std::string_view bytes, Event& out);

}  // namespace cann_debug::plugins::tensorboard
