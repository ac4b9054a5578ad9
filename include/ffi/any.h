/*
 * ffi/any.h - AnyView (a borrowed TVMFFIAny) and Any (an owned one).
 *
 * Both wrap exactly one TVMFFIAny, so arrays of them are arrays of the ABI value. Reading a value
 * out goes through TypeTraits<T>:
 *   as<T>()        std::optional<T>, only when the value is stored exactly as a T (for an Object
 *                  type, `as<MyObj>()`: a borrowed `const MyObj*`, or nullptr);
 *   try_cast<T>()  std::optional<T>, allowing the conversions TypeTraits<T> permits (int -> float);
 *   cast<T>()      T, or a TypeError naming both types.
 */
#ifndef FFI_ANY_H_
#define FFI_ANY_H_

#include <optional>
#include <string>
#include <utility>

#include "error.h"
#include "string.h"
#include "type_traits.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

class Any;
class AnyView;

/*! \brief Any converts from every value (an owned copy). */
template <>
struct TypeTraits<Any> : TypeTraitsBase {
  static bool CheckAnyStrict(const TVMFFIAny*) { return true; }
  static detail::CastResult<Any> TryCastFromAnyView(const TVMFFIAny* src);
  static constexpr auto TypeStr() { return ConstString("Any"); }
  static std::string TypeSchema() { return detail::SchemaOfKey("Any"); }
};

/*! \brief AnyView converts from every value (a borrowed view). */
template <>
struct TypeTraits<AnyView> : TypeTraitsBase {
  static bool CheckAnyStrict(const TVMFFIAny*) { return true; }
  static detail::CastResult<AnyView> TryCastFromAnyView(const TVMFFIAny* src);
  static constexpr auto TypeStr() { return ConstString("AnyView"); }
  static std::string TypeSchema() { return detail::SchemaOfKey("Any"); }
};

namespace detail {
/*! \brief Whether `T` has conversions; Any and AnyView handle themselves. */
template <typename T>
using TraitsType = std::remove_cv_t<std::remove_reference_t<T>>;
/*! \brief Whether `T` has conversions (arrays such as string literals keep their own traits). */
template <typename T>
constexpr bool kHasTraits = TypeTraits<TraitsType<T>>::enabled;
/*!
 * \brief Whether a `T` can be viewed without a conversion that allocates (TypeTraits<T> has
 * CopyToAnyView). Values of other convertible types (std::vector, ...) must be stored in an Any.
 */
template <typename T, typename = void>
constexpr bool kHasView = false;
template <typename T>
constexpr bool kHasView<T, std::void_t<decltype(TypeTraits<TraitsType<T>>::CopyToAnyView(
                               std::declval<const TraitsType<T>&>(), nullptr))>> = true;

/*! \brief Shared reading methods of Any and AnyView. */
template <typename Derived>
class AnyReader {
 public:
  /*! \brief The type index of the value. */
  int32_t type_index() const { return raw()->type_index; }
  /*! \brief Whether the value is None. */
  bool is_none() const { return raw()->type_index == kTVMFFINone; }
  /*! \brief The name of the value's type, as used in error messages ("int", "Tensor", ...). */
  std::string GetTypeName() const { return TypeIndexToName(raw()->type_index); }
  /*! \brief The registered type key of the value's type ("int", "ffi.Tensor", ...). */
  std::string GetTypeKey() const { return TypeIndexToTypeKey(raw()->type_index); }

