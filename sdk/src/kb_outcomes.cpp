#include "cann_debug/kb_outcomes.hpp"

#include "cann_debug/whole_file.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>

namespace cann_debug::kb {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

[[noreturn]] void fail(const std::string& file, const std::string& pointer, const std::string& expected) {
  throw std::runtime_error(
      fmt::format("{}: at {}: expected {}", file, pointer.empty() ? "/" : pointer, expected));
}

const json& member(const json& object, const char* key, const std::string& file, const std::string& at) {
  auto it = object.find(key);
  if (it == object.end()) fail(file, at + "/" + key, fmt::format("\"{}\" (missing)", key));
  return *it;
}

std::string string_at(const json& object, const char* key, const std::string& file, const std::string& at) {
  const json& v = member(object, key, file, at);
  if (!v.is_string() || v.get<std::string>().empty()) fail(file, at + "/" + key, "a non-empty string");
  return v.get<std::string>();
}

std::size_t count_at(const json& object, const char* key, const std::string& file, const std::string& at) {
  const json& v = member(object, key, file, at);
  if (!v.is_number_unsigned()) fail(file, at + "/" + key, "a count (an integer >= 0)");
  return v.get<std::size_t>();
}

double number_at(const json& object, const char* key, const std::string& file, const std::string& at) {
  const json& v = member(object, key, file, at);
  if (!v.is_number() || !std::isfinite(v.get<double>())) fail(file, at + "/" + key, "a finite number");
  return v.get<double>();
}

json context_json(const OutcomeContext& c) {
  return {{"scenario", c.scenario},
          {"model", c.model},
          {"hardware", c.hardware},
          {"framework", c.framework},
          {"scale", c.scale}};
}

OutcomeContext parse_context(const json& v, const std::string& file, const std::string& at) {
  if (!v.is_object()) fail(file, at, "an object {scenario, model, hardware, framework, scale}");
  OutcomeContext c;
  for (auto [key, field] :
       {std::pair{"scenario", &c.scenario}, std::pair{"model", &c.model}, std::pair{"hardware", &c.hardware},
        std::pair{"framework", &c.framework}, std::pair{"scale", &c.scale}})
    *field = string_at(v, key, file, at);
  return c;
}

std::string scale_of(double ranks) {
  if (ranks <= 1) return "1";
  if (ranks <= 8) return "2-8";
  if (ranks <= 64) return "9-64";
  if (ranks <= 1024) return "65-1024";
  return ">1024";
}

std::string lower(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

/// An exclusive flock on `path`, released by the destructor.
class FileLock {
 public:
  explicit FileLock(const std::string& path) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0)
      throw std::runtime_error(fmt::format("{}: cannot open the lock file: {}", path, std::strerror(errno)));
    while (::flock(fd_, LOCK_EX) != 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      ::close(fd_);
      throw std::runtime_error(fmt::format("{}: cannot lock: {}", path, std::strerror(error)));
    }
  }
  ~FileLock() {
    ::flock(fd_, LOCK_UN);
    ::close(fd_);
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace

OutcomeContext OutcomeContext::of_run(const RunConfiguration& config, std::string_view scenario) {
  OutcomeContext c;
  if (!scenario.empty()) c.scenario = std::string(scenario);
  for (const char* key : {"model", "model.type", "model.name", "model_type"}) {
    if (auto s = config.text(key); s && !s->empty()) {
      c.model = lower(*s);
      break;
    }
  }
  for (const char* key : {"hardware", "device", "device_type"}) {
    const auto text = config.text(key);
    if (!text || text->empty()) continue;
    const std::string s = lower(*text);
    c.hardware = s.starts_with("cuda") || s.starts_with("gpu")     ? "gpu"
                 : s.starts_with("npu") || s.starts_with("ascend") ? "npu"
                 : s.starts_with("cpu")                            ? "cpu"
                                                                   : s;
    break;
  }
  if (auto s = config.text("framework"); s && !s->empty()) c.framework = lower(*s);
  for (const char* key : {"world_size", "ranks", "num_ranks"}) {
    if (auto n = config.number(key)) {
      c.scale = scale_of(*n);
      break;
    }
  }
  // A single-process training or serving run says so by having no world size.
  if (c.scale == "unknown" && (c.scenario == "training" || c.scenario == "inference") &&
      (config.find("steps") || config.find("batch_size")))
    c.scale = "1";
  return c;
}

std::string OutcomeContext::describe() const {
  return fmt::format("{}/{}/{}/{}/{}", scenario, model, hardware, framework, scale);
}

OutcomeStore OutcomeStore::load(const std::string& path) {
  OutcomeStore store;
  std::error_code ec;
  if (!fs::exists(path, ec)) return store;
  const std::string text = read_whole_file(path);
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    throw std::runtime_error(fmt::format("{}: byte {}: not valid JSON ({})", path, e.byte, e.what()));
  }
  if (!doc.is_object()) fail(path, "", "an object {format, outcomes, problems}");
  if (string_at(doc, "format", path, "") != kOutcomesFormat)
    fail(path, "/format", fmt::format("\"{}\"", kOutcomesFormat));
  if (doc.contains("outcomes")) {
    const json& rows = doc["outcomes"];
    if (!rows.is_array()) fail(path, "/outcomes", "an array");
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const std::string at = fmt::format("/outcomes/{}", i);
      const json& row = rows[i];
      if (!row.is_object()) fail(path, at, "an object");
      SuggestionOutcome o;
      o.suggestion = string_at(row, "suggestion", path, at);
      o.root_cause = string_at(row, "root_cause", path, at);
      o.context = parse_context(member(row, "context", path, at), path, at + "/context");
      o.trials = count_at(row, "trials", path, at);
      o.successes = count_at(row, "successes", path, at);
      if (o.successes > o.trials) fail(path, at + "/successes", "at most \"trials\"");
      o.measured = row.contains("measured") ? count_at(row, "measured", path, at) : o.trials;
      if (o.measured > o.trials) fail(path, at + "/measured", "at most \"trials\"");
      o.gain_sum = number_at(row, "gain_sum", path, at);
      if (row.contains("recent_gains")) {
        const json& gains = row["recent_gains"];
        if (!gains.is_array()) fail(path, at + "/recent_gains", "an array of numbers");
        for (std::size_t g = 0; g < gains.size(); ++g) {
          if (!gains[g].is_number() || !std::isfinite(gains[g].get<double>()))
            fail(path, fmt::format("{}/recent_gains/{}", at, g), "a finite number");
          o.recent_gains.push_back(gains[g].get<double>());
        }
      }
      if (row.contains("updated")) o.updated = string_at(row, "updated", path, at);
      store.outcomes_.push_back(std::move(o));
    }
  }
  if (doc.contains("problems")) {
    const json& rows = doc["problems"];
    if (!rows.is_array()) fail(path, "/problems", "an array");
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const std::string at = fmt::format("/problems/{}", i);
      const json& row = rows[i];
      if (!row.is_object()) fail(path, at, "an object");
      ProblemRecord p;
      p.root_cause = string_at(row, "root_cause", path, at);
      p.context = parse_context(member(row, "context", path, at), path, at + "/context");
      p.symptoms = row.value("symptoms", json::object());
      p.tried = row.value("tried", json::array());
      if (!p.tried.is_array()) fail(path, at + "/tried", "an array");
      if (row.contains("registered")) p.registered = string_at(row, "registered", path, at);
      store.problems_.push_back(std::move(p));
    }
  }
  return store;
}

