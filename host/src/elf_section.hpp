// Reads one named section of an ELF file without loading it: no code of the file runs.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace cann_debug::host {

struct ElfSectionResult {
  std::optional<std::vector<unsigned char>> bytes;  // nullopt if the section is absent or on error
  std::string error;                                // set when the file is not a readable ELF file
};

ElfSectionResult read_elf_section(const std::string& path, const std::string& section_name);

}  // namespace cann_debug::host