  /*! \brief The value when it is stored exactly as a `T`, else nullopt. */
  template <typename T, std::enable_if_t<!std::is_base_of_v<Object, T>, int> = 0>
  std::optional<T> as() const {
    if (!TypeTraits<T>::CheckAnyStrict(raw())) return std::nullopt;
    return try_cast<T>();
  }
  /*!
   * \brief The object when the value holds a `T` (an Object type: `as<MyObj>()`), borrowed from
   * the value, else nullptr.
   */
  template <typename T, std::enable_if_t<std::is_base_of_v<Object, T>, int> = 0>
  const T* as() const {
    if (raw()->type_index < kTVMFFIStaticObjectBegin) return nullptr;
    const Object* obj = detail::ObjectUnsafe::FromHeader(raw()->v_obj);
    return obj->IsInstance<T>() ? static_cast<const T*>(obj) : nullptr;
  }
  /*! \brief The value when it is stored exactly as a `T` (as `as`); TypeError otherwise. */
  template <typename T>
  T as_or_throw() const {
    std::optional<T> v = as<T>();
    if (FFI_UNLIKELY(!v.has_value())) {
      FFI_THROW(TypeError) << "Cannot treat type `" << detail::MismatchTypeInfo<T>(raw())
                           << "` as type `" << TypeTraits<T>::TypeStr() << "`";
    }
    return *std::move(v);
  }
  /*! \brief The value converted to `T` when permitted, else nullopt. */
  template <typename T>
  std::optional<T> try_cast() const {
    if (auto v = TypeTraits<T>::TryCastFromAnyView(raw())) return *std::move(v);
    return std::nullopt;
  }
  /*! \brief The value converted to `T`; throws TypeError when it cannot be. */
  template <typename T>
  T cast() const& {
    auto v = TypeTraits<T>::TryCastFromAnyView(raw());
    if (FFI_UNLIKELY(!v.has_value())) {
      FFI_THROW(TypeError) << "Cannot convert from type `" << detail::MismatchTypeInfo<T>(raw())
                           << "` to `" << TypeTraits<T>::TypeStr() << "`";
    }
    return *std::move(v);
  }
  /*! \brief The ABI value. */
  const TVMFFIAny* raw() const { return &static_cast<const Derived*>(this)->data_; }

  /*! \brief `v == nullptr` holds exactly when the value is None (as in TVM-FFI). */
  friend bool operator==(const Derived& v, std::nullptr_t) { return v.is_none(); }
  friend bool operator==(std::nullptr_t, const Derived& v) { return v.is_none(); }
  friend bool operator!=(const Derived& v, std::nullptr_t) { return !v.is_none(); }
  friend bool operator!=(std::nullptr_t, const Derived& v) { return !v.is_none(); }
};
}  // namespace detail

/*! \brief A borrowed value: whatever it refers to must outlive it. */
class AnyView : public detail::AnyReader<AnyView> {
 public:
  /*! \brief None. */
  AnyView() { detail::SetNone(&data_); }
  /*! \brief A view of `v`. */
  template <typename T, typename = std::enable_if_t<detail::kHasTraits<T> && detail::kHasView<T>>>
  AnyView(const T& v) {
    TypeTraits<detail::TraitsType<T>>::CopyToAnyView(v, &data_);
  }
  /*!
   * \brief A view of an owned value; valid while that value lives. A temporary Any is accepted,
   * as TVM-FFI accepts it (`AnyView v = array[i];`): the view stays valid while whoever else holds
   * the value (the Array) does, and dangles if the temporary held the only reference.
   */
  AnyView(const Any& v);
  /*! \brief Wraps an ABI value without taking a reference. */
  static AnyView FromRaw(const TVMFFIAny& v) {
    AnyView out;
    out.data_ = v;
    return out;
  }
  /*! \brief A view of `v` (TVM-FFI's spelling of FromRaw). */
  static AnyView CopyFromTVMFFIAny(TVMFFIAny v) { return FromRaw(v); }
  /*! \brief The ABI value, borrowed like the view itself (TVM-FFI's spelling of `*raw()`). */
  TVMFFIAny CopyToTVMFFIAny() const { return data_; }

 private:
  TVMFFIAny data_;
  friend class detail::AnyReader<AnyView>;
  friend class Any;
};

