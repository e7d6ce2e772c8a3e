#include "cann_debug/causal_graph/json_graph.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include <fmt/format.h>

#include "cann_debug/causal_graph/graph_error.hpp"
#include "cann_debug/options.hpp"

namespace cann_debug::bayes {
namespace {

using nlohmann::json;

class Reader {
 public:
  Reader(const std::string& origin, double tolerance) : origin_(origin), tolerance_(tolerance) {}

  Network read(const json& doc) {
    if (!doc.is_object()) fail("", "expected an object with 'variables'");
    check_keys(doc, "", {"format", "name", "description", "variables"});
    Network net;
    net.origin = origin_;
    if (auto it = doc.find("format"); it != doc.end()) {
      if (!it->is_string() || it->get<std::string>() != kJsonGraphFormat)
        fail("/format", fmt::format("expected \"{}\", got {}", kJsonGraphFormat, it->dump()));
    }
    net.name = optional_string(doc, "", "name");
    net.description = optional_string(doc, "", "description");
    const json& vars = required(doc, "", "variables");
    if (!vars.is_array() || vars.empty()) fail("/variables", "expected a non-empty array of variables");
    std::unordered_map<std::string, int> index;
    for (std::size_t i = 0; i < vars.size(); ++i) {
      const std::string at = fmt::format("/variables/{}", i);
      const json& v = vars[i];
      if (!v.is_object()) fail(at, "expected an object");
      check_keys(v, at,
                 {"name", "description", "states", "default_state", "parents", "cpt", "discretization",
                  "learn", "unseen", "from_label", "learn_like"});
      Variable var;
      var.name = string_of(required(v, at, "name"), at + "/name");
      if (var.name.empty()) fail(at + "/name", "empty variable name");
      if (!index.emplace(var.name, static_cast<int>(i)).second)
        fail(at + "/name", fmt::format("variable '{}' is declared twice", var.name));
      var.description = optional_string(v, at, "description");
      const json& states = required(v, at, "states");
      if (!states.is_array() || states.empty())
        fail(at + "/states", "expected a non-empty array of state names");
      for (std::size_t s = 0; s < states.size(); ++s) {
        var.states.push_back(string_of(states[s], fmt::format("{}/states/{}", at, s)));
        if (var.states.back().empty()) fail(fmt::format("{}/states/{}", at, s), "empty state name");
        if (std::count(var.states.begin(), var.states.end(), var.states.back()) > 1)
          fail(fmt::format("{}/states/{}", at, s),
               fmt::format("state '{}' is listed twice", var.states.back()));
      }
      if (v.contains("default_state"))
        var.default_state = state_of(var, v["default_state"], at + "/default_state");
      if (v.contains("learn")) {
        if (!v["learn"].is_boolean()) fail(at + "/learn", "expected true or false");
        var.learn = v["learn"].get<bool>();
      }
      net.variables.push_back(std::move(var));
    }
    for (std::size_t i = 0; i < vars.size(); ++i) {
      const std::string at = fmt::format("/variables/{}", i);
      Variable& var = net.variables[i];
      if (auto it = vars[i].find("parents"); it != vars[i].end()) {
        if (!it->is_array()) fail(at + "/parents", "expected an array of variable names");
        for (std::size_t p = 0; p < it->size(); ++p) {
          const std::string pat = fmt::format("{}/parents/{}", at, p);
          const std::string name = string_of((*it)[p], pat);
          auto found = index.find(name);
          if (found == index.end()) fail(pat, unknown_variable(net, name));
          if (found->second == static_cast<int>(i))
            fail(pat, fmt::format("'{}' cannot be its own parent", name));
          if (std::find(var.parents.begin(), var.parents.end(), found->second) != var.parents.end())
            fail(pat, fmt::format("parent '{}' is listed twice", name));
          var.parents.push_back(found->second);
        }
      }
    }
    for (std::size_t i = 0; i < vars.size(); ++i) {
      const std::string at = fmt::format("/variables/{}", i);
      read_cpt(net, static_cast<int>(i), required(vars[i], at, "cpt"), at + "/cpt");
      if (auto it = vars[i].find("unseen"); it != vars[i].end())
        read_unseen(net, static_cast<int>(i), *it, at + "/unseen");
      if (auto it = vars[i].find("discretization"); it != vars[i].end())
        net.variables[i].discretization = read_discretization(net.variables[i], *it, at + "/discretization");
      if (auto it = vars[i].find("from_label"); it != vars[i].end())
        read_from_label(net, index, static_cast<int>(i), *it, at + "/from_label");
      if (auto it = vars[i].find("learn_like"); it != vars[i].end())
        read_learn_like(net.variables[i], *it, at + "/learn_like");
    }
    net.finalize(tolerance_);
    return net;
  }

