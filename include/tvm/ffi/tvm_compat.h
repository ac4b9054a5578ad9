/*
 * tvm/ffi/tvm_compat.h - the vocabulary of TVM-FFI code (the seeds' spelling) on top of these
 * headers, so existing kernel sources compile with only their includes replaced by this one:
 *
 *   #include <tvm/ffi/tvm_compat.h>   // instead of <tvm/ffi/...>
 *
 *   void AddOne(tvm::ffi::TensorView x, tvm::ffi::TensorView y) { ... }
 *   TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_one_cpu, AddOne);
 *
 * Each TVM_FFI_* macro is the FFI_* macro of the same name.
 * Nothing here changes the ABI: both spellings produce the same symbols and objects.
 */
#ifndef TVM_FFI_TVM_COMPAT_H_
#define TVM_FFI_TVM_COMPAT_H_

// Code written for TVM-FFI's headers may rely on the standard headers those bring in; ffi.h leaves
// them out to keep kernel compiles fast, so the compatibility layer brings them.
#include <ffi/any_hash.h>  // details::StableHashBytes
#include <ffi/c_api.h>
#include <ffi/ffi.h>
#include <ffi/named_args.h>

#include <algorithm>
#include <functional>
#include <iostream>
#include <memory>
#include <sstream>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {
// The DLPack structures under the names TVM-FFI code uses for them (ffi::DLDevice, ...).
using ::DLDataType;
using ::DLDevice;
using ::DLTensor;

/*! \brief TVM-FFI's name for DLDataTypeFromString: parses "float32", "int8x4", "bool", ... */
inline DLDataType StringToDLDataType(const String& str) { return DLDataTypeFromString(str.view()); }

namespace detail {
/*! \brief Returns `value`, throwing `kind` (located at the caller) when it is null. */
template <typename T>
T CompatCheckNotNull(T&& value, const char* kind, const char* text, const char* file, int line,
                     const char* func) {
  if (value == nullptr) {
    ErrorThrower() & ErrorBuilder(kind, BacktraceHere(file, line, func))
                         << "Check not null: " << text;
  }
  return std::forward<T>(value);
}
}  // namespace detail
}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

/*! \brief Exports a typed function as `__tvm_ffi_<ExportName>`; see FFI_DLL_EXPORT_TYPED_FUNC. */
#define TVM_FFI_DLL_EXPORT_TYPED_FUNC(ExportName, Function) \
  FFI_DLL_EXPORT_TYPED_FUNC(ExportName, Function)

/*! \brief Exports the documentation of an export; see FFI_DLL_EXPORT_TYPED_FUNC_DOC. */
#define TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC(ExportName, DocString) \
  FFI_DLL_EXPORT_TYPED_FUNC_DOC(ExportName, DocString)

/*! \brief An export with parameter names and defaults; see FFI_DLL_EXPORT_TYPED_FUNC_ARGS. */
#define TVM_FFI_DLL_EXPORT_TYPED_FUNC_ARGS(ExportName, Function, ...) \
  FFI_DLL_EXPORT_TYPED_FUNC_ARGS(ExportName, Function, __VA_ARGS__)

/*! \brief `TVM_FFI_THROW(ValueError) << "message";` throws an ffi::Error; see FFI_THROW. */
#define TVM_FFI_THROW(ErrorKind) FFI_THROW(ErrorKind)

/*! \brief Throws InternalError unless `cond` holds; see FFI_ICHECK. */
#define TVM_FFI_ICHECK(cond) FFI_ICHECK(cond)
/*! \brief Throws InternalError unless `x == y`, printing both; see FFI_ICHECK_EQ. */
#define TVM_FFI_ICHECK_EQ(x, y) FFI_ICHECK_EQ(x, y)
/*! \brief Throws InternalError unless `x != y`. */
#define TVM_FFI_ICHECK_NE(x, y) FFI_ICHECK_NE(x, y)
/*! \brief Throws InternalError unless `x < y`. */
#define TVM_FFI_ICHECK_LT(x, y) FFI_ICHECK_LT(x, y)
/*! \brief Throws InternalError unless `x <= y`. */
#define TVM_FFI_ICHECK_LE(x, y) FFI_ICHECK_LE(x, y)
/*! \brief Throws InternalError unless `x > y`. */
#define TVM_FFI_ICHECK_GT(x, y) FFI_ICHECK_GT(x, y)
/*! \brief Throws InternalError unless `x >= y`. */
#define TVM_FFI_ICHECK_GE(x, y) FFI_ICHECK_GE(x, y)
/*!
 * \brief An expression: `x` itself, after checking that it is not null (`ErrorKind` otherwise,
 * "Check not null: x"), e.g. `DLTensor* t = TVM_FFI_CHECK_NOTNULL(Lookup(name), KeyError);`.
 * `x` is evaluated once.
 */
