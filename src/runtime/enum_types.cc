// The standard enum types, with the reflection a TVM-FFI runtime gives them: ffi.Enum (the base of
// enum singletons: an integer and a string index), ffi.IntEnum and ffi.StrEnum, and ffi.EnumState
// (one per enum class: its entries in order, the index -> entry lookup and per-entry attributes).
//
// Libraries built with the reference headers define enum classes in their static initializers and
// keep each class's state in the `__ffi_enum__` type attribute; the reference's Python package
// creates and reads those states at import. Both reach the fields directly, so the layouts here
// are the ones the reference headers declare. IntEnum and StrEnum expose their payload index a
// second time as the field `value` (the same storage), which the reference's Python package reads.
#include "enum_types.h"

#include <ffi/any.h>
#include <ffi/container/dict.h>
#include <ffi/container/list.h>
#include <ffi/object.h>
#include <ffi/reflection/registry.h>
#include <ffi/string.h>

namespace tvm {
namespace ffi {
namespace runtime {
namespace {

/*! \brief The shared state of one enum class (layout fixed by the ABI, see the file comment). */
class EnumStateObj : public Object {
 public:
  /*! \brief The enum's singletons, in definition order. */
  List<ObjectRef> entries;
  /*! \brief Integer and string index -> singleton. */
  Dict<Any, ObjectRef> indexes;
  /*! \brief Attribute name -> (singleton -> value). */
  Dict<String, Dict<ObjectRef, Any>> attrs;

  FFI_DECLARE_OBJECT_INFO_FINAL("ffi.EnumState", EnumStateObj, Object);
};

/*! \brief The base of enum singletons. */
class EnumObj : public Object {
 public:
  /*! \brief The canonical integer index. */
  int64_t _int_index = 0;
  /*!
   * \brief The canonical string index. Held as an Any: the reference headers' String is a 16-byte
   * value (a small string inline, else a string object), and code built with them reads this
   * field in place, so it must have that representation.
   */
  Any _str_index = String();

  FFI_DECLARE_OBJECT_INFO("ffi.Enum", EnumObj, Object);
};

/*! \brief Enums whose values are integers. */
class IntEnumObj : public EnumObj {
 public:
  FFI_DECLARE_OBJECT_INFO("ffi.IntEnum", IntEnumObj, EnumObj);
};

/*! \brief Enums whose values are strings. */
class StrEnumObj : public EnumObj {
 public:
  FFI_DECLARE_OBJECT_INFO("ffi.StrEnum", StrEnumObj, EnumObj);
};

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
}

}  // namespace

bool IsEnumType(int32_t type_index) {
  if (type_index < kTVMFFIStaticObjectBegin) return false;
  static const int32_t enum_index = EnumObj::RuntimeTypeIndex();
  static const int32_t enum_depth = TVMFFIGetTypeInfo(enum_index)->type_depth;
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(type_index);
  if (info == nullptr) return false;
  if (info->type_index == enum_index) return true;
  return info->type_depth > enum_depth &&
         info->type_ancestors[enum_depth]->type_index == enum_index;
}

String EnumName(const Object* obj) {
  return static_cast<const EnumObj*>(obj)->_str_index.cast<String>();
}
}  // namespace runtime
}  // namespace ffi
}  // namespace tvm
