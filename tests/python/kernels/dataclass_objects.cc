// Object types for ffi.dataclasses.c_class: fields with every reflection trait the dataclass
// machinery reads (defaults, default factories, keyword-only, left out of the constructor, of repr,
// of comparison and hashing), a derived type, nested objects and containers, and a type with an
// explicit constructor and no copy constructor. Written in the reference's vocabulary and compiled
// against this project's headers and the reference wheel's, with DC_PREFIX naming the copy.
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/reflection/registry.h>
#include <tvm/ffi/string.h>

#include <cstdint>

#ifndef DC_PREFIX
#error "compile with -DDC_PREFIX=\"<prefix>\""
#endif

namespace {

namespace ffi = tvm::ffi;

/*! \brief x required; y defaulted; label keyword-only; note out of repr, comparison and hashing;
 * tags from a factory; hidden not in the constructor. */
class VecObj : public ffi::Object {
 public:
  int64_t x = 0;
  double y = 0.0;
  ffi::String label;
  ffi::String note;
  ffi::Array<int64_t> tags;
  int64_t hidden = 0;
  static constexpr bool _type_mutable = true;
  TVM_FFI_DECLARE_OBJECT_INFO(DC_PREFIX ".Vec", VecObj, ffi::Object);
};

/*! \brief Derived: the base's fields first, then its own required `z`. */
class Vec3Obj : public VecObj {
 public:
  int64_t z = 0;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL(DC_PREFIX ".Vec3", Vec3Obj, VecObj);
};

class Vec : public ffi::ObjectRef {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(Vec, ffi::ObjectRef, VecObj);
};

/*! \brief Nesting: an object field, a map field and an optional link to another box. */
class BoxObj : public ffi::Object {
 public:
  Vec item;
  ffi::Map<ffi::String, int64_t> counts;
  ffi::Optional<ffi::ObjectRef> next;
  static constexpr bool _type_mutable = true;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL(DC_PREFIX ".Box", BoxObj, ffi::Object);
};

/*! \brief An explicit constructor, read-only fields and no copy constructor. */
class HandleObj : public ffi::Object {
 public:
  int64_t id = 0;
  ffi::String name;
  HandleObj(int64_t id, ffi::String name) : id(id), name(std::move(name)) {}
  HandleObj(const HandleObj&) = delete;
  HandleObj& operator=(const HandleObj&) = delete;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL(DC_PREFIX ".Handle", HandleObj, ffi::Object);
};

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  namespace refl = tvm::ffi::reflection;
  refl::ObjectDef<VecObj>()
      .def_rw("x", &VecObj::x, "The first coordinate.")
      .def_rw("y", &VecObj::y, refl::default_value(0.5))
      .def_rw("label", &VecObj::label, refl::default_value("v"), refl::kw_only(true))
      .def_rw("note", &VecObj::note, refl::default_value(""), refl::repr(false),
              refl::compare(false), refl::hash(false))
      .def_rw(
          "tags", &VecObj::tags,
          refl::default_factory(ffi::Function::FromTyped([]() { return ffi::Array<int64_t>{}; })))
      .def_ro("hidden", &VecObj::hidden, refl::init(false), refl::default_value(7));
  refl::ObjectDef<Vec3Obj>().def_rw("z", &Vec3Obj::z);
  refl::ObjectDef<BoxObj>()
      .def_rw("item", &BoxObj::item)
      .def_rw("counts", &BoxObj::counts, refl::default_factory(ffi::Function::FromTyped([]() {
                return ffi::Map<ffi::String, int64_t>{};
              })))
      .def_rw("next", &BoxObj::next, refl::default_value(ffi::Any()));
  refl::ObjectDef<HandleObj>()
      .def(refl::init<int64_t, ffi::String>())
      .def_ro("id", &HandleObj::id)
      .def_ro("name", &HandleObj::name);
}
