/*
 * ffi/function.h - Function: a reference-counted callable following the safe-call convention.
 *
 * A Function object is {TVMFFIObject, TVMFFIFunctionCell, ...}; calling it means calling
 * `cell->safe_call(object, args, num_args, result)`. Functions are made from packed callables
 * (`void(PackedArgs, Any*)`) or typed ones (`R(Args...)`, arguments checked and converted through
 * TypeTraits), looked up in the runtime's global registry, or loaded from a module. C++ exceptions
 * never leave a safe call: they become the thread's raised error and are rethrown by the caller.
 */
#ifndef FFI_FUNCTION_H_
#define FFI_FUNCTION_H_

#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "any.h"
#include "detail/type_schema.h"
#include "expected.h"
#include "optional.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

/*! \brief The object behind Function. */
class FunctionObj : public Object, public TVMFFIFunctionCell {
 public:
  FFI_DECLARE_STATIC_OBJECT_INFO("ffi.Function", FunctionObj, Object, kTVMFFIFunction);
};

/*! \brief The arguments of a packed call: borrowed values. */
class PackedArgs {
 public:
  PackedArgs(const AnyView* data, int32_t size) : data_(data), size_(size) {}
  /*! \brief Number of arguments. */
  int32_t size() const { return size_; }
  /*! \brief Argument `i` (unchecked). */
  const AnyView& operator[](int32_t i) const { return data_[i]; }
  /*! \brief The arguments as an ABI array. */
  const TVMFFIAny* raw() const { return reinterpret_cast<const TVMFFIAny*>(data_); }
  const AnyView* begin() const { return data_; }
  const AnyView* end() const { return data_ + size_; }
  /*! \brief Arguments [begin, end) (`end` -1: to the last), e.g. to forward all but the first. */
  PackedArgs Slice(int32_t begin, int32_t end = -1) const {
    return PackedArgs(data_ + begin, (end == -1 ? size_ : end) - begin);
  }
  /*!
   * \brief Views each of `args` in `data[0..]` (an array of at least sizeof...(args)); the
   * arguments must outlive the views.
   */
  template <typename... Args>
  static void Fill(AnyView* data, Args&&... args) {
    int32_t i = 0;
    ((data[i++] = AnyView(args)), ...);
    (void)data;
    (void)i;
  }

 private:
  const AnyView* data_;
  int32_t size_;
};

namespace detail {
/*!
 * \brief A FunctionObj around a C++ callable `F` with signature `void(PackedArgs, Any*)`, or
 * `void(const AnyView* args, int32_t num_args, Any*)` (TVM-FFI's raw form).
 */
template <typename F>
class PackedFunctionObj : public FunctionObj {
 public:
  explicit PackedFunctionObj(F callable) : callable_(std::move(callable)) {
    this->safe_call = SafeCall;
    this->cpp_call = nullptr;
  }

 private:
  static int SafeCall(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
    FFI_SAFE_CALL_BEGIN();
    auto* obj = static_cast<PackedFunctionObj*>(ObjectUnsafe::FromHeader(self));
    const AnyView* views = reinterpret_cast<const AnyView*>(args);
    if constexpr (std::is_invocable_v<F&, const AnyView*, int32_t, Any*>) {
      obj->callable_(views, num_args, reinterpret_cast<Any*>(result));
    } else {
      obj->callable_(PackedArgs(views, num_args), reinterpret_cast<Any*>(result));
    }
    FFI_SAFE_CALL_END();
  }
  F callable_;
};

/*! \brief The name of `T` in signatures: TypeStr, or "void". */
template <typename T>
constexpr auto SignatureTypeName() {
  if constexpr (std::is_void_v<T>) {
    return ConstString("void");
  } else {
    return TypeTraits<T>::TypeStr();
  }
}
/*! \brief ", 1: Tensor": argument `I` of type `T` in a signature. */
template <size_t I, typename T>
constexpr auto SignatureArg() {
  auto text = DecimalString<I>() + ": " + SignatureTypeName<T>();
  if constexpr (I == 0) {
    return text;
  } else {
    return ConstString(", ") + text;
  }
}
/*! \brief ", \"Tensor\"": argument type `I` as a JSON list item. */
template <size_t I, typename T>
constexpr auto JSONArgType() {
  auto text = ConstString("\"") + SignatureTypeName<T>() + "\"";
  if constexpr (I == 0) {
    return text;
  } else {
    return ConstString(", ") + text;
  }
}

/*! \brief Return and argument types of a callable. */
template <typename T>
struct FunctionInfo : FunctionInfo<decltype(&T::operator())> {};
template <typename R, typename... Args>
struct FunctionInfo<R(Args...)> {
  using RetType = R;
  using ArgTypes = std::tuple<std::decay_t<Args>...>;
  static constexpr int32_t kNumArgs = sizeof...(Args);
  /*! \brief "(0: int, 1: Tensor) -> void": the signature after the function's name. */
  static constexpr auto Signature() { return SignatureOf(std::index_sequence_for<Args...>{}); }
  /*! \brief The type schema, as the reference's metadata gives it. */
  static std::string TypeSchema() { return FunctionTypeSchema<R, std::decay_t<Args>...>(); }
  /*!
   * \brief What `__tvm_ffi__metadata_<name>` returns for a typed export: JSON with the signature,
   * the argument types and the return type, in TypeStr's vocabulary. Type names are identifiers,
   * so nothing needs escaping.
   */
  template <size_t N>
  static constexpr auto Metadata(const ConstString<N>& name) {
    return ConstString("{\"signature\": \"") + name + Signature() + "\", \"arg_types\": [" +
           ArgTypesJSON(std::index_sequence_for<Args...>{}) + "], \"return_type\": \"" +
           SignatureTypeName<std::decay_t<R>>() + "\"}";
  }

