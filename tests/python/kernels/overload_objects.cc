// An object type with an overloaded constructor, method and static method (OverloadObjectDef,
// <tvm/ffi/reflection/overload.h>), built with this project's headers and with the reference's
// for tests/python/calls/test_overload.py; OVTEST_PREFIX names the copy ("ovtest_ours", ...).
#include <tvm/ffi/object.h>
#include <tvm/ffi/reflection/overload.h>
#include <tvm/ffi/string.h>

#include <cstdint>
#include <string>
#include <utility>

namespace ffi = tvm::ffi;

namespace {

/*! \brief Made from an int or a str; `describe` takes an int, a str or two floats. */
class OverloadedObj : public ffi::Object {
 public:
  int64_t value = 0;
  ffi::String name;
  explicit OverloadedObj(int64_t value) : value(value), name("int") {}
  explicit OverloadedObj(ffi::String name) : name(std::move(name)) {}
  ffi::String Describe(int64_t k) const { return ffi::String("int " + std::to_string(value + k)); }
  ffi::String Describe(ffi::String s) const {
    return ffi::String("str " + std::string(name) + std::string(s));
  }
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL(OVTEST_PREFIX ".Overloaded", OverloadedObj, ffi::Object);
};

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  namespace refl = ffi::reflection;
  refl::OverloadObjectDef<OverloadedObj>()
      .def(refl::init<int64_t>())
      .def(refl::init<ffi::String>())
      .def_ro("value", &OverloadedObj::value)
      .def_ro("name", &OverloadedObj::name)
      .def("describe", refl::overload_cast<int64_t>(&OverloadedObj::Describe, refl::const_))
      .def("describe", refl::overload_cast<ffi::String>(&OverloadedObj::Describe, refl::const_))
      .def("describe", [](const OverloadedObj*, double x, double y) { return x * y; })
      .def_static("twice", [](int64_t x) { return 2 * x; })
      .def_static("twice",
                  [](ffi::String s) { return ffi::String(std::string(s) + std::string(s)); });
}
