/*
 * ffi/named_args.h - parameter names and defaults for exported functions, so that hosts can call
 * them with keyword arguments and leave out trailing arguments that have defaults:
 *
 *   Tensor Scale(TensorView x, double alpha, bool inplace) { ... }
 *   FFI_DLL_EXPORT_TYPED_FUNC_ARGS(scale, Scale, ffi::arg("x"), ffi::arg("alpha") = 2.0,
 *                                  ffi::arg("inplace") = false);
 *
 * Python then takes `mod.scale(x)`, `mod.scale(x, alpha=3.0)`, `mod.scale(inplace=True, x=x)`,
 * and `inspect.signature(mod.scale)` shows `(x: Tensor, alpha: float = 2.0, inplace: bool =
 * False) -> Tensor`. The export's metadata (`__tvm_ffi__metadata_<name>`) gains "arg_names" and
 * "arg_defaults"; the exported C function itself fills omitted trailing arguments from the
 * defaults, so C/C++ hosts and runtimes that ignore the metadata may omit them positionally.
 * Defaults are int, float, bool, a string literal, or None (`nullptr` / `std::nullopt`).
 * Mistakes are compile errors: one annotation per parameter, defaults only on trailing
 * parameters, and a default the parameter's type accepts. `reflection::GlobalDef().def(name, f,
 * ffi::arg(...)...)` takes the same annotations for global functions (reflection/registry.h).
 */
#ifndef FFI_NAMED_ARGS_H_
#define FFI_NAMED_ARGS_H_

#include <cstdio>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "function.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

namespace detail {
/*! \brief A parameter's name and its default of type `D` (void: no default). */
template <typename D>
struct ArgSpec {
  const char* name;
  D value;
};
template <>
struct ArgSpec<void> {
  const char* name;
};

/*!
 * \brief The stored form of a default given as `T`: int64_t, double, bool, const char* or
 * std::nullptr_t (None); void for anything else (refused where it is given).
 */
template <typename T, typename U = std::decay_t<T>>
using ArgDefaultType = std::conditional_t<
    std::is_same_v<U, bool>, bool,
    std::conditional_t<
        std::is_integral_v<U>, int64_t,
        std::conditional_t<
            std::is_floating_point_v<U>, double,
            std::conditional_t<std::is_same_v<U, const char*> || std::is_same_v<U, char*>,
                               const char*,
                               std::conditional_t<std::is_same_v<U, std::nullptr_t> ||
                                                      std::is_same_v<U, std::nullopt_t>,
                                                  std::nullptr_t, void>>>>>;
}  // namespace detail

/*!
 * \brief The name of an exported function's parameter: `ffi::arg("x")`; with a default,
 * `ffi::arg("alpha") = 2.0`. Used with FFI_DLL_EXPORT_TYPED_FUNC_ARGS, one per parameter.
 */
class arg : public detail::ArgSpec<void> {
 public:
  constexpr explicit arg(const char* name) : detail::ArgSpec<void>{name} {}
  /*! \brief This parameter with default `value` (int, float, bool, string literal or None). */
  template <typename T>
  constexpr auto operator=(T value) const {
    using D = detail::ArgDefaultType<T>;
    static_assert(!std::is_void_v<D>,
                  "ffi::arg default must be an int, a float, a bool, a string literal, or None "
                  "(nullptr / std::nullopt)");
    if constexpr (std::is_same_v<D, std::nullptr_t>) {
      return detail::ArgSpec<D>{name, nullptr};
    } else {
      return detail::ArgSpec<D>{name, static_cast<D>(value)};
    }
  }
};