 private:
  [[noreturn]] void fail(const std::string& pointer, const std::string& message) const {
    throw GraphError(fmt::format("{}: {}: {}", origin_, pointer.empty() ? "/" : pointer, message));
  }

  void check_keys(const json& obj, const std::string& at, const std::vector<std::string>& known) const {
    for (const auto& [key, value] : obj.items()) {
      if (!key.empty() && key[0] == '_') continue;  // comments and extensions
      if (std::find(known.begin(), known.end(), key) != known.end()) continue;
      const std::string hint = closest_match(key, known);
      fail(at.empty() ? "/" : at,
           fmt::format("unknown key '{}'{}", key,
                       hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint)));
    }
  }

  const json& required(const json& obj, const std::string& at, const char* key) const {
    auto it = obj.find(key);
    if (it == obj.end()) fail(at.empty() ? "/" : at, fmt::format("missing required key '{}'", key));
    return *it;
  }

  std::string string_of(const json& v, const std::string& at) const {
    if (!v.is_string()) fail(at, fmt::format("expected a string, got {}", v.dump()));
    return v.get<std::string>();
  }

  std::string optional_string(const json& obj, const std::string& at, const char* key) const {
    auto it = obj.find(key);
    return it == obj.end() ? std::string() : string_of(*it, at + "/" + key);
  }

  double number_of(const json& v, const std::string& at) const {
    if (!v.is_number()) fail(at, fmt::format("expected a number, got {}", v.dump()));
    return v.get<double>();
  }

  int state_of(const Variable& var, const json& v, const std::string& at) const {
    const std::string s = string_of(v, at);
    const int idx = var.state_index(s);
    if (idx < 0)
      fail(at,
           fmt::format("'{}' is not a state of '{}' (states: {})", s, var.name, fmt::join(var.states, ", ")));
    return idx;
  }

  static std::string unknown_variable(const Network& net, const std::string& name) {
    std::vector<std::string> names;
    for (const auto& v : net.variables) names.push_back(v.name);
    const std::string hint = closest_match(name, names);
    return fmt::format("unknown variable '{}'{}", name,
                       hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint));
  }

  std::vector<double> row_of(const json& v, const std::string& at) const {
    if (!v.is_array()) fail(at, fmt::format("expected an array of probabilities, got {}", v.dump()));
    std::vector<double> row;
    for (std::size_t k = 0; k < v.size(); ++k) row.push_back(number_of(v[k], fmt::format("{}/{}", at, k)));
    return row;
  }

  void put_row(const Network& net, int v, std::size_t r, const std::vector<double>& row,
               const std::string& at, std::vector<double>& cpt) const {
    const Variable& var = net.variables[static_cast<std::size_t>(v)];
    if (row.size() != var.cardinality())
      fail(at, fmt::format("row {} of '{}' has {} probabilities, expected {} (one per state)",
                           net.row_label(v, r), var.name, row.size(), var.cardinality()));
    const std::string problem = check_row(row.data(), row.size(), tolerance_);
    if (!problem.empty())
      fail(at, fmt::format("variable '{}', CPT row {}: {}", var.name, net.row_label(v, r), problem));
    std::copy(row.begin(), row.end(), cpt.begin() + static_cast<std::ptrdiff_t>(r * var.cardinality()));
  }

