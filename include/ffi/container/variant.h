/*
 * ffi/container/variant.h - Variant<V...>: a value that is one of the types V....
 *
 * A Variant holds an Any and nothing else, so across the ABI it is simply the value it holds;
 * it has no object or type index of its own. Converting to a Variant keeps a value stored as one
 * of the types as it is, and otherwise tries each type in the order declared.
 */
#ifndef FFI_CONTAINER_VARIANT_H_
#define FFI_CONTAINER_VARIANT_H_

#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "seq_base.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

/*!
 * \brief One of the types `V...`:
 *
 *     void Scale(Variant<double, Tensor> s) {
 *       if (auto d = s.as<double>()) { ... *d ... } else { Tensor t = s.get<Tensor>(); ... }
 *     }
 */
template <typename... V>
class Variant {
 public:
  /*! \brief False: which objects a Variant may hold depends on `V...`, not on one object type. */
  static constexpr bool _type_container_is_exact = false;
  /*! \brief Whether a `T` can be held as one of the types (a subclass reference counts). */
  template <typename T>
  static constexpr bool variant_contains_v = (type_subsumes_v<V, T> || ...);

  Variant(const Variant&) = default;
  Variant(Variant&&) noexcept = default;
  Variant& operator=(const Variant&) = default;
  Variant& operator=(Variant&&) noexcept = default;
  /*! \brief Holds `value`. */
  template <typename T, typename = std::enable_if_t<variant_contains_v<T>>>
  Variant(T value) : data_(std::move(value)) {}
  /*! \brief Holds `value` instead. */
  template <typename T, typename = std::enable_if_t<variant_contains_v<T>>>
  Variant& operator=(T value) {
    data_ = Any(std::move(value));
    return *this;
  }

  /*! \brief The value as a `T` when it is stored exactly as one, else nullopt. */
  template <typename T, typename = std::enable_if_t<variant_contains_v<T>>>
  std::optional<T> as() const {
    return data_.as<T>();
  }
  /*! \brief The held object as a `const T*` when it is a `T` (an Object class), else null. */
  template <typename T, typename = std::enable_if_t<std::is_base_of_v<Object, T>>, typename = void>
  const T* as() const {
    if (data_.type_index() < kTVMFFIStaticObjectBegin) return nullptr;
    const Object* obj = detail::ObjectUnsafe::FromHeader(data_.raw()->v_obj);
    return obj->IsInstance<T>() ? static_cast<const T*>(obj) : nullptr;
  }
  /*! \brief The value as a `T`; TypeError when it is not one. */
  template <typename T, typename = std::enable_if_t<variant_contains_v<T>>>
  T get() const& {
    return data_.cast<T>();
  }
  /*! \brief The value as a `T`, moved out; TypeError when it is not one. */
  template <typename T, typename = std::enable_if_t<variant_contains_v<T>>>
  T get() && {
    return std::move(data_).template cast<T>();
  }
  /*! \brief The type key of the held value ("int", "ffi.Tensor", ...). */
  std::string GetTypeKey() const { return data_.GetTypeKey(); }
  /*! \brief Whether both hold the same value: the same object, or the same bits. */
  bool same_as(const Variant& other) const {
    return std::memcmp(data_.raw(), other.data_.raw(), sizeof(TVMFFIAny)) == 0;
  }
  /*! \brief A view of the held value. */
  AnyView ToAnyView() const { return AnyView(data_); }
  /*! \brief The held value, moved out (this Variant is left None). */
  Any MoveToAny() && { return std::move(data_); }

 private:
  struct FromAny {};
  Variant(FromAny, Any data) : data_(std::move(data)) {}
  Any data_;
  friend struct TypeTraits<Variant<V...>>;
  friend struct detail::CellOptionalAccess<Variant<V...>>;
};

namespace detail {
/*! \brief Optional<Variant<V...>> is the Variant's Any, None when it holds nothing. */
template <typename... V>
inline constexpr bool kCellOptional<Variant<V...>> = true;
template <typename... V>
struct CellOptionalAccess<Variant<V...>> {
  using T = Variant<V...>;
  static bool IsNone(const T& v) noexcept { return v.data_.type_index() == kTVMFFINone; }
  static void SetNone(T& v) noexcept { v.data_ = Any(); }
  static T None() noexcept { return T(typename T::FromAny(), Any()); }
};
}  // namespace detail

/*!
 * \brief Variant<V...>: whatever one of `V...` converts from. A value stored exactly as one of
 * them is kept as it is; otherwise each type is tried in order and the first conversion wins.
 */
template <typename... V>
struct TypeTraits<Variant<V...>> : TypeTraitsBase {
  static void CopyToAnyView(const Variant<V...>& v, TVMFFIAny* out) { *out = *v.data_.raw(); }
  static void MoveToAny(Variant<V...> v, TVMFFIAny* out) { *out = v.data_.release(); }
  static bool CheckAnyStrict(const TVMFFIAny* src) {
    return (TypeTraits<V>::CheckAnyStrict(src) || ...);
  }
  static detail::CastResult<Variant<V...>> TryCastFromAnyView(const TVMFFIAny* src) {
    if (CheckAnyStrict(src)) return CopyFromAnyViewAfterCheck(src);
    Optional<Variant<V...>> out;
    (void)(TryOne<V>(src, &out) || ...);
    return out;
  }
  static Variant<V...> CopyFromAnyViewAfterCheck(const TVMFFIAny* src) {
    return Variant<V...>(typename Variant<V...>::FromAny(), Any(AnyView::FromRaw(*src)));
  }
  static constexpr auto TypeStr() {
    return ConstString("Variant<") + detail::JoinTypeStrs<V...>() + ">";
  }
  static std::string TypeSchema() { return detail::SchemaWithArgs<V...>::Of("Variant"); }

 private:
  template <typename T>
  static bool TryOne(const TVMFFIAny* src, Optional<Variant<V...>>* out) {
    auto item = TypeTraits<T>::TryCastFromAnyView(src);
    if (!item.has_value()) return false;
    *out = Variant<V...>(typename Variant<V...>::FromAny(), Any(*std::move(item)));
    return true;
  }
};

/*! \brief A `T` is a Variant<V...> when it is one of the alternatives. */
template <typename... V, typename T>
inline constexpr bool type_subsumes_v<Variant<V...>, T> = (type_subsumes_v<V, T> || ...);

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_CONTAINER_VARIANT_H_
