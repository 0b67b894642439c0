#pragma once
// A read-only view of an ELF image in memory (libelf), shared by the AMD and NVIDIA readers.
#include <gelf.h>
#include <libelf.h>

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace rpl::codeobj::detail {

struct ElfSection {
  size_t index = 0;
  std::string name;
  GElf_Shdr header{};
  std::string_view data;  // empty for SHT_NOBITS: its size is header.sh_size
};

class ElfImage {
 public:
  /// Fails with Error(bad_input), naming origin, when image is not a well-formed ELF file.
  ElfImage(std::string_view image, std::string origin);
  ~ElfImage();
  ElfImage(const ElfImage&) = delete;
  ElfImage& operator=(const ElfImage&) = delete;

  const GElf_Ehdr& header() const { return header_; }
  const std::vector<ElfSection>& sections() const { return sections_; }
  const ElfSection* find(std::string_view name) const;
  const std::string& origin() const { return origin_; }

 private:
  std::string origin_;
  Elf* elf_ = nullptr;
  GElf_Ehdr header_{};
  std::vector<ElfSection> sections_;
  // Section name to its place in sections_: a CUDA library has tens of thousands of sections, and
  // each kernel's resources are looked up by name.
  std::map<std::string, size_t, std::less<>> by_name_;
};

/// Whether image starts with the ELF magic.
inline bool is_elf(std::string_view image) { return image.substr(0, 4) == "\x7f" "ELF"; }

}  // namespace rpl::codeobj::detail
