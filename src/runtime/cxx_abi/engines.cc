// The reference runtime's exported C++ functions on values (structural equality and hashing,
// JSON, JSON graphs, repr, deep copy, recursive comparison, error-context paths) and its Error
// class's vtable and typeinfo, under the reference's mangled names. Clients built with the
// reference's headers (Apache TVM, TileLang) link them. Each is the standard global function of
// the same meaning, called through the C ABI; errors are thrown as the reference's Error, as its
// callers catch them.
#include <cstring>
#include <new>
#include <string>

#include "reference_types.h"

namespace tvm {
namespace ffi {

namespace cxx_abi {

std::string_view TextOf(const TVMFFIAny& v) {
  if (v.type_index == kTVMFFISmallStr || v.type_index == kTVMFFISmallBytes) {
    return std::string_view(v.v_bytes, v.small_str_len);
  }
  if (v.type_index == kTVMFFIStr || v.type_index == kTVMFFIBytes) {
    // String and bytes objects: the header, then the byte array.
    const auto* bytes = reinterpret_cast<const TVMFFIByteArray*>(v.v_obj + 1);
    return std::string_view(bytes->data, bytes->size);
  }
  return std::string_view();
}

TVMFFIAny MakeString(std::string_view text) {
  TVMFFIByteArray bytes{text.data(), text.size()};
  TVMFFIAny out = NoneAny();
  if (TVMFFIStringFromByteArray(&bytes, &out) != 0) ThrowRaised();
  return out;
}

void ThrowRaised() {
  TVMFFIObjectHandle error = nullptr;
  TVMFFIErrorMoveFromRaised(&error);
  if (error == nullptr) Throw("InternalError", "a call failed without raising an error");
  throw Error(static_cast<TVMFFIObject*>(error));
}

void Throw(const char* kind, const std::string& message) {
  TVMFFIByteArray kind_bytes{kind, std::strlen(kind)};
  TVMFFIByteArray message_bytes{message.data(), message.size()};
  TVMFFIByteArray backtrace{"", 0};
  TVMFFIObjectHandle error = nullptr;
  if (TVMFFIErrorCreate(&kind_bytes, &message_bytes, &backtrace, &error) != 0) ThrowRaised();
  throw Error(static_cast<TVMFFIObject*>(error));
}

TVMFFIAny CallGlobal(TVMFFIObject** cache, const char* name, const TVMFFIAny* args, int num_args) {
  TVMFFIObject* func = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
  if (func == nullptr) {
    TVMFFIByteArray key{name, std::strlen(name)};
    TVMFFIObjectHandle found = nullptr;
    if (TVMFFIFunctionGetGlobal(&key, &found) != 0) ThrowRaised();
    if (found == nullptr) {
      Throw("RuntimeError", std::string("The global function `") + name + "` is not registered");
    }
    TVMFFIObject* expected = nullptr;
    func = static_cast<TVMFFIObject*>(found);
    // Kept for the life of the process, as the reference's static Function handles are.
    if (!__atomic_compare_exchange_n(cache, &expected, func, false, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE)) {
      DecRef(func);
      func = expected;
    }
  }
  TVMFFIAny result = NoneAny();
  if (TVMFFIFunctionCall(func, const_cast<TVMFFIAny*>(args), num_args, &result) != 0) {
    ThrowRaised();
  }
  return result;
}

namespace {

TVMFFIAny BoolAny(bool b) {
  TVMFFIAny v = NoneAny();
  v.type_index = kTVMFFIBool;
  v.v_int64 = b ? 1 : 0;
  return v;
}

TVMFFIAny IntAny(int64_t i) {
  TVMFFIAny v = NoneAny();
  v.type_index = kTVMFFIInt;
  v.v_int64 = i;
  return v;
}

/*! \brief Calls the global `name` once per call site's cache; see CallGlobal. */
#define FFI_CXX_ABI_CALL(name, ...)                                                        \
  [&]() {                                                                                  \
    static TVMFFIObject* cache = nullptr;                                                  \
    const TVMFFIAny call_args[] = {__VA_ARGS__};                                           \
    return ::tvm::ffi::cxx_abi::CallGlobal(                                                \
        &cache, name, call_args, static_cast<int>(sizeof(call_args) / sizeof(TVMFFIAny))); \
  }()

/*! \brief A bool or int result (the globals return them as POD values). */
int64_t IntOf(const TVMFFIAny& v) { return v.v_int64; }

/*! \brief Stringify's indent from 0.1.14 on: an Optional<int> laid out as an Any. */
TVMFFIAny IndentFromAnyLayout(const Optional<int>& indent) {
  TVMFFIAny v;
  std::memcpy(&v, indent.bytes, sizeof(v));
  return v.type_index == kTVMFFIInt ? v : NoneAny();
}

/*! \brief Stringify's indent in 0.1.12: an Optional<int> laid out as std::optional<int> (the
 * value, then the engaged flag). Reads 8 bytes: the caller's object is no larger. */
TVMFFIAny IndentFromStdOptionalLayout(const void* indent) {
  int value = 0;
  bool engaged = false;
  std::memcpy(&value, indent, sizeof(value));
  std::memcpy(&engaged, static_cast<const unsigned char*>(indent) + sizeof(int), sizeof(bool));
  return engaged ? IntAny(value) : NoneAny();
}

String StringifyWith(const Any& value, TVMFFIAny indent) {
  return String(Cell::Own(FFI_CXX_ABI_CALL("ffi.json.Stringify", value.raw(), indent)));
}

}  // namespace
}  // namespace cxx_abi

using cxx_abi::BoolAny;
using cxx_abi::Cell;
using cxx_abi::IntAny;
using cxx_abi::IntOf;
using cxx_abi::Ref;

/*! \brief The reference's StructuralEqual (static members only). */
class StructuralEqual {
 public:
  FFI_CXX_ABI_EXPORT static bool Equal(const Any& lhs, const Any& rhs, bool map_free_vars,
                                       bool skip_tensor_content);
  FFI_CXX_ABI_EXPORT static ObjectRef GetFirstMismatch(const Any& lhs, const Any& rhs,
                                                       bool map_free_vars,
                                                       bool skip_tensor_content);
};

/*! \brief The reference's StructuralHash (static members only). */
class StructuralHash {
 public:
  FFI_CXX_ABI_EXPORT static uint64_t Hash(const Any& value, bool map_free_vars,
                                          bool skip_tensor_content);
};

bool StructuralEqual::Equal(const Any& lhs, const Any& rhs, bool map_free_vars,
                            bool skip_tensor_content) {
  return IntOf(FFI_CXX_ABI_CALL("ffi.StructuralEqual", lhs.raw(), rhs.raw(), BoolAny(map_free_vars),
                                BoolAny(skip_tensor_content))) != 0;
}

// Returns Optional<reflection::AccessPathPair>: one pointer, null when the values are equal.
ObjectRef StructuralEqual::GetFirstMismatch(const Any& lhs, const Any& rhs, bool map_free_vars,
                                            bool skip_tensor_content) {
  Cell result = Cell::Own(FFI_CXX_ABI_CALL("ffi.GetFirstStructuralMismatch", lhs.raw(), rhs.raw(),
                                           BoolAny(map_free_vars), BoolAny(skip_tensor_content)));
  ObjectRef out;
  if (cxx_abi::HoldsObject(result.raw())) static_cast<Ref&>(out) = Ref::Own(result.Release().v_obj);
  return out;
}

uint64_t StructuralHash::Hash(const Any& value, bool map_free_vars, bool skip_tensor_content) {
  return static_cast<uint64_t>(IntOf(FFI_CXX_ABI_CALL(
      "ffi.StructuralHash", value.raw(), BoolAny(map_free_vars), BoolAny(skip_tensor_content))));
}

FFI_CXX_ABI_EXPORT bool RecursiveEq(const Any& lhs, const Any& rhs) {
  return IntOf(FFI_CXX_ABI_CALL("ffi.RecursiveEq", lhs.raw(), rhs.raw())) != 0;
}
FFI_CXX_ABI_EXPORT bool RecursiveLt(const Any& lhs, const Any& rhs) {
  return IntOf(FFI_CXX_ABI_CALL("ffi.RecursiveLt", lhs.raw(), rhs.raw())) != 0;
}
FFI_CXX_ABI_EXPORT bool RecursiveLe(const Any& lhs, const Any& rhs) {
  return IntOf(FFI_CXX_ABI_CALL("ffi.RecursiveLe", lhs.raw(), rhs.raw())) != 0;
}
FFI_CXX_ABI_EXPORT bool RecursiveGt(const Any& lhs, const Any& rhs) {
  return IntOf(FFI_CXX_ABI_CALL("ffi.RecursiveGt", lhs.raw(), rhs.raw())) != 0;
}
FFI_CXX_ABI_EXPORT bool RecursiveGe(const Any& lhs, const Any& rhs) {
  return IntOf(FFI_CXX_ABI_CALL("ffi.RecursiveGe", lhs.raw(), rhs.raw())) != 0;
}
FFI_CXX_ABI_EXPORT int64_t RecursiveHash(const Any& value) {
  return IntOf(FFI_CXX_ABI_CALL("ffi.RecursiveHash", value.raw()));
}
FFI_CXX_ABI_EXPORT Any DeepCopy(const Any& value) {
  return Any(Cell::Own(FFI_CXX_ABI_CALL("ffi.DeepCopy", value.raw())));
}
FFI_CXX_ABI_EXPORT String ReprPrint(const Any& value) {
  return String(Cell::Own(FFI_CXX_ABI_CALL("ffi.ReprPrint", value.raw())));
}
FFI_CXX_ABI_EXPORT Any ToJSONGraph(const Any& value, const Any& metadata) {
  return Any(Cell::Own(FFI_CXX_ABI_CALL("ffi.ToJSONGraph", value.raw(), metadata.raw())));
}
FFI_CXX_ABI_EXPORT Any FromJSONGraph(const Any& value) {
  return Any(Cell::Own(FFI_CXX_ABI_CALL("ffi.FromJSONGraph", value.raw())));
}

Array<ObjectRef> VisitErrorContext::FindAccessPaths(const ObjectRef& root,
                                                    const VisitErrorContext& context,
                                                    bool allow_prefix_match) {
  Cell result = Cell::Own(
      FFI_CXX_ABI_CALL("ffi.VisitErrorContext.FindAccessPaths", cxx_abi::ObjectAny(root.get()),
                       cxx_abi::ObjectAny(context.get()), BoolAny(allow_prefix_match)));
  return Array<ObjectRef>(Ref::Own(result.Release().v_obj));
}

namespace json {

/*!
 * \brief json::Parse: the value `json_str` holds. A malformed text throws, or, when `error_msg`
 * is given, sets it to the message and returns None; on success `error_msg` becomes empty (the
 * reference's contract).
 */
FFI_CXX_ABI_EXPORT Any Parse(const String& json_str, String* error_msg) {
  try {
    Any value(Cell::Own(FFI_CXX_ABI_CALL("ffi.json.Parse", json_str.raw())));
    if (error_msg != nullptr) *error_msg = String(Cell::Own(cxx_abi::MakeString("")));
    return value;
  } catch (const Error& e) {
    if (error_msg == nullptr) throw;
    const TVMFFIErrorCell* cell = reinterpret_cast<const TVMFFIErrorCell*>(e.get() + 1);
    *error_msg = String(
        Cell::Own(cxx_abi::MakeString(std::string_view(cell->message.data, cell->message.size))));
    return Any();
  }
}

/*! \brief json::Stringify as built against 0.1.14 and later (the indent by reference). */
FFI_CXX_ABI_EXPORT String Stringify(const Any& value, const Optional<int>& indent) {
  return cxx_abi::StringifyWith(value, cxx_abi::IndentFromAnyLayout(indent));
}

}  // namespace json

}  // namespace ffi
}  // namespace tvm

// json::Stringify as built against 0.1.12: the same name with Optional<int> by value, which (a
// non-trivial class) arrives as a pointer to the caller's std::optional<int>-shaped object. C++
// cannot declare both overloads, so this one is named by its symbol.
// The String result travels through the hidden pointer the ABI passes first and returns.
extern "C" FFI_CXX_ABI_EXPORT void* FFICxxAbiStringifyByValueIndent(
    void* result, const tvm::ffi::Any* value,
    const void* indent) asm("_ZN3tvm3ffi4json9StringifyERKNS0_3AnyENS0_8OptionalIivEE");

void* FFICxxAbiStringifyByValueIndent(void* result, const tvm::ffi::Any* value,
                                      const void* indent) {
  using tvm::ffi::cxx_abi::IndentFromStdOptionalLayout;
  return new (result) tvm::ffi::String(
      tvm::ffi::cxx_abi::StringifyWith(*value, IndentFromStdOptionalLayout(indent)));
}
