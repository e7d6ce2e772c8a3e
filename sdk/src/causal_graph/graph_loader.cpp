#include "cann_debug/causal_graph/graph_loader.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "cann_debug/causal_graph/bif_parser.hpp"
#include "cann_debug/causal_graph/graph_error.hpp"
#include "cann_debug/causal_graph/json_graph.hpp"

namespace cann_debug::bayes {

std::string read_text_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw GraphError(fmt::format("cannot read {}: it is a directory", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw GraphError(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw GraphError(fmt::format("cannot read {}: read error", path));
  return text.str();
}

Network load_graph(const std::string& path, double row_tolerance) {
  const std::string text = read_text_file(path);
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  bool json = ext == ".json";
  if (ext != ".json" && ext != ".bif") {
    auto first = std::find_if(text.begin(), text.end(), [](unsigned char c) { return !std::isspace(c); });
    json = first != text.end() && *first == '{';
  }
  return json ? parse_json_graph(text, path, row_tolerance) : parse_bif(text, path, row_tolerance);
}

}  // namespace cann_debug::bayes
