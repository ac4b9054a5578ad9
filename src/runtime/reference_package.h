/*
 * src/runtime/reference_package.h - private to the runtime: the release of the reference's Python
 * package (`tvm_ffi`) that this runtime serves, where the runtime must follow what that release
 * expects (enum_types.cc: ffi.Enum's field names).
 *
 * Two ways lead here. Our Python package, imported first, tells the runtime where the reference
 * package is when that package loads (python/ffi/_runtime.py). A runtime file put in place of the
 * reference's own (`tvm_ffi/lib/libtvm_ffi.so`) finds the package around itself.
 */
#ifndef FFI_SRC_RUNTIME_REFERENCE_PACKAGE_H_
#define FFI_SRC_RUNTIME_REFERENCE_PACKAGE_H_

#include <array>
#include <optional>
#include <string>

namespace tvm {
namespace ffi {
namespace runtime {

/*! \brief A release number: major, minor, patch (suffixes such as `.post2` dropped). */
using ReleaseVersion = std::array<int, 3>;

/*!
 * \brief The release of the reference package in the directory `package_dir`, read from the
 * `__version__ = '...'` line of its `_version.py`; nothing when there is no such file or line.
 */
std::optional<ReleaseVersion> ReferencePackageVersion(const std::string& package_dir);

/*!
 * \brief The directory of the reference package this runtime file was installed into (the file
 * lies in `<package>/lib/` and the package is named `tvm_ffi`), or an empty string when it lies
 * anywhere else (our own package, a build tree).
 */
std::string EnclosingReferencePackage();

}  // namespace runtime
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_SRC_RUNTIME_REFERENCE_PACKAGE_H_
