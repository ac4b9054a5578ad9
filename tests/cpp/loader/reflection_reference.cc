// A library built with the reference implementation's headers (apache-tvm-ffi) that registers the
// usual way, from static initializers through its reflection API: a global function with a doc
// string and an object type with reflected fields and a method. test_reflection_abi loads it into
// our runtime and reads back what it registered.
#include <tvm/ffi/function.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/reflection/registry.h>

#include <cstdint>

namespace {

/*! \brief A two-field object whose layout the host reads through the reflected offsets. */
class RefPointObj : public tvm::ffi::Object {
 public:
  int64_t x = 0;
  double y = 0.0;
  // Writable fields (def_rw) need a type that allows mutation.
  static constexpr bool _type_mutable = true;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("testing.reflection.RefPoint", RefPointObj, tvm::ffi::Object);
};

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  namespace refl = tvm::ffi::reflection;
  refl::GlobalDef()
      .def(
          "testing.ref_add", [](int64_t a, int64_t b) { return a + b; }, "Adds two integers.")
      .def("testing.ref_make_point", [](int64_t x, double y) {
        auto obj = tvm::ffi::make_object<RefPointObj>();
        obj->x = x;
        obj->y = y;
        return tvm::ffi::ObjectRef(obj);
      });
  refl::ObjectDef<RefPointObj>()
      .def_ro("x", &RefPointObj::x, "The integer coordinate.")
      .def_rw("y", &RefPointObj::y)
      .def("norm1", [](const RefPointObj* self) { return static_cast<double>(self->x) + self->y; });
}
