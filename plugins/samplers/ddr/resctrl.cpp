#include "resctrl.hpp"

#include <fmt/format.h>

#include "cann_debug/sampler/sysfs_files.hpp"
#include "cann_debug/sampler/text_fields.hpp"

namespace cann_debug::plugins::ddr_detail {

namespace ss = sampler_support;

namespace {

constexpr const char* kCounters[][2] = {{"mbm_total_bytes", "ddr.bandwidth.total"},
                                        {"mbm_local_bytes", "ddr.bandwidth.local"}};

std::vector<std::string> domains(const std::string& mon_data) {
  std::vector<std::string> out;
  for (auto& name : ss::list_directory(mon_data))
    if (name.rfind("mon_L3_", 0) == 0) out.push_back(std::move(name));
  return out;
}

// Series keys of domains whose directory does not end in a number (resctrl names them mon_L3_<cache id>)
// count up from here.
constexpr std::uint32_t kFirstUnnumberedDomain = 0x80000000;

// "mon_L3_01" -> "1".
std::string domain_label(const std::string& dir) {
  std::string id = dir.substr(7);
  const auto first = id.find_first_not_of('0');
  return first == std::string::npos ? "0" : id.substr(first);
}

}  // namespace

std::string resctrl_unavailable_reason(const std::string& root) {
  const std::string base = ss::join_path(root, "sys/fs/resctrl");
  if (!ss::is_directory(base))
    return fmt::format(
        "{} is not there: resctrl is not mounted (mount -t resctrl resctrl /sys/fs/resctrl) or "
        "the kernel lacks it",
        base);
  const std::string mon_data = base + "/mon_data";
  for (const auto& d : domains(mon_data))
    for (const auto& c : kCounters)
      if (ss::read_first_line(mon_data + "/" + d + "/" + c[0])) return {};
  return fmt::format(
      "no {}/mon_L3_*/mbm_total_bytes or mbm_local_bytes: the CPU has no memory bandwidth "
      "monitoring (MBM) or it is off",
      mon_data);
}

ResctrlMbm::ResctrlMbm(const std::string& root) : mon_data_(ss::join_path(root, "sys/fs/resctrl/mon_data")) {}

void ResctrlMbm::sample(std::int64_t now_ns, ss::FrameBuilder& frame, Logger* log) {
  domains_.refresh(
      now_ns, [&] { return domains(mon_data_); },
      [&](const std::string& dir) {
        Domain d;
        d.label = domain_label(dir);
        d.id = ss::to_number<std::uint32_t>(d.label).value_or(kFirstUnnumberedDomain + unnumbered_++);
        for (const auto& [file, metric] : kCounters) d.files.emplace_back(mon_data_ + "/" + dir + "/" + file);
        return d;
      });
  for (auto& d : domains_.entries()) {
    for (std::uint32_t c = 0; c < std::size(kCounters); ++c) {
      const auto& [file, metric] = kCounters[c];
      const auto text = d.files[c].read();
      if (!text) continue;
      const auto value = ss::parse_u64_line(*text);
      if (!value) {
        // "Unavailable": the hardware had no reading for this RMID now (or "Error"). Keep the previous
        // reading so the next rate covers the gap.
        if (!noted_unavailable_ && log) {
          noted_unavailable_ = true;
          std::string_view rest = *text;
          log->info("ddr: {} reads '{}': no point for it this sample", d.files[c].path(),
                    ss::next_field(rest));
        }
        continue;
      }
      frame.rate({kWhatResctrl + c, d.id}, *value, 64, now_ns, [&, &file = file, &metric = metric] {
        return MetricSeries{metric, "bytes/s", {{"domain", d.label}, {"source_name", file}}, -1};
      });
    }
  }
}

}  // namespace cann_debug::plugins::ddr_detail