#define TVM_FFI_CHECK_NOTNULL(x, ErrorKind) \
  ::ffi::detail::CompatCheckNotNull((x), #ErrorKind, #x, __FILE__, __LINE__, FFI_FUNC_NAME)
/*! \brief TVM_FFI_CHECK_NOTNULL with InternalError. */
#define TVM_FFI_ICHECK_NOTNULL(x) TVM_FFI_CHECK_NOTNULL(x, InternalError)

/*! \brief In a structural visit hook: returns a result that stops the traversal (see
 * FFI_S_VISIT_MAYBE_EARLY_RETURN in <ffi/extra/structural_visit.h>). */
#define TVM_FFI_S_VISIT_MAYBE_EARLY_RETURN(Result) FFI_S_VISIT_MAYBE_EARLY_RETURN(Result)
/*! \brief Throws `ErrorKind` unless `cond` holds: `TVM_FFI_CHECK(n > 0, ValueError) << n;` */
#define TVM_FFI_CHECK(cond, ErrorKind) FFI_CHECK(cond, ErrorKind)
/*! \brief Throws `ErrorKind`, printing both operands, unless `x == y`; see FFI_CHECK_EQ. */
#define TVM_FFI_CHECK_EQ(x, y, ErrorKind) FFI_CHECK_EQ(x, y, ErrorKind)
/*! \brief Throws `ErrorKind` unless `x != y`. */
#define TVM_FFI_CHECK_NE(x, y, ErrorKind) FFI_CHECK_NE(x, y, ErrorKind)
/*! \brief Throws `ErrorKind` unless `x < y`. */
#define TVM_FFI_CHECK_LT(x, y, ErrorKind) FFI_CHECK_LT(x, y, ErrorKind)
/*! \brief Throws `ErrorKind` unless `x <= y`. */
#define TVM_FFI_CHECK_LE(x, y, ErrorKind) FFI_CHECK_LE(x, y, ErrorKind)
/*! \brief Throws `ErrorKind` unless `x > y`. */
#define TVM_FFI_CHECK_GT(x, y, ErrorKind) FFI_CHECK_GT(x, y, ErrorKind)
/*! \brief Throws `ErrorKind` unless `x >= y`. */
#define TVM_FFI_CHECK_GE(x, y, ErrorKind) FFI_CHECK_GE(x, y, ErrorKind)

// Debug-only checks: active unless NDEBUG is defined; otherwise they compile (operands and
// streamed message included) but never run.
#ifdef NDEBUG
#define FFI_DETAIL_DEBUG_ONLY while (false)
#else
#define FFI_DETAIL_DEBUG_ONLY
#endif
/*! \brief TVM_FFI_ICHECK in debug builds only. */
#define TVM_FFI_DCHECK(x) FFI_DETAIL_DEBUG_ONLY FFI_ICHECK(x)
/*! \brief TVM_FFI_ICHECK_EQ in debug builds only. */
#define TVM_FFI_DCHECK_EQ(x, y) FFI_DETAIL_DEBUG_ONLY FFI_ICHECK_EQ(x, y)
/*! \brief TVM_FFI_ICHECK_NE in debug builds only. */
#define TVM_FFI_DCHECK_NE(x, y) FFI_DETAIL_DEBUG_ONLY FFI_ICHECK_NE(x, y)
/*! \brief TVM_FFI_ICHECK_LT in debug builds only. */
#define TVM_FFI_DCHECK_LT(x, y) FFI_DETAIL_DEBUG_ONLY FFI_ICHECK_LT(x, y)
/*! \brief TVM_FFI_ICHECK_LE in debug builds only. */
#define TVM_FFI_DCHECK_LE(x, y) FFI_DETAIL_DEBUG_ONLY FFI_ICHECK_LE(x, y)
/*! \brief TVM_FFI_ICHECK_GT in debug builds only. */
#define TVM_FFI_DCHECK_GT(x, y) FFI_DETAIL_DEBUG_ONLY FFI_ICHECK_GT(x, y)
/*! \brief TVM_FFI_ICHECK_GE in debug builds only. */
#define TVM_FFI_DCHECK_GE(x, y) FFI_DETAIL_DEBUG_ONLY FFI_ICHECK_GE(x, y)
/*! \brief An expression: `x`, checked not to be null in debug builds only. */
#ifdef NDEBUG
#define TVM_FFI_DCHECK_NOTNULL(x) (x)
#else
#define TVM_FFI_DCHECK_NOTNULL(x) TVM_FFI_ICHECK_NOTNULL(x)
#endif

/*! \brief Writes an error of `ErrorKind` with a streamed message to stderr, then throws it. */
#define TVM_FFI_LOG_AND_THROW(ErrorKind) FFI_LOG_AND_THROW(ErrorKind)

/*! \brief Forces inlining. */
#define TVM_FFI_INLINE FFI_INLINE
/*! \brief Forbids inlining. */
#define TVM_FFI_NO_INLINE __attribute__((noinline))
/*! \brief Marks a rarely run function (kept out of the hot path). */
#define TVM_FFI_COLD_CODE __attribute__((cold))
/*! \brief A function with no side effects whose result depends on its arguments and memory. */
#define TVM_FFI_ATTRIBUTE_PURE __attribute__((pure))
/*! \brief A weak symbol: another definition overrides it at link time. */
#define TVM_FFI_WEAK __attribute__((weak))
/*!
 * \brief Marks a C++ function a shared library exports (the reference's extra C++ API); a build
 * may predefine it.
 */
#ifndef TVM_FFI_EXTRA_CXX_API
#define TVM_FFI_EXTRA_CXX_API TVM_FFI_DLL
#endif
/*! \brief Branch hints. */
#define TVM_FFI_PREDICT_TRUE(cond) FFI_LIKELY(cond)
#define TVM_FFI_PREDICT_FALSE(cond) FFI_UNLIKELY(cond)
/*! \brief Marks a point the program never reaches. */
#define TVM_FFI_UNREACHABLE() __builtin_unreachable()
/*! \brief Lets the optimizer assume `cond` (undefined behaviour if it is false). */
#define TVM_FFI_UNSAFE_ASSUME(cond)       \
  do {                                    \
    if (!(cond)) __builtin_unreachable(); \
  } while (false)
/*! \brief The enclosing function's name, as errors report it. */
#define TVM_FFI_FUNC_SIG FFI_FUNC_NAME
/*! \brief Pastes two tokens after expanding them. */
#define TVM_FFI_STR_CONCAT(a, b) FFI_STR_CONCAT(a, b)

/*! \brief Object type declarations and reference-class boilerplate; see the FFI_ macros. */
#define TVM_FFI_DECLARE_OBJECT_INFO(TypeKey, TypeName, ParentType) \
  FFI_DECLARE_OBJECT_INFO(TypeKey, TypeName, ParentType)
#define TVM_FFI_DECLARE_OBJECT_INFO_FINAL(TypeKey, TypeName, ParentType) \
  FFI_DECLARE_OBJECT_INFO_FINAL(TypeKey, TypeName, ParentType)
#define TVM_FFI_DECLARE_OBJECT_INFO_PREDEFINED_TYPE_KEY(TypeName, ParentType) \
  FFI_DECLARE_OBJECT_INFO_PREDEFINED_TYPE_KEY(TypeName, ParentType)
/*!
 * \brief A type at the fixed index the class defines as `static constexpr int32_t _type_index`,
 * registered on first use of `_GetOrAllocRuntimeTypeIndex()`.
 */
#define TVM_FFI_DECLARE_OBJECT_INFO_STATIC(TypeKey, TypeName, ParentType)                     \
  static constexpr int32_t _type_depth = ParentType::_type_depth + 1;                         \
  static int32_t _GetOrAllocRuntimeTypeIndex() {                                              \
    static_assert(!ParentType::_type_final, "the parent type is final");                      \
    [[maybe_unused]] static int32_t index = ::tvm::ffi::detail::RegisterType(                 \
        TypeName::_type_key, TypeName::_type_index, _type_depth, TypeName::_type_child_slots, \
        TypeName::_type_child_slots_can_overflow, ParentType::_GetOrAllocRuntimeTypeIndex()); \
    return TypeName::_type_index;                                                             \
  }                                                                                           \
  static int32_t RuntimeTypeIndex() { return TypeName::_type_index; }                         \
  using _type_parent = ParentType;                                                            \
  static constexpr const char* _type_key = TypeKey
/*! \brief A view of a type registered elsewhere (FFI_DECLARE_OBJECT_INFO_LOOKUP). */
#define TVM_FFI_DECLARE_OBJECT_INFO_LOOKUP(TypeKey, TypeDepth) \
  FFI_DECLARE_OBJECT_INFO_LOOKUP(TypeKey, TypeDepth)
#define TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(TypeName, ParentType, ObjectName) \
  FFI_DEFINE_OBJECT_REF_METHODS(TypeName, ParentType, ObjectName)
#define TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(TypeName, ParentType, ObjectName) \
  FFI_DEFINE_NOTNULLABLE_OBJECT_REF_METHODS(TypeName, ParentType, ObjectName)
/*! \brief Default copy and move construction and assignment for `TypeName`. */
#define TVM_FFI_DEFINE_DEFAULT_COPY_MOVE_AND_ASSIGN(TypeName) \
  TypeName(const TypeName&) = default;                        \
  TypeName(TypeName&&) = default;                             \
  TypeName& operator=(const TypeName&) = default;             \
  TypeName& operator=(TypeName&&) = default

/*! \brief A block run once when the library is loaded: `TVM_FFI_STATIC_INIT_BLOCK() { ... }`. */
#define TVM_FFI_STATIC_INIT_BLOCK() FFI_STATIC_INIT_BLOCK()

/*! \brief Opens the body of a C ABI function; see FFI_SAFE_CALL_BEGIN. */
#define TVM_FFI_SAFE_CALL_BEGIN() FFI_SAFE_CALL_BEGIN()
/*! \brief Closes TVM_FFI_SAFE_CALL_BEGIN: returns 0, or stores the exception and returns -1/-2. */
#define TVM_FFI_SAFE_CALL_END() FFI_SAFE_CALL_END()
/*! \brief Evaluates an ABI call and throws the raised error when it fails; FFI_CHECK_SAFE_CALL. */
#define TVM_FFI_CHECK_SAFE_CALL(call) FFI_CHECK_SAFE_CALL(call)

#endif  // TVM_FFI_TVM_COMPAT_H_
