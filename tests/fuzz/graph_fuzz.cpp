// The causal-graph loaders fed arbitrary bytes: BIF (the classic networks) when CDFUZZ_BIF is defined,
// otherwise the JSON graph format of pipelines/graphs. Bad input throws an error naming the line and column
// or the JSON pointer; anything else is a bug.
#include <string_view>

#include "cann_debug/causal_graph/bif_parser.hpp"
#include "cann_debug/causal_graph/json_graph.hpp"
#include "fuzz_target.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
#ifdef CDFUZZ_BIF
    (void)cann_debug::bayes::parse_bif(text, "fuzz.bif");
#else
    (void)cann_debug::bayes::parse_json_graph(text, "fuzz.json");
#endif
  } catch (const std::exception&) {
  }
  return 0;
}