 private:
  template <size_t... I>
  static constexpr auto SignatureOf(std::index_sequence<I...>) {
    return (ConstString("(") + ... + SignatureArg<I, std::decay_t<Args>>()) + ") -> " +
           SignatureTypeName<std::decay_t<R>>();
  }
  template <size_t... I>
  static constexpr auto ArgTypesJSON(std::index_sequence<I...>) {
    return (ConstString("") + ... + JSONArgType<I, std::decay_t<Args>>());
  }
};
template <typename R, typename... Args>
struct FunctionInfo<R (*)(Args...)> : FunctionInfo<R(Args...)> {};
template <typename C, typename R, typename... Args>
struct FunctionInfo<R (C::*)(Args...) const> : FunctionInfo<R(Args...)> {};
template <typename C, typename R, typename... Args>
struct FunctionInfo<R (C::*)(Args...)> : FunctionInfo<R(Args...)> {};

/*!
 * \brief Info::Signature(), made once per function type, which error messages refer to: constant
 * data when every type name is a ConstString (no code runs), else made on first use.
 */
template <typename Info>
std::string_view SignatureText() {
  static const auto text = Info::Signature();
  return std::string_view(text);
}
/*! \brief TypeTraits<T>::TypeStr(), made once per type (see SignatureText). */
template <typename T>
std::string_view TypeStrText() {
  static const auto text = TypeTraits<T>::TypeStr();
  return std::string_view(text);
}

/*!
 * \brief Throws the TypeError for argument `i` of a typed call. One function for every argument
 * type and signature, kept out of line: only the failing call pays for it.
 */
[[noreturn]] inline void ThrowArgumentTypeError(const char* name, std::string_view signature,
                                                int32_t i, std::string_view expected,
                                                std::string_view got) {
  FFI_THROW(TypeError) << "Mismatched type on argument #" << i << " when calling: `" << name
                       << signature << "`. Expected `" << expected << "` but got `" << got << "`";
}
/*! \brief Throws the TypeError for a typed call given the wrong number of arguments. */
[[noreturn]] inline void ThrowArgumentCountError(const char* name, std::string_view signature,
                                                 int32_t expected, int32_t got) {
  FFI_THROW(TypeError) << "Mismatched number of arguments when calling: `" << name << signature
                       << "`. Expected " << expected << " but got " << got << " arguments";
}

/*! \brief Throws the TypeError for argument `i` (of type `T`) unless it `converted`. */
template <typename Info, typename T>
FFI_INLINE void CheckConverted(bool converted, const TVMFFIAny* args, int32_t i, const char* name) {
  if (FFI_UNLIKELY(!converted)) {
    ThrowArgumentTypeError(name, SignatureText<Info>(), i, TypeStrText<T>(),
                           MismatchTypeInfo<T>(&args[i]));
  }
}

/*! \brief Argument `I` of a typed call, converted (or empty when it did not convert). */
template <typename T, size_t I>
struct ConvertedArg {
  CastResult<T> value;
};
/*!
 * \brief All arguments of a typed call: an aggregate, so that each is built in place from its
 * conversion's result (a tuple would move each one in), left to right.
 */
template <typename Seq, typename... T>
struct ConvertedArgs;
template <size_t... I, typename... T>
struct ConvertedArgs<std::index_sequence<I...>, T...> : ConvertedArg<T, I>... {};
/*! \brief Argument `I` of a ConvertedArgs (its type deduced from the base). */
template <size_t I, typename T>
FFI_INLINE CastResult<T>& ConvertedAt(ConvertedArg<T, I>& arg) {
  return arg.value;
}

/*!
 * \brief Converts every argument, reports the first that did not convert, then calls `f` with the
 * converted values moved in: each argument is made once and moved once.
 */
template <typename Info, typename F, size_t... I>
void CallTypedImpl(const F& f, [[maybe_unused]] const char* name,
                   [[maybe_unused]] const TVMFFIAny* args, [[maybe_unused]] TVMFFIAny* result,
                   std::index_sequence<I...>) {
  using Args = typename Info::ArgTypes;
  using R = typename Info::RetType;
  // Brace initialisation converts left to right; the comma fold then checks in order.
  [[maybe_unused]] ConvertedArgs<std::index_sequence<I...>, std::tuple_element_t<I, Args>...>
      converted{{TypeTraits<std::tuple_element_t<I, Args>>::TryCastFromAnyView(&args[I])}...};
  (CheckConverted<Info, std::tuple_element_t<I, Args>>(ConvertedAt<I>(converted).has_value(), args,
                                                       I, name),
   ...);
  if constexpr (std::is_void_v<R>) {
    f(*std::move(ConvertedAt<I>(converted))...);
  } else {
    *result = Any(f(*std::move(ConvertedAt<I>(converted))...)).release();
  }
}

/*! \brief Checks arity, converts the arguments, calls `f` and stores its result. */
template <typename F>
void CallTyped(const F& f, const char* name, const TVMFFIAny* args, int32_t num_args,
               TVMFFIAny* result) {
  using Info = FunctionInfo<std::decay_t<F>>;
  if (FFI_UNLIKELY(num_args != Info::kNumArgs)) {
    ThrowArgumentCountError(name, SignatureText<Info>(), Info::kNumArgs, num_args);
  }
  CallTypedImpl<Info>(f, name, args, result, std::make_index_sequence<Info::kNumArgs>{});
}

/*!
 * \brief What `__tvm_ffi__metadata_<name>` returns for a typed export: `base` (Info::Metadata, the
 * signature, argument and return types, a compile-time constant) with "type_schema" added (the
 * function's type schema as a JSON string, the key the reference's tools read).
 */
template <typename Info>
std::string ExportMetadata(std::string_view base) {
  std::string out(base.substr(0, base.size() - 1));  // without the closing brace
  out += ", \"type_schema\": ";
  out += JSONString(Info::TypeSchema());
  out += '}';
  return out;
}

/*!
 * \brief Stores `text` in `*result` as a String the runtime allocates (so that it outlives the
 * library that made it); the safe-call return code.
 */
inline int ReturnRuntimeString(const std::string& text, TVMFFIAny* result) {
  TVMFFIByteArray bytes{text.data(), text.size()};
  return TVMFFIStringFromByteArray(&bytes, result);
}

/*! \brief The global function named `name`, or a null handle (the caller owns the reference). */
inline TVMFFIObjectHandle GetGlobalHandle(std::string_view name) {
  TVMFFIByteArray arr{name.data(), name.size()};
  TVMFFIObjectHandle handle = nullptr;
  FFI_CHECK_SAFE_CALL(TVMFFIFunctionGetGlobal(&arr, &handle));
  return handle;
}
}  // namespace detail

