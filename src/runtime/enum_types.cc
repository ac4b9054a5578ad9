// The reflection a TVM-FFI runtime gives the standard enum types of <ffi/enum.h>: ffi.Enum (the
// base of enum singletons: an integer and a string index), ffi.IntEnum and ffi.StrEnum, and
// ffi.EnumState (one per enum class: its entries in order, the index -> entry lookup and
// per-entry attributes).
//
// Libraries built with either header set define enum classes in their static initializers
// (EnumDef) and keep each class's state in the `__ffi_enum__` type attribute; the Python packages
// create and read those states. IntEnum and StrEnum expose their payload index a second time as
// the field `value` (the same storage), which the Python packages read.
//
// Reference releases before 0.1.14 named ffi.Enum's two fields `_value` and `_name` (same layout:
// an int64 at offset 24, a String at 32), and their Python packages read them under those names.
// So the fields take those names in a process whose reference package is one of those releases:
// ffi.EnumAdaptToReferencePackage when our Python package sees that package load
// (python/ffi/_runtime.py), and at load when this runtime file was put in place of that package's
// own (reference_package.h).
#include <ffi/enum.h>
#include <ffi/function.h>
#include <ffi/reflection/registry.h>

#include <string>

#include "reference_package.h"
#include "reflection_table.h"

namespace tvm {
namespace ffi {
namespace runtime {
namespace {

/*! \brief The first reference release whose Python package reads `_int_index`/`_str_index`. */
constexpr ReleaseVersion kEnumFieldsRenamedIn = {0, 1, 14};

/*! \brief Names ffi.Enum's fields as releases before 0.1.14 did (a second call changes nothing). */
void UseLegacyFieldNames() {
  int32_t index = EnumObj::RuntimeTypeIndex();
  RenameTypeField(index, "_int_index", "_value");
  RenameTypeField(index, "_str_index", "_name");
}

/*! \brief Follows the release of the reference package in `package_dir`; true when that release
 * reads the legacy names. */
bool AdaptToReferencePackage(const std::string& package_dir) {
  std::optional<ReleaseVersion> version = ReferencePackageVersion(package_dir);
  if (!version.has_value() || *version >= kEnumFieldsRenamedIn) return false;
  UseLegacyFieldNames();
  return true;
}

FFI_STATIC_INIT_BLOCK() {
  namespace refl = reflection;
  // The state's tables are filled after construction, never passed to it.
  refl::ObjectDef<EnumStateObj>("The shared state of one enum class.")
      .def(refl::init<>(), "An empty state.")
      .def_ro("entries", &EnumStateObj::entries, refl::init(false),
              "The singletons, in definition order.")
      .def_ro("indexes", &EnumStateObj::indexes, refl::init(false),
              "Integer and string index -> singleton.")
      .def_ro("attrs", &EnumStateObj::attrs, refl::init(false),
              "Attribute name -> (singleton -> value).");
  // The integer index is a definition-order detail: structural equality goes by the name.
  refl::ObjectDef<EnumObj>("An enum singleton.")
      .def_ro("_int_index", &EnumObj::_int_index, refl::AttachFieldFlag::SEqHashIgnore(),
              "The canonical integer index.")
      .def_ro("_str_index", &EnumObj::_str_index, "The canonical string index.");
  // `value` aliases the payload index; it is not a constructor argument and adds nothing to
  // structural equality beyond the index it aliases.
  refl::ObjectDef<IntEnumObj>("An integer enum singleton.")
      .def_ro("value", &EnumObj::_int_index, refl::init(false),
              refl::AttachFieldFlag::SEqHashIgnore(), "The integer index (alias of _int_index).");
  refl::ObjectDef<StrEnumObj>("A string enum singleton.")
      .def_ro("value", &EnumObj::_str_index, refl::init(false),
              refl::AttachFieldFlag::SEqHashIgnore(), "The string index (alias of _str_index).");
  refl::GlobalDef()
      .def("ffi.EnumUseLegacyFieldNames", UseLegacyFieldNames,
           "Names ffi.Enum's fields `_value` and `_name`, as reference releases before 0.1.14 "
           "did; call it before any class reads ffi.Enum.")
      .def("ffi.EnumAdaptToReferencePackage", AdaptToReferencePackage,
           "Names ffi.Enum's fields as the reference package in the given directory (its "
           "_version.py) reads them; true when that is the names before 0.1.14.");
  // A runtime file in place of the reference package's own serves that package's release.
  if (std::string package = EnclosingReferencePackage(); !package.empty()) {
    AdaptToReferencePackage(package);
  }
}

}  // namespace
}  // namespace runtime
}  // namespace ffi
}  // namespace tvm
