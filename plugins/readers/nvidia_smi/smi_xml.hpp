// `nvidia-smi -q -x`: the <nvidia_smi_log> document (DTD versions up to nvsmi_device_v12), one <gpu> per
// device. Read with pugixml; a field nvidia-smi reports as N/A, [Not Supported] or [Unknown Error] is absent.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cann_debug/messages.hpp"
#include "gpu_state.hpp"

namespace cann_debug::plugins::nvidia_smi {

struct XmlCapture {
  TimestampNs time = kNoTimestamp;  // <timestamp>, read as UTC
  std::string driver_version;
  std::vector<GpuState> gpus;
};

/// Parses the whole document. Throws readers::ParseError naming `path`, the line and byte offset of a
/// syntax error, or what is missing (no <nvidia_smi_log> root, a <gpu> without an id).
XmlCapture parse_xml(std::string_view text, const std::string& path);

/// True when `head` looks like the start of such a document.
bool looks_like_xml_capture(std::string_view head);

}  // namespace cann_debug::plugins::nvidia_smi
