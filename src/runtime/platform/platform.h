/*
 * src/runtime/platform/platform.h - private to the runtime: everything the runtime asks of the
 * operating system's loader and threads, behind one interface. Each platform implements it in one
 * file of this directory (linux.cc: ELF and dlfcn; windows.cc: PE and the Win32 loader; macos.cc:
 * the place to fill for Mach-O), and CMake compiles the one that matches the target. Nothing
 * outside this directory includes a loader's or an executable format's header (docs/platforms.md).
 */
#ifndef FFI_SRC_RUNTIME_PLATFORM_PLATFORM_H_
#define FFI_SRC_RUNTIME_PLATFORM_PLATFORM_H_

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>
#include <string_view>

#ifdef _WIN32
#include <malloc.h>
#endif

namespace tvm {
namespace ffi {
namespace runtime {
namespace platform {

/*! \brief What a symbol a library defines is, as far as the executable format tells. */
enum class SymbolKind {
  kUnknown,      ///< the format does not say (or the symbol was not found)
  kCode,         ///< a function: the only kind that may be called
  kData,         ///< a variable
  kCommonData,   ///< a common (tentative) variable (ELF STT_COMMON)
  kThreadLocal,  ///< a thread-local variable
  kOther,        ///< anything else (sections, files, ...)
};

/*! \brief A defined symbol's kind and size in bytes; `size_known` is false where the format keeps
 * no sizes (PE exports), and callers then take the symbol as large enough. */
struct SymbolInfo {
  SymbolKind kind = SymbolKind::kUnknown;
  size_t size = 0;
  bool size_known = false;
};

/*!
 * \brief Why `path` cannot be a loadable library of this platform, checked from its bytes before
 * the loader sees it (a truncated ELF file kills the process inside dlopen); an empty string when
 * the file looks sound. Only faults the loader would not report are checked.
 */
std::string CheckLibraryImage(const std::string& path);

/*!
 * \brief Opens the library file `path` itself (a bare file name means the file in the current
 * directory, never a search), resolving every symbol now and keeping its symbols out of the
 * global scope. Null on failure, with the loader's explanation in `*error`.
 */
void* OpenLibrary(const std::string& path, std::string* error);

/*! \brief Drops one reference OpenLibrary took; the library stays while others hold it. */
void CloseLibrary(void* handle);

/*! \brief The address of the symbol `name` the library (or, on ELF, a dependency) defines. */
void* LookupSymbol(void* handle, const char* name);

/*! \brief Calls `fn(name, info)` for every symbol the library defines and exports. */
void ForEachDefinedSymbol(void* handle,
                          const std::function<void(const char* name, const SymbolInfo&)>& fn);

/*!
 * \brief The symbol found at exactly `address` in any loaded library, for symbols that
 * ForEachDefinedSymbol of the library asked did not list (one of its dependencies defines them).
 * False when the loader cannot tell.
 */
bool SymbolAtAddress(void* address, SymbolInfo* out);

/*! \brief Where a code address lies, for backtraces. */
struct AddressInfo {
  const void* module_base = nullptr;  ///< the loaded image containing the address
  std::string module_path;            ///< that image's file, empty when unknown
  const char* symbol = nullptr;       ///< the (mangled) name of the function, null when unknown
};

/*! \brief Describes `address`; false when no loaded image contains it. */
bool DescribeAddress(const void* address, AddressInfo* out);

/*!
 * \brief Fills `pcs` with up to `max` return addresses of the calling thread's stack, innermost
 * first (the caller's own frame included); the number filled.
 */
int CaptureStack(void** pcs, int max);

/*! \brief The calling thread's stack: its lowest address and size; false when unknown. */
bool CurrentThreadStack(uintptr_t* lowest, size_t* size);

/*! \brief Whether `c` separates directories in a path of this platform. */
inline bool IsPathSeparator(char c) {
#ifdef _WIN32
  return c == '/' || c == '\\';
#else
  return c == '/';
#endif
}

/*! \brief The position of the last path separator in `path`, or npos. */
inline size_t LastPathSeparator(std::string_view path) {
  for (size_t i = path.size(); i-- > 0;) {
    if (IsPathSeparator(path[i])) return i;
  }
  return std::string_view::npos;
}

/*!
 * \brief `size` bytes (a multiple of `alignment`, a power of two) aligned to `alignment`; null when
 * out of memory. Freed by AlignedFree only. Inline: the built-in object allocator calls it.
 */
inline void* AlignedAlloc(size_t alignment, size_t size) {
#ifdef _WIN32
  // The C runtime of Windows has no aligned_alloc (free could not release its blocks).
  return _aligned_malloc(size, alignment);
#else
  return std::aligned_alloc(alignment, size);
#endif
}

/*! \brief Frees what AlignedAlloc returned (null is ignored). */
inline void AlignedFree(void* ptr) {
#ifdef _WIN32
  _aligned_free(ptr);
#else
  std::free(ptr);
#endif
}

}  // namespace platform
}  // namespace runtime
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_SRC_RUNTIME_PLATFORM_PLATFORM_H_
