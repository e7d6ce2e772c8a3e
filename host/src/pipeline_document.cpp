#include "pipeline_document.hpp"

#include <yaml-cpp/yaml.h>

#include <fmt/format.h>
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "cann_debug/options.hpp"

namespace cann_debug::host {

namespace {

SourceRef at(const std::string& file, const YAML::Mark& m) {
  if (m.line < 0) return {file, 0, 0};
  return {file, m.line + 1, m.column + 1};
}

const char* kind_of(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Map:
      return "a mapping";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Scalar:
      return "a scalar";
    case YAML::NodeType::Null:
      return "nothing";
    default:
      return "an undefined node";
  }
}

class Parser {
 public:
  Parser(std::string file, const PipelineInputs& inputs, Diagnostics& diags)
      : file_(std::move(file)), inputs_(inputs), diags_(diags) {}

  std::string expand(const std::string& s, const YAML::Mark& mark, bool lenient = false) {
    std::vector<std::string> missing;
    std::string out = expand_variables(s, inputs_.variables, missing);
    if (!lenient)
      for (const auto& name : missing) {
        std::string hint = name == "input" ? " (pass --input DIR)"
                           : name == "output"
                               ? " (pass --output DIR)"
                               : fmt::format(" (pass --var {}=VALUE or set the environment variable)", name);
        diags_.error(at(file_, mark), fmt::format("undefined variable '${{{}}}'{}", name, hint));
      }
    return out;
  }

  // YAML -> JSON with scalar typing: quoted scalars stay strings; plain ones become null/bool/int/double.
  nlohmann::json to_json(const YAML::Node& n) {
    switch (n.Type()) {
      case YAML::NodeType::Null:
        return nullptr;
      case YAML::NodeType::Scalar: {
        std::string s = expand(n.Scalar(), n.Mark());
        if (n.Tag() == "!") return s;
        if (s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
        if (s == "true" || s == "True" || s == "TRUE") return true;
        if (s == "false" || s == "False" || s == "FALSE") return false;
        static const std::regex int_re("[-+]?[0-9]+");
        static const std::regex float_re("[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?");
        try {
          if (std::regex_match(s, int_re)) return static_cast<std::int64_t>(std::stoll(s));
          if (std::regex_match(s, float_re)) return std::stod(s);
        } catch (const std::out_of_range&) {
        }
        return s;
      }
      case YAML::NodeType::Sequence: {
        nlohmann::json a = nlohmann::json::array();
        for (const auto& e : n) a.push_back(to_json(e));
        return a;
      }
      case YAML::NodeType::Map: {
        nlohmann::json o = nlohmann::json::object();
        for (const auto& kv : n) o[kv.first.Scalar()] = to_json(kv.second);
        return o;
      }
      default:
        return nullptr;
    }
  }

  std::optional<PipelineDocument> parse(const std::string& text) {
    YAML::Node root;
    try {
      root = YAML::Load(text);
    } catch (const YAML::ParserException& e) {
      diags_.error(at(file_, e.mark), fmt::format("YAML syntax error: {}", e.msg));
      return std::nullopt;
    }
    PipelineDocument doc;
    doc.file = file_;
    if (!root.IsMap()) {
      diags_.error({file_, 1, 1},
                   fmt::format("a pipeline is a mapping with 'version', 'components' and 'links'; "
                               "found {}",
                               kind_of(root)));
      return std::nullopt;
    }
    static const std::vector<std::string> kTop = {
        "version", "name", "description", "plugins", "components", "links", "settings", "match", "include"};
    // An included file brings components and links only; the including pipeline has the rest.
    static const std::vector<std::string> kIncluded = {"version", "description", "components", "links",
                                                       "include"};
    std::set<std::string> seen;
    for (const auto& kv : root) {
      const std::string key = kv.first.Scalar();
      if (!seen.insert(key).second)
        diags_.error(at(file_, kv.first.Mark()), fmt::format("'{}' is given twice", key));
      if (included_ && std::find(kTop.begin(), kTop.end(), key) != kTop.end() &&
          std::find(kIncluded.begin(), kIncluded.end(), key) == kIncluded.end()) {
        diags_.error(at(file_, kv.first.Mark()),
                     fmt::format("'{}' cannot be set in an included file (valid keys: {})", key,
                                 fmt::join(kIncluded, ", ")));
      } else if (std::find(kTop.begin(), kTop.end(), key) == kTop.end()) {
        std::string hint = closest_match(key, kTop);
        diags_.error(at(file_, kv.first.Mark()),
                     fmt::format("unknown top-level key '{}'{}", key,
                                 hint.empty() ? fmt::format(" (valid keys: {})", fmt::join(kTop, ", "))
                                              : fmt::format(" (did you mean '{}'?)", hint)));
      }
    }
    if (!included_ || root["version"]) parse_version(root);
    if (auto n = root["name"]; n && n.IsScalar()) doc.name = n.Scalar();
    if (auto n = root["description"]; n && n.IsScalar()) doc.description = n.Scalar();
    parse_plugins(root, doc);
    parse_settings(root, doc);
    parse_match(root, doc);
    if (!included_ || root["components"]) parse_components(root, doc);
    parse_links(root, doc);
    parse_include(root, doc);
    if (!included_) apply_overrides(doc);
    return doc;
  }

  /// Makes this parser read an included file: `stack` holds the files that include it, outermost first.
  void set_included(std::vector<std::string> stack) {
    included_ = true;
    include_stack_ = std::move(stack);
  }

  void apply_overrides(PipelineDocument& doc) {
    for (const auto& o : inputs_.overrides) {
      SourceRef where{"--set " + o, 0, 0};
      auto eq = o.find('=');
      auto dot = eq == std::string::npos ? std::string::npos : o.rfind('.', eq);
      if (eq == std::string::npos || dot == std::string::npos || dot == 0) {
        diags_.error(where, "expected --set type/name.option=value");
        continue;
      }
      std::string id = o.substr(0, dot), key = o.substr(dot + 1, eq - dot - 1), raw = o.substr(eq + 1);
      ComponentDecl* target = nullptr;
      for (auto& c : doc.components)
        if (c.id == id) target = &c;
      if (!target) {
        std::vector<std::string> ids;
        for (const auto& c : doc.components) ids.push_back(c.id);
        std::string hint = closest_match(id, ids);
        diags_.error(where, fmt::format("no component '{}' in the pipeline{}", id,
                                        hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint)));
        continue;
      }
      nlohmann::json value;
      try {
        value = to_json(YAML::Load(raw));
      } catch (const YAML::Exception&) {
        value = raw;
      }
      OptionDecl d{key, value, where, where};
      bool replaced = false;
      for (auto& existing : target->options)
        if (existing.key == key) {
          existing.value = value;
          existing.value_where = where;
          replaced = true;
        }
      if (!replaced) target->options.push_back(std::move(d));
    }
  }

