// Object types for structural equality, one per structural kind: variables (free vars, their
// name ignored), functions (tree nodes whose parameters define variables), bindings (DAG nodes),
// metadata (const-tree) and a type that declares no kind. Written in the reference's vocabulary
// and compiled against this project's headers and the reference wheel's, with SE_PREFIX naming
// the copy.
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/reflection/registry.h>
#include <tvm/ffi/string.h>

#include <cstdint>
#include <utility>

#ifndef SE_PREFIX
#error "compile with -DSE_PREFIX=\"<prefix>\""
#endif

namespace {

namespace ffi = tvm::ffi;
namespace refl = tvm::ffi::reflection;

class VarObj : public ffi::Object {
 public:
  ffi::String name;
  int64_t bits = 32;
  VarObj(ffi::String name, int64_t bits) : name(std::move(name)), bits(bits) {}
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindFreeVar;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL(SE_PREFIX ".Var", VarObj, ffi::Object);
};

class FuncObj : public ffi::Object {
 public:
  ffi::Array<ffi::Any> params;
  ffi::Array<ffi::Any> body;
  ffi::String comment;
  FuncObj(ffi::Array<ffi::Any> params, ffi::Array<ffi::Any> body, ffi::String comment)
      : params(std::move(params)), body(std::move(body)), comment(std::move(comment)) {}
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindTreeNode;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL(SE_PREFIX ".Func", FuncObj, ffi::Object);
};

/*! \brief One value per node; `Kind` picks the structural kind. */
class BindingObj : public ffi::Object {
 public:
  int64_t value = 0;
  explicit BindingObj(int64_t value) : value(value) {}
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindDAGNode;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL(SE_PREFIX ".Binding", BindingObj, ffi::Object);
};

class MetaObj : public ffi::Object {
 public:
  ffi::String tag;
  explicit MetaObj(ffi::String tag) : tag(std::move(tag)) {}
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindConstTreeNode;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL(SE_PREFIX ".Meta", MetaObj, ffi::Object);
};

class PlainObj : public ffi::Object {
 public:
  int64_t value = 0;
  explicit PlainObj(int64_t value) : value(value) {}
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL(SE_PREFIX ".Plain", PlainObj, ffi::Object);
};

TVM_FFI_STATIC_INIT_BLOCK() {
  refl::ObjectDef<VarObj>()
      .def(refl::init<ffi::String, int64_t>())
      .def_ro("name", &VarObj::name, refl::AttachFieldFlag::SEqHashIgnore())
      .def_ro("bits", &VarObj::bits);
  refl::ObjectDef<FuncObj>()
      .def(refl::init<ffi::Array<ffi::Any>, ffi::Array<ffi::Any>, ffi::String>())
      .def_ro("params", &FuncObj::params, refl::AttachFieldFlag::SEqHashDefSimple())
      .def_ro("body", &FuncObj::body)
      .def_ro("comment", &FuncObj::comment, refl::AttachFieldFlag::SEqHashIgnore());
  refl::ObjectDef<BindingObj>().def(refl::init<int64_t>()).def_ro("value", &BindingObj::value);
  refl::ObjectDef<MetaObj>().def(refl::init<ffi::String>()).def_ro("tag", &MetaObj::tag);
  refl::ObjectDef<PlainObj>().def(refl::init<int64_t>()).def_ro("value", &PlainObj::value);
}

}  // namespace
