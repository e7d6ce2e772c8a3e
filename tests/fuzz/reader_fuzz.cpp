// A reader fed arbitrary bytes as a file named CDFUZZ_FILE_NAME (readers look at names as real tools
// write them: kernel_details.csv, trainer_state.json, ...): sniff() on its head, then the component run to
// the end through the SDK harness. A ParseError or any std::exception is the contract for bad input; a
// crash, a leak, undefined behaviour or a hang is a bug. Compiled once per reader with
//   CDFUZZ_HEADER (the reader's header), CDFUZZ_FACTORY (its factory function), CDFUZZ_FILE_NAME.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include CDFUZZ_HEADER
#include "cann_debug/testing.hpp"
#include "fuzz_target.hpp"

namespace {

namespace fs = std::filesystem;

// The file the input is written to, in a folder of this process removed at exit.
class InputFile {
 public:
  InputFile() : dir_(fs::temp_directory_path() / ("cdfuzz-" + std::to_string(::getpid()))) {
    fs::create_directories(dir_);
    path_ = dir_ / CDFUZZ_FILE_NAME;
  }
  ~InputFile() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path dir_;
  fs::path path_;
};

const fs::path& input_path() {
  static const InputFile file;
  return file.path();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto& factory = CDFUZZ_FACTORY();
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  {
    std::ofstream out(input_path(), std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  const cann_debug::SniffInput sniff{input_path().string(), bytes.substr(0, 64 * 1024), false};
  (void)factory.sniff(sniff);
  // Options are not input: a harness that cannot be built is a broken target, so it is not caught.
  cann_debug::testing::Harness h(factory, {{"path", input_path().string()}});
  std::string error;
  try {
    h.run_source(100'000);
  } catch (const std::exception& e) {
    error = e.what();  // bad input is reported with an error: that is the contract, not a finding
  }
  static const bool verbose = std::getenv("CDFUZZ_VERBOSE") != nullptr;
  if (verbose)
    std::fprintf(stderr, "%zu bytes: %zu messages%s%s\n", size, h.out.emitted.size(),
                 error.empty() ? "" : "; ", error.c_str());
  return 0;
}