  void read_cpt(Network& net, int v, const json& cpt, const std::string& at) const {
    Variable& var = net.variables[static_cast<std::size_t>(v)];
    const std::size_t rows = net.rows(v);
    if (!cpt.is_array() || cpt.empty()) fail(at, "expected an array of CPT rows");
    std::vector<double> table(rows * var.cardinality(), 0.0);
    if (cpt[0].is_number()) {  // shorthand: the one row of a variable without parents
      if (rows != 1)
        fail(at, fmt::format("'{}' has parents: expected {} rows (arrays), got a flat list", var.name, rows));
      put_row(net, v, 0, row_of(cpt, at), at, table);
      var.cpt = std::move(table);
      return;
    }
    const bool keyed = cpt[0].is_object();
    std::vector<bool> seen(rows, false);
    for (std::size_t k = 0; k < cpt.size(); ++k) {
      const std::string rat = fmt::format("{}/{}", at, k);
      if (cpt[k].is_object() != keyed)
        fail(rat, "rows must be all positional (arrays) or all keyed (objects with 'given' and 'p')");
      std::size_t r = k;
      std::vector<double> row;
      if (keyed) {
        check_keys(cpt[k], rat, {"given", "p"});
        r = row_index(net, v, required(cpt[k], rat, "given"), rat + "/given");
        row = row_of(required(cpt[k], rat, "p"), rat + "/p");
      } else {
        if (k >= rows)
          fail(rat, fmt::format("'{}' has {} parent configurations, so {} rows; got {}", var.name, rows, rows,
                                cpt.size()));
        row = row_of(cpt[k], rat);
      }
      if (seen[r]) fail(rat, fmt::format("row {} of '{}' is given twice", net.row_label(v, r), var.name));
      seen[r] = true;
      put_row(net, v, r, row, rat, table);
    }
    for (std::size_t r = 0; r < rows; ++r)
      if (!seen[r])
        fail(at, fmt::format("'{}' has no row for {} ({} rows expected, {} given)", var.name,
                             net.row_label(v, r), rows, cpt.size()));
    var.cpt = std::move(table);
  }

  // `unseen`: [{"given": ..., "share": w, "p": [...]}, ...], rows mixed with a kind the cases lack.
  void read_unseen(Network& net, int v, const json& unseen, const std::string& at) const {
    Variable& var = net.variables[static_cast<std::size_t>(v)];
    if (!unseen.is_array()) fail(at, "expected an array of {\"given\", \"share\", \"p\"} objects");
    for (std::size_t k = 0; k < unseen.size(); ++k) {
      const std::string rat = fmt::format("{}/{}", at, k);
      if (!unseen[k].is_object()) fail(rat, "expected an object with 'given', 'share' and 'p'");
      check_keys(unseen[k], rat, {"given", "share", "p"});
      const std::size_t r = row_index(net, v, required(unseen[k], rat, "given"), rat + "/given");
      const double share = number_of(required(unseen[k], rat, "share"), rat + "/share");
      if (!(share > 0.0 && share < 1.0)) fail(rat + "/share", "expected a share between 0 and 1 (exclusive)");
      std::vector<double> p = row_of(required(unseen[k], rat, "p"), rat + "/p");
      if (p.size() != var.cardinality())
        fail(rat + "/p", fmt::format("{} probabilities, expected {} (one per state of '{}')", p.size(),
                                     var.cardinality(), var.name));
      if (const std::string problem = check_row(p.data(), p.size(), tolerance_); !problem.empty())
        fail(rat + "/p", problem);
      if (!var.unseen.emplace(r, Variable::UnseenKind{share, std::move(p)}).second)
        fail(rat, fmt::format("row {} of '{}' has two unseen kinds", net.row_label(v, r), var.name));
    }
  }