/*! \brief A reference to a callable; may be null. */
class Function : public ObjectRef {
 public:
  FFI_DEFINE_OBJECT_REF_METHODS(Function, ObjectRef, FunctionObj);

  /*!
   * \brief A function from `void(PackedArgs args, Any* result)`, or from
   * `void(const AnyView* args, int32_t num_args, Any* result)`.
   */
  template <typename F>
  static Function FromPacked(F packed) {
    return Function(make_object<detail::PackedFunctionObj<std::decay_t<F>>>(std::move(packed)));
  }

  /*!
   * \brief A function from a typed callable `R(Args...)`: calls check the argument count and
   * convert each argument, naming `name` and the signature in errors.
   */
  template <typename F>
  static Function FromTyped(F typed, std::string name = "") {
    return FromPacked(
        [typed = std::move(typed), name = std::move(name)](PackedArgs args, Any* result) {
          detail::CallTyped(typed, name.c_str(), args.raw(), args.size(),
                            reinterpret_cast<TVMFFIAny*>(result));
        });
  }

  /*!
   * \brief A function around a C callback (TVMFFIFunctionCreate): `safe_call(self, ...)` per call,
   * `deleter(self)` when the function dies.
   */
  static Function FromExternC(void* self, TVMFFISafeCallType safe_call,
                              void (*deleter)(void* self)) {
    TVMFFIObjectHandle handle = nullptr;
    FFI_CHECK_SAFE_CALL(TVMFFIFunctionCreate(self, safe_call, deleter, &handle));
    return detail::ObjectUnsafe::RefFromOwnedHeader<Function>(handle);
  }

