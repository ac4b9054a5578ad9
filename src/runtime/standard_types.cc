// What a TVM-FFI runtime provides from the start, beside its static types: the standard type
// attribute columns and the standard dynamic type keys.
//
// Libraries built with the reference headers look some columns up during their static
// initialization (an enum definition reads `__ffi_enum__` before it writes it) and treat a missing
// column as an error, so each exists, empty, before any library is loaded. The reference's Python
// package binds classes to the standard type keys at import; those this runtime defines no class
// for (the structural visitors) are registered here (with the parent and child-slot layout the
// reference headers declare for them; a library that defines the class later gets the same index).
#include <ffi/c_api.h>
#include <ffi/container/array.h>
#include <ffi/container/dict.h>
#include <ffi/container/list.h>
#include <ffi/container/map.h>
#include <ffi/error.h>
#include <ffi/function.h>
#include <ffi/reflection/registry.h>
#include <ffi/shape.h>
#include <ffi/string.h>
#include <ffi/tensor.h>

#include <cstring>

namespace tvm {
namespace ffi {
namespace runtime {
namespace {

/*! \brief The attribute names the reference runtime's columns exist for at start-up. */
constexpr const char* kStandardColumns[] = {
    "__ffi_compare__",      "__ffi_convert__",    "__ffi_enum__", "__ffi_eq__",
    "__ffi_hash__",         "__ffi_init__",       "__ffi_new__",  "__ffi_repr__",
    "__ffi_shallow_copy__", "__ffi_type_final__",
};

/*! \brief A standard dynamic type: its key, and whether the reference declares it final. */
struct StandardType {
  const char* key;
  bool final;
};

constexpr StandardType kStandardTypes[] = {
    {"ffi.StructuralVisitor", false},
    {"ffi.StructuralMutator", false},
};

FFI_STATIC_INIT_BLOCK() {
  // The root type has metadata (its size, no structural kind): size computations over a chain of
  // ancestors (the reference's Python dataclasses) end at it.
  TVMFFITypeMetadata object_metadata{};
  object_metadata.total_size = sizeof(TVMFFIObject);
  object_metadata.structural_eq_hash_kind = kTVMFFISEqHashKindUnsupported;
  TVMFFITypeRegisterMetadata(kTVMFFIObject, &object_metadata);
  for (const StandardType& type : kStandardTypes) {
    TVMFFIByteArray key{type.key, std::strlen(type.key)};
    // Depth 1 under ffi.Object; no reserved child slots, overflow allowed unless final.
    TVMFFITypeGetOrAllocIndex(&key, -1, 1, 0, type.final ? 0 : 1, kTVMFFIObject);
  }
  TVMFFIAny none{};
  for (const char* name : kStandardColumns) {
    TVMFFIByteArray bytes{name, std::strlen(name)};
    // kTVMFFINone as the type index only creates the column.
    TVMFFITypeRegisterAttr(kTVMFFINone, &bytes, &none);
  }
  // Each built-in object type converts values to itself as a function argument of its type
  // would (Python's type converters call these for values not already of the type).
  namespace refl = reflection;
  refl::TypeAttrDef<Object>().def_convert<ObjectRef>();
  refl::TypeAttrDef<StringObj>().def_convert<String>();
  refl::TypeAttrDef<BytesObj>().def_convert<Bytes>();
  refl::TypeAttrDef<ErrorObj>().def_convert<Error>();
  refl::TypeAttrDef<FunctionObj>().def_convert<Function>();
  refl::TypeAttrDef<ShapeObj>().def_convert<Shape>();
  refl::TypeAttrDef<TensorObj>().def_convert<Tensor>();
  refl::TypeAttrDef<ArrayObj>().def_convert<Array<Any>>();
  refl::TypeAttrDef<ListObj>().def_convert<List<Any>>();
  refl::TypeAttrDef<MapObj>().def_convert<Map<Any, Any>>();
  refl::TypeAttrDef<DictObj>().def_convert<Dict<Any, Any>>();
}

}  // namespace
}  // namespace runtime
}  // namespace ffi
}  // namespace tvm