 private:
  void parse_version(const YAML::Node& root) {
    auto v = root["version"];
    if (!v) {
      diags_.error({file_, 1, 1}, "missing 'version: 1' at the top of the pipeline");
      return;
    }
    if (!v.IsScalar() || v.Scalar() != "1")
      diags_.error(at(file_, v.Mark()),
                   fmt::format("unsupported pipeline version '{}' (this host reads version 1)",
                               v.IsScalar() ? v.Scalar() : std::string(kind_of(v))));
  }

  void parse_plugins(const YAML::Node& root, PipelineDocument& doc) {
    auto p = root["plugins"];
    if (!p) return;
    if (!p.IsMap()) {
      diags_.error(at(file_, p.Mark()),
                   fmt::format("'plugins' must be a mapping with 'paths', found {}", kind_of(p)));
      return;
    }
    for (const auto& kv : p) {
      if (kv.first.Scalar() != "paths") {
        diags_.error(at(file_, kv.first.Mark()),
                     fmt::format("unknown key 'plugins.{}' (valid: paths)", kv.first.Scalar()));
        continue;
      }
      const YAML::Node& paths = kv.second;
      auto add = [&](const YAML::Node& n) {
        if (!n.IsScalar()) {
          diags_.error(at(file_, n.Mark()),
                       fmt::format("a plugin path must be a string, found {}", kind_of(n)));
          return;
        }
        // Unset variables in plugin paths just drop the entry: ${CANN_DEBUG_PLUGIN_PATH} may be unset.
        std::string s = expand(n.Scalar(), n.Mark(), /*lenient=*/true);
        size_t start = 0;
        while (start <= s.size()) {
          size_t end = s.find(':', start);
          if (end == std::string::npos) end = s.size();
          if (end > start) doc.plugin_paths.push_back(resolve_relative(s.substr(start, end - start)));
          start = end + 1;
        }
      };
      if (paths.IsSequence())
        for (const auto& e : paths) add(e);
      else
        add(paths);
    }
  }

