/*
 * ffi/extra/dataclass.h - what the runtime does for dataclass-style values, as C++ functions:
 * DeepCopy, ReprPrint, the recursive comparisons (RecursiveEq/Lt/Le/Gt/Ge) and RecursiveHash,
 * printing values with `os << value`, and the type attributes through which a type takes these
 * over (type_attr::kRepr, kHash, kEq, kCompare).
 *
 * Each function calls the runtime's standard global of the same name (ffi.DeepCopy,
 * ffi.ReprPrint, ffi.RecursiveEq, ...), so a library using them needs nothing from the runtime
 * beyond the C ABI and runs on either implementation's runtime. The rules (what is compared, how
 * cycles and sharing are kept) are in docs/dataclasses.md.
 */
#ifndef FFI_EXTRA_DATACLASS_H_
#define FFI_EXTRA_DATACLASS_H_

#include <cstdint>
#include <iosfwd>

#include "../any.h"
#include "../container/variant.h"
#include "../function.h"
#include "../optional.h"
#include "../reflection/accessor.h"
#include "../string.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

namespace detail {
/*! \brief Calls the runtime's standard global `name` (looked up once per name). */
template <typename R, const char* kName, typename... Args>
R CallStandardGlobal(const Args&... args) {
  static const Function fn = Function::GetGlobalRequired(kName);
  return fn(args...).template cast<R>();
}
inline constexpr char kDeepCopy[] = "ffi.DeepCopy";
inline constexpr char kReprPrint[] = "ffi.ReprPrint";
inline constexpr char kRecursiveHash[] = "ffi.RecursiveHash";
inline constexpr char kRecursiveEq[] = "ffi.RecursiveEq";
inline constexpr char kRecursiveLt[] = "ffi.RecursiveLt";
inline constexpr char kRecursiveLe[] = "ffi.RecursiveLe";
inline constexpr char kRecursiveGt[] = "ffi.RecursiveGt";
inline constexpr char kRecursiveGe[] = "ffi.RecursiveGe";
}  // namespace detail

/*!
 * \brief A copy of `value` and of every object reachable from it through reflected fields and
 * containers; sharing and cycles are kept. TypeError for an object whose type cannot be copied.
 */
inline Any DeepCopy(const Any& value) {
  return detail::CallStandardGlobal<Any, detail::kDeepCopy>(value);
}

/*! \brief The text form of `value`: "type.key(field=value, ...)" for reflected objects. */
inline String ReprPrint(const Any& value) {
  return detail::CallStandardGlobal<String, detail::kReprPrint>(value);
}

/*! \brief A hash of `value`'s content, consistent with RecursiveEq. */
inline int64_t RecursiveHash(const Any& value) {
  return detail::CallStandardGlobal<int64_t, detail::kRecursiveHash>(value);
}

/*! \brief Whether `lhs` and `rhs` have equal content (containers and reflected fields). */
inline bool RecursiveEq(const Any& lhs, const Any& rhs) {
  return detail::CallStandardGlobal<bool, detail::kRecursiveEq>(lhs, rhs);
}

/*! \brief `lhs < rhs`, comparing content in field order; TypeError for unordered values. */
inline bool RecursiveLt(const Any& lhs, const Any& rhs) {
  return detail::CallStandardGlobal<bool, detail::kRecursiveLt>(lhs, rhs);
}

/*! \brief `lhs <= rhs` by content (see RecursiveLt). */
inline bool RecursiveLe(const Any& lhs, const Any& rhs) {
  return detail::CallStandardGlobal<bool, detail::kRecursiveLe>(lhs, rhs);
}

/*! \brief `lhs > rhs` by content (see RecursiveLt). */
inline bool RecursiveGt(const Any& lhs, const Any& rhs) {
  return detail::CallStandardGlobal<bool, detail::kRecursiveGt>(lhs, rhs);
}

/*! \brief `lhs >= rhs` by content (see RecursiveLt). */
inline bool RecursiveGe(const Any& lhs, const Any& rhs) {
  return detail::CallStandardGlobal<bool, detail::kRecursiveGe>(lhs, rhs);
}

/*! \brief Writes ReprPrint(value). */
template <typename Traits>
std::basic_ostream<char, Traits>& operator<<(std::basic_ostream<char, Traits>& os,
                                             const Any& value) {
  String text = ReprPrint(value);
  return os.write(text.data(), static_cast<std::streamsize>(text.size()));
}

/*! \brief Writes ReprPrint(value). */
template <typename Traits>
std::basic_ostream<char, Traits>& operator<<(std::basic_ostream<char, Traits>& os,
                                             const ObjectRef& value) {
  return os << Any(value);
}

/*! \brief Writes ReprPrint of the alternative held. */
template <typename Traits, typename... V>
std::basic_ostream<char, Traits>& operator<<(std::basic_ostream<char, Traits>& os,
                                             const Variant<V...>& value) {
  return os << Any(value);
}

/*! \brief Writes ReprPrint of the value, or None. */
template <typename Traits, typename T>
std::basic_ostream<char, Traits>& operator<<(std::basic_ostream<char, Traits>& os,
                                             const Optional<T>& value) {
  return os << Any(value);
}

namespace type_attr {
/*! \brief A type's own text form: `(obj, repr) -> String`, `repr` printing a part. */
inline constexpr reflection::AttrKey<
    TypedFunction<String(const Object*, const TypedFunction<String(AnyView)>&)>>
    kRepr{"__ffi_repr__"};
/*! \brief A type's own content hash: `(obj, hash) -> int64`, `hash` hashing a part. */
inline constexpr reflection::AttrKey<
    TypedFunction<int64_t(const Object*, const TypedFunction<int64_t(AnyView)>&)>>
    kHash{"__ffi_hash__"};
/*! \brief A type's own equality: `(lhs, rhs, eq) -> bool`, `eq` comparing parts. */
inline constexpr reflection::AttrKey<
    TypedFunction<bool(const Object*, const Object*, const TypedFunction<bool(AnyView, AnyView)>&)>>
    kEq{"__ffi_eq__"};
/*!
 * \brief A type's own ordering: `(lhs, rhs, cmp) -> int32` (negative, 0 or positive), `cmp`
 * ordering parts the same way.
 */
inline constexpr reflection::AttrKey<TypedFunction<int32_t(
    const Object*, const Object*, const TypedFunction<int32_t(AnyView, AnyView)>&)>>
    kCompare{"__ffi_compare__"};
}  // namespace type_attr

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_EXTRA_DATACLASS_H_
