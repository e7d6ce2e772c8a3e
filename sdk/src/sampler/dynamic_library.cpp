#include "cann_debug/sampler/dynamic_library.hpp"

#include <dlfcn.h>

#include <utility>

namespace cann_debug::plugins::sampler_support {

DynamicLibrary::DynamicLibrary(DynamicLibrary&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)),
      path_(std::move(other.path_)),
      error_(std::move(other.error_)) {}

DynamicLibrary& DynamicLibrary::operator=(DynamicLibrary&& other) noexcept {
  if (this != &other) {
    close();
    handle_ = std::exchange(other.handle_, nullptr);
    path_ = std::move(other.path_);
    error_ = std::move(other.error_);
  }
  return *this;
}

DynamicLibrary::~DynamicLibrary() {
  close();
}

bool DynamicLibrary::open(const std::vector<std::string>& candidates) {
  close();
  error_.clear();
  for (const auto& candidate : candidates) {
    if (candidate.empty()) continue;
    dlerror();
    if (void* h = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      handle_ = h;
      path_ = candidate;
      error_.clear();
      return true;
    }
    const char* why = dlerror();
    if (!error_.empty()) error_ += "; ";
    error_ += why ? why : candidate + ": cannot be opened";
  }
  if (error_.empty()) error_ = "no library to open";
  return false;
}

void* DynamicLibrary::symbol(const char* name) const {
  if (!handle_) return nullptr;
  dlerror();
  return dlsym(handle_, name);
}

void DynamicLibrary::close() {
  if (handle_) dlclose(handle_);
  handle_ = nullptr;
  path_.clear();
}

}  // namespace cann_debug::plugins::sampler_support
