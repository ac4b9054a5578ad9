// A client of the reference runtime's C++ ABI, built with the reference's headers alone (as Apache
// TVM and TileLang are): it links the C++ symbols a TVM-FFI runtime exports (ModuleObj's vtable
// and methods, Module::LoadFromFile, structural equality and hashing, JSON, repr, ...) and
// subclasses ModuleObj. tests/python/reference/test_cxx_abi.py loads it on our runtime.
#include <tvm/ffi/extra/dataclass.h>
#include <tvm/ffi/extra/json.h>
#include <tvm/ffi/extra/module.h>
#include <tvm/ffi/extra/serialization.h>
#include <tvm/ffi/extra/structural_equal.h>
#include <tvm/ffi/extra/structural_hash.h>
#include <tvm/ffi/function.h>

#include <string>

namespace ffi = tvm::ffi;

namespace {

/*!
 * \brief A module kind of the client's own: one function, a docstring, a source, no WriteToFile
 * or SaveToBytes; looking up `broken` throws.
 */
class CounterModuleObj : public ffi::ModuleObj {
 public:
  explicit CounterModuleObj(int64_t step) : step_(step) {}
  const char* kind() const final { return "test.counter"; }
  int GetPropertyMask() const final { return ffi::Module::kRunnable; }
  ffi::Optional<ffi::Function> GetFunction(const ffi::String& name) final {
    if (name == "broken") TVM_FFI_THROW(ValueError) << "the function `broken` cannot be made";
    if (name != "count") return std::nullopt;
    int64_t step = step_;
    return ffi::Function::FromTyped([step](int64_t x) { return x + step; });
  }
  ffi::Optional<ffi::String> GetFunctionDoc(const ffi::String& name) final {
    if (name != "count") return std::nullopt;
    return ffi::String("Adds the step.");
  }
  ffi::String InspectSource(const ffi::String& format) const final {
    return format == "txt" ? ffi::String("x + step") : ffi::String();
  }

 private:
  int64_t step_;
};

ffi::Module MakeCounter(int64_t step) {
  return ffi::Module(ffi::make_object<CounterModuleObj>(step));
}

}  // namespace

// Modules: a client module, and the client calling into modules through the exported methods.
TVM_FFI_DLL_EXPORT_TYPED_FUNC(make_counter, MakeCounter);
static auto load_and_call_impl(ffi::String path, ffi::String name, int64_t x) {
  ffi::Module mod = ffi::Module::LoadFromFile(path);
  ffi::Optional<ffi::Function> f = mod->GetFunction(name, /*query_imports=*/true);
  if (!f.has_value()) TVM_FFI_THROW(AttributeError) << "no function " << name;
  return (*f)(x).cast<int64_t>();
}
TVM_FFI_DLL_EXPORT_TYPED_FUNC(load_and_call, load_and_call_impl);
static auto get_function_from_impl(ffi::Module mod, ffi::String name, bool query_imports) {
  return mod->GetFunction(name, query_imports);
}
TVM_FFI_DLL_EXPORT_TYPED_FUNC(get_function_from, get_function_from_impl);
static auto has_function_impl(ffi::Module mod, ffi::String name) {
  return mod->ImplementsFunction(name, /*query_imports=*/true);
}
TVM_FFI_DLL_EXPORT_TYPED_FUNC(has_function, has_function_impl);
static auto function_doc_impl(ffi::Module mod, ffi::String name) {
  return mod->GetFunctionDoc(name, /*query_imports=*/true);
}
TVM_FFI_DLL_EXPORT_TYPED_FUNC(function_doc, function_doc_impl);
static auto import_into_impl(ffi::Module mod, ffi::Module other) { mod->ImportModule(other); }
TVM_FFI_DLL_EXPORT_TYPED_FUNC(import_into, import_into_impl);
static auto drop_imports_impl(ffi::Module mod) { mod->ClearImports(); }
TVM_FFI_DLL_EXPORT_TYPED_FUNC(drop_imports, drop_imports_impl);
static auto import_count_impl(ffi::Module mod) {
  return static_cast<int64_t>(mod->imports().size());
}
TVM_FFI_DLL_EXPORT_TYPED_FUNC(import_count, import_count_impl);
static auto module_kind_impl(ffi::Module mod) { return ffi::String(mod->kind()); }
TVM_FFI_DLL_EXPORT_TYPED_FUNC(module_kind, module_kind_impl);
static auto count_context_symbols_impl() {
  int64_t n = 0;
  ffi::Module::VisitContextSymbols([&n](ffi::String, void*) { ++n; });
  return n;
}
TVM_FFI_DLL_EXPORT_TYPED_FUNC(count_context_symbols, count_context_symbols_impl);