/*! \brief An owned value: holds one strong reference when it contains an object. */
class Any : public detail::AnyReader<Any> {
 public:
  /*! \brief None. */
  Any() { detail::SetNone(&data_); }
  Any(const Any& other) : data_(other.data_) {
    if (data_.type_index >= kTVMFFIStaticObjectBegin) detail::ObjectUnsafe::IncRef(data_.v_obj);
  }
  Any(Any&& other) noexcept : data_(other.data_) { detail::SetNone(&other.data_); }
  /*! \brief An owned copy of a borrowed value (C strings become String, objects gain a ref). */
  Any(const AnyView& view);
  /*! \brief Stores `v`. */
  template <typename T, typename = std::enable_if_t<detail::kHasTraits<T> &&
                                                    !std::is_same_v<std::decay_t<T>, Any> &&
                                                    !std::is_same_v<std::decay_t<T>, AnyView>>>
  Any(T&& v) {
    using U = std::decay_t<T>;  // string literals decay to const char*
    if constexpr (std::is_same_v<U, DLTensor*>) {
      // A view cannot be owned. A runtime error rather than a compile-time one, because code
      // written for the reference compiles typed functions returning one (never called).
      FFI_THROW(RuntimeError) << "a DLTensor* cannot be held in an Any: it does not own the "
                                 "tensor (return a Tensor instead)";
    } else {
      TypeTraits<U>::MoveToAny(U(std::forward<T>(v)), &data_);
    }
  }
  ~Any() { reset(); }
  using detail::AnyReader<Any>::cast;
  /*!
   * \brief cast<T>() from an Any about to go (`std::move(any).cast<T>()`): the Any is left None,
   * so an object it held is not shared with it (the result may be its only reference).
   */
  template <typename T>
  T cast() && {
    T out = static_cast<const Any&>(*this).cast<T>();
    reset();
    return out;
  }
  Any& operator=(Any other) noexcept {
    std::swap(data_, other.data_);
    return *this;
  }
  /*! \brief Drops the value, leaving None. */
  void reset() {
    if (data_.type_index >= kTVMFFIStaticObjectBegin) detail::ObjectUnsafe::DecRef(data_.v_obj);
    detail::SetNone(&data_);
  }
  /*! \brief Takes ownership of an owned ABI value. */
  static Any FromRaw(TVMFFIAny owned) {
    Any out;
    out.data_ = owned;
    return out;
  }
  /*! \brief Gives up ownership of the ABI value (the caller must release it). */
  TVMFFIAny release() {
    TVMFFIAny out = data_;
    detail::SetNone(&data_);
    return out;
  }

 private:
  TVMFFIAny data_;
  friend class detail::AnyReader<Any>;
  friend class AnyView;
};

inline AnyView::AnyView(const Any& v) : data_(v.data_) {}

namespace detail {
/*!
 * \brief The owned copy of a borrowed ABI value; the one implementation behind Any(AnyView) and
 * TVMFFIAnyViewToOwnedAny.
 */
inline void ViewToOwned(const TVMFFIAny& view, TVMFFIAny* out) {
  // A pointer payload may be null (a C caller can pass one); nothing is read through it then.
  switch (view.type_index) {
    case kTVMFFIRawStr:
      // Like a null const char* converted to a value: None.
      if (view.v_c_str == nullptr) return SetNone(out);
      BytesToAny<StringObj>(view.v_c_str, kTVMFFISmallStr, out);
      return;
    case kTVMFFIByteArrayPtr: {
      auto* bytes = static_cast<const TVMFFIByteArray*>(view.v_ptr);
      if (bytes == nullptr || (bytes->data == nullptr && bytes->size != 0)) {
        FFI_THROW(ValueError) << "Cannot take ownership of a NULL byte array";
      }
      BytesToAny<BytesObj>(ByteView(*bytes), kTVMFFISmallBytes, out);
      return;
    }
    case kTVMFFISmallStr:
    case kTVMFFISmallBytes:
      // The length says how many of the 8 payload bytes are used; more would read past them.
      if (view.small_str_len > 7) {
        FFI_THROW(ValueError) << "Malformed small string: length " << view.small_str_len
                              << " exceeds 7";
      }
      *out = view;
      return;
    case kTVMFFIObjectRValueRef: {
      // The payload points at an object handle the callee may move from.
      if (view.v_ptr == nullptr) {
        FFI_THROW(ValueError) << "Cannot take ownership of an object through a NULL reference";
      }
      auto** slot = static_cast<TVMFFIObject**>(view.v_ptr);
      TVMFFIObject* obj = *slot;
      *slot = nullptr;
      if (obj == nullptr) return SetNone(out);
      out->type_index = obj->type_index;
      out->zero_padding = 0;
      out->v_obj = obj;
      return;
    }
    case kTVMFFIDLTensorPtr:
      FFI_THROW(TypeError) << "Cannot take ownership of a borrowed DLTensor*; only a Tensor object "
                              "can be owned";
    default:
      if (view.type_index >= kTVMFFIStaticObjectBegin && view.v_obj == nullptr) {
        FFI_THROW(ValueError) << "Malformed value: type index " << view.type_index
                              << " with a NULL object";
      }
      *out = view;
      if (view.type_index >= kTVMFFIStaticObjectBegin) ObjectUnsafe::IncRef(view.v_obj);
  }
}
}  // namespace detail

