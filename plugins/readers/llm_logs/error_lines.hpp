// The errors and warnings interleaved with a training log's step lines: collective timeouts (NCCL/HCCL
// watchdogs), communication library errors, CUDA/NPU device errors and their codes, NVIDIA Xid lines,
// out-of-memory, DataLoader worker deaths, fp16 overflow skips, NaN checks, and Python exceptions.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace cann_debug::plugins::llm_logs {

struct ErrorLine {
  std::string event;      // collective_timeout, comm_error, device_error, xid, out_of_memory,
                          // dataloader_worker, overflow_skip, nan_detected, process_failure, exception
  std::string component;  // network, device, memory, data, numerics, software
  std::string severity;   // error or warning
  bool hardware = false;  // the text names a hardware fault (ECC, UCE, link, fallen off the bus, ...)
  std::string backend;    // nccl, hccl, cuda, npu, or ""
  std::string code;  // Xid number, ACL/HCCL error code, CANN error id (EI0002, ...) when the line has one
};

/// What the (plain) line reports, or nullopt for an ordinary line.
std::optional<ErrorLine> classify_error_line(std::string_view text);

/// The exception line that ends a Python traceback ("RuntimeError: ...", "torch.OutOfMemoryError: ..."):
/// a dotted name ending in Error, Exception, Interrupt, Exit or Failure at the start of the line, then ':'
/// or the end of the line.
bool is_exception_line(std::string_view text);

}  // namespace cann_debug::plugins::llm_logs
