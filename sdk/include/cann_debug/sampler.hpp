// Everything a live sampler is written with, in one include:
//   cann_debug::sampler::IntervalSampler  the loop (interval, samples, schedule, host clock, node label)
//   cann_debug::sampler::FrameBuilder     metric.frame/1 with series described once, counters as rates
//   cann_debug::sampler::SlowReadings     readings taken only every `slow_interval`
//   cann_debug::sampler::DynamicLibrary   vendor C APIs (DCMI, NVML) opened with dlopen
//   cann_debug::sampler::KeptOpenFile, AttributeFile  small /proc and /sys reads under a configurable `root`
//   cann_debug::sampler::run_command      a vendor tool with a deadline (npu-smi, hccn_tool)
// The host owns the `interval` and `samples` options (interval_options()); a sampler implements open()
// and sample() or sample_frame(). docs/plugin-guide.md walks through one.
#pragma once

#include "cann_debug/component.hpp"
#include "cann_debug/messages.hpp"
#include "cann_debug/options.hpp"
#include "cann_debug/package.hpp"
#include "cann_debug/sampler/counter_delta.hpp"
#include "cann_debug/sampler/counter_points.hpp"
#include "cann_debug/sampler/dynamic_library.hpp"
#include "cann_debug/sampler/frame_builder.hpp"
#include "cann_debug/sampler/interval_sampler.hpp"
#include "cann_debug/sampler/option_specs.hpp"
#include "cann_debug/sampler/run_command.hpp"
#include "cann_debug/sampler/slow_readings.hpp"
#include "cann_debug/sampler/sysfs_files.hpp"

namespace cann_debug {
namespace sampler = plugins::sampler_support;
}  // namespace cann_debug