namespace detail {
template <typename A>
struct ArgDefaultOf;  // The default's stored type of an annotation; void for none.
template <>
struct ArgDefaultOf<arg> {
  using type = void;
};
template <typename D>
struct ArgDefaultOf<ArgSpec<D>> {
  using type = D;
};
template <typename A>
using ArgDefaultOfT = typename ArgDefaultOf<std::decay_t<A>>::type;

template <typename T>
struct StripOptional {
  using type = T;
};
template <typename T>
struct StripOptional<Optional<T>> {
  using type = T;
};

/*!
 * \brief Whether a parameter of type `P` accepts a default stored as `D`, following the
 * conversions a call makes: None only where None is a value (Optional, Any), ints also for
 * floats, strings for the string types.
 */
template <typename P, typename D>
constexpr bool DefaultFits() {
  using T = typename StripOptional<P>::type;
  if constexpr (std::is_void_v<D>) {
    return true;
  } else if constexpr (std::is_same_v<T, Any> || std::is_same_v<T, AnyView>) {
    return true;
  } else if constexpr (std::is_same_v<D, std::nullptr_t>) {
    return is_optional_type_v<P>;
  } else if constexpr (std::is_same_v<D, bool>) {
    return std::is_same_v<T, bool>;
  } else if constexpr (std::is_same_v<D, int64_t>) {
    return std::is_arithmetic_v<T> && !std::is_same_v<T, bool>;
  } else if constexpr (std::is_same_v<D, double>) {
    return std::is_floating_point_v<T>;
  } else {
    return std::is_same_v<T, String> || std::is_same_v<T, std::string> ||
           std::is_same_v<T, std::string_view> || std::is_same_v<T, const char*>;
  }
}

/*! \brief Whether every annotation after one with a default also has one. */
template <typename... A>
constexpr bool DefaultsTrailing() {
  bool seen = false;
  bool ok = true;
  ((seen = seen || !std::is_void_v<ArgDefaultOfT<A>>,
    ok = ok && (!seen || !std::is_void_v<ArgDefaultOfT<A>>)),
   ...);
  return ok;
}

/*! \brief The compile-time checks of one annotation per parameter (always true; asserts). */
template <typename Info, typename... A, size_t... I>
constexpr bool CheckArgs(std::index_sequence<I...>) {
  static_assert(sizeof...(A) == Info::kNumArgs,
                "ffi::arg annotations: give exactly one ffi::arg(\"name\") annotation "
                "per parameter of the function");
  if constexpr (sizeof...(A) == Info::kNumArgs) {
    static_assert(DefaultsTrailing<A...>(),
                  "ffi::arg annotations: only trailing parameters may have defaults "
                  "(a parameter without a default follows one with a default)");
    static_assert(
        (DefaultFits<std::tuple_element_t<I, typename Info::ArgTypes>, ArgDefaultOfT<A>>() && ...),
        "ffi::arg annotations: a default does not convert to its parameter's "
        "type (None needs an Optional or Any parameter; a float needs a floating-point "
        "one; a string literal a string one)");
  }
  return true;
}

/*! \brief CheckArgs for the annotations held in a tuple (`specs` is only for its type). */
template <typename Info, typename... A>
constexpr bool CheckArgTuple(const std::tuple<A...>*) {
  return CheckArgs<Info, A...>(std::index_sequence_for<A...>{});
}

/*! \brief Whether `E` is a parameter annotation (ffi::arg, with or without a default). */
template <typename E>
constexpr bool kIsArgSpec = false;
template <>
inline constexpr bool kIsArgSpec<arg> = true;
template <typename D>
constexpr bool kIsArgSpec<ArgSpec<D>> = true;

/*! \brief `extra` in a tuple when it is a parameter annotation, else an empty tuple. */
template <typename E>
auto ArgSpecTuple(const E& extra) {
  if constexpr (kIsArgSpec<E>) {
    return std::tuple<E>(extra);
  } else {
    return std::tuple<>();
  }
}

/*! \brief The ABI value of a default (borrowed; string literals live forever). */
template <typename D>
TVMFFIAny ArgDefaultAny(const ArgSpec<D>& spec) {
  TVMFFIAny out{};
  if constexpr (std::is_same_v<D, std::nullptr_t>) {
    out.type_index = kTVMFFINone;
  } else if constexpr (std::is_same_v<D, bool>) {
    out.type_index = kTVMFFIBool;
    out.v_int64 = spec.value ? 1 : 0;
  } else if constexpr (std::is_same_v<D, int64_t>) {
    out.type_index = kTVMFFIInt;
    out.v_int64 = spec.value;
  } else if constexpr (std::is_same_v<D, double>) {
    out.type_index = kTVMFFIFloat;
    out.v_float64 = spec.value;
  } else {
    out.type_index = kTVMFFIRawStr;
    out.v_c_str = spec.value;
  }
  return out;
}

/*! \brief A float as a JSON value with a fraction, so that hosts read it as a float. */
inline std::string FloatJSON(double v) {
  if (v != v) return "NaN";  // Python's json reads these; JSON proper has no spelling.
  if (v > 1.7976931348623157e308) return "Infinity";
  if (v < -1.7976931348623157e308) return "-Infinity";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  std::string text = buf;
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

/*! \brief A type carried as a value (to pass parameter types to a generic lambda). */
template <typename T>
struct TypeTag {
  using type = T;
};

/*! \brief Whether parameter type `P` is a float (or an Optional one): its defaults are floats. */
template <typename P>
constexpr bool kFloatParam = std::is_floating_point_v<P>;
template <typename P>
constexpr bool kFloatParam<Optional<P>> = std::is_floating_point_v<P>;

/*!
 * \brief A default as a JSON value, as the parameter of type `P` receives it: floats keep a
 * fraction so that hosts read them as floats (`= 2` for a `double` is 2.0).
 */
template <typename P, typename D>
std::string ArgDefaultJSON(const ArgSpec<D>& spec) {
  if constexpr (std::is_same_v<D, std::nullptr_t>) {
    return "null";
  } else if constexpr (std::is_same_v<D, bool>) {
    return spec.value ? "true" : "false";
  } else if constexpr (std::is_same_v<D, int64_t>) {
    return kFloatParam<P> ? FloatJSON(static_cast<double>(spec.value)) : std::to_string(spec.value);
  } else if constexpr (std::is_same_v<D, double>) {
    return FloatJSON(spec.value);
  } else {
    return JSONString(spec.value);
  }
}

/*!
 * \brief `"arg_names": [...], "arg_defaults": {...}` for the annotations `specs`, one per
 * parameter of the function `Info` describes.
 */
template <typename Info, typename... A, size_t... I>
std::string ArgsMetadataJSON(const std::tuple<A...>& specs, std::index_sequence<I...>) {
  std::string names = "\"arg_names\": [";
  std::string defaults = "\"arg_defaults\": {";
  bool first_name = true;
  bool first_default = true;
  auto add = [&](const auto& spec, auto param) {
    using P = typename decltype(param)::type;
    names += first_name ? "" : ", ";
    names += JSONString(spec.name);
    first_name = false;
    if constexpr (!std::is_same_v<std::decay_t<decltype(spec)>, arg>) {
      defaults += first_default ? "" : ", ";
      defaults += JSONString(spec.name) + ": " + ArgDefaultJSON<P>(spec);
      first_default = false;
    }
  };
  (add(std::get<I>(specs), TypeTag<std::tuple_element_t<I, typename Info::ArgTypes>>{}), ...);
  return names + "], " + defaults + "}";
}
template <typename Info, typename... A>
std::string ArgsMetadataJSON(const std::tuple<A...>& specs) {
  return ArgsMetadataJSON<Info>(specs, std::index_sequence_for<A...>{});
}

/*! \brief How many leading annotations have no default (the required parameters). */
template <typename... A>
constexpr int32_t NumRequiredArgs() {
  int32_t n = 0;
  bool seen = false;
  ((seen = seen || !std::is_void_v<ArgDefaultOfT<A>>, n += seen ? 0 : 1), ...);
  return n;
}

/*!
 * \brief CallTyped for a function with parameter annotations `specs`: omitted trailing arguments
 * that have defaults are filled in; fewer than the required ones, or more than all, is a
 * TypeError naming the function and its signature.
 */
template <typename F, typename... A>
void CallTypedWithDefaults(const F& f, const char* name, const std::tuple<A...>& specs,
                           const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  using Info = FunctionInfo<std::decay_t<F>>;
  constexpr int32_t kRequired = NumRequiredArgs<A...>();
  if (FFI_LIKELY(num_args == Info::kNumArgs) || kRequired == Info::kNumArgs) {
    CallTyped(f, name, args, num_args, result);
    return;
  }
  if (FFI_UNLIKELY(num_args < kRequired || num_args > Info::kNumArgs)) {
    FFI_THROW(TypeError) << "Mismatched number of arguments when calling: `" << name
                         << SignatureText<Info>() << "`. Expected " << kRequired << " to "
                         << Info::kNumArgs << " but got " << num_args << " arguments";
  }
  TVMFFIAny full[sizeof...(A) + 1];
  for (int32_t i = 0; i < num_args; ++i) full[i] = args[i];
  std::apply(
      [&](const auto&... spec) {
        int32_t i = 0;
        auto fill = [&](const auto& s) {
          if constexpr (!std::is_same_v<std::decay_t<decltype(s)>, arg>) {
            if (i >= num_args) full[i] = ArgDefaultAny(s);
          }
          ++i;
        };
        (fill(spec), ...);
      },
      specs);
  CallTypedImpl<Info>(f, name, full, result, std::make_index_sequence<Info::kNumArgs>{});
}

/*!
 * \brief What `__tvm_ffi__metadata_<name>` returns for an export with parameter annotations:
 * the typed export's metadata (ExportMetadata of `base`) with "arg_names" and "arg_defaults".
 */
template <typename Info, typename... A>
std::string ArgsExportMetadata(std::string_view base, const std::tuple<A...>& specs) {
  std::string out = ExportMetadata<Info>(base);
  out.pop_back();  // the closing brace
  return out + ", " + ArgsMetadataJSON<Info>(specs) + "}";
}
}  // namespace detail

/*!
 * \brief FFI_DLL_EXPORT_TYPED_FUNC with parameter names and defaults, one `ffi::arg` per
 * parameter: `FFI_DLL_EXPORT_TYPED_FUNC_ARGS(scale, Scale, ffi::arg("x"), ffi::arg("alpha") =
 * 2.0)`. Hosts may pass arguments by keyword and omit those with defaults (see the file comment).
 */
#define FFI_DLL_EXPORT_TYPED_FUNC_ARGS(ExportName, Function, ...)                                  \
  namespace {                                                                                      \
  const auto _ffi_export_##ExportName = Function;                                                  \
  const auto _ffi_export_args_##ExportName = std::make_tuple(__VA_ARGS__);                         \
  using _ffi_export_info_##ExportName =                                                            \
      ::ffi::detail::FunctionInfo<std::decay_t<decltype(_ffi_export_##ExportName)>>;               \
  }                                                                                                \
  static_assert(                                                                                   \
      ::ffi::detail::CheckArgTuple<_ffi_export_info_##ExportName>(&_ffi_export_args_##ExportName), \
      "see the errors above");                                                                     \
  extern "C" TVM_FFI_DLL_EXPORT int __tvm_ffi_##ExportName(void*, const TVMFFIAny* args,           \
                                                           int32_t num_args, TVMFFIAny* result) {  \
    FFI_SAFE_CALL_BEGIN();                                                                         \
    ::ffi::detail::CallTypedWithDefaults(_ffi_export_##ExportName, #ExportName,                    \
                                         _ffi_export_args_##ExportName, args, num_args, result);   \
    FFI_SAFE_CALL_END();                                                                           \
  }                                                                                                \
  extern "C" TVM_FFI_DLL_EXPORT int __tvm_ffi__metadata_##ExportName(void*, const TVMFFIAny*,      \
                                                                     int32_t, TVMFFIAny* result) { \
    FFI_SAFE_CALL_BEGIN();                                                                         \
    static const auto kMetadata =                                                                  \
        _ffi_export_info_##ExportName::Metadata(::ffi::ConstString(#ExportName));                  \
    std::string text = ::ffi::detail::ArgsExportMetadata<_ffi_export_info_##ExportName>(           \
        std::string_view(kMetadata), _ffi_export_args_##ExportName);                               \
    return ::ffi::detail::ReturnRuntimeString(text, result);                                       \
    FFI_SAFE_CALL_END();                                                                           \
  }

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_NAMED_ARGS_H_
