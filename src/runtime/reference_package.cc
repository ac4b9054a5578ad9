// The reference package this runtime serves (reference_package.h): its release, read from its
// `_version.py`, and the package a runtime file installed in place of the reference's lies in.
#include "reference_package.h"

#include <cctype>
#include <fstream>
#include <iterator>
#include <string_view>

#include "platform/platform.h"

namespace tvm {
namespace ffi {
namespace runtime {
namespace {

/*! \brief The reference package's import name: the directory a runtime file of it lies under. */
constexpr std::string_view kReferencePackageName = "tvm_ffi";

/*! \brief Skips spaces and tabs in `text` from `pos`. */
size_t SkipBlanks(std::string_view text, size_t pos) {
  while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t')) ++pos;
  return pos;
}

/*! \brief Reads an unsigned decimal number at `*pos` into `*out`; false when there is none. */
bool ReadNumber(std::string_view text, size_t* pos, int* out) {
  size_t start = *pos;
  int value = 0;
  while (*pos < text.size() && std::isdigit(static_cast<unsigned char>(text[*pos])) &&
         *pos - start < 6) {
    value = value * 10 + (text[*pos] - '0');
    ++*pos;
  }
  *out = value;
  return *pos > start;
}

/*!
 * \brief The version in a line `__version__ = '1.2.3'` (or `__version__ = version = "1.2.3..."`,
 * as the generated files write it) starting at `pos`.
 */
std::optional<ReleaseVersion> ParseVersionLine(std::string_view text, size_t pos) {
  constexpr std::string_view kName = "__version__";
  pos = SkipBlanks(text, pos + kName.size());
  if (pos >= text.size() || text[pos] != '=') return std::nullopt;
  pos = SkipBlanks(text, pos + 1);
  constexpr std::string_view kAlias = "version";
  if (text.substr(pos, kAlias.size()) == kAlias) {
    pos = SkipBlanks(text, pos + kAlias.size());
    if (pos >= text.size() || text[pos] != '=') return std::nullopt;
    pos = SkipBlanks(text, pos + 1);
  }
  if (pos >= text.size() || (text[pos] != '\'' && text[pos] != '"')) return std::nullopt;
  ++pos;
  ReleaseVersion version{};
  for (size_t i = 0; i < version.size(); ++i) {
    if (i > 0) {
      if (pos >= text.size() || text[pos] != '.') return std::nullopt;
      ++pos;
    }
    if (!ReadNumber(text, &pos, &version[i])) return std::nullopt;
  }
  return version;
}

}  // namespace

std::optional<ReleaseVersion> ReferencePackageVersion(const std::string& package_dir) {
  std::ifstream file(package_dir + "/_version.py");
  if (!file) return std::nullopt;
  std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  // The assignment at the start of a line (not the names listed in __all__ or annotated).
  for (size_t pos = text.find("__version__"); pos != std::string::npos;
       pos = text.find("__version__", pos + 1)) {
    if (pos > 0 && text[pos - 1] != '\n') continue;
    if (auto version = ParseVersionLine(text, pos)) return version;
  }
  return std::nullopt;
}

std::string EnclosingReferencePackage() {
  platform::AddressInfo self;
  if (!platform::DescribeAddress(reinterpret_cast<void*>(&EnclosingReferencePackage), &self) ||
      self.module_path.empty()) {
    return std::string();
  }
  // <package>/lib/<file>: two directory levels up from the file, the package's name last.
  std::string_view path(self.module_path);
  size_t file_slash = platform::LastPathSeparator(path);
  if (file_slash == std::string_view::npos || file_slash == 0) return std::string();
  std::string_view lib_dir = path.substr(0, file_slash);
  size_t lib_slash = platform::LastPathSeparator(lib_dir);
  if (lib_slash == std::string_view::npos || lib_dir.substr(lib_slash + 1) != "lib") {
    return std::string();
  }
  std::string_view package = lib_dir.substr(0, lib_slash);
  size_t package_slash = platform::LastPathSeparator(package);
  std::string_view name =
      package_slash == std::string_view::npos ? package : package.substr(package_slash + 1);
  return name == kReferencePackageName ? std::string(package) : std::string();
}

}  // namespace runtime
}  // namespace ffi
}  // namespace tvm
