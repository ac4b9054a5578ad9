// The platform layer on Windows: LoadLibraryExW and GetProcAddress, the PE export table for the
// symbols a library defines, the x64 unwind tables (.pdata) for backtraces. Paths are UTF-8.
#ifndef _WIN32_WINNT
#define _WIN32_WINNT 0x0A00  // GetCurrentThreadStackLimits needs Windows 8 or later
#endif
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>

#include <algorithm>
#include <string>

#include "platform.h"

namespace tvm {
namespace ffi {
namespace runtime {
namespace platform {
namespace {

std::wstring Widen(const std::string& text) {
  if (text.empty()) return std::wstring();
  int n = MultiByteToWideChar(CP_UTF8, 0, text.data(), static_cast<int>(text.size()), nullptr, 0);
  std::wstring out(static_cast<size_t>(n), L'\0');
  MultiByteToWideChar(CP_UTF8, 0, text.data(), static_cast<int>(text.size()), out.data(), n);
  return out;
}

std::string Narrow(const wchar_t* text, size_t size) {
  if (size == 0) return std::string();
  int n =
      WideCharToMultiByte(CP_UTF8, 0, text, static_cast<int>(size), nullptr, 0, nullptr, nullptr);
  std::string out(static_cast<size_t>(n), '\0');
  WideCharToMultiByte(CP_UTF8, 0, text, static_cast<int>(size), out.data(), n, nullptr, nullptr);
  return out;
}

/*! \brief The system's text for error code `code`, without the trailing line break. */
std::string ErrorText(DWORD code) {
  wchar_t* buffer = nullptr;
  DWORD n = FormatMessageW(
      FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS,
      nullptr, code, 0, reinterpret_cast<wchar_t*>(&buffer), 0, nullptr);
  std::string text = n == 0 ? std::string() : Narrow(buffer, n);
  if (buffer != nullptr) LocalFree(buffer);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) {
    text.pop_back();
  }
  return "error " + std::to_string(code) + (text.empty() ? "" : ": " + text);
}

/*! \brief The NT headers of a loaded image. */
const IMAGE_NT_HEADERS* NtHeaders(HMODULE module) {
  auto* base = reinterpret_cast<const unsigned char*>(module);
  auto* dos = reinterpret_cast<const IMAGE_DOS_HEADER*>(base);
  return reinterpret_cast<const IMAGE_NT_HEADERS*>(base + dos->e_lfanew);
}

/*! \brief What lies at `rva` of a loaded image: code in an executable section, else data. */
SymbolInfo InfoAt(HMODULE module, DWORD rva) {
  const IMAGE_NT_HEADERS* nt = NtHeaders(module);
  const IMAGE_SECTION_HEADER* section = IMAGE_FIRST_SECTION(nt);
  SymbolInfo info;  // PE keeps no symbol sizes: size_known stays false
  for (WORD i = 0; i < nt->FileHeader.NumberOfSections; ++i, ++section) {
    DWORD extent = std::max(section->Misc.VirtualSize, section->SizeOfRawData);
    if (rva >= section->VirtualAddress && rva - section->VirtualAddress < extent) {
      info.kind = (section->Characteristics & IMAGE_SCN_MEM_EXECUTE) != 0 ? SymbolKind::kCode
                                                                          : SymbolKind::kData;
      break;
    }
  }
  return info;
}

/*!
 * \brief Calls `fn(name, rva)` for every named export of a loaded image that is defined there
 * (forwarders to other DLLs are left out).
 */
template <typename F>
void ForEachExport(HMODULE module, F fn) {
  auto* base = reinterpret_cast<const unsigned char*>(module);
  const IMAGE_DATA_DIRECTORY& dir =
      NtHeaders(module)->OptionalHeader.DataDirectory[IMAGE_DIRECTORY_ENTRY_EXPORT];
  if (dir.VirtualAddress == 0 || dir.Size == 0) return;
  auto* exports = reinterpret_cast<const IMAGE_EXPORT_DIRECTORY*>(base + dir.VirtualAddress);
  auto* functions = reinterpret_cast<const DWORD*>(base + exports->AddressOfFunctions);
  auto* names = reinterpret_cast<const DWORD*>(base + exports->AddressOfNames);
  auto* ordinals = reinterpret_cast<const WORD*>(base + exports->AddressOfNameOrdinals);
  for (DWORD i = 0; i < exports->NumberOfNames; ++i) {
    if (ordinals[i] >= exports->NumberOfFunctions) continue;
    DWORD rva = functions[ordinals[i]];
    if (rva >= dir.VirtualAddress && rva - dir.VirtualAddress < dir.Size) continue;  // forwarder
    fn(reinterpret_cast<const char*>(base + names[i]), rva);
  }
}

/*! \brief The loaded image containing `address`, without taking a reference; null if none. */
HMODULE ModuleAt(const void* address) {
  HMODULE module = nullptr;
  if (!GetModuleHandleExW(
          GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
          static_cast<LPCWSTR>(address), &module)) {
    return nullptr;
  }
  return module;
}

/*! \brief Reads `size` bytes at `offset` of an open file; false when the file ends first. */
bool ReadAt(HANDLE file, uint64_t offset, void* out, DWORD size) {
  OVERLAPPED at{};
  at.Offset = static_cast<DWORD>(offset);
  at.OffsetHigh = static_cast<DWORD>(offset >> 32);
  DWORD got = 0;
  return ReadFile(file, out, size, &got, &at) && got == size;
}

}  // namespace

std::string CheckLibraryImage(const std::string& path) {
  // The loader reports most malformed images itself; refuse here what is plainly no PE image,
  // or one whose sections reach past the end of the file (a truncated copy), with a clear reason.
  HANDLE file = CreateFileW(Widen(path).c_str(), GENERIC_READ, FILE_SHARE_READ, nullptr,
                            OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr);
  if (file == INVALID_HANDLE_VALUE) return ErrorText(GetLastError());
  LARGE_INTEGER file_size{};
  IMAGE_DOS_HEADER dos{};
  DWORD signature = 0;
  IMAGE_FILE_HEADER header{};
  bool ok = GetFileSizeEx(file, &file_size) && ReadAt(file, 0, &dos, sizeof(dos)) &&
            dos.e_magic == IMAGE_DOS_SIGNATURE && dos.e_lfanew > 0 &&
            ReadAt(file, static_cast<uint64_t>(dos.e_lfanew), &signature, sizeof(signature)) &&
            signature == IMAGE_NT_SIGNATURE &&
            ReadAt(file, static_cast<uint64_t>(dos.e_lfanew) + sizeof(signature), &header,
                   sizeof(header));
  const char* why = ok ? nullptr : "it is not a PE image (too short, or no MZ and PE headers)";
  uint64_t size = static_cast<uint64_t>(file_size.QuadPart);
  uint64_t sections = static_cast<uint64_t>(dos.e_lfanew) + sizeof(signature) + sizeof(header) +
                      header.SizeOfOptionalHeader;
  for (WORD i = 0; why == nullptr && i < header.NumberOfSections; ++i) {
    IMAGE_SECTION_HEADER section{};
    if (!ReadAt(file, sections + i * sizeof(section), &section, sizeof(section)) ||
        uint64_t{section.PointerToRawData} + section.SizeOfRawData > size) {
      why = "a section lies past the end of the file (truncated?)";
    }
  }
  CloseHandle(file);
  return why == nullptr ? std::string() : std::string(why);
}

void* OpenLibrary(const std::string& path, std::string* error) {
  // LoadLibrary searches for any relative path; the caller means this file, so make it absolute.
  std::wstring wide = Widen(path);
  DWORD n = GetFullPathNameW(wide.c_str(), 0, nullptr, nullptr);
  std::wstring full(n, L'\0');
  n = n == 0 ? 0 : GetFullPathNameW(wide.c_str(), n, full.data(), nullptr);
  if (n == 0) {
    *error = ErrorText(GetLastError());
    return nullptr;
  }
  full.resize(n);
  // The library's own directory is searched first for its dependencies (as $ORIGIN rpaths do),
  // and a missing dependency is an error returned here, not a dialog box.
  DWORD old_mode = 0;
  SetThreadErrorMode(SEM_FAILCRITICALERRORS | SEM_NOOPENFILEERRORBOX, &old_mode);
  HMODULE module = LoadLibraryExW(full.c_str(), nullptr, LOAD_WITH_ALTERED_SEARCH_PATH);
  DWORD code = GetLastError();
  SetThreadErrorMode(old_mode, nullptr);
  if (module == nullptr) *error = ErrorText(code);
  return reinterpret_cast<void*>(module);
}

void CloseLibrary(void* handle) { FreeLibrary(static_cast<HMODULE>(handle)); }

void* LookupSymbol(void* handle, const char* name) {
  return reinterpret_cast<void*>(GetProcAddress(static_cast<HMODULE>(handle), name));
}

void ForEachDefinedSymbol(void* handle,
                          const std::function<void(const char* name, const SymbolInfo&)>& fn) {
  auto module = static_cast<HMODULE>(handle);
  ForEachExport(module, [&](const char* name, DWORD rva) { fn(name, InfoAt(module, rva)); });
}

bool SymbolAtAddress(void* address, SymbolInfo* out) {
  HMODULE module = ModuleAt(address);
  if (module == nullptr) return false;
  auto rva =
      static_cast<DWORD>(static_cast<const char*>(address) - reinterpret_cast<const char*>(module));
  *out = InfoAt(module, rva);
  return out->kind != SymbolKind::kUnknown;
}

bool DescribeAddress(const void* address, AddressInfo* out) {
  HMODULE module = ModuleAt(address);
  if (module == nullptr) return false;
  out->module_base = module;
  wchar_t path[MAX_PATH * 4];
  DWORD n = GetModuleFileNameW(module, path, sizeof(path) / sizeof(path[0]));
  out->module_path = Narrow(path, n);
  // The unwind table (.pdata) gives where the function containing the address begins; only an
  // exported function starting exactly there is named (the nearest export before the address
  // could be another function).
  out->symbol = nullptr;
  DWORD64 image_base = 0;
  PRUNTIME_FUNCTION entry =
      RtlLookupFunctionEntry(reinterpret_cast<DWORD64>(address), &image_base, nullptr);
  if (entry == nullptr) return true;
  ForEachExport(module, [&](const char* name, DWORD rva) {
    if (out->symbol == nullptr && rva == entry->BeginAddress) out->symbol = name;
  });
  return true;
}

int CaptureStack(void** pcs, int max) {
  // At most 62 frames per call on older Windows; callers ask for no more than 64.
  return RtlCaptureStackBackTrace(0, static_cast<DWORD>(max < 62 ? max : 62), pcs, nullptr);
}

bool CurrentThreadStack(uintptr_t* lowest, size_t* size) {
  ULONG_PTR low = 0, high = 0;
  GetCurrentThreadStackLimits(&low, &high);
  if (high <= low) return false;
  *lowest = low;
  *size = high - low;
  return true;
}

}  // namespace platform
}  // namespace runtime
}  // namespace ffi
}  // namespace tvm
