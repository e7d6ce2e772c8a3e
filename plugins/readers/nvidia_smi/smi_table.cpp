#include "smi_table.hpp"

#include <fmt/format.h>

#include "cann_debug/reader/numbers.hpp"
#include "cann_debug/reader/parse_error.hpp"
#include "cann_debug/reader/text.hpp"

namespace cann_debug::plugins::nvidia_smi {
namespace {

struct Line {
  std::string_view text;
  std::int64_t number;
  std::uint64_t offset;
};

std::vector<Line> lines_of(std::string_view text) {
  std::vector<Line> out;
  std::size_t at = 0;
  std::int64_t n = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view l = text.substr(at, end - at);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    out.push_back({l, ++n, at});
    at = end + 1;
  }
  return out;
}

/// The cells between the outer bars of "| a | b | c |".
std::vector<std::string_view> cells_of(std::string_view l) {
  l = readers::trim(l);
  if (l.size() < 2 || l.front() != '|' || l.back() != '|') return {};
  std::vector<std::string_view> out;
  for (auto c : readers::split(l.substr(1, l.size() - 2), '|')) out.push_back(readers::trim(c));
  return out;
}

/// "47C" -> 47, "10W" -> 10, "0%" -> 0, "4MiB" -> 4; nullopt for N/A, ERR! and the like.
std::optional<double> number_with_unit(std::string_view t, std::string_view unit) {
  if (!t.ends_with(unit)) return std::nullopt;
  return readers::parse_double(t.substr(0, t.size() - unit.size()));
}

std::string_view after(std::string_view l, std::string_view key) {
  const auto at = l.find(key);
  if (at == std::string_view::npos) return {};
  const auto parts = readers::split_ws(l.substr(at + key.size()));
  return parts.empty() ? std::string_view{} : parts.front();
}

void read_first_row(const std::vector<std::string_view>& c, GpuState& g) {
  const auto words = readers::split_ws(c[0]);
  if (!words.empty())
    if (const auto index = readers::parse_int(words.front())) g.index = static_cast<int>(*index);
  if (words.size() >= 3) {  // name words between the index and Persistence-M
    std::string name;
    for (std::size_t i = 1; i + 1 < words.size(); ++i)
      name += (name.empty() ? "" : " ") + std::string(words[i]);
    g.name = name;
  }
  const auto bus = readers::split_ws(c[1]);
  if (!bus.empty()) g.bus_id = std::string(bus.front());
  if (const auto ecc = readers::parse_double(c[2])) g.ecc_uncorrected_volatile = *ecc;
}

void read_second_row(const std::vector<std::string_view>& c, GpuState& g) {
  // "N/A   33C    P0   61W / 400W": fan, temperature, performance state, power usage / cap.
  const auto w = readers::split_ws(c[0]);
  for (std::size_t i = 0; i < w.size(); ++i) {
    if (i == 0) g.fan_pct = number_with_unit(w[i], "%");
    if (auto t = number_with_unit(w[i], "C")) g.temperature_c = t;
    if (w[i].size() >= 2 && w[i][0] == 'P' && readers::parse_int(w[i].substr(1))) g.performance_state = w[i];
    if (auto p = number_with_unit(w[i], "W")) (i + 1 < w.size() ? g.power_w : g.power_limit_w) = p;
  }
  const auto m = readers::split_ws(c[1]);  // "4MiB / 81920MiB"
  if (m.size() == 3) {
    g.memory_used_mib = number_with_unit(m[0], "MiB");
    g.memory_total_mib = number_with_unit(m[2], "MiB");
  }
  const auto u = readers::split_ws(c[2]);  // "0%   Default"
  if (!u.empty()) g.utilization_pct = number_with_unit(u.front(), "%");
}

}  // namespace

bool looks_like_table(std::string_view head) {
  return head.find("NVIDIA-SMI ") != std::string_view::npos &&
         head.find("Driver Version") != std::string_view::npos;
}

TableCapture parse_table(std::string_view text, const std::string& path) {
  TableCapture out;
  const auto lines = lines_of(text);
  std::size_t i = 0;
  for (; i < lines.size(); ++i) {
    const std::string_view l = lines[i].text;
    if (out.time == kNoTimestamp)
      if (const auto t = readers::ctime_utc_ns(readers::trim(l))) out.time = *t;
    if (l.find("NVIDIA-SMI ") != std::string_view::npos) {
      out.driver_version = std::string(after(l, "Driver Version:"));
      break;
    }
  }
  if (i == lines.size())
    readers::fail_file(path, "expected the nvidia-smi banner ('| NVIDIA-SMI ... Driver Version: ...')");
  // GPU blocks start below the first "|===" rule and end at the MIG or Processes tables.
  while (i < lines.size() && !lines[i].text.starts_with("|=")) ++i;
  GpuState* gpu = nullptr;
  int row = 0;
  for (++i; i < lines.size(); ++i) {
    const Line& l = lines[i];
    const std::string_view t = readers::trim(l.text);
    if (t.find("MIG devices") != std::string_view::npos || t.find("Processes") != std::string_view::npos)
      break;
    if (t.empty() || t.starts_with("+") || t.starts_with("|=")) {
      gpu = nullptr;  // the rule between GPU blocks
      continue;
    }
    const auto c = cells_of(t);
    if (c.size() != 3)
      readers::fail_line(
          path, l.number, l.offset,
          fmt::format("expected a GPU row of three cells between '|' bars, got {} cell(s)", c.size()));
    if (!gpu) {
      out.gpus.emplace_back();
      gpu = &out.gpus.back();
      gpu->line = l.number;
      row = 0;
    }
    if (t.find("ERR!") != std::string_view::npos) gpu->lost = true;
    if (row == 0) {
      if (!readers::parse_int(readers::split_ws(c[0]).empty() ? "" : readers::split_ws(c[0]).front()))
        readers::fail_line(path, l.number, l.offset,
                           fmt::format("expected a GPU row starting with the GPU index, got '{}'", c[0]));
      read_first_row(c, *gpu);
    } else if (row == 1) {
      read_second_row(c, *gpu);
    }
    ++row;
  }
  if (out.gpus.empty())
    readers::fail_file(path, "expected at least one GPU row below the nvidia-smi table header");
  return out;
}

}  // namespace cann_debug::plugins::nvidia_smi
