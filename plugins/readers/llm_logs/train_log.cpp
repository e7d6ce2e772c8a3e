// train_log: the console log of a training job (Megatron-LM, Megatron-DeepSpeed, MindSpeed-LLM, llm.c,
// nanoGPT, torchtitan, Hugging Face Trainer) -> one record per step line, validation line and error.
#include "train_log.hpp"

#include <algorithm>
#include <fstream>
#include <optional>

#include <fmt/format.h>

#include "argument_dump.hpp"
#include "cann_debug/reader/claimed_files.hpp"
#include "cann_debug/reader/line_reader.hpp"
#include "cann_debug/reader/parse_error.hpp"
#include "cann_debug/reader/reader_component.hpp"
#include "cann_debug/reader/reader_options.hpp"
#include "cann_debug/reader/sniff_helpers.hpp"
#include "cann_debug/reader/text.hpp"
#include "error_lines.hpp"
#include "iteration_lines.hpp"

namespace cann_debug::plugins {
namespace {

using llm_logs::LineKind;
using nlohmann::json;

// A traceback whose exception line has not come within this many lines is reported without it.
constexpr int kMaxTracebackLines = 400;
// Skipped bad lines: the first few are warned about one by one, the rest counted at the end.
constexpr int kWarnedBadLines = 10;

int train_log_sniff(const SniffInput& in);

std::string_view kind_name(LineKind k) {
  switch (k) {
    case LineKind::kTrain:
      return "train";
    case LineKind::kValidation:
      return "validation";
    case LineKind::kSummary:
      return "summary";
  }
  return "train";
}

class TrainLogSource final : public readers::ItemSource {
 public:
  explicit TrainLogSource(const readers::ReaderContext& ctx)
      : files_(readers::claimed_files(ctx.path, train_log_sniff)),
        max_line_bytes_(static_cast<std::size_t>(ctx.config.bytes("max_line_bytes"))),
        skip_bad_lines_(ctx.config.str("bad_line") == "skip"),
        rank_(static_cast<std::int32_t>(ctx.config.integer("rank"))),
        node_(ctx.config.str("node")),
        log_(ctx.host.logger()) {}

  bool next(readers::Items& out, std::size_t max_items) override {
    while (out.records.size() < max_items) {
      if (!lines_) {
        if (next_file_ >= files_.size()) return false;
        path_ = files_[next_file_++];
        readers::open_input(path_, file_);
        lines_.emplace(file_, max_line_bytes_);
        bad_lines_ = 0;
        traceback_line_ = 0;
      }
      if (!out.records.empty() && out.source_path != path_) return true;  // one file per batch
      out.source_path = path_;
      if (!read_line(out)) close_file(out);
    }
    return true;
  }

 private:
  // One line into `out`; false at the end of the file.
  bool read_line(readers::Items& out) {
    const auto status = lines_->next(line_);
    if (status == readers::LineReader::Status::kEnd) {
      if (lines_->read_error())
        readers::fail_line(path_, lines_->line_number(), lines_->line_offset(), "read error after this line");
      return false;
    }
    if (status == readers::LineReader::Status::kTooLong)
      fail(fmt::format(
          "expected a line of at most max_line_bytes = {} bytes, got a longer one (binary data or "
          "a missing newline?)",
          max_line_bytes_));
    const std::string text = llm_logs::plain_text(line_);  // without ANSI colours, which are not bad bytes
    if (auto why = readers::why_not_text(text); !why.empty()) fail(why);
    if (traceback_line_ > 0 && in_traceback(text, out)) return true;
    if (arguments_) {
      if (llm_logs::is_argument_dump_end(text)) {
        add_arguments(out);
      } else if (auto arg = llm_logs::parse_argument_line(text)) {
        arguments_->at("arguments")[arg->first] = std::move(arg->second);
        arguments_->at("argument_lines")[arg->first] = lines_->line_number();
      }
      return true;
    }
    if (llm_logs::is_argument_dump_start(text)) {
      arguments_ =
          json{{"log_kind", "arguments"}, {"arguments", json::object()}, {"argument_lines", json::object()}};
      return true;
    }
    if (text.find("Traceback (most recent call last):") != std::string::npos) {
      traceback_line_ = lines_->line_number();
      return true;
    }
    std::string why;
    if (auto step = llm_logs::parse_step_line(text, why)) {
      add_step(std::move(*step), out);
      return true;
    }
    if (!why.empty()) bad_line(why);
    // Classified on the whole line: a launcher prefix never hides an error id ("EI0002: ...").
    if (auto error = llm_logs::classify_error_line(line_))
      add_event(*error, text, lines_->line_number(), out);
    return true;
  }