  std::string resolve_relative(const std::string& p) {
    if (p.empty() || p[0] == '/') return p;
    auto slash = file_.rfind('/');
    return slash == std::string::npos ? p : file_.substr(0, slash + 1) + p;
  }

  void parse_settings(const YAML::Node& root, PipelineDocument& doc) {
    auto s = root["settings"];
    if (!s) return;
    if (!s.IsMap()) {
      diags_.error(at(file_, s.Mark()), fmt::format("'settings' must be a mapping, found {}", kind_of(s)));
      return;
    }
    static const std::vector<std::string> kKeys = {"queue_capacity", "idle_interval", "source_threads"};
    for (const auto& kv : s) {
      const std::string key = kv.first.Scalar();
      nlohmann::json v = to_json(kv.second);
      std::string err;
      if (key == "queue_capacity") {
        OptionSpec spec{.name = key, .type = OptionType::kInt, .min = 1, .max = 1e8};
        auto c = convert_option(spec, v, err);
        if (c && check_option_bounds(spec, *c).empty())
          doc.queue_capacity = c->get<std::size_t>();
        else
          diags_.error(at(file_, kv.second.Mark()),
                       fmt::format("settings.queue_capacity: {}",
                                   err.empty() ? "expected an integer from 1 to 100000000" : err));
      } else if (key == "idle_interval") {
        OptionSpec spec{.name = key, .type = OptionType::kDuration};
        auto c = convert_option(spec, v, err);
        if (c && c->get<std::int64_t>() > 0)
          doc.idle_interval_ns = c->get<std::int64_t>();
        else
          diags_.error(
              at(file_, kv.second.Mark()),
              fmt::format("settings.idle_interval: {}", err.empty() ? "expected a positive duration" : err));
      } else if (key == "source_threads") {
        const std::string value = kv.second.IsScalar() ? kv.second.Scalar() : std::string();
        if (value == "own" || value == "shared")
          doc.shared_source_thread = value == "shared";
        else
          diags_.error(at(file_, kv.second.Mark()),
                       fmt::format("settings.source_threads: expected 'own' or 'shared', found '{}'", value));
      } else {
        std::string hint = closest_match(key, kKeys);
        diags_.error(at(file_, kv.first.Mark()),
                     fmt::format("unknown setting '{}'{}", key,
                                 hint.empty() ? fmt::format(" (valid settings: {})", fmt::join(kKeys, ", "))
                                              : fmt::format(" (did you mean '{}'?)", hint)));
      }
    }
  }

