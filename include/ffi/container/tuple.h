/*
 * ffi/container/tuple.h - Tuple<Types...>: a fixed number of values of fixed types.
 *
 * A Tuple is stored as an ArrayObj (type index kTVMFFIArray) of sizeof...(Types) values, so
 * across the ABI it is an Array, and an Array of the right size whose values convert is a Tuple.
 * Copies share the object; Set copies first unless this reference is the only one.
 */
#ifndef FFI_CONTAINER_TUPLE_H_
#define FFI_CONTAINER_TUPLE_H_

#include <cstddef>
#include <utility>

#include "array.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

namespace detail {
/*! \brief The `I`-th type of `Types...`. */
template <size_t I, typename T, typename... Rest>
struct TypeAt {
  using type = typename TypeAt<I - 1, Rest...>::type;
};
template <typename T, typename... Rest>
struct TypeAt<0, T, Rest...> {
  using type = T;
};
}  // namespace detail

/*!
 * \brief A fixed-size, shared group of values: `Tuple<Tensor, int64_t> t(x, 3); t.get<1>()`.
 * Never null; a default Tuple holds default-made values.
 */
template <typename... Types>
class Tuple : public ObjectRef {
 public:
  /*! \brief The `I`-th value type. */
  template <size_t I>
  using ElementType = typename detail::TypeAt<I, Types...>::type;

  /*! \brief Default-made values. */
  Tuple() : ObjectRef(Make(Types()...)) {}
  Tuple(const Tuple&) = default;
  Tuple(Tuple&&) = default;
  Tuple& operator=(const Tuple&) = default;
  Tuple& operator=(Tuple&&) = default;
  /*! \brief Shares a Tuple whose values are all of these types (Tuple<Any> from Tuple<int>). */
  template <typename... UTypes,
            typename = std::enable_if_t<sizeof...(UTypes) == sizeof...(Types) &&
                                        !std::is_same_v<Tuple<UTypes...>, Tuple> &&
                                        (type_subsumes_v<Types, UTypes> && ...)>>
  Tuple(const Tuple<UTypes...>& other) : ObjectRef(other) {}
  /*! \brief The values, each converted to its type. */
  template <typename... UTypes, typename = std::enable_if_t<
                                    sizeof...(UTypes) == sizeof...(Types) &&
                                    !(sizeof...(Types) == 1 &&
                                      ((std::is_same_v<std::decay_t<UTypes>, Tuple> ||
                                        std::is_same_v<std::decay_t<UTypes>, UnsafeInit>)&&...))>>
  explicit Tuple(UTypes&&... args) : ObjectRef(Make(Types(std::forward<UTypes>(args))...)) {}
  /*! \brief Wraps an ArrayObj of the right size and value types. */
  explicit Tuple(ObjectPtr<Object> n) : ObjectRef(std::move(n)) {}
  /*! \brief A null Tuple, for a field or cast result filled in before use (see UnsafeInit). */
  explicit Tuple(UnsafeInit tag) : ObjectRef(tag) {}

  /*! \brief Value `I`. */
  template <size_t I>
  ElementType<I> get() const& {
    static_assert(I < sizeof...(Types), "Tuple index out of bounds");
    return detail::CopyFromAnyViewAfterCheck<ElementType<I>>(Cells()[I].raw());
  }
  /*! \brief Value `I`, moved out when this reference is the tuple's only one. */
  template <size_t I>
  ElementType<I> get() && {
    static_assert(I < sizeof...(Types), "Tuple index out of bounds");
    if (data_.use_count() != 1) return std::as_const(*this).template get<I>();
    Any* cell = const_cast<Any*>(Cells()) + I;
    ElementType<I> out = detail::CopyFromAnyViewAfterCheck<ElementType<I>>(cell->raw());
    cell->reset();
    return out;
  }
  /*! \brief Replaces value `I` (copying the tuple first when it is shared). */
  template <size_t I, typename U>
  void Set(U&& item) {
    static_assert(I < sizeof...(Types), "Tuple index out of bounds");
    Any value(ElementType<I>(std::forward<U>(item)));
    if (data_.use_count() != 1) {
      data_ = ArrayObj::CopyFrom(sizeof...(Types), static_cast<const ArrayObj*>(ObjectRef::get()));
    }
    static_cast<ArrayObj*>(const_cast<Object*>(ObjectRef::get()))->SetItem(I, std::move(value));
  }

  /*! \brief The object type behind Tuple. */
  using ContainerType = ArrayObj;
  /*! \brief False: an object of ContainerType may hold elements of other types. */
  static constexpr bool _type_container_is_exact = false;
  /*! \brief A Tuple is never null. */
  static constexpr bool _type_is_nullable = false;

 private:
  const Any* Cells() const { return static_cast<const ArrayObj*>(ObjectRef::get())->begin(); }
  template <typename... Values>
  static ObjectPtr<ArrayObj> Make(Values&&... values) {
    ObjectPtr<ArrayObj> p = ArrayObj::Empty(sizeof...(Types));
    (p->EmplaceBack(Any(std::forward<Values>(values))), ...);
    return p;
  }
};

/*! \brief Value `I` of `t`, for structured bindings: `auto [a, b] = t;`. */
template <size_t I, typename... Types>
auto get(const Tuple<Types...>& t) {
  return t.template get<I>();
}
/*! \brief Value `I` of `t`, moved out when `t` holds the only reference. */
template <size_t I, typename... Types>
auto get(Tuple<Types...>&& t) {
  return std::move(t).template get<I>();
}

/*! \brief `Tuple(a, b)` deduces Tuple<A, B>. */
template <typename... UTypes>
Tuple(UTypes&&...) -> Tuple<std::remove_cv_t<std::remove_reference_t<UTypes>>...>;

