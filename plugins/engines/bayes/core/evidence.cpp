#include "evidence.hpp"

#include <cmath>

#include <fmt/format.h>

#include "cann_debug/options.hpp"
#include "errors.hpp"

namespace cann_debug::bayes {
namespace {

int variable_or_throw(const Network& net, const std::string& name) {
  const int v = net.find(name);
  if (v >= 0) return v;
  std::vector<std::string> names;
  for (const auto& var : net.variables) names.push_back(var.name);
  const std::string hint = closest_match(name, names);
  throw EvidenceError(fmt::format("evidence names unknown variable '{}' of graph '{}'{}", name,
                                  net.display_name(),
                                  hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint)));
}

int state_or_throw(const Variable& var, const std::string& state) {
  const int s = var.state_index(state);
  if (s >= 0) return s;
  throw EvidenceError(fmt::format("evidence gives '{}' state '{}', which is not one of its states ({})",
                                  var.name, state, fmt::join(var.states, ", ")));
}

}  // namespace

std::vector<int> Likelihoods::observed_variables() const {
  std::vector<int> out;
  for (std::size_t v = 0; v < of_.size(); ++v)
    if (!of_[v].empty()) out.push_back(static_cast<int>(v));
  return out;
}

bool Likelihoods::empty() const {
  for (const auto& l : of_)
    if (!l.empty()) return false;
  return true;
}

void Likelihoods::set_hard(int v, int state, std::size_t cardinality) {
  std::vector<double> l(cardinality, 0.0);
  l[static_cast<std::size_t>(state)] = 1.0;
  of_[static_cast<std::size_t>(v)] = std::move(l);
}

int Likelihoods::strongest_state(int v) const {
  const auto& l = of(v);
  int best = -1;
  for (std::size_t s = 0; s < l.size(); ++s)
    if (best < 0 || l[s] > l[static_cast<std::size_t>(best)]) best = static_cast<int>(s);
  return best;
}

Likelihoods make_likelihoods(const Network& net, const std::map<std::string, std::string>& hard,
                             const std::map<std::string, std::map<std::string, double>>& soft) {
  Likelihoods out(net.size());
  for (const auto& [name, state] : hard) {
    const int v = variable_or_throw(net, name);
    const Variable& var = net.variables[static_cast<std::size_t>(v)];
    out.set_hard(v, state_or_throw(var, state), var.cardinality());
  }
  for (const auto& [name, states] : soft) {
    const int v = variable_or_throw(net, name);
    const Variable& var = net.variables[static_cast<std::size_t>(v)];
    if (out.observed(v))
      throw EvidenceError(fmt::format("variable '{}' has both hard and soft evidence", name));
    std::vector<double> l(var.cardinality(), 0.0);
    double total = 0.0;
    for (const auto& [state, likelihood] : states) {
      if (!std::isfinite(likelihood) || likelihood < 0.0)
        throw EvidenceError(
            fmt::format("soft evidence on '{}': likelihood of '{}' is {}, expected a finite number >= 0",
                        name, state, likelihood));
      l[static_cast<std::size_t>(state_or_throw(var, state))] = likelihood;
      total += likelihood;
    }
    if (total <= 0.0)
      throw EvidenceError(fmt::format("soft evidence on '{}' gives every state likelihood 0", name));
    out.set(v, std::move(l));
  }
  return out;
}

}  // namespace cann_debug::bayes
