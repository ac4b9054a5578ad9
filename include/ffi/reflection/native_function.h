/*
 * ffi/reflection/native_function.h - hooks that type attributes hold and that are called without
 * packing their arguments: NativeFunctionView<R(Args...)> (borrowed) and NativeFunction<R(Args...)>
 * (owning).
 *
 * A hook is stored in an Any in one of two forms, which every library built with either header
 * set calls alike:
 *   - native: an opaque pointer to a C function `TVMFFIAny (*)(Args...) noexcept`, returning the
 *     result in an owned TVMFFIAny (an R, None for void) or an Error object when it failed;
 *   - packed: an ffi::Function taking the same arguments (slower; any library may make one).
 * `FromNative<&F>()` makes the native form from a C++ function `R F(Args...)` (its exceptions
 * become the returned Error) or `Expected<R> F(Args...) noexcept`.
 */
#ifndef FFI_REFLECTION_NATIVE_FUNCTION_H_
#define FFI_REFLECTION_NATIVE_FUNCTION_H_

#include <cstddef>
#include <exception>
#include <string>
#include <type_traits>
#include <utility>

#include "../any.h"
#include "../expected.h"
#include "../function.h"
#include "accessor.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {
namespace reflection {

template <typename Signature>
class NativeFunctionView;
template <typename Signature>
class NativeFunction;

namespace detail {
/*! \brief An owned ABI value holding `result`, or its Error. */
template <typename R>
TVMFFIAny ExpectedToRaw(Expected<R> result) noexcept {
  if constexpr (std::is_void_v<R>) {
    return result.is_ok() ? Any().release() : Any(result.error()).release();
  } else {
    return std::move(result).data().release();
  }
}

/*! \brief The Expected<R> an owned ABI result holds (a TypeError when it is neither). */
template <typename R>
Expected<R> ExpectedFromRaw(TVMFFIAny raw) noexcept {
  Any data = Any::FromRaw(raw);
  if (data.type_index() == kTVMFFIError) return std::move(data).cast<Error>();
  if constexpr (std::is_void_v<R>) {
    if (data.is_none()) return Expected<void>();
  } else if constexpr (std::is_same_v<R, Any>) {
    return data;
  } else if (std::optional<R> v = data.try_cast<R>()) {
    return *std::move(v);
  }
  return Error("TypeError", "a hook returned `" + data.GetTypeName() + "`, not `" +
                                std::string(std::string_view(TypeTraits<Expected<R>>::TypeStr())) +
                                "`");
}
}  // namespace detail

/*!
 * \brief A borrowed hook `R(Args...)` (see the file comment): what a type attribute column holds,
 * read without taking a reference. Never null.
 */
template <typename R, typename... Args>
class NativeFunctionView<R(Args...)> {
 public:
  /*! \brief The C function of the native form. */
  using ABIType = TVMFFIAny (*)(Args...) noexcept;

  NativeFunctionView() = delete;
  NativeFunctionView(std::nullptr_t) = delete;
  /*! \brief The packed form of `packed`, which must outlive the view (an attribute keeps it). */
  template <typename PackedR, typename = std::enable_if_t<std::is_same_v<PackedR, R> ||
                                                          std::is_same_v<PackedR, Expected<R>>>>
  NativeFunctionView(const TypedFunction<PackedR(Args...)>& packed)
      : NativeFunctionView(packed.packed()) {}
  template <typename PackedR, typename = std::enable_if_t<std::is_same_v<PackedR, R> ||
                                                          std::is_same_v<PackedR, Expected<R>>>>
  NativeFunctionView(TypedFunction<PackedR(Args...)>&&) = delete;  // would dangle
  /*! \brief The packed form of an untyped Function taking `Args...`; ValueError when null. */
  explicit NativeFunctionView(const Function& packed) : data_(*AnyView(packed).raw()) {
    if (!packed.defined()) FFI_THROW(ValueError) << "a NativeFunctionView needs a function";
  }

  /*! \brief The native form of `Fn`: `R Fn(Args...)` or `Expected<R> Fn(Args...) noexcept`. */
  template <auto Fn>
  static NativeFunctionView FromNative() {
    static_assert(Fn != nullptr, "FromNative needs a function");
    return FromABI(&Adapter<Fn>);
  }
  /*! \brief The native form of a C function already following the ABI. */
  static NativeFunctionView FromABI(ABIType fn) {
    if (fn == nullptr) FFI_THROW(ValueError) << "a NativeFunctionView needs a function";
    TVMFFIAny data;
    data.type_index = kTVMFFIOpaquePtr;
    data.zero_padding = 0;
    data.v_int64 = 0;
    data.v_ptr = reinterpret_cast<void*>(fn);
    return NativeFunctionView(data);
  }

  /*! \brief Calls the hook; a failure is the returned Error. */
  Expected<R> CallExpected(Args... args) const noexcept {
    if (FFI_LIKELY(data_.type_index == kTVMFFIOpaquePtr)) {
      return detail::ExpectedFromRaw<R>(
          reinterpret_cast<ABIType>(data_.v_ptr)(std::forward<Args>(args)...));
    }
    try {
      Function f = AnyView::FromRaw(data_).cast<Function>();
      return f.CallExpected<R>(std::forward<Args>(args)...);
    } catch (const Error& e) {
      return e;
    }
  }
  /*! \brief Calls the hook; throws the Error it failed with. */
  R operator()(Args... args) const { return CallExpected(std::forward<Args>(args)...).value(); }

 private:
  explicit NativeFunctionView(TVMFFIAny data) : data_(data) {}

