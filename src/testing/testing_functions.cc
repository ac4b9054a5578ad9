// The global functions of the testing library under the reference package's `testing.` names:
// echo/apply/nop for calling-convention tests, errors and signals, reference counts, raw C symbols
// for function-pointer imports, containers holding tensors, an identity function for every type the
// signature schema knows (with SchemaAllTypes, a type with a field of each), and two functions
// exported from the library itself for `load_module`. TVMFFITestingDummyTarget is the symbol the
// reference package's extension links against, so this library can stand in for its testing
// library in one process (both carry the SONAME libtvm_ffi_testing.so).
#include <ffi/container/array.h>
#include <ffi/container/dict.h>
#include <ffi/container/list.h>
#include <ffi/container/map.h>
#include <ffi/container/variant.h>
#include <ffi/ffi.h>
#include <ffi/reflection/registry.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>
#include <utility>

namespace tvm {
namespace ffi {
namespace testing {
namespace {

namespace refl = reflection;

/*! \brief Throws Error(kind, message), which reaches Python as the exception class named kind;
 * its backtrace names this function (not inlined, so that the frame exists). */
__attribute__((noinline)) void TestRaiseError(String kind, String message) {
  throw Error(std::string(kind), std::string(message),
              TVMFFIBacktrace(__FILE__, __LINE__, FFI_FUNC_NAME, 0));
}

/*! \brief Calls args[0] with the remaining arguments. */
void Apply(PackedArgs args, Any* ret) { args[0].cast<Function>().CallPacked(args.Slice(1), ret); }

/*! \brief A TVMFFISafeCallType function: x + 1. */
int AddOneSafeCall(void*, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  FFI_SAFE_CALL_BEGIN();
  if (num_args != 1) FFI_THROW(TypeError) << "add_one expects 1 argument, got " << num_args;
  *reinterpret_cast<Any*>(result) = reinterpret_cast<const AnyView*>(args)[0].cast<int64_t>() + 1;
  FFI_SAFE_CALL_END();
}

/*! \brief The same function in MLIR's packed C interface: every argument by address. */
void AddOneMlirPacked(void** packed) {
  *static_cast<int*>(packed[4]) =
      AddOneSafeCall(*static_cast<void**>(packed[0]), *static_cast<const TVMFFIAny**>(packed[1]),
                     *static_cast<int32_t*>(packed[2]), *static_cast<TVMFFIAny**>(packed[3]));
}

/*! \brief Sleeps nsec seconds, one at a time, returning early with the pending error when the
 * host has a signal to handle (KeyboardInterrupt in Python). */
void RunCheckSignal(int nsec) {
  for (int i = 0; i < nsec; ++i) {
    if (TVMFFIEnvCheckSignals() != 0) throw EnvErrorAlreadySet();
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  std::puts("Function finished without catching signal");
}

/*! \brief Every field type the signature schema describes. */
class SchemaAllTypesObj : public Object {
 public:
  bool v_bool = true;
  int64_t v_int = 0;
  double v_float = 0.0;
  DLDevice v_device{kDLCPU, 0};
  DLDataType v_dtype{kDLFloat, 32, 1};
  String v_string;
  Bytes v_bytes;
  Optional<int64_t> v_opt_int;
  Optional<String> v_opt_str;
  Array<int64_t> v_arr_int;
  Array<String> v_arr_str;
  Map<String, int64_t> v_map_str_int;
  Map<String, Array<int64_t>> v_map_str_arr_int;
  Variant<String, Array<int64_t>, Map<String, int64_t>> v_variant{String("v")};
  Optional<Array<Variant<int64_t, String>>> v_opt_arr_variant;

  SchemaAllTypesObj(int64_t v_int, double v_float, String v_string)
      : v_int(v_int), v_float(v_float), v_string(std::move(v_string)) {}

  int64_t AddInt(int64_t x) const { return v_int + x; }
  Array<int64_t> AppendInt(Array<int64_t> xs, int64_t y) const {
    xs.push_back(y);
    return xs;
  }
  Optional<String> MaybeConcat(Optional<String> a, Optional<String> b) const {
    if (a && b) return String(*a + *b);
    return a ? a : b;
  }
  /*! \brief rhs's entries into lhs; a key in both gets rhs's elements appended. */
  Map<String, Array<int64_t>> MergeMap(Map<String, Array<int64_t>> lhs,
                                       Map<String, Array<int64_t>> rhs) const {
    for (const auto& [key, values] : rhs) {
      Array<int64_t> merged = lhs.count(key) ? lhs[key] : Array<int64_t>();
      for (int64_t v : values) merged.push_back(v);
      lhs.Set(key, merged);
    }
    return lhs;
  }

  static constexpr bool _type_mutable = true;
  FFI_DECLARE_OBJECT_INFO("testing.SchemaAllTypes", SchemaAllTypesObj, Object);
};

class SchemaAllTypes : public ObjectRef {
 public:
  FFI_DEFINE_NOTNULLABLE_OBJECT_REF_METHODS(SchemaAllTypes, ObjectRef, SchemaAllTypesObj);
};

/*! \brief An identity function typed T -> T, so its schema names T on both sides. */
template <typename T>
T Identity(T value) {
  return value;
}

/*! \brief mp, plus (when key is given) key -> the present values of arr. */
Map<String, Array<int64_t>> ArrMapOpt(const Array<Optional<int64_t>>& arr,
                                      Map<String, Array<int64_t>> mp, const Optional<String>& key) {
  if (!key) return mp;
  Array<int64_t> present;
  for (const Optional<int64_t>& v : arr) {
    if (v) present.push_back(*v);
  }
  mp.Set(*key, present);
  return mp;
}

FFI_STATIC_INIT_BLOCK() {
  const refl::Metadata attrs{{"bool_attr", true}, {"int_attr", 1}, {"str_attr", "hello"}};
  refl::ObjectDef<SchemaAllTypesObj>()
      .def_rw("v_bool", &SchemaAllTypesObj::v_bool, "bool field", attrs)
      .def_rw("v_int", &SchemaAllTypesObj::v_int, refl::default_value(0), "int field")
      .def_rw("v_float", &SchemaAllTypesObj::v_float, refl::default_value(0.0), "float field")
      .def_rw("v_device", &SchemaAllTypesObj::v_device, "device field")
      .def_rw("v_dtype", &SchemaAllTypesObj::v_dtype, "dtype field")
      .def_rw("v_string", &SchemaAllTypesObj::v_string, refl::default_value("s"), "string field")
      .def_rw("v_bytes", &SchemaAllTypesObj::v_bytes, "bytes field")
      .def_rw("v_opt_int", &SchemaAllTypesObj::v_opt_int, "optional int")
      .def_rw("v_opt_str", &SchemaAllTypesObj::v_opt_str, "optional str")
      .def_rw("v_arr_int", &SchemaAllTypesObj::v_arr_int, "array<int>")
      .def_rw("v_arr_str", &SchemaAllTypesObj::v_arr_str, "array<str>")
      .def_rw("v_map_str_int", &SchemaAllTypesObj::v_map_str_int, "map<str,int>")
      .def_rw("v_map_str_arr_int", &SchemaAllTypesObj::v_map_str_arr_int, "map<str,array<int>>")
      .def_rw("v_variant", &SchemaAllTypesObj::v_variant, "variant<str,array<int>,map<str,int>>")
      .def_rw("v_opt_arr_variant", &SchemaAllTypesObj::v_opt_arr_variant,
              "optional<array<variant<int,str>>>")
      .def("add_int", &SchemaAllTypesObj::AddInt, "add int method", attrs)
      .def("append_int", &SchemaAllTypesObj::AppendInt, "append int to array")
      .def("maybe_concat", &SchemaAllTypesObj::MaybeConcat, "optional concat")
      .def("merge_map", &SchemaAllTypesObj::MergeMap, "merge maps")
      .def_static(
          "make_with",
          [](int64_t v_int, double v_float, String v_string) {
            return SchemaAllTypes(make_object<SchemaAllTypesObj>(v_int, v_float, v_string));
          },
          "Constructor with subset of fields");

  refl::GlobalDef()
      .def("testing.test_raise_error", TestRaiseError)
      .def("testing.add_one", [](int x) { return x + 1; })
      .def_packed("testing.nop", [](PackedArgs, Any*) {})
      .def_packed("testing.echo", [](PackedArgs args, Any* ret) { *ret = args[0]; })
      .def_packed("testing.apply", Apply)
      .def("testing.run_check_signal", RunCheckSignal)
      .def("testing.object_use_count", [](const Object* obj) { return obj->use_count(); })
      .def("testing.get_add_one_c_symbol",
           [] { return reinterpret_cast<int64_t>(&AddOneSafeCall); })
      .def("testing.get_mlir_add_one_c_symbol",
           [] { return reinterpret_cast<int64_t>(&AddOneMlirPacked); })
      .def("testing.optional_tensor_view_has_value",
           [](const Optional<TensorView>& t) { return t.has_value(); })
      .def("testing.make_array_with_tensor", [](Tensor t) { return Array<Any>{std::move(t)}; })
      .def("testing.make_array_with_mixed",
           [](Tensor t, int64_t x) {
             return Array<Any>{std::move(t), x, String("hello")};
           })
      .def("testing.make_nested_array_with_tensor",
           [](const Tensor& t) {
             return Array<Any>{Array<Any>{t, 42}, t};
           })
      .def("testing.make_list_with_tensor",
           [](Tensor t, int64_t x) {
             return List<Any>{std::move(t), x};
           })
      .def("testing.make_map_with_tensor",
           [](Tensor t) {
             return Map<String, Any>{{"tensor", std::move(t)}, {"value", 42}, {"name", "test"}};
           })
      .def("testing.make_dict_with_tensor",
           [](Tensor t) {
             return Dict<String, Any>{{"tensor", std::move(t)}, {"value", 42}};
           })
      .def("testing.make_empty_array_with_tensor_input", [](const Tensor&) { return Array<Any>(); })
      .def("testing.make_nested_map_with_tensor",
           [](const Tensor& t1, const Tensor& t2) {
             return Map<String, Any>{{"array", Array<Any>{t1, t2}},
                                     {"map", Map<String, Any>{{"t", t1}}},
                                     {"scalar", 99}};
           })
      .def("testing.schema_id_int", Identity<int64_t>, attrs)
      .def("testing.schema_id_float", Identity<double>)
      .def("testing.schema_id_bool", Identity<bool>)
      .def("testing.schema_id_device", Identity<DLDevice>)
      .def("testing.schema_id_dtype", Identity<DLDataType>)
      .def("testing.schema_id_string", Identity<String>)
      .def("testing.schema_id_bytes", Identity<Bytes>)
      .def("testing.schema_id_func", Identity<Function>)
      .def("testing.schema_id_func_typed", Identity<TypedFunction<void(int64_t, float, Function)>>)
      .def("testing.schema_id_any", Identity<Any>)
      .def("testing.schema_id_object", Identity<ObjectRef>)
      .def("testing.schema_id_dltensor", Identity<DLTensor*>)
      .def("testing.schema_id_tensor", Identity<Tensor>)
      .def("testing.schema_tensor_view_input", [](TensorView) {})
      .def("testing.schema_id_opt_int", Identity<Optional<int64_t>>)
      .def("testing.schema_id_opt_str", Identity<Optional<String>>)
      .def("testing.schema_id_opt_obj", Identity<Optional<ObjectRef>>)
      .def("testing.schema_id_arr_int", Identity<Array<int64_t>>)
      .def("testing.schema_id_arr_str", Identity<Array<String>>)
      .def("testing.schema_id_arr_obj", Identity<Array<ObjectRef>>)
      .def("testing.schema_id_arr", Identity<const ArrayObj*>)
      .def("testing.schema_id_list_int", Identity<List<int64_t>>)
      .def("testing.schema_id_list_str", Identity<List<String>>)
      .def("testing.schema_id_list_obj", Identity<List<ObjectRef>>)
      .def("testing.schema_id_map_str_int", Identity<Map<String, int64_t>>)
      .def("testing.schema_id_map_str_str", Identity<Map<String, String>>)
      .def("testing.schema_id_map_str_obj", Identity<Map<String, ObjectRef>>)
      .def("testing.schema_id_map", Identity<const MapObj*>)
      .def("testing.schema_id_dict_str_int", Identity<Dict<String, int64_t>>)
      .def("testing.schema_id_dict_str_str", Identity<Dict<String, String>>)
      .def("testing.schema_id_variant_int_str", Identity<Variant<int64_t, String>>)
      .def_packed("testing.schema_packed", [](PackedArgs, Any*) {})
      .def("testing.schema_arr_map_opt", ArrMapOpt)
      .def("testing.schema_variant_mix", Identity<Variant<int64_t, String, Array<int64_t>>>,
           "variant passthrough")
      .def("testing.schema_no_args", [] { return int64_t{1}; })
      .def("testing.schema_no_return", [](int64_t) {})
      .def("testing.schema_no_args_no_return", [] {});
  // For system-library lookups: ffi.system_lib("__tvm_ffi_testing.")["add_one"].
  TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi_testing.add_one",
                                      reinterpret_cast<void*>(&AddOneSafeCall));
}

int64_t AddWithDocstring(int64_t a, int64_t b) { return a + b; }

}  // namespace
}  // namespace testing
}  // namespace ffi
}  // namespace tvm

FFI_DLL_EXPORT_TYPED_FUNC(testing_dll_schema_id_int, tvm::ffi::testing::Identity<int64_t>);
FFI_DLL_EXPORT_TYPED_FUNC(testing_dll_test_add_with_docstring, tvm::ffi::testing::AddWithDocstring);
FFI_DLL_EXPORT_TYPED_FUNC_DOC(testing_dll_test_add_with_docstring,
                              R"(Add two integers and return the sum.

Parameters
----------
a : int
    The first addend.
b : int
    The second addend.

Returns
-------
int
    a + b.)");
;

/*! \brief Exported for the reference package's extension, which links against its testing library
 * by name; returns 0. */
extern "C" TVM_FFI_DLL_EXPORT int TVMFFITestingDummyTarget() { return 0; }
