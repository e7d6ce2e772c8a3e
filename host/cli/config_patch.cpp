#include "config_patch.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "cann_debug/kb_outcomes.hpp"
#include "cann_debug/whole_file.hpp"

namespace cann_debug::cli {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using ordered_json = nlohmann::ordered_json;

constexpr std::string_view kRollbackFormat = "cann-debug.config-rollback/1";

void flatten_into(const json& node, const std::string& prefix, std::map<std::string, json>& out) {
  if (node.is_object() && !node.empty()) {
    for (const auto& [key, value] : node.items())
      flatten_into(value, prefix.empty() ? key : prefix + "." + key, out);
    return;
  }
  if (!prefix.empty()) out[prefix] = node;
}

std::string json_type_name(const json& v) {
  if (v.is_number()) return "number";
  if (v.is_boolean()) return "boolean";
  if (v.is_null()) return "null";
  if (v.is_string()) return "string";
  if (v.is_array()) return "array";
  return "object";
}

/// The parameter named by a whole "{{name}}" string, if it is one.
std::optional<std::string> whole_parameter(const json& v) {
  if (!v.is_string()) return std::nullopt;
  const std::string s = v.get<std::string>();
  if (s.size() < 5 || !s.starts_with("{{") || !s.ends_with("}}")) return std::nullopt;
  const std::string name = s.substr(2, s.size() - 4);
  if (name.find_first_of("{} ") != std::string::npos) return std::nullopt;
  return name;
}

bool numeric_parameter(const json& parameter) {
  if (!parameter.is_object() || !parameter.contains("sources") || !parameter["sources"].is_array())
    return false;
  for (const auto& source : parameter["sources"]) {
    if (!source.is_object()) return false;
    if (source.contains("default")) {
      if (!source["default"].is_number()) return false;
      continue;
    }
    const std::string from = source.value("from", "");
    const bool scaled = source.contains("scale") || source.contains("divide") || source.contains("invert") ||
                        source.contains("pow10") || source.contains("offset");
    if (from == "feature" || (from == "config" && scaled)) continue;
    return false;
  }
  return true;
}

std::string fnv1a64(std::string_view bytes) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return fmt::format("{:016x}", h);
}

