// The pipeline loader fed arbitrary bytes as YAML: every problem is a diagnostic with a line and column,
// never a crash, a leak or undefined behaviour.
#include <string>

#include "diagnostic.hpp"
#include "fuzz_target.hpp"
#include "pipeline_document.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  cann_debug::host::Diagnostics diags;
  cann_debug::host::PipelineInputs inputs;
  inputs.variables = {{"input", "/in"}, {"output", "/out"}};
  try {
    (void)cann_debug::host::parse_pipeline_text(text, "fuzz.yaml", inputs, diags);
  } catch (const std::exception&) {
  }
  return 0;
}
