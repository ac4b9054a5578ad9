/*
 * src/runtime/cxx_abi/reference_types.h - private to cxx_abi/: the reference runtime's C++
 * classes that its exported C++ symbols name, declared under the reference's names (namespace
 * tvm::ffi, no inline namespace) so that what cxx_abi/ defines carries the reference's mangled
 * names, vtables and typeinfo.
 *
 * Facts only (layouts, virtual order, calling conventions), read from the reference's headers:
 * each class here has the size, member layout and call-relevant properties (non-trivial copy and
 * destruction, hence passed and returned through pointers) of the reference's class of the same
 * name, and just the members cxx_abi/ needs. Values are handled through the C ABI alone.
 *
 * This header must never meet the project's own headers in one translation unit: they declare
 * tvm::ffi::String, Any, ... in an inline namespace, and the names would be ambiguous.
 */
#ifndef FFI_SRC_RUNTIME_CXX_ABI_REFERENCE_TYPES_H_
#define FFI_SRC_RUNTIME_CXX_ABI_REFERENCE_TYPES_H_

#include <ffi/c_api.h>

#include <cstdint>
#include <exception>
#include <string>
#include <string_view>
#include <utility>

/*!
 * \brief Exported from the runtime (on ELF the version script names each symbol it lets out; on
 * Windows dllexport puts it in the DLL's export table and import library).
 */
#ifdef _WIN32
#define FFI_CXX_ABI_EXPORT __declspec(dllexport)
#else
#define FFI_CXX_ABI_EXPORT __attribute__((visibility("default")))
#endif

namespace tvm {
namespace ffi {

class String;
class Error;

/*! \brief Helpers of cxx_abi/ (not the reference's), on raw values. */
namespace cxx_abi {

inline bool HoldsObject(const TVMFFIAny& v) { return v.type_index >= kTVMFFIStaticObjectBegin; }
inline void IncRef(TVMFFIObject* obj) {
  if (obj != nullptr) TVMFFIObjectIncRef(obj);
}
inline void DecRef(TVMFFIObject* obj) {
  if (obj != nullptr) TVMFFIObjectDecRef(obj);
}
inline TVMFFIAny NoneAny() {
  TVMFFIAny v;
  v.type_index = kTVMFFINone;
  v.zero_padding = 0;
  v.v_int64 = 0;
  return v;
}
/*! \brief An Any holding the object `obj` (borrowed: no reference taken). */
inline TVMFFIAny ObjectAny(TVMFFIObject* obj) {
  TVMFFIAny v = NoneAny();
  if (obj != nullptr) {
    v.type_index = obj->type_index;
    v.v_obj = obj;
  }
  return v;
}

/*! \brief A value cell: one TVMFFIAny that owns what it holds (Any, String, Bytes). */
class Cell {
 public:
  Cell() : data_(NoneAny()) {}
  Cell(const Cell& other) : data_(other.data_) {
    if (HoldsObject(data_)) IncRef(data_.v_obj);
  }
  Cell(Cell&& other) noexcept : data_(other.data_) { other.data_ = NoneAny(); }
  Cell& operator=(Cell other) noexcept {
    std::swap(data_, other.data_);
    return *this;
  }
  ~Cell() {
    if (HoldsObject(data_)) DecRef(data_.v_obj);
  }
  /*! \brief Takes ownership of `raw` (an owned value, as the C ABI returns them). */
  static Cell Own(TVMFFIAny raw) {
    Cell c;
    c.data_ = raw;
    return c;
  }
  const TVMFFIAny& raw() const { return data_; }
  /*! \brief Gives up the value to the caller, leaving None. */
  TVMFFIAny Release() {
    TVMFFIAny v = data_;
    data_ = NoneAny();
    return v;
  }

 protected:
  TVMFFIAny data_;
};

/*! \brief A reference cell: one owning pointer to an object header, null for none. */
class Ref {
 public:
  Ref() = default;
  Ref(const Ref& other) : data_(other.data_) { IncRef(data_); }
  Ref(Ref&& other) noexcept : data_(other.data_) { other.data_ = nullptr; }
  Ref& operator=(Ref other) noexcept {
    std::swap(data_, other.data_);
    return *this;
  }
  ~Ref() { DecRef(data_); }
  /*! \brief Takes ownership of `obj`. */
  static Ref Own(TVMFFIObject* obj) {
    Ref r;
    r.data_ = obj;
    return r;
  }
  TVMFFIObject* get() const { return data_; }
  bool defined() const { return data_ != nullptr; }
  TVMFFIObject* Release() {
    TVMFFIObject* obj = data_;
    data_ = nullptr;
    return obj;
  }