  // `learn_like`: {state: state whose learnt rows it takes, ...}.
  void read_learn_like(Variable& var, const json& spec, const std::string& at) const {
    if (!spec.is_object()) fail(at, "expected an object {state: state whose learnt rows it takes}");
    for (const auto& [from, to] : spec.items()) {
      const std::string sat = at + "/" + from;
      const int a = var.state_index(from);
      if (a < 0) fail(sat, fmt::format("'{}' has no state '{}'", var.name, from));
      const int b = state_of(var, to, sat);
      if (a == b) fail(sat, fmt::format("state '{}' cannot take its own rows", from));
      var.learn_like.emplace_back(a, b);
    }
    std::sort(var.learn_like.begin(), var.learn_like.end());
    for (const auto& [a, b] : var.learn_like)
      for (const auto& [x, y] : var.learn_like)
        if (b == x) {
          const std::string& from = var.states[static_cast<std::size_t>(a)];
          fail(at + "/" + from, fmt::format("'{}' takes its rows from another state itself: name that one",
                                            var.states[static_cast<std::size_t>(b)]));
        }
  }

  // `from_label`: {"variable": label, "states": {label state: state, ...}, "otherwise": state}.
  void read_from_label(Network& net, const std::unordered_map<std::string, int>& index, int v,
                       const json& spec, const std::string& at) const {
    Variable& var = net.variables[static_cast<std::size_t>(v)];
    if (!spec.is_object()) fail(at, "expected an object with 'variable', 'states' and 'otherwise'");
    check_keys(spec, at, {"variable", "states", "otherwise"});
    if (var.learn)
      fail(at, fmt::format("'{}' is read off the label, so its own table is the hand-set share of each kind "
                           "and must be kept as written: expected \"learn\": false",
                           var.name));
    if (var.discretization)
      fail(at, fmt::format("'{}' is read off the label, so no feature may observe it: expected no "
                           "'discretization'",
                           var.name));
    const std::string label_name = string_of(required(spec, at, "variable"), at + "/variable");
    const auto found = index.find(label_name);
    if (found == index.end()) fail(at + "/variable", unknown_variable(net, label_name));
    const int label = found->second;
    if (label == v) fail(at + "/variable", fmt::format("'{}' cannot be read off itself", var.name));
    const Variable& label_var = net.variables[static_cast<std::size_t>(label)];
    Variable::ReadOffLabel reading{label, std::vector<int>(label_var.cardinality(), -1)};
    const json& states = required(spec, at, "states");
    if (!states.is_object()) fail(at + "/states", "expected an object {label state: state}");
    for (const auto& [label_state, state] : states.items()) {
      const std::string sat = at + "/states/" + label_state;
      const int ls = label_var.state_index(label_state);
      if (ls < 0) fail(sat, fmt::format("'{}' has no state '{}'", label_var.name, label_state));
      reading.state_of[static_cast<std::size_t>(ls)] = state_of(var, state, sat);
    }
    const bool all_named = std::count(reading.state_of.begin(), reading.state_of.end(), -1) == 0;
    if (auto it = spec.find("otherwise"); it != spec.end()) {
      const int otherwise = state_of(var, *it, at + "/otherwise");
      for (int& s : reading.state_of)
        if (s < 0) s = otherwise;
    } else if (!all_named) {
      fail(at, fmt::format("not every state of '{}' is mapped: expected 'otherwise'", label_var.name));
    }
    var.from_label = std::move(reading);
  }

