#include "smi_xml.hpp"

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>
#include <pugixml.hpp>

#include "cann_debug/reader/numbers.hpp"
#include "cann_debug/reader/parse_error.hpp"
#include "cann_debug/reader/text.hpp"

namespace cann_debug::plugins::nvidia_smi {
namespace {

std::string_view text_of(const pugi::xml_node& n) {
  return readers::trim(n.child_value());
}

bool not_available(std::string_view t) {
  return t.empty() || t == "N/A" || t.front() == '[';  // [N/A], [Not Supported], [Unknown Error], ...
}

/// The leading number of "61.44 W", "16x", "0 %", "81920 MiB"; nullopt for N/A and the like.
std::optional<double> leading_number(std::string_view t) {
  if (not_available(t)) return std::nullopt;
  std::size_t end = 0;
  while (end < t.size() && (std::isdigit(static_cast<unsigned char>(t[end])) || t[end] == '.' ||
                            (end == 0 && (t[end] == '-' || t[end] == '+'))))
    ++end;
  return readers::parse_double(t.substr(0, end));
}

std::optional<double> number_at(const pugi::xml_node& n, const char* path) {
  const pugi::xml_node c = n.first_element_by_path(path);
  return c ? leading_number(text_of(c)) : std::nullopt;
}

bool yes_at(const pugi::xml_node& n, const char* path) {
  const pugi::xml_node c = n.first_element_by_path(path);
  return c && text_of(c) == "Yes";
}

/// Uncorrectable (or correctable) errors of an ECC block: the double_bit (single_bit) total of older
/// drivers, else the sum of the *_uncorrectable (*_correctable) counters of newer ones.
std::optional<double> ecc_count(const pugi::xml_node& block, bool uncorrectable) {
  if (!block) return std::nullopt;
  if (const pugi::xml_node old = block.child(uncorrectable ? "double_bit" : "single_bit"))
    return number_at(old, "total");
  std::optional<double> sum;
  for (const pugi::xml_node c : block.children()) {
    const std::string_view name = c.name();
    const bool unc = name.find("uncorrectable") != std::string_view::npos;
    const bool corr = !unc && name.find("correctable") != std::string_view::npos;
    if (uncorrectable ? !unc : !corr) continue;
    if (const auto v = leading_number(text_of(c))) sum = sum.value_or(0) + *v;
  }
  return sum;
}

/// Active hardware slowdowns among the clock event (throttle) reasons; the software power cap and idle
/// are how a GPU normally runs and are left out.
std::vector<std::string> slowdowns(const pugi::xml_node& gpu) {
  std::vector<std::string> out;
  for (const char* block : {"clocks_event_reasons", "clocks_throttle_reasons"})
    for (const pugi::xml_node c : gpu.child(block).children()) {
      const std::string_view name = c.name();
      if (text_of(c) != "Active") continue;
      for (const auto& [suffix, reason] :
           {std::pair{"hw_slowdown", "hardware slowdown (HW_SLOWDOWN)"},
            {"hw_thermal_slowdown", "hardware thermal slowdown"},
            {"hw_power_brake_slowdown", "hardware power brake (external power brake signal)"},
            {"sw_thermal_slowdown", "software thermal slowdown (above the slowdown temperature)"}})
        if (name.ends_with(std::string("_") + suffix)) out.emplace_back(reason);
    }
  return out;
}

/// 1-based line of a byte offset.
std::int64_t line_of(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  return 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n');
}

GpuState gpu_state(const pugi::xml_node& gpu, std::string_view text) {
  GpuState g;
  g.bus_id = gpu.attribute("id").value();
  g.line = line_of(text, static_cast<std::size_t>(gpu.offset_debug()));
  g.name = std::string(text_of(gpu.child("product_name")));
  g.uuid = std::string(text_of(gpu.child("uuid")));
  if (const auto minor = number_at(gpu, "minor_number")) g.index = static_cast<int>(*minor);
  if (const auto p = text_of(gpu.child("performance_state")); !not_available(p)) g.performance_state = p;
  g.fan_pct = number_at(gpu, "fan_speed");
  g.temperature_c = number_at(gpu, "temperature/gpu_temp");
  g.slowdown_temperature_c = number_at(gpu, "temperature/gpu_temp_slow_threshold");
  for (const char* block : {"gpu_power_readings", "power_readings"}) {
    if (!g.power_w) g.power_w = number_at(gpu, (std::string(block) + "/power_draw").c_str());
    for (const char* limit : {"current_power_limit", "enforced_power_limit", "power_limit"})
      if (!g.power_limit_w) g.power_limit_w = number_at(gpu, (std::string(block) + "/" + limit).c_str());
  }
  g.sm_clock_mhz = number_at(gpu, "clocks/sm_clock");
  g.max_sm_clock_mhz = number_at(gpu, "max_clocks/sm_clock");
  g.memory_used_mib = number_at(gpu, "fb_memory_usage/used");
  g.memory_total_mib = number_at(gpu, "fb_memory_usage/total");
  g.utilization_pct = number_at(gpu, "utilization/gpu_util");
  const pugi::xml_node ecc = gpu.child("ecc_errors");
  g.ecc_uncorrected_volatile = ecc_count(ecc.child("volatile"), true);
  g.ecc_uncorrected_aggregate = ecc_count(ecc.child("aggregate"), true);
  g.ecc_corrected_volatile = ecc_count(ecc.child("volatile"), false);
  g.retired_pages_single_bit = number_at(gpu, "retired_pages/multiple_single_bit_retirement/retired_count");
  g.retired_pages_double_bit = number_at(gpu, "retired_pages/double_bit_retirement/retired_count");
  g.retired_pages_pending =
      yes_at(gpu, "retired_pages/pending_blacklist") || yes_at(gpu, "retired_pages/pending_retirement");
  g.remapped_rows_uncorrectable = number_at(gpu, "remapped_rows/remapped_row_unc");
  g.remap_pending = yes_at(gpu, "remapped_rows/remapped_row_pending");
  g.remap_failure = yes_at(gpu, "remapped_rows/remapped_row_failure");
  g.slowdown_reasons = slowdowns(gpu);
  g.pcie_width = number_at(gpu, "pci/pci_gpu_link_info/link_widths/current_link_width");
  g.pcie_max_width = number_at(gpu, "pci/pci_gpu_link_info/link_widths/max_link_width");
  return g;
}

}  // namespace

bool looks_like_xml_capture(std::string_view head) {
  const std::string_view t = readers::trim(head);
  return t.starts_with('<') && t.find("nvidia_smi_log") != std::string_view::npos;
}

XmlCapture parse_xml(std::string_view text, const std::string& path) {
  pugi::xml_document doc;
  const pugi::xml_parse_result result = doc.load_buffer(text.data(), text.size(), pugi::parse_default);
  if (!result) {
    const auto offset = static_cast<std::uint64_t>(std::max<std::ptrdiff_t>(0, result.offset));
    if (offset + 1 >= text.size())
      readers::fail_byte(path, line_of(text, offset), offset,
                         "expected well-formed XML, got the end of the file inside an element (a capture cut "
                         "short?)");
    readers::fail_byte(path, line_of(text, offset), offset,
                       fmt::format("expected well-formed XML: {}", result.description()));
  }
  const pugi::xml_node root = doc.child("nvidia_smi_log");
  if (!root)
    readers::fail_file(path, fmt::format("expected an <nvidia_smi_log> document (nvidia-smi -q -x), got <{}>",
                                         doc.document_element().name()));
  XmlCapture out;
  if (const auto t = readers::ctime_utc_ns(text_of(root.child("timestamp")))) out.time = *t;
  out.driver_version = std::string(text_of(root.child("driver_version")));
  for (const pugi::xml_node gpu : root.children("gpu")) {
    if (gpu.attribute("id").empty()) {
      const auto offset = static_cast<std::uint64_t>(gpu.offset_debug());
      readers::fail_byte(path, line_of(text, offset), offset,
                         "expected a <gpu> with an id attribute (its PCI bus id)");
    }
    out.gpus.push_back(gpu_state(gpu, text));
  }
  if (out.gpus.empty())
    readers::fail_file(path, "expected at least one <gpu> in the <nvidia_smi_log> document");
  return out;
}

}  // namespace cann_debug::plugins::nvidia_smi