  // Inside a traceback: true while the line belongs to it (frames, code, chained-exception banners).
  bool in_traceback(const std::string& text, readers::Items& out) {
    const std::string_view t = readers::trim(text);
    if (llm_logs::is_exception_line(t)) {
      auto error = llm_logs::classify_error_line(t).value_or(
          llm_logs::ErrorLine{"exception", "software", "error", false, "", ""});
      add_event(error, std::string(t), lines_->line_number(), out);
      out.records.back().fields["traceback_line"] = traceback_line_;
      traceback_line_ = 0;
      return true;
    }
    if (lines_->line_number() - traceback_line_ > kMaxTracebackLines) {
      add_event(
          {"exception", "software", "error", false, "", ""},
          fmt::format("Traceback without an exception line in the {} lines after it", kMaxTracebackLines),
          traceback_line_, out);
      traceback_line_ = 0;
      return false;
    }
    return true;
  }

  void add_step(llm_logs::StepLine step, readers::Items& out) {
    Record r;
    r.line = lines_->line_number();
    r.key.timestamp_ns = step.time_ns;
    keys(r);
    json& f = r.fields;
    f = json::object();
    f["log_kind"] = kind_name(step.kind);
    f["format"] = step.format;
    if (step.kind == LineKind::kTrain) {
      // Hugging Face stdout has no step: its train dicts are numbered in order.
      const std::int64_t n = step.step.value_or(last_step_ + 1);
      if (!step.step) f["step_is_ordinal"] = true;
      if (n <= last_step_ && any_step_) {
        ++segment_;
        restart(n, out);
      }
      last_step_ = n;
      any_step_ = true;
      r.key.step_id = n;
      f["step"] = n;
    } else if (step.step) {
      r.key.step_id = *step.step;
      f["step"] = *step.step;
    } else if (any_step_) {
      r.key.step_id = last_step_;
      f["after_step"] = last_step_;
    }
    f["segment"] = segment_;
    for (auto& [k, v] : step.fields.items()) f[k] = std::move(v);
    out.records.push_back(std::move(r));
  }

  // Iterations went back: the job was restarted from a checkpoint.
  void restart(std::int64_t step, readers::Items& out) {
    Record r;
    r.line = lines_->line_number();
    keys(r);
    r.key.step_id = step;
    r.fields = {{"log_kind", "event"},
                {"event", "restart"},
                {"component", "software"},
                {"severity", "warning"},
                {"hardware", false},
                {"message",
                 fmt::format("iteration {} after iteration {}: resumed from a checkpoint", step, last_step_)},
                {"resumed_at", step},
                {"previous_step", last_step_},
                {"segment", segment_}};
    out.records.push_back(std::move(r));
  }

  void add_event(const llm_logs::ErrorLine& e, std::string_view text, std::int64_t line,
                 readers::Items& out) {
    Record r;
    r.line = line;
    keys(r);
    json& f = r.fields;
    f = {{"log_kind", "event"},      {"event", e.event},
         {"component", e.component}, {"severity", e.severity},
         {"hardware", e.hardware},   {"message", readers::printable(readers::trim(text), 400)},
         {"segment", segment_}};
    if (!e.backend.empty()) f["backend"] = e.backend;
    if (!e.code.empty()) f["code"] = e.code;
    if (any_step_) {
      r.key.step_id = last_step_;
      f["after_step"] = last_step_;
    }
    out.records.push_back(std::move(r));
  }

  void keys(Record& r) const {
    if (rank_ >= 0) r.key.rank = rank_;
    if (!node_.empty()) r.key.node_id = node_;
  }

  void bad_line(const std::string& why) {
    if (!skip_bad_lines_) fail(why);
    if (++bad_lines_ <= kWarnedBadLines)
      log_.warn("{}", readers::line_error(path_, lines_->line_number(), lines_->line_offset(),
                                          why + "; the line is skipped (bad_line: skip)"));
  }

  // The argument dump as one record, at its end line (or where the log stopped inside it).
  void add_arguments(readers::Items& out) {
    Record r;
    r.line = lines_->line_number();
    keys(r);
    r.fields = std::move(*arguments_);
    arguments_.reset();
    out.records.push_back(std::move(r));
  }