  template <auto Fn>
  static TVMFFIAny Adapter(Args... args) noexcept {
    using Result = decltype(Fn(std::declval<Args>()...));
    if constexpr (std::is_same_v<Result, Expected<R>>) {
      static_assert(noexcept(Fn(std::declval<Args>()...)),
                    "an Expected-returning native hook must be noexcept");
      return detail::ExpectedToRaw<R>(Fn(std::forward<Args>(args)...));
    } else {
      static_assert(std::is_same_v<Result, R>, "FromNative: Fn must return R or Expected<R>");
      try {
        if constexpr (std::is_void_v<R>) {
          Fn(std::forward<Args>(args)...);
          return Any().release();
        } else {
          return Any(Fn(std::forward<Args>(args)...)).release();
        }
      } catch (const Error& e) {
        return Any(e).release();
      } catch (const std::exception& e) {
        return Any(Error("InternalError", e.what(), "")).release();
      } catch (...) {
        return Any(Error("InternalError", "a native hook threw a non-standard exception", ""))
            .release();
      }
    }
  }

  TVMFFIAny data_;  // the opaque pointer, or the Function object (borrowed)
  template <typename, typename>
  friend struct ::tvm::ffi::TypeTraits;
  template <typename>
  friend class NativeFunction;
};

/*! \brief A hook `R(Args...)` holding a reference to its function (see NativeFunctionView). */
template <typename R, typename... Args>
class NativeFunction<R(Args...)> {
 public:
  /*! \brief The borrowed form. */
  using View = NativeFunctionView<R(Args...)>;

  /*! \brief Keeps `view`'s hook (a reference to its function in the packed form). */
  explicit NativeFunction(View view) : data_(AnyView::FromRaw(view.data_)) {}
  /*! \brief The packed form of `packed`. */
  template <typename PackedR, typename = std::enable_if_t<std::is_same_v<PackedR, R> ||
                                                          std::is_same_v<PackedR, Expected<R>>>>
  NativeFunction(const TypedFunction<PackedR(Args...)>& packed) : NativeFunction(View(packed)) {}
  /*! \brief NativeFunction(view). */
  static NativeFunction From(View view) { return NativeFunction(view); }
  /*! \brief The native form of `Fn` (see NativeFunctionView::FromNative). */
  template <auto Fn>
  static NativeFunction FromNative() {
    return From(View::template FromNative<Fn>());
  }
  /*! \brief The borrowed form, valid while this one lives. */
  View view() const { return View(*data_.raw()); }
  /*! \brief Calls the hook; a failure is the returned Error. */
  Expected<R> CallExpected(Args... args) const noexcept {
    return view().CallExpected(std::forward<Args>(args)...);
  }
  /*! \brief Calls the hook; throws the Error it failed with. */
  R operator()(Args... args) const { return view()(std::forward<Args>(args)...); }

 private:
  Any data_;
  template <typename, typename>
  friend struct ::tvm::ffi::TypeTraits;
};

namespace detail {
/*! \brief Whether an ABI value is a hook: an opaque pointer or a Function. */
inline bool IsHook(const TVMFFIAny* src) {
  return (src->type_index == kTVMFFIOpaquePtr && src->v_ptr != nullptr) ||
         src->type_index == kTVMFFIFunction;
}
}  // namespace detail
}  // namespace reflection

/*! \brief A hook view in an Any: its opaque pointer or its Function. */
template <typename R, typename... Args>
struct TypeTraits<reflection::NativeFunctionView<R(Args...)>> : TypeTraitsBase {
  using View = reflection::NativeFunctionView<R(Args...)>;
  static void CopyToAnyView(const View& v, TVMFFIAny* out) { *out = v.data_; }
  static void MoveToAny(View v, TVMFFIAny* out) { *out = Any(AnyView::FromRaw(v.data_)).release(); }
  static bool CheckAnyStrict(const TVMFFIAny* src) { return reflection::detail::IsHook(src); }
  static detail::CastResult<View> TryCastFromAnyView(const TVMFFIAny* src) {
    if (!CheckAnyStrict(src)) return std::nullopt;
    return View(*src);
  }
  static constexpr auto TypeStr() { return ConstString("NativeFunction"); }
};

/*! \brief An owning hook in an Any: its opaque pointer or its Function. */
template <typename R, typename... Args>
struct TypeTraits<reflection::NativeFunction<R(Args...)>> : TypeTraitsBase {
  using Fn = reflection::NativeFunction<R(Args...)>;
  static void CopyToAnyView(const Fn& v, TVMFFIAny* out) { *out = *v.data_.raw(); }
  static void MoveToAny(Fn v, TVMFFIAny* out) { *out = v.data_.release(); }
  static bool CheckAnyStrict(const TVMFFIAny* src) { return reflection::detail::IsHook(src); }
  static detail::CastResult<Fn> TryCastFromAnyView(const TVMFFIAny* src) {
    if (!CheckAnyStrict(src)) return std::nullopt;
    return Fn(reflection::NativeFunctionView<R(Args...)>(*src));
  }
  static constexpr auto TypeStr() { return ConstString("NativeFunction"); }
};

namespace type_attr {
/*! \brief A type's own hash of an Any holding it, as a Map or Dict key (`__any_hash__`). */
inline constexpr reflection::AttrKey<reflection::NativeFunctionView<int64_t(const Any&)>> kAnyHash{
    "__any_hash__"};
/*! \brief A type's own key equality for Any values holding it (`__any_equal__`). */
inline constexpr reflection::AttrKey<reflection::NativeFunctionView<bool(const Any&, const Any&)>>
    kAnyEqual{"__any_equal__"};
}  // namespace type_attr

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_REFLECTION_NATIVE_FUNCTION_H_
