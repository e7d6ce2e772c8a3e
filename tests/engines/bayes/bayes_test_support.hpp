// Helpers of the bayes tests: where the fixtures and the shared BIF corpus are, and the reference queries.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cann_debug::bayes::test {

/// tests/data/bayes of the source tree.
inline std::filesystem::path data_dir() {
  return std::filesystem::path(CANN_DEBUG_SOURCE_DIR) / "tests" / "data" / "bayes";
}
inline std::string data_file(const std::string& name) {
  return (data_dir() / name).string();
}

/// ../shared/bn (the BIF corpus with reference posteriors); may be absent.
inline std::filesystem::path bn_dir() {
  return std::filesystem::path(CANN_DEBUG_SHARED_DIR) / "bn";
}
inline bool have_bn() {
  return std::filesystem::is_directory(bn_dir() / "queries");
}
inline std::string bif(const std::string& net) {
  return (bn_dir() / (net + ".bif")).string();
}

struct ReferenceQuery {
  std::string id;
  std::map<std::string, std::string> evidence;
  std::map<std::string, std::map<std::string, double>> posteriors;
  double p_evidence = 1.0;
};

inline std::vector<ReferenceQuery> reference_queries(const std::string& net) {
  std::ifstream in(bn_dir() / "queries" / (net + ".json"));
  const auto doc = nlohmann::json::parse(in);
  std::vector<ReferenceQuery> out;
  for (const auto& q : doc) {
    ReferenceQuery r;
    r.id = q.at("id").get<std::string>();
    r.evidence = q.at("evidence").get<std::map<std::string, std::string>>();
    r.posteriors = q.at("posteriors").get<std::map<std::string, std::map<std::string, double>>>();
    r.p_evidence = q.at("p_evidence").get<double>();
    out.push_back(std::move(r));
  }
  return out;
}

/// Big networks stay out of sanitizer and unoptimised builds unless CANN_DEBUG_BAYES_BIG=1.
inline bool big_nets_enabled() {
  if (const char* env = std::getenv("CANN_DEBUG_BAYES_BIG")) return std::string(env) == "1";
#if defined(CANN_DEBUG_ASAN) || !defined(NDEBUG)
  return false;
#else
  return true;
#endif
}

}  // namespace cann_debug::bayes::test