/*! \brief Tuple converts through its own traits, which look at the values. */
template <typename... Types>
inline constexpr bool use_default_type_traits_v<Tuple<Types...>> = false;
/*! \brief A Tuple<U...> is a Tuple<T...> when each U is its T. */
template <typename... Types, typename... UTypes>
inline constexpr bool type_subsumes_v<Tuple<Types...>, Tuple<UTypes...>,
                                      std::enable_if_t<sizeof...(Types) == sizeof...(UTypes)>> =
    (type_subsumes_v<Types, UTypes> && ...);

/*!
 * \brief Tuple<Types...>: an Array (kTVMFFIArray) of exactly sizeof...(Types) values. When every
 * value is stored as its type the Array is shared, otherwise the values are converted into a new
 * one; a value that does not convert, or another size, does not convert.
 */
template <typename... Types>
struct TypeTraits<Tuple<Types...>> : TypeTraitsBase {
  static constexpr int32_t field_static_type_index = kTVMFFIObject;  // a reference
  static constexpr size_t kSize = sizeof...(Types);
  static void CopyToAnyView(const Tuple<Types...>& v, TVMFFIAny* out) {
    SetObject(detail::ObjectUnsafe::HeaderOf(v), out);
  }
  static void MoveToAny(Tuple<Types...> v, TVMFFIAny* out) {
    SetObject(detail::ObjectUnsafe::MoveToHeader(std::move(v)), out);
  }
  static bool CheckAnyStrict(const TVMFFIAny* src) {
    if (src->type_index != kTVMFFIArray || Seq(src)->size() != kSize) return false;
    return StrictAll(Seq(src)->begin(), std::index_sequence_for<Types...>{});
  }
  static detail::CastResult<Tuple<Types...>> TryCastFromAnyView(const TVMFFIAny* src) {
    if (src->type_index != kTVMFFIArray || Seq(src)->size() != kSize) return std::nullopt;
    if (CheckAnyStrict(src)) return CopyFromAnyViewAfterCheck(src);
    ObjectPtr<ArrayObj> out = ArrayObj::Empty(kSize);
    if (!ConvertAll(Seq(src)->begin(), out.get(), std::index_sequence_for<Types...>{})) {
      return std::nullopt;
    }
    return Tuple<Types...>(ObjectPtr<Object>(std::move(out)));
  }
  static Tuple<Types...> CopyFromAnyViewAfterCheck(const TVMFFIAny* src) {
    return detail::ObjectUnsafe::RefFromBorrowedHeader<Tuple<Types...>>(src->v_obj);
  }
  static std::string GetMismatchTypeInfo(const TVMFFIAny* src) {
    if (src->type_index != kTVMFFIArray) return detail::MismatchName(src->type_index);
    if (Seq(src)->size() != kSize) return "Array[size=" + std::to_string(Seq(src)->size()) + "]";
    std::string out;
    MismatchFirst(Seq(src)->begin(), &out, std::index_sequence_for<Types...>{});
    return out.empty() ? detail::MismatchName(src->type_index) : out;
  }
  static constexpr auto TypeStr() {
    return ConstString("Tuple<") + detail::JoinTypeStrs<Types...>() + ">";
  }
  static std::string TypeSchema() { return detail::SchemaWithArgs<Types...>::Of("Tuple"); }

 private:
  static void SetObject(TVMFFIObject* obj, TVMFFIAny* out) {
    if (obj == nullptr) return detail::SetNone(out);
    out->type_index = kTVMFFIArray;
    out->zero_padding = 0;
    out->v_obj = obj;
  }
  static const ArrayObj* Seq(const TVMFFIAny* src) {
    return static_cast<const ArrayObj*>(detail::ObjectUnsafe::FromHeader(src->v_obj));
  }
  template <typename T>
  static bool Strict(const Any& v) {
    if constexpr (std::is_same_v<T, Any>) {
      return true;
    } else {
      return TypeTraits<T>::CheckAnyStrict(v.raw());
    }
  }
  template <size_t... I>
  static bool StrictAll(const Any* cells, std::index_sequence<I...>) {
    return (Strict<Types>(cells[I]) && ...);
  }
  template <typename T>
  static bool ConvertOne(const Any& v, ArrayObj* out) {
    auto item = TypeTraits<T>::TryCastFromAnyView(v.raw());
    if (!item.has_value()) return false;
    out->EmplaceBack(Any(*std::move(item)));
    return true;
  }
  template <size_t... I>
  static bool ConvertAll(const Any* cells, ArrayObj* out, std::index_sequence<I...>) {
    return (ConvertOne<Types>(cells[I], out) && ...);
  }
  template <size_t... I>
  static void MismatchFirst(const Any* cells, std::string* out, std::index_sequence<I...>) {
    (void)((TypeTraits<Types>::TryCastFromAnyView(cells[I].raw()).has_value() ||
            (*out = "Array[index " + std::to_string(I) + ": " +
                    detail::MismatchTypeInfo<Types>(cells[I].raw()) + "]",
             false)) &&
           ...);
  }
};

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

namespace std {
/*! \brief Tuples take part in structured bindings. */
template <typename... Types>
struct tuple_size<::tvm::ffi::Tuple<Types...>> : std::integral_constant<size_t, sizeof...(Types)> {
};
/*! \brief The `I`-th value type of a Tuple. */
template <size_t I, typename... Types>
struct tuple_element<I, ::tvm::ffi::Tuple<Types...>> {
  using type = typename ::tvm::ffi::detail::TypeAt<I, Types...>::type;
};
}  // namespace std

#endif  // FFI_CONTAINER_TUPLE_H_
