/*
 * ffi/reflection/overload_cast.h - naming one function of an overload set, so that it can be
 * registered (ObjectDef::def, GlobalDef::def) or used as a template argument:
 *
 *   struct Shape2 {
 *     double Scale(double k);
 *     double Scale(double kx, double ky);
 *     int64_t Area(int64_t unit);
 *     int64_t Area(int64_t unit) const;
 *   };
 *   namespace refl = tvm::ffi::reflection;
 *   auto one = refl::overload_cast<double>(&Shape2::Scale);          // Scale(double)
 *   auto two = refl::overload_cast<double, double>(&Shape2::Scale);  // Scale(double, double)
 *   auto cst = refl::overload_cast<int64_t>(&Shape2::Area, refl::const_);
 *
 * The listed types are the leading parameters of the function wanted: the rest of its parameters
 * come from the function picked, so `overload_cast<const Cat*>(&Pet::Feed)` finds
 * `Feed(const Cat*, int)`. When an overload's whole parameter list is the one listed, that
 * overload wins over longer ones sharing the prefix (`one` above); when several longer ones share
 * it, the call is ambiguous and more types must be listed. A const
 * member function is picked only with `refl::const_` as the second argument. The result is a
 * constant expression.
 */
#ifndef FFI_REFLECTION_OVERLOAD_CAST_H_
#define FFI_REFLECTION_OVERLOAD_CAST_H_

#include <type_traits>

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {
namespace reflection {
namespace detail {

/*!
 * \brief What overload_cast<Params...> is: a function object with a call operator for each kind
 * of function (free, member, const member), in two forms: the parameters are exactly `Params...`,
 * or `Params...` followed by more (deduced from the overload that fits). Partial ordering prefers
 * the exact form when both fit. Member function pointers take a tag: `std::false_type` (the
 * default) for a non-const member, `std::true_type` (`const_`) for a const one, since an overload
 * set holding both would otherwise match both operators.
 */
template <typename... Params>
struct OverloadPicker {
  /*! \brief A free function taking exactly `Params...`. */
  template <typename R>
  constexpr auto operator()(R (*fn)(Params...)) const noexcept {
    return fn;
  }
  /*! \brief A non-const member function taking exactly `Params...`. */
  template <typename R, typename C>
  constexpr auto operator()(R (C::*fn)(Params...), std::false_type = {}) const noexcept {
    return fn;
  }
  /*! \brief A const member function taking exactly `Params...`. */
  template <typename R, typename C>
  constexpr auto operator()(R (C::*fn)(Params...) const, std::true_type) const noexcept {
    return fn;
  }
  /*! \brief A free function whose parameters start with `Params...`. */
  template <typename R, typename... More>
  constexpr auto operator()(R (*fn)(Params..., More...)) const noexcept {
    return fn;
  }
  /*! \brief A non-const member function whose parameters start with `Params...`. */
  template <typename R, typename C, typename... More>
  constexpr auto operator()(R (C::*fn)(Params..., More...), std::false_type = {}) const noexcept {
    return fn;
  }
  /*! \brief A const member function whose parameters start with `Params...`. */
  template <typename R, typename C, typename... More>
  constexpr auto operator()(R (C::*fn)(Params..., More...) const, std::true_type) const noexcept {
    return fn;
  }
};

}  // namespace detail

/*!
 * \brief Picks the overload of a function (free or member) whose parameters are, or start with,
 * `Params...`: `overload_cast<int>(&C::Set)`, `overload_cast<int>(&C::Get, const_)`. See the top
 * of this file.
 */
template <typename... Params>
inline constexpr detail::OverloadPicker<Params...> overload_cast{};

/*! \brief The tag that makes overload_cast pick a const member function. */
inline constexpr std::true_type const_{};

}  // namespace reflection
}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_REFLECTION_OVERLOAD_CAST_H_
