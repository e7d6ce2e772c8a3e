// ascend_tool_csv: CSV series sampled from npu-smi / hccn_tool -> metric.batch/1.
#include "ascend_tool_csv.hpp"

#include "ascend_console/tool_csv.hpp"
#include "cann_debug/reader/reader_component.hpp"
#include "cann_debug/reader/reader_options.hpp"

namespace cann_debug::plugins {
namespace {

readers::ReaderSpec ascend_tool_csv_spec() {
  Manifest m;
  m.type = "ascend_tool_csv";
  m.kind = ComponentKind::kReader;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description =
      "Reads CSV series sampled from npu-smi / hccn_tool by monitoring scripts as NPU and RoCE port metrics";
  m.outputs = {{"metrics", std::string(MetricBatch::type_id), "points of every row, in file order"}};
  m.options = {readers::path_option("the CSV series to read"), readers::batch_size_option(),
               readers::max_line_bytes_option(), readers::node_option()};
  m.concurrency = Concurrency::serial();
  m.sample_yaml = "ascend_tool_csv/npu0:\n  path: \"${input}/npu_0_details.csv\"\n";
  readers::ReaderSpec spec;
  spec.manifest = std::move(m);
  spec.open = [](const readers::ReaderContext& ctx) -> std::unique_ptr<readers::ItemSource> {
    return std::make_unique<ascend_console::ToolCsvSource>(
        ctx.path, static_cast<std::size_t>(ctx.config.bytes("max_line_bytes")), ctx.config.str("node"));
  };
  spec.sniff = ascend_console::sniff_tool_csv;
  return spec;
}

}  // namespace

const ComponentFactory& ascend_tool_csv_factory() {
  static const readers::ReaderFactory factory(ascend_tool_csv_spec());
  return factory;
}

}  // namespace cann_debug::plugins
