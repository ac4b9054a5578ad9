// The platform layer on macOS, beside posix.cc's dlopen half (shared with Linux): Mach-O (load
// commands, the nlist symbol table) where Linux reads ELF. Written from the documented formats but
// not yet built or run on a Mac (docs/platforms.md): this is the one file a macOS port fills in and
// checks.
#include <dlfcn.h>
#include <mach-o/dyld.h>
#include <mach-o/loader.h>
#include <mach-o/nlist.h>
#include <pthread.h>

#include <cstring>

#include "platform.h"

namespace tvm {
namespace ffi {
namespace runtime {
namespace platform {
namespace {

using MachHeader = struct mach_header_64;
using Segment = struct segment_command_64;
using Section = struct section_64;

/*! \brief Calls `fn(segment)` for each 64-bit segment of a loaded image, in order. */
template <typename F>
void ForEachSegment(const MachHeader* header, F fn) {
  auto* cmd = reinterpret_cast<const struct load_command*>(header + 1);
  for (uint32_t i = 0; i < header->ncmds; ++i) {
    if (cmd->cmd == LC_SEGMENT_64) fn(reinterpret_cast<const Segment*>(cmd));
    cmd = reinterpret_cast<const struct load_command*>(reinterpret_cast<const char*>(cmd) +
                                                       cmd->cmdsize);
  }
}

/*! \brief What a section holds: code, thread-local descriptors, or data. */
SymbolKind KindOfSection(const Section& section) {
  uint32_t type = section.flags & SECTION_TYPE;
  if (type == S_THREAD_LOCAL_VARIABLES) return SymbolKind::kThreadLocal;
  if (section.flags & (S_ATTR_PURE_INSTRUCTIONS | S_ATTR_SOME_INSTRUCTIONS)) {
    return SymbolKind::kCode;
  }
  return SymbolKind::kData;
}

/*! \brief The section with 1-based ordinal `n` (as nlist's n_sect counts), or null. */
const Section* NthSection(const MachHeader* header, uint32_t n) {
  const Section* found = nullptr;
  uint32_t seen = 0;
  ForEachSegment(header, [&](const Segment* segment) {
    auto* sections = reinterpret_cast<const Section*>(segment + 1);
    if (found == nullptr && n > seen && n - seen <= segment->nsects)
      found = &sections[n - seen - 1];
    seen += segment->nsects;
  });
  return found;
}

/*! \brief The index of the loaded image whose header is `header` (dyld's numbering), or -1. */
int64_t ImageIndexOf(const void* header) {
  for (uint32_t i = 0, n = _dyld_image_count(); i < n; ++i) {
    if (_dyld_get_image_header(i) == header) return i;
  }
  return -1;
}

/*! \brief The loaded image that dlopen returned `handle` for, or -1. */
int64_t ImageIndexOfHandle(void* handle) {
  for (uint32_t i = 0, n = _dyld_image_count(); i < n; ++i) {
    // RTLD_NOLOAD: the handle of an image already loaded (a reference, dropped at once).
    void* h = dlopen(_dyld_get_image_name(i), RTLD_NOLOAD | RTLD_LAZY);
    if (h == nullptr) continue;
    dlclose(h);
    if (h == handle) return i;
  }
  return -1;
}

}  // namespace

std::string CheckLibraryImage(const std::string& /*path*/) {
  // dyld checks a Mach-O file's load commands against its size and reports a truncated file;
  // no check of our own is known to be needed (to confirm on a Mac).
  return std::string();
}

void ForEachDefinedSymbol(void* handle,
                          const std::function<void(const char* name, const SymbolInfo&)>& fn) {
  int64_t index = ImageIndexOfHandle(handle);
  if (index < 0) return;
  auto* header = reinterpret_cast<const MachHeader*>(_dyld_get_image_header(index));
  if (header == nullptr || header->magic != MH_MAGIC_64) return;
  intptr_t slide = _dyld_get_image_vmaddr_slide(index);
  const Segment* linkedit = nullptr;
  ForEachSegment(header, [&](const Segment* s) {
    if (std::strcmp(s->segname, SEG_LINKEDIT) == 0) linkedit = s;
  });
  const struct symtab_command* symtab = nullptr;
  auto* cmd = reinterpret_cast<const struct load_command*>(header + 1);
  for (uint32_t i = 0; i < header->ncmds; ++i) {
    if (cmd->cmd == LC_SYMTAB) symtab = reinterpret_cast<const struct symtab_command*>(cmd);
    cmd = reinterpret_cast<const struct load_command*>(reinterpret_cast<const char*>(cmd) +
                                                       cmd->cmdsize);
  }
  if (linkedit == nullptr || symtab == nullptr) return;
  // File offsets in __LINKEDIT, turned into addresses of the loaded image.
  const char* base = reinterpret_cast<const char*>(slide + linkedit->vmaddr - linkedit->fileoff);
  auto* symbols = reinterpret_cast<const struct nlist_64*>(base + symtab->symoff);
  const char* strings = base + symtab->stroff;
  for (uint32_t i = 0; i < symtab->nsyms; ++i) {
    const struct nlist_64& sym = symbols[i];
    // Exported definitions only: external, not private-external, defined in a section.
    if ((sym.n_type & N_STAB) || !(sym.n_type & N_EXT) || (sym.n_type & N_PEXT) ||
        (sym.n_type & N_TYPE) != N_SECT) {
      continue;
    }
    const char* name = strings + sym.n_un.n_strx;
    if (name[0] == '_') ++name;  // C names carry a leading underscore in Mach-O
    SymbolInfo info;             // nlist keeps no sizes
    const Section* section = NthSection(header, sym.n_sect);
    info.kind = section != nullptr ? KindOfSection(*section) : SymbolKind::kUnknown;
    fn(name, info);
  }
}

bool SymbolAtAddress(void* address, SymbolInfo* out) {
  Dl_info info{};
  if (dladdr(address, &info) == 0 || info.dli_saddr != address) return false;
  auto* header = static_cast<const MachHeader*>(info.dli_fbase);
  int64_t index = ImageIndexOf(header);
  if (index < 0 || header->magic != MH_MAGIC_64) return false;
  uintptr_t unslid = reinterpret_cast<uintptr_t>(address) - _dyld_get_image_vmaddr_slide(index);
  *out = SymbolInfo();
  ForEachSegment(header, [&](const Segment* segment) {
    auto* sections = reinterpret_cast<const Section*>(segment + 1);
    for (uint32_t i = 0; i < segment->nsects; ++i) {
      if (unslid >= sections[i].addr && unslid - sections[i].addr < sections[i].size) {
        out->kind = KindOfSection(sections[i]);
      }
    }
  });
  return out->kind != SymbolKind::kUnknown;
}

bool CurrentThreadStack(uintptr_t* lowest, size_t* size) {
  pthread_t self = pthread_self();
  // The stack address macOS reports is the top (highest address); the stack grows down from it.
  auto top = reinterpret_cast<uintptr_t>(pthread_get_stackaddr_np(self));
  size_t bytes = pthread_get_stacksize_np(self);
  if (top == 0 || bytes == 0) return false;
  *lowest = top - bytes;
  *size = bytes;
  return true;
}

}  // namespace platform
}  // namespace runtime
}  // namespace ffi
}  // namespace tvm