  void close_file(readers::Items& out) {
    if (arguments_) add_arguments(out);
    if (traceback_line_ > 0)  // the log ends inside a traceback: the job died writing it
      add_event({"exception", "software", "error", false, "", ""},
                "Traceback at the end of the log, cut short", traceback_line_, out);
    if (bad_lines_ > kWarnedBadLines)
      log_.warn("{}: {} bad lines skipped in all ({} shown)", path_, bad_lines_, kWarnedBadLines);
    lines_.reset();
    file_.close();
    traceback_line_ = 0;
  }

  [[noreturn]] void fail(const std::string& what) {
    readers::fail_line(path_, lines_->line_number(), lines_->line_offset(), what);
  }

  std::vector<std::string> files_;
  std::size_t next_file_ = 0;
  std::size_t max_line_bytes_;
  bool skip_bad_lines_;
  std::int32_t rank_;
  std::string node_;
  Logger& log_;
  std::string path_;
  std::ifstream file_;
  std::optional<readers::LineReader> lines_;
  std::string line_;
  std::int64_t last_step_ = -1;
  bool any_step_ = false;
  std::int64_t segment_ = 0;
  std::int64_t traceback_line_ = 0;
  std::optional<json> arguments_;  // inside an argument dump: the record being filled
  int bad_lines_ = 0;
};

// Signatures in the first lines: step lines of a known format score 85; a Megatron/DeepSpeed launch
// banner (its step lines come after hundreds of argument lines) 60.
int train_log_sniff(const SniffInput& in) {
  // Not looks_text(): trainers colour their lines (ANSI escapes); a NUL byte is what binary files have.
  if (in.is_directory || in.head.find('\0') != std::string_view::npos) return 0;
  const auto lines = readers::head_lines(in.head, 2000);
  int banner = 0;
  std::string why;
  int steps = 0;
  // A .jsonl file of step objects is the jsonl reader's; the same objects among a console log's lines
  // (a script that prints its metrics) are this reader's.
  const bool json_file =
      in.path.ends_with(".jsonl") || in.path.ends_with(".json") || in.path.ends_with(".ndjson");
  for (std::string_view raw : lines) {
    const std::string text = llm_logs::plain_text(raw);
    if (auto s = llm_logs::parse_step_line(text, why);
        s && s->kind == LineKind::kTrain && !(json_file && s->format == "json")) {
      if (++steps >= 2 || s->format == "megatron") return 85;
    }
    if (text.find("------------------------ arguments ------------------------") != std::string::npos ||
        text.find("using world size:") != std::string::npos ||
        text.find("pretrain_gpt.py") != std::string::npos ||
        text.find("> building GPT model") != std::string::npos ||
        text.find("deepspeed.launcher") != std::string::npos)
      banner = 60;
  }
  // A banner alone does not make a table a log: the Ascend profiler's operator_details.csv quotes Python
  // call stacks ("../../pretrain_gpt.py(122): <module>") in its cells.
  const bool table = in.path.ends_with(".csv") || in.path.ends_with(".tsv");
  if (table) banner = 0;
  return steps == 1 ? std::max(banner, 70) : banner;
}

readers::ReaderSpec train_log_spec() {
  Manifest m;
  m.type = "train_log";
  m.kind = ComponentKind::kReader;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description =
      "Reads training console logs (Megatron, DeepSpeed, MindSpeed, llm.c, nanoGPT, HF): steps and errors";
  m.outputs = {
      {"records", std::string(RecordBatch::type_id),
       "step, validation and summary lines, error events and the launch's argument dump (log_kind), in "
       "file order"}};
  m.options = {readers::path_option("the log file, or a folder whose logs are read in name order"),
               readers::batch_size_option(),
               readers::max_line_bytes_option(),
               readers::rank_option(),
               readers::node_option(),
               {.name = "bad_line",
                .type = OptionType::kEnum,
                .description = "a step line with garbage numbers: skip it with a warning, or stop the reader",
                .default_value = "skip",
                .enum_values = {"skip", "stop"}}};
  m.concurrency = Concurrency::serial();
  m.sample_yaml = "train_log/megatron:\n  path: \"${input}/train.log\"\n";
  readers::ReaderSpec spec;
  spec.manifest = std::move(m);
  spec.open = [](const readers::ReaderContext& ctx) -> std::unique_ptr<readers::ItemSource> {
    return std::make_unique<TrainLogSource>(ctx);
  };
  spec.sniff = train_log_sniff;
  spec.also_reads_directory = true;
  spec.schema = "train_log.lines/1";
  return spec;
}

}  // namespace

const ComponentFactory& train_log_factory() {
  static const readers::ReaderFactory factory(train_log_spec());
  return factory;
}

}  // namespace cann_debug::plugins