  // match: a list of rules; each a mapping of reader / file / at_least / fields / equals / contains /
  // priority / says.
  void parse_match(const YAML::Node& root, PipelineDocument& doc) {
    auto m = root["match"];
    if (!m) return;
    if (!m.IsSequence()) {
      diags_.error(at(file_, m.Mark()), fmt::format("'match' must be a list of rules, found {}", kind_of(m)));
      return;
    }
    static const std::vector<std::string> kKeys = {"reader", "file",     "at_least", "fields",
                                                   "equals", "contains", "priority", "says"};
    for (const auto& r : m) {
      const SourceRef where = at(file_, r.Mark());
      if (!r.IsMap()) {
        diags_.error(where, fmt::format("a match rule is a mapping (reader, file, fields, ...), found {}",
                                        kind_of(r)));
        continue;
      }
      MatchRule rule;
      rule.where = where;
      bool ok = true;
      auto bad = [&](const YAML::Node& n, const std::string& what) {
        diags_.error(at(file_, n.Mark()), fmt::format("match: {}", what));
        ok = false;
      };
      auto strings = [&](const YAML::Node& n, std::vector<std::string>& out, const char* key) {
        if (n.IsScalar()) {
          out.push_back(expand(n.Scalar(), n.Mark()));
        } else if (n.IsSequence()) {
          for (const auto& e : n)
            if (e.IsScalar())
              out.push_back(expand(e.Scalar(), e.Mark()));
            else
              bad(e, fmt::format("'{}' lists names, found {}", key, kind_of(e)));
        } else {
          bad(n, fmt::format("'{}' is a name or a list of names, found {}", key, kind_of(n)));
        }
      };
      for (const auto& kv : r) {
        const std::string key = kv.first.Scalar();
        const YAML::Node& v = kv.second;
        if (key == "reader" && v.IsScalar()) {
          rule.reader = v.Scalar();
        } else if (key == "file") {
          strings(v, rule.files, "file");
        } else if (key == "fields") {
          strings(v, rule.fields, "fields");
        } else if (key == "contains") {
          strings(v, rule.contains, "contains");
          for (const auto& needle : rule.contains)
            if (needle.empty()) bad(v, "'contains' lists non-empty strings");
        } else if (key == "equals" && v.IsMap()) {
          rule.equals = to_json(v);
        } else if (key == "says" && v.IsScalar()) {
          rule.says = v.Scalar();
        } else if (key == "at_least" || key == "priority") {
          const nlohmann::json n = to_json(v);
          if (!n.is_number_integer() || n.get<std::int64_t>() < (key == "at_least" ? 1 : 0))
            bad(v,
                fmt::format("'{}' is an integer >= {}, found {}", key, key == "at_least" ? 1 : 0, n.dump()));
          else if (key == "at_least")
            rule.at_least = n.get<std::size_t>();
          else
            rule.priority = n.get<int>();
        } else if (std::find(kKeys.begin(), kKeys.end(), key) != kKeys.end()) {
          bad(v, fmt::format("'{}' cannot be {}", key, kind_of(v)));
        } else {
          std::string hint = closest_match(key, kKeys);
          bad(kv.first, fmt::format("unknown key '{}'{}", key,
                                    hint.empty() ? fmt::format(" (valid: {})", fmt::join(kKeys, ", "))
                                                 : fmt::format(" (did you mean '{}'?)", hint)));
        }
      }
      if (rule.reader.empty() == rule.files.empty()) bad(r, "a rule names either a 'reader' or a 'file'");
      if ((!rule.fields.empty() || !rule.equals.empty()) && rule.files.empty())
        bad(r, "'fields' and 'equals' look into the records of a 'file'");
      if (ok) doc.match.push_back(std::move(rule));
    }
  }

  // include: [{path: FILE, vars: {name: value}}, ...] (or just FILE): the components and links of another
  // file, read with this pipeline's variables and `vars`; paths are relative to the including file.
  void parse_include(const YAML::Node& root, PipelineDocument& doc) {
    auto inc = root["include"];
    if (!inc) return;
    if (!inc.IsSequence()) {
      diags_.error(
          at(file_, inc.Mark()),
          fmt::format("'include' must be a list of {{path: FILE, vars: {{...}}}}, found {}", kind_of(inc)));
      return;
    }
    for (const auto& e : inc) {
      const SourceRef where = at(file_, e.Mark());
      std::string path;
      PipelineInputs child = inputs_;
      child.overrides.clear();
      if (e.IsScalar()) {
        path = expand(e.Scalar(), e.Mark());
      } else if (e.IsMap() && e["path"] && e["path"].IsScalar()) {
        path = expand(e["path"].Scalar(), e["path"].Mark());
        for (const auto& kv : e) {
          const std::string key = kv.first.Scalar();
          if (key == "path") continue;
          if (key != "vars" || !kv.second.IsMap()) {
            diags_.error(
                at(file_, kv.first.Mark()),
                fmt::format("include: unknown key '{}' (an entry has 'path' and a 'vars' mapping)", key));
            continue;
          }
          for (const auto& v : kv.second)
            child.variables[v.first.Scalar()] = expand(v.second.Scalar(), v.second.Mark());
        }
      } else {
        diags_.error(where, "an include entry is a file name or {path: FILE, vars: {...}}");
        continue;
      }
      path = resolve_relative(path);
      auto canonical = [](const std::string& p) {
        std::error_code ec;
        auto c = std::filesystem::weakly_canonical(p, ec);
        return ec ? p : c.string();
      };
      std::vector<std::string> stack = include_stack_;
      stack.push_back(canonical(file_));
      const std::string resolved = canonical(path);
      if (std::find(stack.begin(), stack.end(), resolved) != stack.end() || stack.size() > 8) {
        diags_.error(where, fmt::format("include of '{}' makes a cycle ({} -> {})", path,
                                        fmt::join(stack, " -> "), path));
        continue;
      }
      std::ifstream in(path);
      if (!in) {
        diags_.error(where, fmt::format("include: cannot read '{}': {}", path, std::strerror(errno)));
        continue;
      }
      std::stringstream text;
      text << in.rdbuf();
      Parser parser(path, child, diags_);
      parser.set_included(std::move(stack));
      auto part = parser.parse(text.str());
      if (!part) continue;
      for (auto& c : part->components) {
        if (const ComponentDecl* first = doc.component(c.id)) {
          diags_.error(c.where, fmt::format("component '{}' is declared twice (first at {}:{})", c.id,
                                            first->where.file, first->where.line));
          continue;
        }
        doc.components.push_back(std::move(c));
      }
      for (auto& l : part->links) doc.links.push_back(std::move(l));
    }
  }

