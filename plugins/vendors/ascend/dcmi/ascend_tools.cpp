#include "ascend_tools.hpp"

#include <algorithm>
#include <exception>

#include <fmt/format.h>

#include "ascend_console/hccn_tool.hpp"
#include "ascend_console/npu_smi_kv.hpp"
#include "cann_debug/reader/numbers.hpp"
#include "cann_debug/reader/text.hpp"
#include "cann_debug/sampler/run_command.hpp"
#include "cann_debug/sampler/sysfs_files.hpp"

namespace cann_debug::plugins::dcmi {
namespace {

using sampler_support::run_command;

std::string describe(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

// Runs argv and hands every stdout line to feed(line); a failure or a parse error becomes the reason.
template <typename Feed>
ToolOutput run_and_parse(const std::vector<std::string>& argv, std::chrono::milliseconds timeout, Feed feed) {
  ToolOutput out;
  const auto r = run_command(argv, timeout);
  if (!r.ok()) {
    out.reason = fmt::format("{}: {}", describe(argv),
                             !r.error.empty() ? r.error : fmt::format("exit status {}", r.exit_code));
    return out;
  }
  try {
    std::string_view text = r.output;
    std::int64_t number = 0;
    std::uint64_t offset = 0;
    while (!text.empty()) {
      const auto nl = text.find('\n');
      const std::string_view line = text.substr(0, nl);
      feed(ascend_console::Line{line, ++number, offset}, out.points);
      if (nl == std::string_view::npos) break;
      text.remove_prefix(nl + 1);
      offset += nl + 1;
    }
  } catch (const std::exception& e) {
    out.points.clear();
    out.reason = fmt::format("{}: {}", describe(argv), e.what());
    return out;
  }
  out.ok = true;
  return out;
}

}  // namespace

std::vector<int> npu_smi_ids(const std::string& tool, std::chrono::milliseconds timeout, std::string& error) {
  const std::vector<std::string> argv{tool, "info", "-l"};
  const auto r = run_command(argv, timeout);
  std::vector<int> ids;
  if (!r.ok()) {
    error = fmt::format("{}: {}", describe(argv),
                        !r.error.empty() ? r.error : fmt::format("exit status {}", r.exit_code));
    return ids;
  }
  std::string_view text = r.output;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    const std::string_view line = readers::trim(text.substr(0, nl));
    const auto colon = line.find(':');
    if (colon != std::string_view::npos && readers::iequals(readers::trim(line.substr(0, colon)), "NPU ID"))
      if (auto id = readers::parse_int(readers::trim(line.substr(colon + 1)));
          id && *id >= 0 && *id < 1'000'000)
        ids.push_back(static_cast<int>(*id));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  if (ids.empty()) error = fmt::format("no NPU: '{}' listed no 'NPU ID'", describe(argv));
  return ids;
}

ToolOutput run_npu_smi_info(const std::string& tool, const std::string& type, int id,
                            std::chrono::milliseconds timeout, const ascend_console::ConsoleContext& ctx) {
  ascend_console::NpuSmiKeyValueParser parser(ctx);
  auto out = run_and_parse(
      {tool, "info", "-t", type, "-i", std::to_string(id)}, timeout,
      [&](const ascend_console::Line& line, std::vector<MetricPoint>& points) { parser.feed(line, points); });
  if (out.ok) parser.finish(out.points);
  return out;
}

ToolOutput run_hccn_tool(const std::string& tool, int id, const std::vector<std::string>& args,
                         std::chrono::milliseconds timeout, const ascend_console::ConsoleContext& ctx) {
  ascend_console::HccnToolParser parser(ctx);
  std::vector<std::string> argv{tool, "-i", std::to_string(id)};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_and_parse(
      argv, timeout,
      [&](const ascend_console::Line& line, std::vector<MetricPoint>& points) { parser.feed(line, points); });
}

std::vector<int> davinci_devices(const std::string& root) {
  std::vector<int> ids;
  for (const auto& name : sampler_support::list_directory(sampler_support::join_path(root, "dev"))) {
    if (!name.starts_with("davinci")) continue;
    if (auto id = readers::parse_int(std::string_view(name).substr(7)); id && *id >= 0 && *id < 1'000'000)
      ids.push_back(static_cast<int>(*id));  // davinci_manager and davinci_manager_docker are not NPUs
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::string tool_missing_reason(const std::string& tool) {
  if (sampler_support::find_executable(tool)) return {};
  if (tool.find('/') != std::string::npos) return fmt::format("{} is not an executable file", tool);
  return fmt::format("{} not on PATH", tool);
}

}  // namespace cann_debug::plugins::dcmi