  /*!
   * \brief Calls with `args` converted to borrowed values; the result is owned. Values with no
   * borrowed form (std::vector with extra/stl.h, ...) are converted into owned values that live
   * until the call returns.
   */
  template <typename... Args>
  Any operator()(Args&&... args) const {
    Any result;
    if constexpr ((detail::kHasView<Args> && ...)) {
      const AnyView packed[sizeof...(Args) + 1] = {AnyView(args)..., AnyView()};
      CallPacked(PackedArgs(packed, static_cast<int32_t>(sizeof...(Args))), &result);
    } else {
      Any owned[sizeof...(Args)];
      AnyView packed[sizeof...(Args)];
      size_t i = 0;
      auto pack = [&](auto&& arg) {
        if constexpr (detail::kHasView<decltype(arg)>) {
          packed[i] = AnyView(arg);
        } else {
          owned[i] = Any(std::forward<decltype(arg)>(arg));
          packed[i] = AnyView(owned[i]);
        }
        ++i;
      };
      (pack(std::forward<Args>(args)), ...);
      CallPacked(PackedArgs(packed, static_cast<int32_t>(sizeof...(Args))), &result);
    }
    return result;
  }

  /*!
   * \brief Calls without throwing: the result converted to `T`, or the error the call raised or
   * returned (a TypeError when the result is neither a `T` nor an Error).
   */
  template <typename T = Any, typename... Args>
  Expected<T> CallExpected(Args&&... args) const {
    const AnyView packed[sizeof...(Args) + 1] = {AnyView(args)..., AnyView()};
    Any result;
    const FunctionObj* f = get();
    if (FFI_UNLIKELY(f == nullptr)) return Error("ValueError", "Cannot call a null Function");
    int rc =
        f->safe_call(detail::ObjectUnsafe::Header(f), reinterpret_cast<const TVMFFIAny*>(packed),
                     static_cast<int32_t>(sizeof...(Args)), const_cast<TVMFFIAny*>(result.raw()));
    if (rc != 0) return detail::MoveFromSafeCallRaised();
    if (auto v = result.try_cast<Expected<T>>()) return *std::move(v);
    return Error("TypeError",
                 "CallExpected: result type mismatch, expected " +
                     std::string(std::string_view(TypeTraits<Expected<T>>::TypeStr())) +
                     ", but got " + result.GetTypeName());
  }

  /*!
   * \brief Calls a C function that follows the calling convention directly, without a Function
   * object: `safe_call(handle, args..., result)`, throwing the error it raises. For symbols a
   * library exports as `__tvm_ffi_<name>`.
   */
  template <typename... Args>
  static Any InvokeExternC(void* handle, TVMFFISafeCallType safe_call, Args&&... args) {
    const AnyView packed[sizeof...(Args) + 1] = {AnyView(args)..., AnyView()};
    Any result;
    FFI_CHECK_SAFE_CALL(safe_call(handle, reinterpret_cast<const TVMFFIAny*>(packed),
                                  static_cast<int32_t>(sizeof...(Args)),
                                  const_cast<TVMFFIAny*>(result.raw())));
    return result;
  }

  /*! \brief Calls with packed arguments, storing the result in `*result`. */
  void CallPacked(PackedArgs args, Any* result) const {
    const FunctionObj* f = get();
    if (FFI_UNLIKELY(f == nullptr)) FFI_THROW(ValueError) << "Cannot call a null Function";
    TVMFFIObject* self = detail::ObjectUnsafe::Header(f);
    result->reset();
    FFI_CHECK_SAFE_CALL(
        f->safe_call(self, args.raw(), args.size(), const_cast<TVMFFIAny*>(result->raw())));
  }
  /*! \brief CallPacked on `num_args` views at `args` (the reference's spelling). */
  void CallPacked(const AnyView* args, int32_t num_args, Any* result) const {
    CallPacked(PackedArgs(args, num_args), result);
  }

