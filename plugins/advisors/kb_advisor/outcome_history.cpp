#include "outcome_history.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace cann_debug::plugins::kb {
namespace {

std::string required_string(const nlohmann::json& row, const char* key, const std::string& where) {
  auto it = row.find(key);
  if (it == row.end() || !it->is_string() || it->get<std::string>().empty())
    throw std::runtime_error(fmt::format("{}: expected \"{}\" to be a non-empty string", where, key));
  return it->get<std::string>();
}

}  // namespace

OutcomeHistory OutcomeHistory::load(const std::string& path) {
  OutcomeHistory history;
  if (!std::filesystem::exists(path)) return history;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot open the history file", path));
  std::string line;
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = fmt::format("{}:{}", path, number);
    nlohmann::json row;
    try {
      row = nlohmann::json::parse(line);
    } catch (const nlohmann::json::parse_error& e) {
      throw std::runtime_error(fmt::format("{}: byte {} of the line: not valid JSON", where, e.byte));
    }
    if (!row.is_object()) throw std::runtime_error(fmt::format("{}: expected a JSON object", where));
    const std::string suggestion = required_string(row, "suggestion", where);
    const std::string root_cause = required_string(row, "root_cause", where);
    auto it = row.find("measured_improvement");
    if (it == row.end() || !it->is_number() || !std::isfinite(it->get<double>()))
      throw std::runtime_error(
          fmt::format("{}: expected \"measured_improvement\" to be a finite number", where));
    history.add(suggestion, root_cause, it->get<double>());
  }
  return history;
}

void OutcomeHistory::add(const std::string& suggestion, const std::string& root_cause, double measured) {
  Sum& s = sums_[{suggestion, root_cause}];
  s.total += measured;
  ++s.count;
  ++rows_;
}

std::optional<double> OutcomeHistory::mean(const std::string& suggestion,
                                           const std::string& root_cause) const {
  auto it = sums_.find({suggestion, root_cause});
  if (it == sums_.end() || it->second.count == 0) return std::nullopt;
  return it->second.total / static_cast<double>(it->second.count);
}

}  // namespace cann_debug::plugins::kb
