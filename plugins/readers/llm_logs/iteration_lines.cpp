// Step lines of large-model trainers -> canonical fields (see iteration_lines.hpp).
#include "iteration_lines.hpp"

#include <array>
#include <cctype>
#include <chrono>
#include <cmath>
#include <limits>
#include <utility>

#include "cann_debug/reader/numbers.hpp"
#include "cann_debug/reader/text.hpp"

namespace cann_debug::plugins::llm_logs {
namespace {

using nlohmann::json;
using readers::trim;

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// A number as JSON: integers stay integers, non-finite values are the strings "nan", "inf", "-inf".
std::optional<json> number_value(std::string_view text) {
  text = trim(text);
  if (text.find_first_of(".eEnNiI") == std::string_view::npos)
    if (auto i = readers::parse_int(text)) return json(*i);
  auto d = readers::parse_double(text);
  if (!d) return std::nullopt;
  if (auto name = readers::nonfinite_name(*d); !name.empty()) return json(std::string(name));
  return json(*d);
}

// Megatron field names (as printed, lower case) -> canonical record fields.
constexpr std::array<std::pair<std::string_view, std::string_view>, 19> kMegatronNames{{
    {"consumed samples", "consumed_samples"},
    {"skipped samples", "skipped_samples"},
    {"consumed tokens", "consumed_tokens"},
    {"elapsed time per iteration (ms)", "iteration_time_ms"},
    {"throughput per gpu (tflop/s/gpu)", "tflops_per_gpu"},
    {"learning rate", "lr"},
    {"global batch size", "global_batch_size"},
    {"lm loss", "loss"},
    {"lm-loss", "loss"},
    {"loss scale", "loss_scale"},
    {"grad norm", "grad_norm"},
    {"num zeros", "num_zeros"},
    {"params norm", "params_norm"},
    {"number of skipped iterations", "skipped_iterations"},
    {"number of nan iterations", "nan_iterations"},
    {"samples per second", "samples_per_second"},
    {"tokens per gpu per second (tgs)", "tokens_per_gpu_per_second"},
    {"actual seqlen", "seq_length"},
    {"tokens/s", "tokens_per_second"},
}};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string canonical_megatron_name(std::string_view printed) {
  const std::string l = lower(trim(printed));
  for (const auto& [from, to] : kMegatronNames)
    if (l == from) return std::string(to);
  if (l == "tflops") return "tflops";
  return readers::snake_case(printed);
}

// Skips spaces; reads digits into `value`. False when there are none.
bool read_uint(std::string_view s, std::size_t& at, std::int64_t& value) {
  while (at < s.size() && s[at] == ' ') ++at;
  const std::size_t start = at;
  while (at < s.size() && is_digit(s[at])) ++at;
  if (at == start || at - start > 18) return false;
  value = *readers::parse_int(s.substr(start, at - start));
  return true;
}

bool expect(std::string_view s, std::size_t& at, char c) {
  while (at < s.size() && s[at] == ' ') ++at;
  if (at >= s.size() || s[at] != c) return false;
  ++at;
  return true;
}

// "[2024-03-14 23:07:56.123456]" anywhere before `end`.
TimestampNs bracketed_time(std::string_view text, std::size_t end) {
  const std::size_t open = text.rfind('[', end);
  if (open == std::string_view::npos) return kNoTimestamp;
  const std::size_t close = text.find(']', open);
  if (close == std::string_view::npos || close > end) return kNoTimestamp;
  return parse_wall_clock(text.substr(open + 1, close - open - 1)).value_or(kNoTimestamp);
}

// The "name: value | name: value |" parts of a Megatron line into `fields`; what was expected instead when a
// value is not a number.
std::string megatron_fields(std::string_view rest, json& fields) {
  for (std::string_view part : readers::split(rest, '|')) {
    const std::size_t colon = part.rfind(':');
    if (colon == std::string_view::npos) continue;  // free text ("... only for test")
    const std::string name = canonical_megatron_name(part.substr(0, colon));
    if (name.empty()) continue;
    const std::string_view value = trim(part.substr(colon + 1));
    auto v = number_value(value);
    if (!v)
      return "expected a number after '" + std::string(trim(part.substr(0, colon))) + ":', got '" +
             readers::printable(value) + "'";
    fields[name] = std::move(*v);
  }
  // The DeepSpeed engine path prints `loss scale: -1.0 | grad norm: 0.000 | num zeros: 0.0`: it does not
  // report these, so they are absent, not a collapsed norm.
  if (auto it = fields.find("loss_scale"); it != fields.end() && it->is_number() && it->get<double>() < 0) {
    fields.erase(it);
    for (const char* k : {"grad_norm", "num_zeros"})
      if (auto f = fields.find(k); f != fields.end() && f->is_number() && f->get<double>() == 0)
        fields.erase(f);
  }
  return {};
}

// " iteration   7000/ 159576 | ..." (Megatron-LM, Megatron-DeepSpeed, MindSpeed-LLM).
std::optional<StepLine> megatron_train(std::string_view text, std::string& why) {
  std::size_t at = text.find("iteration ");
  if (at == std::string_view::npos) return std::nullopt;
  // Only where the line is about to start its fields (not "reset_iteration ....." of the argument dump).
  if (at > 0 && text[at - 1] != ' ' && text[at - 1] != ']') return std::nullopt;
  std::size_t p = at + 10;
  std::int64_t step = 0, total = 0;
  if (!read_uint(text, p, step) || !expect(text, p, '/') || !read_uint(text, p, total)) return std::nullopt;
  if (!expect(text, p, '|')) return std::nullopt;
  StepLine line;
  line.format = "megatron";
  line.step = step;
  line.time_ns = bracketed_time(text, at);
  line.fields["iterations_total"] = total;
  why = megatron_fields(text.substr(p), line.fields);
  if (!why.empty()) return std::nullopt;
  if (line.fields.size() == 1) {
    why = "expected 'name: value' fields after the iteration counter";
    return std::nullopt;
  }
  return line;
}

// " validation loss at iteration 1000 [on validation set] | lm loss value: ... | lm loss PPL: ... |"
std::optional<StepLine> megatron_validation(std::string_view text) {
  const std::size_t at = text.find("validation loss at ");
  if (at == std::string_view::npos) return std::nullopt;
  const std::size_t bar = text.find('|', at);
  if (bar == std::string_view::npos) return std::nullopt;
  StepLine line;
  line.kind = LineKind::kValidation;
  line.format = "megatron";
  line.time_ns = bracketed_time(text, at);
  const std::string_view head = text.substr(at, bar - at);
  if (auto it = head.find("iteration "); it != std::string_view::npos) {
    std::size_t p = it + 10;
    std::int64_t step = 0;
    if (read_uint(head, p, step)) line.step = step;
  }
  for (std::string_view part : readers::split(text.substr(bar + 1), '|')) {
    const std::size_t colon = part.rfind(':');
    if (colon == std::string_view::npos) continue;
    std::string name = readers::snake_case(part.substr(0, colon));
    if (name == "lm_loss_value")
      name = "loss";
    else if (name == "lm_loss_ppl")
      name = "ppl";
    else if (name.size() > 6 && name.ends_with("_value"))
      name.resize(name.size() - 6);
    if (auto v = number_value(part.substr(colon + 1))) line.fields["val_" + name] = std::move(*v);
  }
  if (line.fields.empty()) return std::nullopt;
  return line;
}

// llm.c's log file: "s:12 trl:9.25 lr:0.0006 norm:1.2", "s:0 tel:10.96", "s:0 eval:0.31".
std::optional<StepLine> llmc_file(std::string_view text, std::string& why) {
  const auto tokens = readers::split_ws(trim(text));
  if (tokens.size() < 2 || !tokens[0].starts_with("s:")) return std::nullopt;
  auto step = readers::parse_int(tokens[0].substr(2));
  if (!step || *step < 0) return std::nullopt;
  StepLine line;
  line.format = "llm.c";
  line.step = *step;
  for (std::size_t i = 1; i < tokens.size(); ++i) {
    const std::size_t colon = tokens[i].find(':');
    if (colon == std::string_view::npos || colon == 0) return std::nullopt;
    const std::string_view key = tokens[i].substr(0, colon);
    auto v = number_value(tokens[i].substr(colon + 1));
    if (!v) {
      why = "expected a number after '" + std::string(key) + ":'";
      return std::nullopt;
    }
    if (key == "trl")
      line.fields["loss"] = std::move(*v);
    else if (key == "tel")
      line.fields["val_loss"] = std::move(*v);
    else if (key == "eval")
      line.fields["val_eval"] = std::move(*v);
    else if (key == "lr")
      line.fields["lr"] = std::move(*v);
    else if (key == "norm")
      line.fields["grad_norm"] = std::move(*v);
    else
      line.fields[readers::snake_case(key)] = std::move(*v);
  }
  if (line.fields.contains("val_loss") || line.fields.contains("val_eval"))
    if (!line.fields.contains("loss")) line.kind = LineKind::kValidation;
  return line;
}

// The first number in `part` (e.g. "loss 7.123456 (+0.12z)" -> 7.123456), after `skip` leading words.
std::optional<json> first_number(std::string_view part) {
  for (std::string_view w : readers::split_ws(part)) {
    while (!w.empty() && (w.back() == '%' || w.back() == ',')) w.remove_suffix(1);
    if (w.ends_with("ms")) w.remove_suffix(2);
    if (auto v = number_value(w)) return v;
  }
  return std::nullopt;
}

// llm.c stdout: "step   10/5000 | loss 7.123456 (+0.12z)| norm 1.2345 (-0.30z)| lr 6.00e-04 | 123.45 ms |
// 45.6% bf16 MFU | 512000 tok/s".
std::optional<StepLine> llmc_stdout(std::string_view text) {
  std::string_view t = trim(text);
  if (!t.starts_with("step ")) return std::nullopt;
  std::size_t p = 5;
  std::int64_t step = 0, total = 0;
  if (!read_uint(t, p, step) || !expect(t, p, '/') || !read_uint(t, p, total) || !expect(t, p, '|'))
    return std::nullopt;
  StepLine line;
  line.format = "llm.c";
  line.step = step;
  line.fields["iterations_total"] = total;
  for (std::string_view part : readers::split(t.substr(p), '|')) {
    part = trim(part);
    auto v = first_number(part);
    if (!v) continue;
    if (part.starts_with("loss"))
      line.fields["loss"] = *v;
    else if (part.starts_with("norm"))
      line.fields["grad_norm"] = *v;
    else if (part.starts_with("lr"))
      line.fields["lr"] = *v;
    else if (part.ends_with(" ms"))
      line.fields["iteration_time_ms"] = *v;
    else if (part.ends_with("MFU"))
      line.fields["mfu_pct"] = *v;
    else if (part.ends_with("tok/s"))
      line.fields["tokens_per_second"] = *v;
  }
  if (!line.fields.contains("loss")) return std::nullopt;
  return line;
}

// nanoGPT: "iter 10: loss 3.1234, time 123.45ms, mfu 41.23%" and "step 500: train loss 3.0, val loss 3.1".
std::optional<StepLine> nanogpt(std::string_view text, std::string& why) {
  std::string_view t = trim(text);
  const bool iter = t.starts_with("iter ");
  if (!iter && !t.starts_with("step ")) return std::nullopt;
  std::size_t p = 5;
  std::int64_t step = 0;
  if (!read_uint(t, p, step) || !expect(t, p, ':')) return std::nullopt;
  StepLine line;
  line.format = "nanogpt";
  line.step = step;
  for (std::string_view part : readers::split(t.substr(p), ',')) {
    part = trim(part);
    const std::size_t space = part.rfind(' ');
    if (space == std::string_view::npos) continue;
    const std::string name = readers::snake_case(part.substr(0, space));
    std::string_view value = part.substr(space + 1);
    if (value.ends_with('%')) value.remove_suffix(1);
    if (value.ends_with("ms")) value.remove_suffix(2);
    auto v = number_value(value);
    if (!v) {
      why = "expected a number after '" + name + "'";
      return std::nullopt;
    }
    if (name == "loss" || name == "train_loss")
      line.fields["loss"] = *v;
    else if (name == "val_loss")
      line.fields["val_loss"] = *v;
    else if (name == "time")
      line.fields["iteration_time_ms"] = *v;
    else if (name == "mfu") {
      if (!(v->is_number() && v->get<double>() < 0)) line.fields["mfu_pct"] = *v;  // -100% = not yet measured
    } else
      line.fields[name] = *v;
  }
  if (line.fields.empty()) return std::nullopt;
  if (!iter) line.kind = LineKind::kValidation;  // the eval line: train and val loss over eval_iters batches
  if (!iter && line.fields.contains("loss")) {
    line.fields["val_train_loss"] = line.fields["loss"];
    line.fields.erase("loss");
  }
  return line;
}

// torchtitan: "step: 10  loss:  7.12345  grad_norm:  1.2345  memory: 60.12GiB(75.30%)  tps: 12,345 ...".
std::optional<StepLine> torchtitan(std::string_view text) {
  std::string_view t = trim(text);
  if (!t.starts_with("step:")) return std::nullopt;
  const auto tokens = readers::split_ws(t);
  StepLine line;
  line.format = "torchtitan";
  for (std::size_t i = 0; i + 1 < tokens.size(); i += 2) {
    if (!tokens[i].ends_with(':')) return std::nullopt;
    const std::string name = readers::snake_case(tokens[i].substr(0, tokens[i].size() - 1));
    std::string value(tokens[i + 1]);
    std::erase(value, ',');
    if (name == "memory") {
      const std::size_t g = value.find("GiB");
      if (auto v = number_value(value.substr(0, g))) line.fields["memory_gib"] = *v;
      continue;
    }
    if (value.ends_with('%')) value.pop_back();
    auto v = number_value(value);
    if (!v) continue;  // "mfu: N/A" under FP8
    if (name == "step") {
      if (!v->is_number_integer() || v->get<std::int64_t>() < 0) return std::nullopt;
      line.step = v->get<std::int64_t>();
    } else if (name == "tps") {
      line.fields["tokens_per_second"] = *v;
    } else if (name == "mfu") {
      line.fields["mfu_pct"] = *v;
    } else {
      line.fields[name] = *v;
    }
  }
  if (!line.step || !line.fields.contains("loss")) return std::nullopt;
  return line;
}

// A Python dict literal of scalars: {'loss': 1.23, 'grad_norm': nan, 'epoch': 0.12}.
std::optional<json> python_dict(std::string_view t, std::string& why) {
  json out = json::object();
  std::size_t p = 1;
  auto skip = [&] {
    while (p < t.size() && t[p] == ' ') ++p;
  };
  while (true) {
    skip();
    if (p < t.size() && t[p] == '}') break;
    if (p >= t.size() || (t[p] != '\'' && t[p] != '"')) {
      why = "expected a quoted key in the dictionary";
      return std::nullopt;
    }
    const char q = t[p];
    const std::size_t end = t.find(q, p + 1);
    if (end == std::string_view::npos) {
      why = "expected the key's closing quote";
      return std::nullopt;
    }
    const std::string key(t.substr(p + 1, end - p - 1));
    p = end + 1;
    skip();
    if (p >= t.size() || t[p] != ':') {
      why = "expected ':' after the key '" + readers::printable(key) + "'";
      return std::nullopt;
    }
    ++p;
    skip();
    if (p < t.size() && (t[p] == '\'' || t[p] == '"')) {
      const char vq = t[p];
      const std::size_t vend = t.find(vq, p + 1);
      if (vend == std::string_view::npos) {
        why = "expected the closing quote of the value of '" + readers::printable(key) + "'";
        return std::nullopt;
      }
      out[key] = std::string(t.substr(p + 1, vend - p - 1));
      p = vend + 1;
    } else {
      const std::size_t vend = t.find_first_of(",}", p);
      if (vend == std::string_view::npos) {
        why = "expected ',' or '}' after the value of '" + readers::printable(key) + "'";
        return std::nullopt;
      }
      const std::string_view v = trim(t.substr(p, vend - p));
      if (v == "None")
        out[key] = nullptr;
      else if (v == "True" || v == "False")
        out[key] = v == "True";
      else if (auto n = number_value(v))
        out[key] = *n;
      else {
        why = "expected a number, a string, True, False or None as the value of '" + readers::printable(key) +
              "', got '" + readers::printable(v) + "'";
        return std::nullopt;
      }
      p = vend;
    }
    skip();
    if (p < t.size() && t[p] == ',') ++p;
  }
  return out;
}

// Hugging Face Trainer stdout: one dict per logging step.
std::optional<StepLine> hf_trainer(std::string_view text, std::string& why) {
  std::string_view t = trim(text);
  if (t.size() < 4 || !t.starts_with("{'") || t.back() != '}') return std::nullopt;
  auto dict = python_dict(t, why);
  if (!dict) return std::nullopt;
  StepLine line;
  line.format = "hf_trainer";
  for (const auto& [k, v] : dict->items()) {
    if (k == "learning_rate")
      line.fields["lr"] = v;
    else
      line.fields[k] = v;
  }
  bool eval = false;
  for (const auto& [k, v] : dict->items()) eval = eval || k.starts_with("eval_");
  if (dict->contains("train_runtime") || dict->contains("total_flos"))
    line.kind = LineKind::kSummary;
  else if (eval)
    line.kind = LineKind::kValidation;
  else if (!dict->contains("loss"))
    return std::nullopt;
  if (line.kind == LineKind::kValidation && line.fields.contains("eval_loss"))
    line.fields["val_loss"] = line.fields["eval_loss"];
  return line;
}

// A script's own metrics, one JSON object a line (`print(json.dumps({"step": 3, "loss": 2.1, ...}))`):
// the scalar fields (nested objects and lists are left out), the step from "step" / "iteration" / "iter" /
// "global_step", the time from "time" / "timestamp" (seconds since the epoch). A line without a loss (a
// "*loss" key) is not a step line.
std::optional<StepLine> json_line(std::string_view text) {
  const std::string_view t = trim(text);
  if (t.size() < 4 || !t.starts_with("{\"") || t.back() != '}') return std::nullopt;
  const json doc = json::parse(t.begin(), t.end(), nullptr, false);
  if (!doc.is_object()) return std::nullopt;
  StepLine line;
  line.format = "json";
  bool loss = false, eval_loss = false;
  for (const auto& [k, v] : doc.items()) {
    if (!v.is_primitive() || v.is_string()) continue;
    if (k == "step" || k == "iteration" || k == "iter" || k == "global_step") {
      if (!v.is_number_integer() || v.get<std::int64_t>() < 0) return std::nullopt;
      line.step = v.get<std::int64_t>();
    } else if ((k == "time" || k == "timestamp") && v.is_number()) {
      const double seconds = v.get<double>();
      if (seconds > 1e8 && seconds < 1e11)
        line.time_ns = static_cast<TimestampNs>(std::llround(seconds * 1e9));
    } else {
      line.fields[k == "learning_rate" ? std::string("lr") : k] = v;
      loss = loss || (k.ends_with("loss") && !k.starts_with("eval") && !k.starts_with("val"));
      eval_loss = eval_loss || ((k.starts_with("eval") || k.starts_with("val")) && k.ends_with("loss"));
    }
  }
  if (!loss && !eval_loss) return std::nullopt;
  if (!loss) {
    line.kind = LineKind::kValidation;
    if (!line.fields.contains("val_loss") && line.fields.contains("eval_loss"))
      line.fields["val_loss"] = line.fields["eval_loss"];
  }
  return line;
}

}  // namespace

std::string plain_text(std::string_view line) {
  std::string out;
  out.reserve(line.size());
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\x1b' && i + 1 < line.size() && line[i + 1] == '[') {  // CSI ... final byte
      i += 2;
      while (i < line.size() && !(line[i] >= '@' && line[i] <= '~')) ++i;
      continue;
    }
    out += line[i];
  }
  std::string_view v = out;
  // "[rank3]: " (torchrun), "[default0]: " (torchrun --tee)
  if (v.starts_with('[')) {
    const std::size_t close = v.find("]:");
    if (close != std::string_view::npos && close < 24 &&
        (v.substr(1).starts_with("rank") || v.substr(1).starts_with("default")))
      return std::string(v.substr(close + 2));
  }
  // "vm-07-14: " (pdsh), "0: " (srun -l): a first word of host-name characters ending in ':'.
  const std::size_t colon = v.find(": ");
  if (colon != std::string_view::npos && colon > 0 && colon < 64) {
    bool host = true;
    for (char c : v.substr(0, colon))
      host = host && (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_');
    const std::string_view word = v.substr(0, colon);
    const bool cann_error_id = word.size() >= 5 && word[0] == 'E' &&
                               std::isupper(static_cast<unsigned char>(word[1])) &&
                               std::isdigit(static_cast<unsigned char>(word.back()));
    const bool exception_name = cann_error_id || word.ends_with("Error") || word.ends_with("Exception") ||
                                word.ends_with("Warning") || word.ends_with("Interrupt") || word == "step" ||
                                word.find('.') != std::string_view::npos;
    if (host && !exception_name) return std::string(v.substr(colon + 2));
  }
  return out;
}

std::optional<StepLine> parse_step_line(std::string_view text, std::string& why) {
  why.clear();
  if (auto l = megatron_train(text, why)) return l;
  if (!why.empty()) return std::nullopt;
  if (auto l = megatron_validation(text)) return l;
  if (auto l = llmc_file(text, why)) return l;
  if (!why.empty()) return std::nullopt;
  if (auto l = llmc_stdout(text)) return l;
  if (auto l = nanogpt(text, why)) return l;
  if (!why.empty()) return std::nullopt;
  if (auto l = torchtitan(text)) return l;
  if (auto l = json_line(text)) return l;
  return hf_trainer(text, why);
}

std::optional<TimestampNs> parse_wall_clock(std::string_view text) {
  text = trim(text);
  // YYYY-MM-DD HH:MM:SS
  if (text.size() < 19 || text[4] != '-' || text[7] != '-' || (text[10] != ' ' && text[10] != 'T') ||
      text[13] != ':' || text[16] != ':')
    return std::nullopt;
  auto num = [&](std::size_t at, std::size_t n) -> std::optional<int> {
    int v = 0;
    for (std::size_t i = at; i < at + n; ++i) {
      if (!is_digit(text[i])) return std::nullopt;
      v = v * 10 + (text[i] - '0');
    }
    return v;
  };
  const auto y = num(0, 4), mo = num(5, 2), d = num(8, 2), h = num(11, 2), mi = num(14, 2), s = num(17, 2);
  if (!y || !mo || !d || !h || !mi || !s || *mo < 1 || *mo > 12 || *d < 1 || *d > 31 || *h > 23 || *mi > 59 ||
      *s > 60)
    return std::nullopt;
  const std::chrono::year_month_day ymd{std::chrono::year(*y), std::chrono::month(static_cast<unsigned>(*mo)),
                                        std::chrono::day(static_cast<unsigned>(*d))};
  if (!ymd.ok()) return std::nullopt;
  const auto days = std::chrono::sys_days(ymd).time_since_epoch().count();
  std::int64_t ns = ((static_cast<std::int64_t>(days) * 24 + *h) * 60 + *mi) * 60 + *s;
  // Nanoseconds since 1970 in int64 reach the year 2262: a later (or much earlier) date is no timestamp.
  if (ns > std::numeric_limits<std::int64_t>::max() / 1'000'000'000 - 1 ||
      ns < std::numeric_limits<std::int64_t>::min() / 1'000'000'000 + 1)
    return std::nullopt;
  ns *= 1'000'000'000;
  if (text.size() > 20 && (text[19] == '.' || text[19] == ',')) {
    std::int64_t frac = 0;
    int digits = 0;
    for (std::size_t i = 20; i < text.size() && is_digit(text[i]) && digits < 9; ++i, ++digits)
      frac = frac * 10 + (text[i] - '0');
    for (int i = digits; i < 9; ++i) frac *= 10;
    ns += frac;
  }
  return ns;
}

}  // namespace cann_debug::plugins::llm_logs
