// Enum classes defined in C++ for ffi.dataclasses.Enum: a plain enum whose members EnumDef defines
// (with an extensible attribute), an IntEnum and a StrEnum whose members Python declares, and an
// object holding members of both. Written in the reference's vocabulary and compiled against this
// project's headers and the reference wheel's, with ENUM_PREFIX naming the copy.
#include <tvm/ffi/enum.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/reflection/enum_def.h>
#include <tvm/ffi/reflection/registry.h>
#include <tvm/ffi/string.h>

#include <cstdint>

#ifndef ENUM_PREFIX
#error "compile with -DENUM_PREFIX=\"<prefix>\""
#endif

namespace {

namespace ffi = tvm::ffi;
namespace refl = tvm::ffi::reflection;

class VariantObj : public ffi::EnumObj {
 public:
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL(ENUM_PREFIX ".Variant", VariantObj, ffi::EnumObj);
};

class PriorityObj : public ffi::IntEnumObj {
 public:
  static constexpr bool _type_mutable = true;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL(ENUM_PREFIX ".Priority", PriorityObj, ffi::IntEnumObj);
};

class Priority : public ffi::IntEnum {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(Priority, ffi::IntEnum, PriorityObj);
};

class OpcodeObj : public ffi::StrEnumObj {
 public:
  static constexpr bool _type_mutable = true;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL(ENUM_PREFIX ".Opcode", OpcodeObj, ffi::StrEnumObj);
};

class Opcode : public ffi::StrEnum {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(Opcode, ffi::StrEnum, OpcodeObj);
};

/*! \brief An IntEnum whose members C++ defines, with explicit integer indices. */
class LevelObj : public ffi::IntEnumObj {
 public:
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL(ENUM_PREFIX ".Level", LevelObj, ffi::IntEnumObj);
};

class HolderObj : public ffi::Object {
 public:
  Priority priority;
  Opcode opcode;
  // Member references are never null: the creator makes the object through this constructor and
  // the fields are set before anyone reads them.
  explicit HolderObj(ffi::UnsafeInit) : priority(ffi::UnsafeInit{}), opcode(ffi::UnsafeInit{}) {}
  static constexpr bool _type_mutable = true;
  TVM_FFI_DECLARE_OBJECT_INFO(ENUM_PREFIX ".Holder", HolderObj, ffi::Object);
};

TVM_FFI_STATIC_INIT_BLOCK() {
  refl::ObjectDef<VariantObj>(refl::init(false));
  refl::EnumDef<VariantObj>("Alpha").set_attr("code", int64_t{10});
  refl::EnumDef<VariantObj>("Beta").set_attr("code", int64_t{20});
  refl::ObjectDef<PriorityObj>(refl::init(false));
  refl::ObjectDef<OpcodeObj>(refl::init(false));
  refl::ObjectDef<LevelObj>(refl::init(false));
  refl::EnumDef<LevelObj>("low", -1);
  refl::EnumDef<LevelObj>("high", 1LL << 40);
  refl::ObjectDef<HolderObj>()
      .def_rw("priority", &HolderObj::priority)
      .def_rw("opcode", &HolderObj::opcode);
  refl::GlobalDef()
      .def(ENUM_PREFIX ".variant_get",
           [](const ffi::String& name) -> ffi::Enum {
             return ffi::EnumObj::_GetByStrIndex<VariantObj>(name);
           })
      .def(ENUM_PREFIX ".level_get",
           [](int64_t index) -> ffi::Enum { return ffi::EnumObj::_GetByIntIndex<LevelObj>(index); })
      .def(ENUM_PREFIX ".variant_defined",
           [](const ffi::String& name) { return refl::EnumDef<VariantObj>::IsDefined(name); })
      .def(ENUM_PREFIX ".name_of",
           [](const ffi::Enum& member) -> ffi::String { return member->_str_index; })
      .def(ENUM_PREFIX ".index_of",
           [](const ffi::Enum& member) -> int64_t { return member->_int_index; })
      .def(ENUM_PREFIX ".holder_priority", [](const ffi::ObjectRef& holder) -> int64_t {
        return holder.as<HolderObj>()->priority->_int_index;
      });
}

}  // namespace
