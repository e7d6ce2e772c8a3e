// The files `cann-debug new-plugin` writes, compiled in from sdk/templates (host/CMakeLists.txt).
#pragma once

#include <string_view>
#include <vector>

namespace cann_debug::cli {

struct PluginTemplate {
  std::string_view path;  // under sdk/templates, e.g. "sampler/component.cpp.in"
  std::string_view text;  // with @NAME@, @CLASS@, @KIND@, @SDK_VERSION@, @RUN_EXAMPLE@ to fill in
};

const std::vector<PluginTemplate>& plugin_templates();

}  // namespace cann_debug::cli