  // `given`: {"parent": "state", ...} or ["state of parent 1", ...] in parent order.
  std::size_t row_index(const Network& net, int v, const json& given, const std::string& at) const {
    const Variable& var = net.variables[static_cast<std::size_t>(v)];
    if (given.size() != var.parents.size() || !(given.is_object() || given.is_array()))
      fail(at, fmt::format("expected one state for each of the {} parents of '{}'", var.parents.size(),
                           var.name));
    std::size_t r = 0;
    for (std::size_t i = 0; i < var.parents.size(); ++i) {
      const Variable& parent = net.variables[static_cast<std::size_t>(var.parents[i])];
      const json* state = nullptr;
      std::string sat;
      if (given.is_array()) {
        state = &given[i];
        sat = fmt::format("{}/{}", at, i);
      } else {
        auto it = given.find(parent.name);
        if (it == given.end()) fail(at, fmt::format("no state for parent '{}'", parent.name));
        state = &*it;
        sat = at + "/" + parent.name;
      }
      r = r * parent.cardinality() + static_cast<std::size_t>(state_of(parent, *state, sat));
    }
    return r;
  }

  Discretization read_discretization(const Variable& var, const json& d, const std::string& at) const {
    if (!d.is_object()) fail(at, "expected an object");
    check_keys(
        d, at,
        {"feature", "labels", "thresholds", "states", "soft_width", "nonfinite_state", "absent_state"});
    Discretization out;
    out.feature = string_of(required(d, at, "feature"), at + "/feature");
    if (out.feature.empty()) fail(at + "/feature", "empty feature name");
    if (auto it = d.find("labels"); it != d.end()) {
      if (!it->is_object()) fail(at + "/labels", "expected an object of label -> value");
      for (const auto& [k, val] : it->items()) out.labels[k] = string_of(val, at + "/labels/" + k);
    }
    const json& thresholds = required(d, at, "thresholds");
    if (!thresholds.is_array()) fail(at + "/thresholds", "expected an array of numbers");
    for (std::size_t i = 0; i < thresholds.size(); ++i) {
      const std::string tat = fmt::format("{}/thresholds/{}", at, i);
      const double t = number_of(thresholds[i], tat);
      if (!std::isfinite(t)) fail(tat, "threshold is not finite");
      if (!out.thresholds.empty() && !(t > out.thresholds.back()))
        fail(tat,
             fmt::format("thresholds must be strictly ascending ({} after {})", t, out.thresholds.back()));
      out.thresholds.push_back(t);
    }
    const std::size_t bins = out.thresholds.size() + 1;
    if (auto it = d.find("states"); it != d.end()) {
      if (!it->is_array() || it->size() != bins)
        fail(at + "/states", fmt::format("expected {} state names (one per bin: thresholds + 1)", bins));
      for (std::size_t b = 0; b < bins; ++b)
        out.bin_states.push_back(state_of(var, (*it)[b], fmt::format("{}/states/{}", at, b)));
    } else {
      if (var.cardinality() != bins)
        fail(at,
             fmt::format(
                 "{} thresholds make {} bins but '{}' has {} states; list the state of each bin in 'states'",
                 out.thresholds.size(), bins, var.name, var.cardinality()));
      for (std::size_t b = 0; b < bins; ++b) out.bin_states.push_back(static_cast<int>(b));
    }
    if (auto it = d.find("soft_width"); it != d.end()) {
      out.soft_width = number_of(*it, at + "/soft_width");
      if (!(out.soft_width >= 0.0) || !std::isfinite(out.soft_width))
        fail(at + "/soft_width", "expected a finite number >= 0");
    }
    if (auto it = d.find("nonfinite_state"); it != d.end())
      out.nonfinite_state = state_of(var, *it, at + "/nonfinite_state");
    if (auto it = d.find("absent_state"); it != d.end())
      out.absent_state = state_of(var, *it, at + "/absent_state");
    return out;
  }

  const std::string& origin_;
  double tolerance_;
};

}  // namespace

Network parse_json_graph(std::string_view text, const std::string& origin, double row_tolerance) {
  json doc;
  try {
    doc = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    std::string what = e.what();
    if (auto pos = what.find("] "); what.rfind("[json.exception", 0) == 0 && pos != std::string::npos)
      what = what.substr(pos + 2);
    throw GraphError(fmt::format("{}: invalid JSON: {}", origin, what));
  }
  return Reader(origin, row_tolerance).read(doc);
}

