// A shared library opened at run time with dlopen, so a sampler builds and runs where the vendor library
// (libdcmi.so, libnvidia-ml.so.1) is absent: a missing library is a reason to report, not a link error.
#pragma once

#include <string>
#include <vector>

namespace cann_debug::plugins::sampler_support {

class DynamicLibrary {
 public:
  DynamicLibrary() = default;
  DynamicLibrary(const DynamicLibrary&) = delete;
  DynamicLibrary& operator=(const DynamicLibrary&) = delete;
  DynamicLibrary(DynamicLibrary&& other) noexcept;
  DynamicLibrary& operator=(DynamicLibrary&& other) noexcept;
  ~DynamicLibrary();

  /// Opens the first candidate that loads (RTLD_NOW | RTLD_LOCAL). A candidate without '/' is looked up
  /// the way dlopen does (LD_LIBRARY_PATH, ld.so.cache). On failure `error()` lists every candidate with
  /// dlerror()'s reason and the result is false.
  bool open(const std::vector<std::string>& candidates);
  bool is_open() const { return handle_ != nullptr; }
  /// The candidate that was opened.
  const std::string& path() const { return path_; }
  const std::string& error() const { return error_; }

  /// The address of `name`, or nullptr when the library does not export it (an older driver).
  void* symbol(const char* name) const;
  /// Typed lookup: `auto* f = lib.function<int(int)>("dcmi_init");`
  template <typename Signature>
  Signature* function(const char* name) const {
    return reinterpret_cast<Signature*>(symbol(name));
  }

  /// Closes the library. Samplers usually keep it open for the life of the process instead: a vendor
  /// library may start threads that must not outlive its code.
  void close();

 private:
  void* handle_ = nullptr;
  std::string path_;
  std::string error_;
};

}  // namespace cann_debug::plugins::sampler_support
