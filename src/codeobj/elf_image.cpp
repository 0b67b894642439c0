#include "elf_image.hpp"

#include <rpl/core/error.hpp>

namespace rpl::codeobj::detail {

ElfImage::ElfImage(std::string_view image, std::string origin) : origin_(std::move(origin)) {
  // Once, before any thread reads: libelf's version is process-wide state.
  static const bool usable = elf_version(EV_CURRENT) != EV_NONE;
  if (!usable) fail(Errc::internal, "libelf: {}", elf_errmsg(-1));
  // libelf reads but does not modify the image with ELF_C_READ_MEMORY.
  elf_ = elf_memory(const_cast<char*>(image.data()), image.size());
  if (!elf_ || elf_kind(elf_) != ELF_K_ELF || !gelf_getehdr(elf_, &header_)) {
    if (elf_) elf_end(elf_);
    fail(Errc::bad_input, "{}: malformed ELF file", origin_);
  }
  size_t names = 0;
  if (elf_getshdrstrndx(elf_, &names) != 0) {
    elf_end(elf_);
    fail(Errc::bad_input, "{}: malformed ELF section table", origin_);
  }
  for (Elf_Scn* scn = elf_nextscn(elf_, nullptr); scn; scn = elf_nextscn(elf_, scn)) {
    ElfSection s;
    s.index = elf_ndxscn(scn);
    if (!gelf_getshdr(scn, &s.header)) continue;
    const char* name = elf_strptr(elf_, names, s.header.sh_name);
    s.name = name ? name : "";
    if (s.header.sh_type != SHT_NOBITS) {
      if (s.header.sh_offset > image.size() || s.header.sh_size > image.size() - s.header.sh_offset) {
        elf_end(elf_);
        fail(Errc::bad_input, "{}: ELF section {} extends past the end of the file (truncated?)", origin_, s.name);
      }
      s.data = image.substr(s.header.sh_offset, s.header.sh_size);
    }
    by_name_.emplace(s.name, sections_.size());  // the first of a name, as a scan would find
    sections_.push_back(std::move(s));
  }
}

ElfImage::~ElfImage() { elf_end(elf_); }

const ElfSection* ElfImage::find(std::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : &sections_[it->second];
}

}  // namespace rpl::codeobj::detail
