// The per-step lines large-model trainers print, parsed by field name: Megatron-LM, Megatron-DeepSpeed
// and MindSpeed-LLM iteration and validation lines, llm.c (log file and stdout), nanoGPT, torchtitan and
// Hugging Face Trainer dictionaries. Every field is optional; what a back end does not report is absent,
// never zero.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "cann_debug/time.hpp"

namespace cann_debug::plugins::llm_logs {

enum class LineKind {
  kTrain,       // one optimizer step (or the mean of a log interval)
  kValidation,  // a validation / eval result
  kSummary,     // end-of-run totals (Hugging Face train_runtime, ...)
};

struct StepLine {
  LineKind kind = LineKind::kTrain;
  std::string format;                // "megatron", "llm.c", "nanogpt", "torchtitan", "hf_trainer", "json"
  std::optional<std::int64_t> step;  // nullopt: the format has none (Hugging Face stdout)
  TimestampNs time_ns = kNoTimestamp;
  nlohmann::json fields = nlohmann::json::object();  // canonical names: loss, grad_norm, lr, ...
};

/// The line without ANSI colour sequences and without what launchers put in front of each line
/// ("vm-07-14: ", "[rank3]: ", "0: ").
std::string plain_text(std::string_view line);

/// The step line `text` (already plain_text) is, or nullopt. A line that starts like a step line of a
/// format but whose numbers are garbage is nullopt with `why` set (what was expected).
std::optional<StepLine> parse_step_line(std::string_view text, std::string& why);

/// "2024-03-14 23:07:56[.ffffff]" (or with 'T', or ",fff") as ns since the epoch, read as UTC.
std::optional<TimestampNs> parse_wall_clock(std::string_view text);

}  // namespace cann_debug::plugins::llm_logs