namespace {

// The most common state becomes `otherwise`; the label states mapped elsewhere are listed.
json from_label_json(const Network& net, const Variable& var) {
  const auto& reading = *var.from_label;
  const Variable& label = net.variables[static_cast<std::size_t>(reading.label)];
  std::vector<std::size_t> uses(var.cardinality(), 0);
  for (int s : reading.state_of) ++uses[static_cast<std::size_t>(s)];
  const auto otherwise = static_cast<int>(std::max_element(uses.begin(), uses.end()) - uses.begin());
  json states = json::object();
  for (std::size_t ls = 0; ls < reading.state_of.size(); ++ls)
    if (reading.state_of[ls] != otherwise)
      states[label.states[ls]] = var.states[static_cast<std::size_t>(reading.state_of[ls])];
  return {{"variable", label.name},
          {"states", states},
          {"otherwise", var.states[static_cast<std::size_t>(otherwise)]}};
}

}  // namespace

json to_json_graph(const Network& net) {
  json vars = json::array();
  for (std::size_t v = 0; v < net.variables.size(); ++v) {
    const Variable& var = net.variables[v];
    json j = {{"name", var.name}, {"states", var.states}};
    if (!var.description.empty()) j["description"] = var.description;
    if (var.default_state >= 0) j["default_state"] = var.states[static_cast<std::size_t>(var.default_state)];
    if (!var.learn) j["learn"] = false;
    json parents = json::array();
    for (int p : var.parents) parents.push_back(net.variables[static_cast<std::size_t>(p)].name);
    j["parents"] = parents;
    json rows = json::array();
    const std::size_t card = var.cardinality();
    for (std::size_t r = 0; r * card < var.cpt.size(); ++r)
      rows.push_back(std::vector<double>(var.cpt.begin() + static_cast<std::ptrdiff_t>(r * card),
                                         var.cpt.begin() + static_cast<std::ptrdiff_t>((r + 1) * card)));
    j["cpt"] = rows;
    if (!var.unseen.empty()) {
      json unseen = json::array();
      for (const auto& [r, kind] : var.unseen) {
        const std::vector<std::size_t> at = net.row_states(static_cast<int>(v), r);
        json given = json::array();
        for (std::size_t i = 0; i < at.size(); ++i)
          given.push_back(net.variables[static_cast<std::size_t>(var.parents[i])].states[at[i]]);
        unseen.push_back({{"given", given}, {"share", kind.share}, {"p", kind.p}});
      }
      j["unseen"] = unseen;
    }
    if (var.from_label) j["from_label"] = from_label_json(net, var);
    if (!var.learn_like.empty()) {
      json like = json::object();
      for (const auto& [a, b] : var.learn_like)
        like[var.states[static_cast<std::size_t>(a)]] = var.states[static_cast<std::size_t>(b)];
      j["learn_like"] = like;
    }
    if (var.discretization) {
      const Discretization& d = *var.discretization;
      json dj = {{"feature", d.feature}, {"thresholds", d.thresholds}};
      if (!d.labels.empty()) dj["labels"] = d.labels;
      json states = json::array();
      for (int s : d.bin_states) states.push_back(var.states[static_cast<std::size_t>(s)]);
      dj["states"] = states;
      if (d.soft_width > 0) dj["soft_width"] = d.soft_width;
      if (d.nonfinite_state >= 0)
        dj["nonfinite_state"] = var.states[static_cast<std::size_t>(d.nonfinite_state)];
      if (d.absent_state >= 0) dj["absent_state"] = var.states[static_cast<std::size_t>(d.absent_state)];
      j["discretization"] = dj;
    }
    vars.push_back(std::move(j));
  }
  json doc = {{"format", kJsonGraphFormat}, {"variables", vars}};
  if (!net.name.empty()) doc["name"] = net.name;
  if (!net.description.empty()) doc["description"] = net.description;
  return doc;
}

}  // namespace cann_debug::bayes
