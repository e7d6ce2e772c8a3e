#include "elf_section.hpp"

#include <elf.h>

#include <cstring>
#include <fmt/format.h>
#include <fstream>

namespace cann_debug::host {

namespace {

bool read_at(std::ifstream& in, std::uint64_t offset, void* dst, std::size_t n, std::uint64_t file_size) {
  if (offset > file_size || n > file_size - offset) return false;
  in.seekg(static_cast<std::streamoff>(offset));
  in.read(static_cast<char*>(dst), static_cast<std::streamsize>(n));
  return static_cast<std::size_t>(in.gcount()) == n;
}

}  // namespace

ElfSectionResult read_elf_section(const std::string& path, const std::string& section_name) {
  ElfSectionResult r;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    r.error = fmt::format("cannot open: {}", std::strerror(errno));
    return r;
  }
  in.seekg(0, std::ios::end);
  const auto file_size = static_cast<std::uint64_t>(in.tellg());
  Elf64_Ehdr eh{};
  if (!read_at(in, 0, &eh, sizeof eh, file_size) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
    r.error = "not an ELF file";
    return r;
  }
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB) {
    r.error = "not a 64-bit little-endian ELF file";
    return r;
  }
  if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 || eh.e_shstrndx >= eh.e_shnum) {
    r.error = "ELF file has no usable section table";
    return r;
  }
  std::vector<Elf64_Shdr> sections(eh.e_shnum);
  if (!read_at(in, eh.e_shoff, sections.data(), sections.size() * sizeof(Elf64_Shdr), file_size)) {
    r.error = fmt::format("ELF section table at byte {} runs past the end of the file", eh.e_shoff);
    return r;
  }
  const Elf64_Shdr& strtab = sections[eh.e_shstrndx];
  std::vector<char> names(strtab.sh_size + 1, '\0');
  if (!read_at(in, strtab.sh_offset, names.data(), strtab.sh_size, file_size)) {
    r.error = "ELF section name table runs past the end of the file";
    return r;
  }
  for (const auto& s : sections) {
    if (s.sh_name >= strtab.sh_size) continue;
    if (section_name != &names[s.sh_name]) continue;
    if (s.sh_type == SHT_NOBITS) return r;
    std::vector<unsigned char> bytes(s.sh_size);
    if (!read_at(in, s.sh_offset, bytes.data(), bytes.size(), file_size)) {
      r.error = fmt::format("section {} runs past the end of the file", section_name);
      return r;
    }
    r.bytes = std::move(bytes);
    return r;
  }
  return r;
}

}  // namespace cann_debug::host