  /*! \brief The global function `name`, or nothing. */
  static Optional<Function> GetGlobal(std::string_view name) {
    TVMFFIObjectHandle handle = detail::GetGlobalHandle(name);
    if (handle == nullptr) return std::nullopt;
    return detail::ObjectUnsafe::RefFromOwnedHeader<Function>(handle);
  }
  /*! \brief The global function `name`; throws ValueError when there is none. */
  static Function GetGlobalRequired(std::string_view name) {
    Optional<Function> f = GetGlobal(name);
    if (!f.has_value())
      FFI_THROW(ValueError) << "Global function `" << name << "` is not registered";
    return *f;
  }
  /*! \brief Registers `f` as global function `name`; an existing name needs `allow_override`. */
  static void SetGlobal(std::string_view name, const Function& f, bool allow_override = false) {
    TVMFFIByteArray arr{name.data(), name.size()};
    FFI_CHECK_SAFE_CALL(
        TVMFFIFunctionSetGlobal(&arr, detail::ObjectUnsafe::HeaderOf(f), allow_override ? 1 : 0));
  }
  /*! \brief Removes global function `name`; returns whether it existed. */
  static bool RemoveGlobal(std::string_view name) {
    return GetGlobalRequired("ffi.FunctionRemoveGlobal")(String(name)).cast<bool>();
  }
  /*!
   * \brief Calls `visit(String name)` for the name of every global function, in sorted order
   * (a visitor rather than a returned std::vector, so that kernels need not parse <vector>).
   */
  template <typename F>
  static void ListGlobalNames(F&& visit) {
    Function names = GetGlobalRequired("ffi.FunctionListGlobalNamesFunctor")().cast<Function>();
    int64_t n = names(int64_t{-1}).cast<int64_t>();
    for (int64_t i = 0; i < n; ++i) visit(names(i).cast<String>());
  }
};

template <typename Signature>
class TypedFunction;

/*!
 * \brief A Function with a C++ signature: `TypedFunction<int(int)> f = [](int x) { return x + 1;
 * };` then `int y = f(1);`. Calls go through the packed convention (so the function may come from
 * any library or host), and the result is converted to `R` (TypeError when it does not convert).
 * Converts to and from Function and travels in an Any as one.
 */
template <typename R, typename... Args>
class TypedFunction<R(Args...)> {
 public:
  /*! \brief A null function. */
  TypedFunction() = default;
  TypedFunction(std::nullptr_t) {}
  /*! \brief Views `packed` with this signature (checked at each call, not here). */
  TypedFunction(Function packed) : packed_(std::move(packed)) {}
  /*! \brief Wraps a callable with this signature; `name` is used in argument errors. */
  template <typename F,
            typename = std::enable_if_t<std::is_invocable_r_v<R, F&, Args...> &&
                                        !std::is_base_of_v<ObjectRef, std::decay_t<F>> &&
                                        !std::is_same_v<std::decay_t<F>, TypedFunction>>>
  TypedFunction(F typed, std::string name = "")
      : packed_(Function::FromTyped(
            [f = std::move(typed)](Args... args) -> R { return f(std::forward<Args>(args)...); },
            std::move(name))) {}

  /*! \brief Calls the function and converts its result to `R`. */
  R operator()(Args... args) const {
    if constexpr (std::is_void_v<R>) {
      packed_(std::forward<Args>(args)...);
    } else {
      return packed_(std::forward<Args>(args)...).template cast<R>();
    }
  }
  /*! \brief The underlying packed function. */
  const Function& packed() const& { return packed_; }
  Function&& packed() && { return std::move(packed_); }
  operator Function() const { return packed_; }
  /*! \brief Whether the function is null. */
  bool operator==(std::nullptr_t) const { return !packed_.defined(); }
  bool operator!=(std::nullptr_t) const { return packed_.defined(); }
  /*! \brief The signature's type schema (ffi.Function with its return and parameter types). */
  static std::string TypeSchema() { return detail::FunctionTypeSchema<R, Args...>(); }

 private:
  Function packed_;
};

