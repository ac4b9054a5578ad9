// The standard enum types, with the reflection a TVM-FFI runtime gives them: ffi.Enum (the base of
// enum singletons: an integer and a string index), ffi.IntEnum and ffi.StrEnum, and ffi.EnumState
// (one per enum class: its entries in order, the index -> entry lookup and per-entry attributes).
//
// Libraries built with the reference headers define enum classes in their static initializers and
// keep each class's state in the `__ffi_enum__` type attribute; the reference's Python package
// creates and reads those states at import. Both reach the fields directly, so the layouts here
// are the ones the reference headers declare.
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
  refl::ObjectDef<EnumStateObj>("The shared state of one enum class.")
      .def(refl::init<>(), "An empty state.")
      .def_ro("entries", &EnumStateObj::entries, "The singletons, in definition order.")
      .def_ro("indexes", &EnumStateObj::indexes, "Integer and string index -> singleton.")
      .def_ro("attrs", &EnumStateObj::attrs, "Attribute name -> (singleton -> value).");
  refl::ObjectDef<EnumObj>("An enum singleton.")
      .def_ro("_int_index", &EnumObj::_int_index, "The canonical integer index.")
      .def_ro("_str_index", &EnumObj::_str_index, "The canonical string index.");
  refl::ObjectDef<IntEnumObj>("An integer enum singleton.");
  refl::ObjectDef<StrEnumObj>("A string enum singleton.");
}

}  // namespace
}  // namespace runtime
}  // namespace ffi
}  // namespace tvm
