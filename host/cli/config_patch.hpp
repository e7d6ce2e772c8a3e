// A suggestion's config patch (advice/1 `config_patch`) as `cann-debug optimize` uses it: flattened into
// dotted keys for the workload's placeholders, checked against the types its knowledge-base template
// declares, merged into a copy of a JSON or YAML config file, and applied to the user's file with a
// rollback copy that restores it byte for byte.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cann_debug::cli {

/// {"optimizer": {"lr": 0.03}, "lr": 0.03} -> {"lr": 0.03, "optimizer.lr": 0.03}. Arrays are values.
std::map<std::string, nlohmann::json> flatten_patch(const nlohmann::json& patch);

/// A patch value as one argument: numbers in their shortest round-trip form, true/false, null, strings as
/// they are, arrays and objects as compact JSON. Throws std::invalid_argument for a non-finite number or a
/// string holding a NUL byte (argv cannot carry it).
std::string argument_text(const nlohmann::json& value);

/// The JSON type a knowledge-base template's patch declares for each dotted key: a literal declares its own
/// type; "{{param}}" declares "number" when every source of that parameter is numeric (a feature, a config
/// value with a scale, a numeric default), else "scalar". `parameters` is the template's "parameters" object.
std::map<std::string, std::string> declared_types(const nlohmann::json& template_patch,
                                                  const nlohmann::json& parameters);

/// Problems of `patch` against `declared` ("optimizer.lr: expected a number, got the string \"1e-3; rm\"").
/// Keys the template does not declare are refused too. Empty = fine.
std::vector<std::string> type_problems(const nlohmann::json& patch,
                                       const std::map<std::string, std::string>& declared);

/// The text of `original` (a JSON or YAML document; `yaml` picks which) with `patch` merged into it as a JSON
/// merge patch (RFC 7386: objects merged key by key, a null removes the key, anything else replaces). JSON
/// keeps its key order and indentation width; YAML keeps every line the patch does not touch when each
/// patched key is a block-mapping scalar (else the document is re-emitted and comments are lost:
/// `formatting_kept` says which). Throws std::runtime_error naming the file (`name`) when it does not parse.
struct PatchedText {
  std::string text;
  bool formatting_kept = true;
};
PatchedText patch_config_text(const std::string& original, bool yaml, const nlohmann::json& patch,
                              const std::string& name);

/// The values of a JSON or YAML config as JSON (YAML plain scalars that read as JSON numbers, booleans or
/// null become those; quoted ones stay strings), for the baseline values of {KEY} placeholders. Throws
/// std::runtime_error naming the file and the place when it does not parse.
nlohmann::json config_values(const std::string& text, bool yaml, const std::string& name);

/// True for .yaml / .yml file names.
bool is_yaml_path(const std::string& path);

/// The rollback file of `config`: CONFIG.cann-debug-rollback.json ({format, config, suggestion, patch,
/// applied, original_base64, original_bytes, patched_bytes, patched_fnv1a64}).
std::string rollback_path(const std::string& config);

struct ApplyResult {
  std::string rollback;
  bool formatting_kept = true;
};
/// Writes the patched config in place (atomically) and its rollback file first. Throws std::runtime_error
/// when a rollback file already exists (roll back first) or the file cannot be read, parsed or written.
ApplyResult apply_patch_to_file(const std::string& config, const nlohmann::json& patch,
                                const std::string& suggestion);

/// Restores the config the rollback file was made from, byte for byte, and removes the rollback file.
/// Refuses (std::runtime_error) when the config changed since the patch was applied, unless `force`.
void rollback_file(const std::string& config, bool force);

}  // namespace cann_debug::cli