// Values: each through the runtime's exported C++ function.
static auto structural_equal_impl(ffi::Any a, ffi::Any b, bool map_free_vars) {
  return ffi::StructuralEqual::Equal(a, b, map_free_vars);
}
TVM_FFI_DLL_EXPORT_TYPED_FUNC(structural_equal, structural_equal_impl);
static auto first_mismatch_impl(ffi::Any a, ffi::Any b) {
  return ffi::StructuralEqual::GetFirstMismatch(a, b).has_value();
}
TVM_FFI_DLL_EXPORT_TYPED_FUNC(first_mismatch, first_mismatch_impl);
static auto structural_hash_impl(ffi::Any a) {
  return static_cast<int64_t>(ffi::StructuralHash::Hash(a));
}
TVM_FFI_DLL_EXPORT_TYPED_FUNC(structural_hash, structural_hash_impl);
static auto repr_print_impl(ffi::Any a) { return ffi::ReprPrint(a); }
TVM_FFI_DLL_EXPORT_TYPED_FUNC(repr_print, repr_print_impl);
static auto deep_copy_impl(ffi::Any a) { return ffi::DeepCopy(a); }
TVM_FFI_DLL_EXPORT_TYPED_FUNC(deep_copy, deep_copy_impl);
static auto recursive_compare_impl(ffi::Any a, ffi::Any b) {
  return ffi::Array<bool>{ffi::RecursiveEq(a, b), ffi::RecursiveLt(a, b), ffi::RecursiveLe(a, b),
                          ffi::RecursiveGt(a, b), ffi::RecursiveGe(a, b)};
}
TVM_FFI_DLL_EXPORT_TYPED_FUNC(recursive_compare, recursive_compare_impl);
static auto recursive_hash_impl(ffi::Any a) { return ffi::RecursiveHash(a); }
TVM_FFI_DLL_EXPORT_TYPED_FUNC(recursive_hash, recursive_hash_impl);
static auto json_roundtrip_impl(ffi::String text, ffi::Optional<int> indent) {
  return ffi::json::Stringify(ffi::json::Parse(text), indent);
}
TVM_FFI_DLL_EXPORT_TYPED_FUNC(json_roundtrip, json_roundtrip_impl);
static auto json_parse_error_impl(ffi::String text) {
  ffi::String error("stale");  // Parse sets it either way
  ffi::json::Value value = ffi::json::Parse(text, &error);
  return ffi::Array<ffi::Any>{value, error};
}
TVM_FFI_DLL_EXPORT_TYPED_FUNC(json_parse_error, json_parse_error_impl);
static auto json_parse_caught_impl(ffi::String text) {
  try {
    ffi::json::Parse(text);
    return ffi::String("no error");
  } catch (const ffi::Error& e) {  // the runtime throws the reference's Error class
    return ffi::String(e.kind() + ": " + e.message());
  }
}
TVM_FFI_DLL_EXPORT_TYPED_FUNC(json_parse_caught, json_parse_caught_impl);
static auto graph_roundtrip_impl(ffi::Any value) {
  ffi::json::Value graph = ffi::ToJSONGraph(value);
  return ffi::Array<ffi::Any>{ffi::json::Stringify(graph), ffi::FromJSONGraph(graph)};
}
TVM_FFI_DLL_EXPORT_TYPED_FUNC(graph_roundtrip, graph_roundtrip_impl);