  void parse_components(const YAML::Node& root, PipelineDocument& doc) {
    auto comps = root["components"];
    if (!comps) {
      diags_.error({file_, 1, 1}, "missing 'components': a pipeline needs at least one component");
      return;
    }
    doc.components_where = at(file_, comps.Mark());
    if (!comps.IsMap()) {
      diags_.error(at(file_, comps.Mark()),
                   fmt::format("'components' must be a mapping of 'type/name: {{options}}', found {}",
                               kind_of(comps)));
      return;
    }
    std::map<std::string, SourceRef> first_seen;
    for (const auto& kv : comps) {
      ComponentDecl c;
      c.id = expand(kv.first.Scalar(), kv.first.Mark());
      c.where = at(file_, kv.first.Mark());
      if (!split_component_id(c.id, c.type, c.name)) {
        diags_.error(c.where,
                     fmt::format("component id '{}' must be 'type/name' (type: [a-z][a-z0-9_.]*, name: "
                                 "letters, digits, '_', '.', '-')",
                                 c.id));
        continue;
      }
      if (auto it = first_seen.find(c.id); it != first_seen.end()) {
        diags_.error(c.where, fmt::format("component '{}' is declared twice (first at line {})", c.id,
                                          it->second.line));
        continue;
      }
      first_seen[c.id] = c.where;
      const YAML::Node& opts = kv.second;
      if (opts.IsMap()) {
        for (const auto& o : opts) {
          OptionDecl d;
          d.key = o.first.Scalar();
          d.key_where = at(file_, o.first.Mark());
          d.value_where = at(file_, o.second.Mark());
          if (o.second.IsNull()) d.value_where = d.key_where;
          d.value = to_json(o.second);
          if (c.option(d.key)) {
            diags_.error(d.key_where, fmt::format("{}: option '{}' is given twice", c.id, d.key));
            continue;
          }
          c.options.push_back(std::move(d));
        }
      } else if (!opts.IsNull()) {
        diags_.error(
            at(file_, opts.Mark()),
            fmt::format("{}: options must be a mapping (use {{}} for none), found {}", c.id, kind_of(opts)));
      }
      doc.components.push_back(std::move(c));
    }
  }

  void parse_links(const YAML::Node& root, PipelineDocument& doc) {
    auto links = root["links"];
    if (!links || links.IsNull()) return;
    if (!links.IsSequence()) {
      diags_.error(at(file_, links.Mark()),
                   fmt::format("'links' must be a list of 'a/x.port -> b/y.port', found {}", kind_of(links)));
      return;
    }
    for (const auto& l : links) {
      SourceRef where = at(file_, l.Mark());
      if (!l.IsScalar()) {
        diags_.error(where,
                     fmt::format("a link is a string 'from/id.port -> to/id.port', found {}", kind_of(l)));
        continue;
      }
      std::string text = expand(l.Scalar(), l.Mark());
      auto arrow = text.find("->");
      auto endpoint = [](std::string_view s, PortRef& out) { return parse_port_ref(s, out); };
      LinkDecl link;
      link.text = text;
      link.where = where;
      if (arrow == std::string::npos || !endpoint(text.substr(0, arrow), link.from) ||
          !endpoint(text.substr(arrow + 2), link.to)) {
        diags_.error(where,
                     fmt::format("malformed link '{}': expected 'type/name.port -> type/name.port'", text));
        continue;
      }
      doc.links.push_back(std::move(link));
    }
  }