/*! \brief A TypedFunction is stored as its Function. */
template <typename R, typename... Args>
struct TypeTraits<TypedFunction<R(Args...)>> : TypeTraitsBase {
  using Self = TypedFunction<R(Args...)>;
  static constexpr int32_t field_static_type_index = kTVMFFIFunction;
  static void CopyToAnyView(const Self& v, TVMFFIAny* out) {
    TypeTraits<Function>::CopyToAnyView(v.packed(), out);
  }
  static void MoveToAny(Self v, TVMFFIAny* out) {
    TypeTraits<Function>::MoveToAny(std::move(v).packed(), out);
  }
  static bool CheckAnyStrict(const TVMFFIAny* src) {
    return TypeTraits<Function>::CheckAnyStrict(src);
  }
  static detail::CastResult<Self> TryCastFromAnyView(const TVMFFIAny* src) {
    if (auto f = TypeTraits<Function>::TryCastFromAnyView(src)) return Self(*std::move(f));
    return std::nullopt;
  }
  static constexpr auto TypeStr() { return TypeTraits<Function>::TypeStr(); }
  static std::string TypeSchema() { return Self::TypeSchema(); }
};

#define FFI_STATIC_INIT_BLOCK_IMPL_(Fn)                                    \
  static void Fn();                                                        \
  [[maybe_unused]] static const int FFI_STR_CONCAT(Fn, _done) = (Fn(), 0); \
  static void Fn()
/*! \brief A block run once when the library is loaded: `FFI_STATIC_INIT_BLOCK() { ... }`. */
#define FFI_STATIC_INIT_BLOCK() \
  FFI_STATIC_INIT_BLOCK_IMPL_(FFI_STR_CONCAT(_ffi_static_init_, __COUNTER__))

/*!
 * \brief Exports typed callable `Function` from a shared library as the C symbol
 * `__tvm_ffi_<ExportName>` following the safe-call convention, so any host of the ABI can load it
 * by name. Argument errors name `ExportName` and the signature. Also exports
 * `__tvm_ffi__metadata_<ExportName>`, returning the signature as JSON for hosts to show. Ends with
 * a function definition, so it may be written with or without a trailing semicolon.
 */
#define FFI_DLL_EXPORT_TYPED_FUNC(ExportName, Function)                                            \
  namespace {                                                                                      \
  const auto _ffi_export_##ExportName = Function;                                                  \
  }                                                                                                \
  extern "C" TVM_FFI_DLL_EXPORT int __tvm_ffi_##ExportName(void*, const TVMFFIAny* args,           \
                                                           int32_t num_args, TVMFFIAny* result) {  \
    FFI_SAFE_CALL_BEGIN();                                                                         \
    ::ffi::detail::CallTyped(_ffi_export_##ExportName, #ExportName, args, num_args, result);       \
    FFI_SAFE_CALL_END();                                                                           \
  }                                                                                                \
  extern "C" TVM_FFI_DLL_EXPORT int __tvm_ffi__metadata_##ExportName(void*, const TVMFFIAny*,      \
                                                                     int32_t, TVMFFIAny* result) { \
    FFI_SAFE_CALL_BEGIN();                                                                         \
    using Info = ::ffi::detail::FunctionInfo<std::decay_t<decltype(_ffi_export_##ExportName)>>;    \
    static const auto kMetadata = Info::Metadata(::ffi::ConstString(#ExportName));                 \
    return ::ffi::detail::ReturnRuntimeString(                                                     \
        ::ffi::detail::ExportMetadata<Info>(std::string_view(kMetadata)), result);                 \
    FFI_SAFE_CALL_END();                                                                           \
  }

/*!
 * \brief Exports `DocString` as the documentation of export `ExportName`: the C symbol
 * `__tvm_ffi__doc_<ExportName>`, which hosts read for `help()` and stubs
 * (`Module.get_function_doc`).
 */
#define FFI_DLL_EXPORT_TYPED_FUNC_DOC(ExportName, DocString)                                      \
  extern "C" TVM_FFI_DLL_EXPORT int __tvm_ffi__doc_##ExportName(void*, const TVMFFIAny*, int32_t, \
                                                                TVMFFIAny* result) {              \
    FFI_SAFE_CALL_BEGIN();                                                                        \
    return ::ffi::detail::ReturnRuntimeString(DocString, result);                                 \
    FFI_SAFE_CALL_END();                                                                          \
  }

/*! \brief The type index of registered type `type_key`; KeyError when there is none. */
inline int32_t TypeKeyToIndex(std::string_view type_key) {
  TVMFFIByteArray key{type_key.data(), type_key.size()};
  int32_t type_index = -1;
  FFI_CHECK_SAFE_CALL(TVMFFITypeKeyToIndex(&key, &type_index));
  return type_index;
}

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_FUNCTION_H_
