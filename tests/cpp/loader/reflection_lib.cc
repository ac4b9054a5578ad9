// One library source in the reference's vocabulary (<tvm/ffi/...>, tvm::ffi, TVM_FFI_*) that
// registers through reflection: an object type with read-only and writable fields, a default,
// methods, a static method, a constructor and a type attribute, and global functions with docs and
// metadata. It is compiled twice, against this project's include tree and against the reference
// wheel's, with REFL_LIB_PREFIX naming the copy ("ours" / "ref") so both can share a process.
// test_reflection_interop (C++) and tests/python/reference/test_reflection_interop.py load the
// copies into either runtime and check that both register the same records.
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/variant.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/reflection/registry.h>
#include <tvm/ffi/string.h>

#include <cstdint>
#include <utility>

#ifndef REFL_LIB_PREFIX
#error "compile with -DREFL_LIB_PREFIX=\"<prefix>\""
#endif

namespace {

/*! \brief A counter with a name; `scale` is writable and has a default. */
class CounterObj : public tvm::ffi::Object {
 public:
  int64_t count = 0;
  double scale = 1.0;
  // Before `name`: the reference's String is larger than ours, so fields after it sit elsewhere.
  tvm::ffi::Array<tvm::ffi::String> tags;
  tvm::ffi::String name;
  static constexpr bool _type_mutable = true;

  CounterObj() = default;
  CounterObj(int64_t count, tvm::ffi::String name) : count(count), name(std::move(name)) {}
  int64_t Add(int64_t k) {
    count += k;
    return count;
  }
  int64_t Peek() const { return count; }

  TVM_FFI_DECLARE_OBJECT_INFO_FINAL(REFL_LIB_PREFIX ".Counter", CounterObj, tvm::ffi::Object);
};

class Counter : public tvm::ffi::ObjectRef {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(Counter, tvm::ffi::ObjectRef, CounterObj);
};

Counter MakeCounter(int64_t count, tvm::ffi::String name) {
  return Counter(tvm::ffi::make_object<CounterObj>(count, std::move(name)));
}

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  namespace refl = tvm::ffi::reflection;
  refl::ObjectDef<CounterObj>()
      .def(refl::init<int64_t, tvm::ffi::String>(), "Makes a counter.")
      .def_ro("count", &CounterObj::count, "The count so far.")
      .def_rw("scale", &CounterObj::scale, refl::DefaultValue(1.5))
      .def_ro("name", &CounterObj::name, "The name.", refl::Metadata{{"shown", true}})
      .def_rw("tags", &CounterObj::tags, "Labels.",
              refl::DefaultFactory(tvm::ffi::Function::FromTyped(
                  []() { return tvm::ffi::Array<tvm::ffi::String>(); })))
      .def("add", &CounterObj::Add, "Adds k and returns the count.")
      .def("peek", &CounterObj::Peek)
      .def("scaled", [](const CounterObj* self) { return self->scale * self->count; })
      .def_static("zero", []() { return Counter(tvm::ffi::make_object<CounterObj>()); });
  refl::TypeAttrDef<CounterObj>().def("__" REFL_LIB_PREFIX "_kind__", 7);
  refl::GlobalDef()
      .def(REFL_LIB_PREFIX ".make_counter", MakeCounter, "Makes a counter.")
      .def_method(REFL_LIB_PREFIX ".counter_peek", &CounterObj::Peek)
      .def_packed(REFL_LIB_PREFIX ".nargs",
                  [](tvm::ffi::PackedArgs args, tvm::ffi::Any* rv) {
                    *rv = static_cast<int64_t>(args.size());
                  })
      .def(
          REFL_LIB_PREFIX ".with_meta", [](int64_t x) { return x + 1; },
          refl::Metadata{{"bound", 3}, {"label", "one \"more\""}, {"pure", true}})
      .def(REFL_LIB_PREFIX ".containers",
           [](tvm::ffi::Array<int64_t> xs,
              tvm::ffi::Optional<tvm::ffi::Map<tvm::ffi::String, int64_t>> extra,
              tvm::ffi::Variant<int64_t, tvm::ffi::String> v) -> int64_t {
             int64_t total = 0;
             for (int64_t x : xs) total += x;
             if (extra.has_value()) total += static_cast<int64_t>(extra.value().size());
             if (auto i = v.as<int64_t>()) total += *i;
             return total;
           });
}