 protected:
  TVMFFIObject* data_ = nullptr;
};

/*! \brief The text of a string value (small or object). */
std::string_view TextOf(const TVMFFIAny& v);
/*! \brief A new String value holding `text`. */
TVMFFIAny MakeString(std::string_view text);
/*!
 * \brief Calls the global function `name` with `args` (borrowed) and returns its owned result;
 * a raised error is thrown as the reference's Error. `cache` keeps the function for next time.
 */
TVMFFIAny CallGlobal(TVMFFIObject** cache, const char* name, const TVMFFIAny* args, int num_args);
/*! \brief Throws the error the C ABI has raised, as the reference's Error. */
[[noreturn]] void ThrowRaised();
/*! \brief Throws a new reference Error of `kind` with `message`. */
[[noreturn]] void Throw(const char* kind, const std::string& message);

}  // namespace cxx_abi

/*! \brief The reference's Object: the C ABI's object header, nothing else (not polymorphic). */
class Object {
 protected:
  TVMFFIObject header_;
};

/*! \brief The reference's ObjectRef: one pointer to an object header. */
class ObjectRef : public cxx_abi::Ref {};

/*! \brief The reference's Any: one owning TVMFFIAny. */
class Any : public cxx_abi::Cell {
 public:
  Any() = default;
  explicit Any(cxx_abi::Cell&& cell) : Cell(std::move(cell)) {}
};

/*! \brief The reference's String: one TVMFFIAny holding a small string or a string object. */
class String : public cxx_abi::Cell {
 public:
  /*! \brief The empty string (a small string of length 0, as the reference's default). */
  String() {
    data_.type_index = kTVMFFISmallStr;
    data_.small_str_len = 0;
  }
  explicit String(cxx_abi::Cell&& cell) : Cell(std::move(cell)) {}
  std::string_view view() const { return cxx_abi::TextOf(data_); }
};

/*! \brief The reference's Bytes: one TVMFFIAny holding small bytes or a bytes object. */
class Bytes : public cxx_abi::Cell {};

/*! \brief The reference's Function: one pointer to a function object. */
class Function : public cxx_abi::Ref {};

/*! \brief The reference's TypedFunction<Sig>: one Function. */
template <typename Sig>
class TypedFunction {
 public:
  Function packed;
};

/*! \brief The reference's Module: one pointer to a module object. */
class Module : public cxx_abi::Ref {
 public:
  FFI_CXX_ABI_EXPORT static Module LoadFromFile(const String& file_name);
  FFI_CXX_ABI_EXPORT static void VisitContextSymbols(
      const TypedFunction<void(String, void*)>& callback);
};

/*! \brief The reference's Optional: by layout, per value type (specializations below). */
template <typename T, typename = void>
class Optional;

/*! \brief Optional of a reference class: one pointer, null for nothing. */
template <>
class Optional<Function, void> : public cxx_abi::Ref {
 public:
  Optional() = default;
  explicit Optional(cxx_abi::Ref&& ref) : Ref(std::move(ref)) {}
};

/*! \brief Optional<String>: one TVMFFIAny, None for nothing (every release). */
template <>
class Optional<String, void> : public cxx_abi::Cell {
 public:
  Optional() = default;
  explicit Optional(cxx_abi::Cell&& cell) : Cell(std::move(cell)) {}
};

/*!
 * \brief Optional<int>, the indent argument of json::Stringify, whose layout changed between
 * releases (0.1.12: std::optional<int>, 8 bytes; 0.1.14 on: an Any, 16 bytes). Both are
 * non-trivial and so reach the callee as a pointer; each exported Stringify reads its release's
 * layout from these bytes (cxx_abi/engines.cc).
 */
template <>
class Optional<int, void> {
 public:
  Optional(const Optional& other);  // never defined: only callers copy it
  ~Optional() {}
  unsigned char bytes[16];
};

/*! \brief The reference's Array<T>: one pointer to an array object (never null once made). */
template <typename T>
class Array : public cxx_abi::Ref {
 public:
  Array() = default;
  explicit Array(cxx_abi::Ref&& ref) : Ref(std::move(ref)) {}
};

/*! \brief The reference's Map<K, V>: one pointer to a map object. */
template <typename K, typename V>
class Map : public cxx_abi::Ref {};

/*! \brief The reference's VisitErrorContext reference class (the static member is exported). */
class VisitErrorContext : public ObjectRef {
 public:
  FFI_CXX_ABI_EXPORT static Array<ObjectRef> FindAccessPaths(const ObjectRef& root,
                                                             const VisitErrorContext& context,
                                                             bool allow_prefix_match);
};

/*!
 * \brief The reference's Error: std::exception (the primary base, so the vtable pointer comes
 * first) and the error object after it; every member inline, so the vtable and typeinfo are
 * emitted wherever it is used (cxx_abi/engines.cc uses it, and the version script exports them).
 */
class FFI_CXX_ABI_EXPORT Error : public ObjectRef, public std::exception {
 public:
  /*! \brief Takes ownership of the error object `obj`. */
  explicit Error(TVMFFIObject* obj) { data_ = obj; }
  const char* what() const noexcept(true) override {
    const TVMFFIErrorCell* cell = reinterpret_cast<const TVMFFIErrorCell*>(data_ + 1);
    return cell->message.data;
  }
};

}  // namespace ffi
}  // namespace tvm

#endif  // FFI_SRC_RUNTIME_CXX_ABI_REFERENCE_TYPES_H_