void OutcomeStore::update(const std::string& path, const std::function<void(OutcomeStore&)>& change) {
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty()) fs::create_directories(parent);
  FileLock lock(path + ".lock");
  OutcomeStore store = load(path);
  change(store);
  write_file_atomically(path, store.to_json().dump(2) + "\n");
}

void OutcomeStore::record(const std::string& suggestion, const std::string& root_cause,
                          const OutcomeContext& context, bool success, double measured_gain,
                          const std::string& when) {
  SuggestionOutcome* row = nullptr;
  for (auto& o : outcomes_)
    if (o.suggestion == suggestion && o.root_cause == root_cause && o.context == context) row = &o;
  if (!row) {
    outcomes_.push_back({.suggestion = suggestion, .root_cause = root_cause, .context = context});
    row = &outcomes_.back();
  }
  ++row->trials;
  if (success) ++row->successes;
  if (std::isfinite(measured_gain)) {
    ++row->measured;
    row->gain_sum += measured_gain;
    row->recent_gains.push_back(measured_gain);
    if (row->recent_gains.size() > SuggestionOutcome::kMaxRecentGains)
      row->recent_gains.erase(row->recent_gains.begin());
  }
  row->updated = when;
}

void OutcomeStore::register_problem(ProblemRecord problem) {
  problems_.push_back(std::move(problem));
}

std::optional<OutcomeMatch> OutcomeStore::find(std::string_view suggestion, std::string_view root_cause,
                                               const OutcomeContext& context) const {
  std::optional<OutcomeMatch> pooled;
  for (const auto& o : outcomes_) {
    if (o.suggestion != suggestion || o.root_cause != root_cause) continue;
    if (o.context == context) return OutcomeMatch{o, true};
    if (!pooled) {
      pooled = OutcomeMatch{o, false};
      pooled->outcome.context = OutcomeContext{};
      continue;
    }
    SuggestionOutcome& p = pooled->outcome;
    p.trials += o.trials;
    p.successes += o.successes;
    p.measured += o.measured;
    p.gain_sum += o.gain_sum;
    p.recent_gains.insert(p.recent_gains.end(), o.recent_gains.begin(), o.recent_gains.end());
    p.updated = std::max(p.updated, o.updated);
  }
  return pooled;
}

json OutcomeStore::to_json() const {
  json outcomes = json::array();
  for (const auto& o : outcomes_) {
    outcomes.push_back({{"suggestion", o.suggestion},
                        {"root_cause", o.root_cause},
                        {"context", context_json(o.context)},
                        {"trials", o.trials},
                        {"successes", o.successes},
                        {"measured", o.measured},
                        {"alpha", o.alpha()},
                        {"beta", o.beta()},
                        {"success_probability", o.success_probability()},
                        {"mean_gain", o.mean_gain()},
                        {"gain_sum", o.gain_sum},
                        {"recent_gains", o.recent_gains},
                        {"updated", o.updated}});
  }
  json problems = json::array();
  for (const auto& p : problems_) {
    problems.push_back({{"root_cause", p.root_cause},
                        {"context", context_json(p.context)},
                        {"symptoms", p.symptoms},
                        {"tried", p.tried},
                        {"registered", p.registered}});
  }
  return {{"format", kOutcomesFormat},
          {"description",
           "What cann-debug optimize measured: per suggestion, root cause and context a Beta(1+successes, "
           "1+failures) posterior of success and the mean measured gain; problems nothing fixed. Schema: "
           "docs/advisors.md (Outcomes)."},
          {"outcomes", std::move(outcomes)},
          {"problems", std::move(problems)}};
}

std::string utc_now_iso8601() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

}  // namespace cann_debug::kb
