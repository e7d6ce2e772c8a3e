// One fuzz target: LLVMFuzzerTestOneInput over the bytes of one input. Built two ways (CMakeLists.txt):
// with libFuzzer (clang, scripts/fuzz.sh) it is fuzzed; with replay_main.cpp (any compiler) it replays a
// corpus folder, which is how the seeds and every regression input run in CTest under ASan and UBSan.
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
