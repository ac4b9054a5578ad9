// Object types constructed with keywords: no init<...>, so ObjectDef asks the runtime for the
// generated `__ffi_init__` (ffi._RegisterFFIInit) that takes fields by position and by name (the
// KWARGS protocol). Written in the reference's vocabulary and compiled against this project's
// headers and the reference wheel's, with KW_PREFIX naming the copy.
#include <tvm/ffi/function.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/reflection/registry.h>
#include <tvm/ffi/string.h>

#include <cstdint>

#ifndef KW_PREFIX
#error "compile with -DKW_PREFIX=\"<prefix>\""
#endif

namespace {

/*! \brief x is required; y has a default; label is keyword-only; hidden is not in the init. */
class PointObj : public tvm::ffi::Object {
 public:
  int64_t x = 0;
  double y = 0.0;
  tvm::ffi::String label;
  int64_t hidden = 0;
  static constexpr bool _type_mutable = true;
  TVM_FFI_DECLARE_OBJECT_INFO(KW_PREFIX ".Point", PointObj, tvm::ffi::Object);
};

/*! \brief A derived type: the base's fields come first, then its own required `z`. */
class Point3Obj : public PointObj {
 public:
  int64_t z = 0;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL(KW_PREFIX ".Point3", Point3Obj, PointObj);
};

/*! \brief A type with an explicit constructor keeps it (no generated one). */
class PairObj : public tvm::ffi::Object {
 public:
  int64_t a = 0;
  int64_t b = 0;
  PairObj() = default;
  PairObj(int64_t a, int64_t b) : a(a), b(b) {}
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL(KW_PREFIX ".Pair", PairObj, tvm::ffi::Object);
};

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  namespace refl = tvm::ffi::reflection;
  refl::ObjectDef<PointObj>()
      .def_rw("x", &PointObj::x)
      .def_rw("y", &PointObj::y, refl::default_value(0.5))
      .def_rw("label", &PointObj::label, refl::default_value("p"), refl::kw_only(true))
      .def_ro("hidden", &PointObj::hidden, refl::init(false), refl::default_value(7));
  refl::ObjectDef<Point3Obj>().def_ro("z", &Point3Obj::z);
  refl::ObjectDef<PairObj>()
      .def(refl::init<int64_t, int64_t>())
      .def_ro("a", &PairObj::a)
      .def_ro("b", &PairObj::b);
}
