// The platform layer on Linux (and other ELF systems with glibc's loader), beside posix.cc's
// dlopen half: the ELF checks of a library file, the ELF dynamic symbol table for symbol kinds and
// sizes, and the calling thread's stack.
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "platform.h"

namespace tvm {
namespace ffi {
namespace runtime {
namespace platform {
namespace {

SymbolInfo InfoOf(const ElfW(Sym) & sym) {
  SymbolInfo info;
  info.size = sym.st_size;
  info.size_known = true;
  switch (ELF64_ST_TYPE(sym.st_info)) {
    case STT_FUNC:
    case STT_GNU_IFUNC:
      info.kind = SymbolKind::kCode;
      break;
    case STT_OBJECT:
      info.kind = SymbolKind::kData;
      break;
    case STT_COMMON:
      info.kind = SymbolKind::kCommonData;
      break;
    case STT_TLS:
      info.kind = SymbolKind::kThreadLocal;
      break;
    case STT_NOTYPE:
      info.kind = SymbolKind::kUnknown;
      break;
    default:
      info.kind = SymbolKind::kOther;
      break;
  }
  return info;
}

}  // namespace

std::string CheckLibraryImage(const std::string& path) {
  // Refuses a file that is not an ELF file, or whose segments reach past its end: glibc maps such
  // a truncated library and the process dies of SIGBUS inside dlopen. Everything else (wrong class
  // or machine, bad dynamic section) is left to dlopen, which reports it.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::strerror(errno);
  struct stat st;
  ElfW(Ehdr) header{};
  bool ok = ::fstat(fd, &st) == 0;
  size_t size = ok ? static_cast<size_t>(st.st_size) : 0;
  ok = ok && ::pread(fd, &header, sizeof(header), 0) == static_cast<ssize_t>(sizeof(header)) &&
       std::memcmp(header.e_ident, ELFMAG, SELFMAG) == 0;
  const char* why = ok ? nullptr : "it is not an ELF file (too short, or no ELF header)";
  // Only a header of this process's class can be read as ElfW(Ehdr); dlopen refuses the others.
  if (ok && header.e_ident[EI_CLASS] == (sizeof(void*) == 8 ? ELFCLASS64 : ELFCLASS32)) {
    size_t table_end = static_cast<size_t>(header.e_phoff) +
                       static_cast<size_t>(header.e_phnum) * sizeof(ElfW(Phdr));
    if (header.e_phentsize != sizeof(ElfW(Phdr)) || header.e_phoff > size || table_end > size) {
      why = "its program headers are missing or lie past the end of the file (truncated?)";
    }
    for (size_t i = 0; why == nullptr && i < header.e_phnum; ++i) {
      ElfW(Phdr) ph{};
      off_t at = static_cast<off_t>(header.e_phoff + i * sizeof(ElfW(Phdr)));
      if (::pread(fd, &ph, sizeof(ph), at) != static_cast<ssize_t>(sizeof(ph)) ||
          ph.p_offset > size || ph.p_filesz > size - ph.p_offset) {
        why = "a segment lies past the end of the file (truncated?)";
      }
    }
  }
  ::close(fd);
  return why == nullptr ? std::string() : std::string(why);
}

void ForEachDefinedSymbol(void* handle,
                          const std::function<void(const char* name, const SymbolInfo&)>& fn) {
  // The loaded library's dynamic symbol table; the number of symbols comes from DT_HASH or
  // DT_GNU_HASH.
  struct link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr) return;
  auto addr = [&](ElfW(Addr) p) -> const char* {
    // glibc relocates these entries in place on most targets; add the base when it did not.
    return reinterpret_cast<const char*>(p < map->l_addr ? p + map->l_addr : p);
  };
  const ElfW(Sym)* symtab = nullptr;
  const char* strtab = nullptr;
  const uint32_t* hash = nullptr;
  const uint32_t* gnu_hash = nullptr;
  for (const ElfW(Dyn)* d = map->l_ld; d->d_tag != DT_NULL; ++d) {
    if (d->d_tag == DT_SYMTAB) symtab = reinterpret_cast<const ElfW(Sym)*>(addr(d->d_un.d_ptr));
    if (d->d_tag == DT_STRTAB) strtab = addr(d->d_un.d_ptr);
    if (d->d_tag == DT_HASH) hash = reinterpret_cast<const uint32_t*>(addr(d->d_un.d_ptr));
    if (d->d_tag == DT_GNU_HASH) gnu_hash = reinterpret_cast<const uint32_t*>(addr(d->d_un.d_ptr));
  }
  if (symtab == nullptr || strtab == nullptr) return;
  size_t count = 0;
  if (hash != nullptr) {
    count = hash[1];  // nchain
  } else if (gnu_hash != nullptr) {
    uint32_t nbuckets = gnu_hash[0], symoffset = gnu_hash[1], bloom_size = gnu_hash[2];
    const uint32_t* buckets = gnu_hash + 4 + bloom_size * (sizeof(ElfW(Addr)) / sizeof(uint32_t));
    const uint32_t* chains = buckets + nbuckets;
    uint32_t last = 0;
    for (uint32_t b = 0; b < nbuckets; ++b) last = std::max(last, buckets[b]);
    if (last >= symoffset) {
      while ((chains[last - symoffset] & 1) == 0) ++last;  // the chain ends at an odd hash
      count = last + 1;
    }
  }
  for (size_t i = 0; i < count; ++i) {
    if (symtab[i].st_shndx != SHN_UNDEF) fn(strtab + symtab[i].st_name, InfoOf(symtab[i]));
  }
}

bool SymbolAtAddress(void* address, SymbolInfo* out) {
  Dl_info info{};
  void* sym = nullptr;
  if (dladdr1(address, &info, &sym, RTLD_DL_SYMENT) == 0 || sym == nullptr) return false;
  *out = InfoOf(*static_cast<const ElfW(Sym)*>(sym));
  return true;
}

bool CurrentThreadStack(uintptr_t* lowest, size_t* size) {
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return false;
  void* addr = nullptr;
  size_t bytes = 0;
  bool ok = pthread_attr_getstack(&attr, &addr, &bytes) == 0;
  pthread_attr_destroy(&attr);
  if (!ok) return false;
  *lowest = reinterpret_cast<uintptr_t>(addr);
  *size = bytes;
  return true;
}

}  // namespace platform
}  // namespace runtime
}  // namespace ffi
}  // namespace tvm