  std::string file_;
  const PipelineInputs& inputs_;
  Diagnostics& diags_;
  bool included_ = false;
  std::vector<std::string> include_stack_;
};

}  // namespace

nlohmann::json ComponentDecl::options_json() const {
  nlohmann::json o = nlohmann::json::object();
  for (const auto& d : options) o[d.key] = d.value;
  return o;
}

const OptionDecl* ComponentDecl::option(const std::string& key) const {
  for (const auto& d : options)
    if (d.key == key) return &d;
  return nullptr;
}

bool split_component_id(const std::string& id, std::string& type, std::string& name) {
  static const std::regex id_re("([a-z][a-z0-9_.]*)/([A-Za-z0-9_.-]+)");
  std::smatch m;
  if (!std::regex_match(id, m, id_re)) return false;
  type = m[1];
  name = m[2];
  return true;
}

bool parse_port_ref(std::string_view text, PortRef& out) {
  auto b = text.find_first_not_of(" \t");
  auto e = text.find_last_not_of(" \t");
  std::string_view s = b == std::string_view::npos ? std::string_view() : text.substr(b, e - b + 1);
  auto dot = s.rfind('.');
  auto slash = s.find('/');
  if (s.empty() || dot == std::string_view::npos || slash == std::string_view::npos || dot < slash ||
      dot + 1 == s.size())
    return false;
  out.component = std::string(s.substr(0, dot));
  out.port = std::string(s.substr(dot + 1));
  return true;
}

void apply_overrides(PipelineDocument& doc, const std::vector<std::string>& overrides, Diagnostics& diags) {
  PipelineInputs inputs;
  inputs.overrides = overrides;
  Parser(doc.file, inputs, diags).apply_overrides(doc);
}

const ComponentDecl* PipelineDocument::component(const std::string& id) const {
  for (const auto& c : components)
    if (c.id == id) return &c;
  return nullptr;
}

std::string expand_variables(const std::string& text, const std::map<std::string, std::string>& vars,
                             std::vector<std::string>& missing) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] == '$' && i + 1 < text.size() && text[i + 1] == '{') {
      auto close = text.find('}', i + 2);
      if (close != std::string::npos) {
        std::string inner = text.substr(i + 2, close - i - 2);
        std::string name = inner, fallback;
        bool has_fallback = false;
        if (auto d = inner.find(":-"); d != std::string::npos) {
          name = inner.substr(0, d);
          fallback = inner.substr(d + 2);
          has_fallback = true;
        }
        if (auto it = vars.find(name); it != vars.end())
          out += it->second;
        else if (const char* env = std::getenv(name.c_str()))
          out += env;
        else if (has_fallback)
          out += fallback;
        else
          missing.push_back(name);
        i = close + 1;
        continue;
      }
    }
    out += text[i++];
  }
  return out;
}

std::optional<PipelineDocument> parse_pipeline_text(const std::string& text, const std::string& file,
                                                    const PipelineInputs& inputs, Diagnostics& diags) {
  return Parser(file, inputs, diags).parse(text);
}

std::optional<PipelineDocument> parse_pipeline_file(const std::string& path, const PipelineInputs& inputs,
                                                    Diagnostics& diags) {
  std::ifstream in(path);
  if (!in) {
    diags.error({path, 0, 0}, fmt::format("cannot read the pipeline: {}", std::strerror(errno)));
    return std::nullopt;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  // ${pipeline_dir}: the folder of the pipeline file, so a pipeline can name data shipped next to it
  // (causal graphs, knowledge bases) wherever it is run from. An explicit --var wins.
  PipelineInputs with_dir = inputs;
  if (!with_dir.variables.contains("pipeline_dir")) {
    std::error_code ec;
    auto abs = std::filesystem::absolute(std::filesystem::path(path), ec);
    with_dir.variables["pipeline_dir"] = (ec ? std::filesystem::path(path) : abs).parent_path().string();
  }
  return parse_pipeline_text(ss.str(), path, with_dir, diags);
}

}  // namespace cann_debug::host