inline Any::Any(const AnyView& view) { detail::ViewToOwned(view.data_, &data_); }

inline detail::CastResult<Any> TypeTraits<Any>::TryCastFromAnyView(const TVMFFIAny* src) {
  return Any(AnyView::FromRaw(*src));
}
inline detail::CastResult<AnyView> TypeTraits<AnyView>::TryCastFromAnyView(const TVMFFIAny* src) {
  return AnyView::FromRaw(*src);
}

namespace detail {
/*!
 * \brief Unchecked moves between Any and the ABI value, and casts whose check the caller already
 * made: TVM-FFI's `details::AnyUnsafe`, for code written against it. Prefer Any's own methods.
 */
struct AnyUnsafe : ObjectUnsafe {
  /*! \brief Moves the value out of `any` (left None); the caller owns the result. */
  static TVMFFIAny MoveAnyToTVMFFIAny(Any&& any) { return any.release(); }
  /*! \brief Takes ownership of `*data`, leaving it None. */
  static Any MoveTVMFFIAnyToAny(TVMFFIAny* data) {
    Any out = Any::FromRaw(*data);
    SetNone(data);
    return out;
  }
  /*! \brief Takes ownership of an owned ABI value. */
  static Any MoveTVMFFIAnyRawToAny(TVMFFIAny raw) { return Any::FromRaw(raw); }
  /*! \brief Whether the value is stored exactly as a `T`. */
  template <typename T>
  static bool CheckAnyStrict(const Any& ref) {
    return TypeTraits<T>::CheckAnyStrict(ref.raw());
  }
  /*! \brief Whether the viewed value is stored exactly as a `T`. */
  template <typename T>
  static bool CheckAnyViewStrict(const AnyView& ref) {
    return TypeTraits<T>::CheckAnyStrict(ref.raw());
  }
  /*! \brief The value as a `T`, after CheckAnyStrict said it is one. */
  template <typename T>
  static T CopyFromAnyViewAfterCheck(const Any& ref) {
    return *TypeTraits<T>::TryCastFromAnyView(ref.raw());
  }
  /*! \brief The value moved out as a `T`, after CheckAnyStrict said it is one. */
  template <typename T>
  static T MoveFromAnyAfterCheck(Any&& ref) {
    T out = CopyFromAnyViewAfterCheck<T>(ref);
    ref.reset();
    return out;
  }
  /*! \brief The object an Any holds, after a check that it holds a `TObject`. */
  template <typename TObject = Object>
  static TObject* RawObjectPtrFromAnyAfterCheck(const Any& ref) {
    return static_cast<TObject*>(FromHeader(ref.raw()->v_obj));
  }
  /*! \brief The object an AnyView refers to, after a check that it is a `TObject`. */
  template <typename TObject = Object>
  static TObject* RawObjectPtrFromAnyViewAfterCheck(const AnyView& ref) {
    return static_cast<TObject*>(FromHeader(ref.raw()->v_obj));
  }
  /*! \brief The ABI value inside an Any (still owned by it). */
  static const TVMFFIAny* TVMFFIAnyPtrFromAny(const Any& ref) { return ref.raw(); }
  /*! \brief How the value is described when it does not convert to `T`. */
  template <typename T>
  static std::string GetMismatchTypeInfo(const Any& ref) {
    return MismatchTypeInfo<T>(ref.raw());
  }
};
}  // namespace detail

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_ANY_H_