constexpr char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64_encode(std::string_view bytes) {
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const std::uint32_t v =
        (std::uint8_t(bytes[i]) << 16) | (std::uint8_t(bytes[i + 1]) << 8) | std::uint8_t(bytes[i + 2]);
    for (int s : {18, 12, 6, 0}) out += kBase64[(v >> s) & 63];
  }
  if (i < bytes.size()) {
    std::uint32_t v = std::uint8_t(bytes[i]) << 16;
    if (i + 1 < bytes.size()) v |= std::uint8_t(bytes[i + 1]) << 8;
    out += kBase64[(v >> 18) & 63];
    out += kBase64[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? kBase64[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::string base64_decode(std::string_view text, const std::string& where) {
  std::string out;
  std::uint32_t v = 0;
  int bits = 0;
  for (char c : text) {
    if (c == '=') break;
    const char* p = std::char_traits<char>::find(kBase64, 64, c);
    if (!p) throw std::runtime_error(fmt::format("{}: original_base64 is not base64", where));
    v = (v << 6) | static_cast<std::uint32_t>(p - kBase64);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((v >> bits) & 0xff);
    }
  }
  return out;
}

// ---- JSON ----

void merge_ordered(ordered_json& target, const json& patch) {
  if (!patch.is_object()) {
    target = ordered_json::parse(patch.dump());
    return;
  }
  if (!target.is_object()) target = ordered_json::object();
  for (const auto& [key, value] : patch.items()) {
    if (value.is_null())
      target.erase(key);
    else if (value.is_object() && target.contains(key) && target[key].is_object())
      merge_ordered(target[key], value);
    else
      target[key] = ordered_json::parse(value.dump());
  }
}

int json_indent(const std::string& text) {
  // The indentation of the first indented line; 2 when the document is on one line.
  const auto nl = text.find('\n');
  if (nl == std::string::npos) return -1;
  std::size_t i = nl + 1, n = 0;
  while (i + n < text.size() && text[i + n] == ' ') ++n;
  return n > 0 ? static_cast<int>(n) : 2;
}

// ---- YAML ----

struct YamlLine {
  std::size_t begin = 0, end = 0;              // of the line in the text, without its newline
  int indent = -1;                             // -1: blank or comment-only
  std::string key;                             // "key" of a "key: ..." line
  std::size_t value_begin = 0, value_end = 0;  // the scalar after "key:", without a trailing comment
};

std::vector<YamlLine> yaml_lines(const std::string& text) {
  std::vector<YamlLine> out;
  for (std::size_t begin = 0; begin <= text.size();) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    YamlLine line{begin, end};
    std::size_t i = begin;
    while (i < end && text[i] == ' ') ++i;
    if (i < end && text[i] != '#' && text[i] != '\r') {
      line.indent = static_cast<int>(i - begin);
      std::size_t colon = i;
      while (colon < end && text[colon] != ':' && text[colon] != '#' && text[colon] != '"' &&
             text[colon] != '\'')
        ++colon;
      if (colon < end && text[colon] == ':' &&
          (colon + 1 == end || text[colon + 1] == ' ' || text[colon + 1] == '\r') && text[i] != '-') {
        line.key = text.substr(i, colon - i);
        std::size_t v = colon + 1;
        while (v < end && text[v] == ' ') ++v;
        std::size_t ve = end;
        if (ve > v && text[ve - 1] == '\r') --ve;
        // A trailing comment (" #") ends the value unless the value is quoted.
        if (v < ve && text[v] != '"' && text[v] != '\'') {
          const auto hash = text.find(" #", v);
          if (hash != std::string::npos && hash < ve) ve = hash;
        }
        while (ve > v && text[ve - 1] == ' ') --ve;
        line.value_begin = v;
        line.value_end = ve;
      }
    }
    out.push_back(line);
    if (end == text.size()) break;
    begin = end + 1;
  }
  return out;
}

std::string yaml_scalar(const json& v) {
  if (v.is_string()) return v.dump();                  // a JSON string is a YAML double-quoted scalar
  if (v.is_array() || v.is_object()) return v.dump();  // JSON is YAML flow style
  return argument_text(v);
}

/// Edits `text` so that the dotted `key` holds `value`; false when the layout is not one it can edit.
bool yaml_set(std::string& text, const std::string& key, const json& value) {
  std::vector<std::string> path;
  for (std::size_t start = 0;;) {
    const auto dot = key.find('.', start);
    path.push_back(key.substr(start, dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  const auto lines = yaml_lines(text);
  std::size_t first = 0, last = lines.size();  // the block searched: lines [first, last)
  int indent = 0;
  for (std::size_t level = 0; level < path.size(); ++level) {
    std::optional<std::size_t> found;
    int child_indent = -1;
    for (std::size_t i = first; i < last; ++i) {
      if (lines[i].indent < 0) continue;
      if (child_indent < 0) child_indent = lines[i].indent;
      if (lines[i].indent < child_indent) break;
      if (lines[i].indent == child_indent && lines[i].key == path[level]) {
        found = i;
        break;
      }
    }
    if (level == 0) child_indent = 0;
    if (child_indent < 0) child_indent = indent;
    if (!found && value.is_null()) return true;  // removing what is not there
    if (!found) {
      // Insert the rest of the path at the end of this block.
      std::string insert;
      for (std::size_t l = level; l < path.size(); ++l) {
        const int at = child_indent + static_cast<int>(l - level) * 2;
        insert += std::string(static_cast<std::size_t>(at), ' ') + path[l] + ":";
        insert += l + 1 == path.size() ? " " + yaml_scalar(value) + "\n" : "\n";
      }
      std::size_t pos = last < lines.size() ? lines[last].begin : text.size();
      // After the block's last non-blank line.
      for (std::size_t i = last; i > first; --i)
        if (lines[i - 1].indent >= 0) {
          pos = lines[i - 1].end < text.size() ? lines[i - 1].end + 1 : text.size();
          break;
        }
      if (pos == text.size() && !text.empty() && text.back() != '\n') insert = "\n" + insert;
      text.insert(pos, insert);
      return true;
    }
    const YamlLine& line = lines[*found];
    if (level + 1 == path.size() && value.is_null()) {
      // RFC 7386: null removes the key; only a key whose value is on its own line is removed in place.
      if (line.value_begin == line.value_end) return false;
      text.erase(line.begin, (line.end < text.size() ? line.end + 1 : line.end) - line.begin);
      return true;
    }
    if (level + 1 == path.size()) {
      // The key's value must be a scalar on its line (not a block below it).
      const bool block_below = line.value_begin == line.value_end;
      if (block_below || text[line.value_begin] == '|' || text[line.value_begin] == '>' ||
          text[line.value_begin] == '&' || text[line.value_begin] == '*')
        return false;
      text.replace(line.value_begin, line.value_end - line.value_begin, yaml_scalar(value));
      return true;
    }
    if (line.value_begin != line.value_end) return false;  // a scalar or flow value where a mapping is needed
    first = *found + 1;
    last = first;
    while (last < lines.size() && (lines[last].indent < 0 || lines[last].indent > line.indent)) ++last;
    indent = line.indent + 2;
  }
  return false;
}

bool yaml_holds(const YAML::Node& root, const std::string& key, const json& value) {
  YAML::Node node = YAML::Clone(root);
  std::size_t start = 0;
  for (;;) {
    const auto dot = key.find('.', start);
    const std::string part = key.substr(start, dot - start);
    if (!node.IsMap() || !node[part]) return value.is_null();  // removed, as a null patch value asks
    node = node[part];
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  if (value.is_null()) return false;
  if (value.is_string()) return node.IsScalar() && node.Scalar() == value.get<std::string>();
  if (value.is_array() || value.is_object()) return node.IsSequence() || node.IsMap();
  return node.IsScalar() && node.Scalar() == argument_text(value);
}

YAML::Node yaml_of(const json& v) {
  if (v.is_object()) {
    YAML::Node n(YAML::NodeType::Map);
    for (const auto& [k, x] : v.items()) n[k] = yaml_of(x);
    return n;
  }
  if (v.is_array()) {
    YAML::Node n(YAML::NodeType::Sequence);
    for (const auto& x : v) n.push_back(yaml_of(x));
    return n;
  }
  if (v.is_null()) return YAML::Node(YAML::NodeType::Null);
  if (v.is_string()) return YAML::Node(v.get<std::string>());
  return YAML::Node(argument_text(v));
}

void yaml_merge(YAML::Node target, const json& patch) {
  for (const auto& [key, value] : patch.items()) {
    if (value.is_null())
      target.remove(key);
    else if (value.is_object() && target[key] && target[key].IsMap())
      yaml_merge(target[key], value);
    else
      target[key] = yaml_of(value);
  }
}

json json_of(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      json out = json::object();
      for (const auto& kv : node) out[kv.first.as<std::string>()] = json_of(kv.second);
      return out;
    }
    case YAML::NodeType::Sequence: {
      json out = json::array();
      for (const auto& item : node) out.push_back(json_of(item));
      return out;
    }
    case YAML::NodeType::Scalar: {
      const std::string& text = node.Scalar();
      if (node.Tag() != "!") {  // a plain scalar: 0.5, true, null read as what they are
        try {
          json v = json::parse(text);
          if (v.is_number() || v.is_boolean() || v.is_null()) return v;
        } catch (const json::parse_error&) {
        }
        if (text == "~" || text == "Null" || text == "NULL") return nullptr;
        if (text == "True" || text == "TRUE") return true;
        if (text == "False" || text == "FALSE") return false;
      }
      return text;
    }
    default:
      return nullptr;
  }
}

}  // namespace

json config_values(const std::string& text, bool yaml, const std::string& name) {
  if (!yaml) {
    try {
      return json::parse(text);
    } catch (const json::parse_error& e) {
      throw std::runtime_error(fmt::format("{}: byte {}: not valid JSON", name, e.byte));
    }
  }
  try {
    return json_of(YAML::Load(text));
  } catch (const YAML::Exception& e) {
    throw std::runtime_error(
        fmt::format("{}:{}:{}: not valid YAML: {}", name, e.mark.line + 1, e.mark.column + 1, e.msg));
  }
}

std::map<std::string, json> flatten_patch(const json& patch) {
  std::map<std::string, json> out;
  flatten_into(patch, "", out);
  return out;
}

std::string argument_text(const json& value) {
  if (value.is_string()) {
    const std::string s = value.get<std::string>();
    if (s.find('\0') != std::string::npos)
      throw std::invalid_argument("a string value with a NUL byte cannot be an argument");
    return s;
  }
  if (value.is_number_float()) {
    const double d = value.get<double>();
    if (!std::isfinite(d)) throw std::invalid_argument(fmt::format("the number {} is not finite", d));
    return fmt::format("{}", d);
  }
  if (value.is_number() || value.is_boolean() || value.is_null()) return value.dump();
  return value.dump();
}

std::map<std::string, std::string> declared_types(const json& template_patch, const json& parameters) {
  std::map<std::string, std::string> out;
  for (const auto& [key, value] : flatten_patch(template_patch)) {
    if (auto name = whole_parameter(value)) {
      const bool numeric =
          parameters.is_object() && parameters.contains(*name) && numeric_parameter(parameters[*name]);
      out[key] = numeric ? "number" : "scalar";
    } else if (value.is_string()) {
      out[key] = "string";
    } else {
      out[key] = json_type_name(value);
    }
  }
  return out;
}

std::vector<std::string> type_problems(const json& patch,
                                       const std::map<std::string, std::string>& declared) {
  std::vector<std::string> problems;
  for (const auto& [key, value] : flatten_patch(patch)) {
    auto it = declared.find(key);
    if (it == declared.end()) {
      problems.push_back(fmt::format("{}: the template's patch has no such key", key));
      continue;
    }
    const std::string& want = it->second;
    const std::string got = json_type_name(value);
    bool ok = want == got;
    if (want == "scalar") ok = value.is_string() || value.is_number() || value.is_boolean();
    if (want == "number" && value.is_number_float() && !std::isfinite(value.get<double>())) ok = false;
    // A literal string in the template ("the node of the failing device") is a note for people.
    if (want == "string") ok = value.is_string();
    if (!ok)
      problems.push_back(fmt::format("{}: expected a{} {}, got {} {}", key,
                                     want == "array" || want == "object" ? "n" : "", want, got,
                                     value.dump()));
  }
  return problems;
}

PatchedText patch_config_text(const std::string& original, bool yaml, const json& patch,
                              const std::string& name) {
  if (!yaml) {
    ordered_json doc;
    try {
      doc = ordered_json::parse(original);
    } catch (const json::parse_error& e) {
      throw std::runtime_error(fmt::format("{}: byte {}: not valid JSON", name, e.byte));
    }
    if (!doc.is_object())
      throw std::runtime_error(fmt::format("{}: expected a JSON object at the top", name));
    merge_ordered(doc, patch);
    std::string text = doc.dump(json_indent(original));
    if (original.ends_with('\n')) text += '\n';
    return {text, true};
  }
  YAML::Node root;
  try {
    root = YAML::Load(original);
  } catch (const YAML::Exception& e) {
    throw std::runtime_error(
        fmt::format("{}:{}:{}: not valid YAML: {}", name, e.mark.line + 1, e.mark.column + 1, e.msg));
  }
  if (!root.IsMap() && !root.IsNull())
    throw std::runtime_error(fmt::format("{}: expected a YAML mapping at the top", name));
  std::string text = original;
  bool kept = true;
  for (const auto& [key, value] : flatten_patch(patch)) {
    if (value.is_object() || !yaml_set(text, key, value)) {
      kept = false;
      break;
    }
  }
  if (kept) {
    try {
      const YAML::Node edited = YAML::Load(text);
      for (const auto& [key, value] : flatten_patch(patch)) kept = kept && yaml_holds(edited, key, value);
    } catch (const YAML::Exception&) {
      kept = false;
    }
  }
  if (kept) return {text, true};
  if (root.IsNull()) root = YAML::Node(YAML::NodeType::Map);
  yaml_merge(root, patch);
  YAML::Emitter out;
  out << root;
  return {std::string(out.c_str()) + "\n", false};
}

bool is_yaml_path(const std::string& path) {
  const std::string ext = fs::path(path).extension().string();
  return ext == ".yaml" || ext == ".yml";
}

std::string rollback_path(const std::string& config) {
  return config + ".cann-debug-rollback.json";
}

ApplyResult apply_patch_to_file(const std::string& config, const json& patch, const std::string& suggestion) {
  const std::string rollback = rollback_path(config);
  if (fs::exists(rollback))
    throw std::runtime_error(
        fmt::format("{}: a rollback file exists already ({}): roll the earlier patch back first (cann-debug "
                    "optimize --rollback {})",
                    config, rollback, config));
  const std::string original = read_whole_file(config);
  const PatchedText patched = patch_config_text(original, is_yaml_path(config), patch, config);
  const json record = {{"format", kRollbackFormat},
                       {"config", fs::absolute(config).string()},
                       {"suggestion", suggestion},
                       {"patch", patch},
                       {"applied", kb::utc_now_iso8601()},
                       {"original_bytes", original.size()},
                       {"original_base64", base64_encode(original)},
                       {"patched_bytes", patched.text.size()},
                       {"patched_fnv1a64", fnv1a64(patched.text)}};
  write_file_atomically(rollback, record.dump(2) + "\n");
  write_file_atomically(config, patched.text);
  return {rollback, patched.formatting_kept};
}

void rollback_file(const std::string& config, bool force) {
  const std::string rollback = rollback_path(config);
  if (!fs::exists(rollback))
    throw std::runtime_error(fmt::format("{}: no rollback file ({} does not exist)", config, rollback));
  json record;
  try {
    record = json::parse(read_whole_file(rollback));
  } catch (const json::parse_error& e) {
    throw std::runtime_error(fmt::format("{}: byte {}: not valid JSON", rollback, e.byte));
  }
  if (!record.is_object() || record.value("format", "") != kRollbackFormat ||
      !record.contains("original_base64") || !record["original_base64"].is_string())
    throw std::runtime_error(
        fmt::format("{}: expected a {} document with original_base64", rollback, kRollbackFormat));
  const std::string original = base64_decode(record["original_base64"].get<std::string>(), rollback);
  if (record.contains("original_bytes") && record["original_bytes"] != original.size())
    throw std::runtime_error(fmt::format("{}: original_base64 holds {} bytes, original_bytes says {}",
                                         rollback, original.size(), record["original_bytes"].dump()));
  if (!force && fs::exists(config)) {
    const std::string now = read_whole_file(config);
    if (fnv1a64(now) != record.value("patched_fnv1a64", ""))
      throw std::runtime_error(
          fmt::format("{}: changed since the patch was applied; rolling back would lose those changes "
                      "(--force to restore anyway)",
                      config));
  }
  write_file_atomically(config, original);
  fs::remove(rollback);
}

}  // namespace cann_debug::cli
