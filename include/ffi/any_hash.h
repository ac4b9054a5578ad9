/*
 * ffi/any_hash.h - AnyHash and AnyEqual: how map keys are hashed and compared.
 *
 * Maps built by libraries compiled against either implementation's headers are read inline by the
 * other, so these functions are part of the ABI: they compute exactly the values TVM-FFI 0.1.x
 * computes. Strings and bytes go by content (a small inline string and a string object with the
 * same bytes are one key), every other value by its 16-byte ABI form (ints and floats by value,
 * objects by address), unless an object type registered its own "__any_hash__" /
 * "__any_equal__" type attribute.
 */
#ifndef FFI_ANY_HASH_H_
#define FFI_ANY_HASH_H_

#include <cstdint>
#include <cstring>

#include "any.h"
#include "detail/attr_column.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {
namespace detail {

/*! \brief Mixes `value` into `key` (the convention's platform-independent combiner). */
inline uint64_t StableHashCombine(uint64_t key, uint64_t value) {
  return key ^ (value + 0x9e3779b9 + (key << 6) + (key >> 2));
}

/*! \brief Up to 8 bytes read as a little-endian word, missing high bytes zero. */
inline uint64_t LoadLittleEndian(const unsigned char* p, size_t n) {
  uint64_t word = 0;
  for (size_t i = 0; i < n; ++i) word |= static_cast<uint64_t>(p[i]) << (8 * i);
  return word;
}

/*!
 * \brief The convention's hash of a byte string: little-endian 8-byte words (the last one
 * zero-padded) folded as `h = (h * 1099511628211 + word) mod (2^31 - 1)`, the multiplication
 * wrapping at 64 bits.
 */
inline uint64_t StableHashBytes(const void* data, size_t size) {
  constexpr uint64_t kMultiplier = 1099511628211ULL;
  constexpr uint64_t kMod = 2147483647ULL;
  const unsigned char* p = static_cast<const unsigned char*>(data);
  uint64_t h = 0;
  size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    uint64_t word;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    std::memcpy(&word, p + i, 8);
#else
    word = LoadLittleEndian(p + i, 8);
#endif
    h = (h * kMultiplier + word) % kMod;
  }
  if (i < size) h = (h * kMultiplier + LoadLittleEndian(p + i, size - i)) % kMod;
  return h;
}

/*! \brief Whether `index` is a string or bytes kind, inline or object. */
inline bool IsBytesLike(int32_t index) {
  return index == kTVMFFISmallStr || index == kTVMFFIStr || index == kTVMFFISmallBytes ||
         index == kTVMFFIBytes;
}

/*! \brief The bytes of a string or bytes value (inline or object). */
inline std::string_view BytesOfAny(const TVMFFIAny& v) {
  if (v.type_index == kTVMFFISmallStr || v.type_index == kTVMFFISmallBytes) {
    return std::string_view(v.v_bytes, v.small_str_len);
  }
  return ByteView(*TVMFFIBytesGetByteArrayPtr(v.v_obj));
}

/*! \brief The attribute column named `name`, looked up once per process (as the convention). */
inline const TVMFFITypeAttrColumn* LookupColumn(const char* name) {
  TVMFFIByteArray key{name, std::strlen(name)};
  return TVMFFIGetTypeAttrColumn(&key);
}

/*! \brief The custom hook registered for an object's type in `column`, or null. */
inline const TVMFFIAny* CustomHook(const TVMFFITypeAttrColumn* column, int32_t type_index) {
  const TVMFFIAny* hook = column != nullptr ? AttrColumnSlot(column, type_index) : nullptr;
  return hook == nullptr || hook->type_index == kTVMFFINone ? nullptr : hook;
}

/*!
 * \brief Native hooks (an opaque pointer in the column) come in two conventions. Reference
 * releases before 0.1.15, and every library built against them (TVM 0.27 among them), register
 * `int64_t(const Any&)` and `bool(const Any&, const Any&)`; 0.1.15 and these headers register
 * `TVMFFIAny(...) noexcept`, returning an Int or Bool, or an Error. On the SysV x86-64 and AAPCS64
 * ABIs both kinds return in registers (the record in two, a scalar in the first), so a hook is
 * called the new way and the first word of what comes back tells the conventions apart: see
 * HashFromNative and EqualFromNative. Elsewhere (Windows returns a record through memory) only the
 * new convention is served.
 */
#if (defined(__x86_64__) || defined(__aarch64__)) && !defined(_WIN32)
#define FFI_DETAIL_OLD_NATIVE_HOOKS 1
#endif

#if defined(__clang__)
// A hook of the old convention is called through the new type: -fsanitize=function must not stop
// the call (the two are one call on these ABIs; see above).
#define FFI_DETAIL_NO_SANITIZE_FUNCTION __attribute__((no_sanitize("function")))
#else
#define FFI_DETAIL_NO_SANITIZE_FUNCTION
#endif

/*! \brief Calls the native hook `fn` with `n` (1 or 2) values; returns its raw result registers. */
FFI_DETAIL_NO_SANITIZE_FUNCTION inline TVMFFIAny CallNativeHook(void* fn, const TVMFFIAny* args,
                                                                int32_t n) {
  // The native form takes its values as `const Any&` (kAnyHash, kAnyEqual); an Any is its 16-byte
  // ABI value.
  const Any* values = reinterpret_cast<const Any*>(args);
  if (n == 1) return reinterpret_cast<TVMFFIAny (*)(const Any&) noexcept>(fn)(values[0]);
  return reinterpret_cast<TVMFFIAny (*)(const Any&, const Any&) noexcept>(fn)(values[0], values[1]);
}

/*! \brief The first 8 bytes of `v` (the first result register of a native hook). */
inline uint64_t FirstWord(const TVMFFIAny& v) {
  uint64_t word;
  std::memcpy(&word, &v, sizeof(word));
  return word;
}

/*! \brief Whether a native equality hook's result is an old-convention `bool` (its low byte is
 * 0 or 1; a new-convention result starts with kTVMFFIBool or kTVMFFIError, neither 0 nor 1). */
inline bool IsOldEqualResult(const TVMFFIAny& r) {
#ifdef FFI_DETAIL_OLD_NATIVE_HOOKS
  return (FirstWord(r) & 0xFF) <= 1;
#else
  (void)r;
  return false;
#endif
}

/*! \brief Throws the Error object a new-convention hook returned (owned). */
[[noreturn]] inline void ThrowHookError(const TVMFFIAny& r) {
  throw Error(ObjectUnsafe::RefFromOwnedHeader<Error>(r.v_obj));
}

/*! \brief Whether the native equality hook `eq` follows the old convention (asked with `v`, `v`).
 */
inline bool IsOldEqualHook(void* eq, const TVMFFIAny& v) {
  TVMFFIAny args[2] = {v, v};
  TVMFFIAny r = CallNativeHook(eq, args, 2);
  if (IsOldEqualResult(r)) return true;
  if (r.type_index == kTVMFFIError) TVMFFIObjectDecRef(r.v_obj);  // the question failed: new.
  return false;
}

/*! \brief The native equality hook of type `type_index`, or null (none, or a Function). */
inline void* NativeEqualHook(int32_t type_index) {
  static const TVMFFITypeAttrColumn* column = LookupColumn("__any_equal__");
  const TVMFFIAny* hook = CustomHook(column, type_index);
  return hook != nullptr && hook->type_index == kTVMFFIOpaquePtr ? hook->v_ptr : nullptr;
}

/*!
 * \brief The hash a native hash hook gives `v`. An old hook's result is the hash itself; a new
 * one's starts with the word kTVMFFIInt (then the hash) or kTVMFFIError. An old hash that equals
 * one of those two words is told apart by the type's native equality hook, which
 * `native_equal_hook(type_index)` finds (null: none, so the hook is taken as new).
 */
inline uint64_t HashFromNative(void* fn, const TVMFFIAny& v,
                               void* (*native_equal_hook)(int32_t) = NativeEqualHook) {
  TVMFFIAny r = CallNativeHook(fn, &v, 1);
#ifdef FFI_DETAIL_OLD_NATIVE_HOOKS
  uint64_t first = FirstWord(r);
  bool maybe_new =
      first == static_cast<uint64_t>(kTVMFFIInt) || first == static_cast<uint64_t>(kTVMFFIError);
  if (!maybe_new) return first;
  if (void* eq = native_equal_hook(v.type_index); eq != nullptr && IsOldEqualHook(eq, v)) {
    // An old hook that happened to return the error word returned no object: nothing to release.
    return first;
  }
#else
  static_cast<void>(native_equal_hook);  // only the old convention needs it
#endif
  if (r.type_index == kTVMFFIError) ThrowHookError(r);
  return static_cast<uint64_t>(r.v_int64);
}

/*! \brief Whether the native equality hook `fn` finds `a` and `b` equal (either convention). */
inline bool EqualFromNative(void* fn, const TVMFFIAny& a, const TVMFFIAny& b) {
  TVMFFIAny args[2] = {a, b};
  TVMFFIAny r = CallNativeHook(fn, args, 2);
  if (IsOldEqualResult(r)) return (FirstWord(r) & 0xFF) != 0;
  if (r.type_index == kTVMFFIError) ThrowHookError(r);
  return r.v_int64 != 0;
}

/*! \brief Calls a Function-object hook with `n` values; returns its owned result, or throws. */
inline TVMFFIAny CallFunctionHook(const TVMFFIAny& hook, const TVMFFIAny* args, int32_t n) {
  TVMFFIAny result;
  SetNone(&result);
  if (TVMFFIFunctionCall(hook.v_obj, const_cast<TVMFFIAny*>(args), n, &result) != 0) {
    TVMFFIObjectHandle err = nullptr;
    TVMFFIErrorMoveFromRaised(&err);
    result.type_index = kTVMFFIError;
    result.v_obj = static_cast<TVMFFIObject*>(err);
  }
  if (result.type_index == kTVMFFIError) ThrowHookError(result);
  return result;
}

}  // namespace detail

/*! \brief Hash of a value as a map key, equal to TVM-FFI's for every value. */
struct AnyHash {
  /*! \brief The hash of the ABI value `v`. */
  uint64_t operator()(const TVMFFIAny& v) const {
    switch (v.type_index) {
      case kTVMFFISmallStr:
        // An inline string hashes as the string object with the same bytes.
        return detail::StableHashCombine(kTVMFFIStr, detail::StableHashBytes(&v.v_int64, 8));
      case kTVMFFISmallBytes:
        return detail::StableHashCombine(kTVMFFIBytes, detail::StableHashBytes(&v.v_int64, 8));
      case kTVMFFIStr:
      case kTVMFFIBytes: {
        std::string_view s = detail::BytesOfAny(v);
        return detail::StableHashCombine(v.type_index, detail::StableHashBytes(s.data(), s.size()));
      }
      default:
        break;
    }
    if (v.type_index >= kTVMFFIStaticObjectBegin) {
      static const TVMFFITypeAttrColumn* column = detail::LookupColumn("__any_hash__");
      if (const TVMFFIAny* hook = detail::CustomHook(column, v.type_index)) {
        uint64_t hash = hook->type_index == kTVMFFIOpaquePtr
                            ? detail::HashFromNative(hook->v_ptr, v)
                            : static_cast<uint64_t>(detail::CallFunctionHook(*hook, &v, 1).v_int64);
        return detail::StableHashCombine(v.type_index, hash);
      }
    }
    return detail::StableHashCombine(v.type_index, v.v_uint64);
  }
  /*! \brief The hash of `v`. */
  uint64_t operator()(const Any& v) const { return (*this)(*v.raw()); }
};

/*! \brief Equality of values as map keys, equal to TVM-FFI's for every value. */
struct AnyEqual {
  /*! \brief Whether ABI values `a` and `b` are the same key. */
  bool operator()(const TVMFFIAny& a, const TVMFFIAny& b) const {
    if (std::memcmp(&a, &b, sizeof(TVMFFIAny)) == 0) return true;
    if (a.type_index == b.type_index) {
      if (a.type_index == kTVMFFIStr || a.type_index == kTVMFFIBytes) {
        return detail::BytesOfAny(a) == detail::BytesOfAny(b);
      }
      if (a.type_index >= kTVMFFIStaticObjectBegin) {
        static const TVMFFITypeAttrColumn* column = detail::LookupColumn("__any_equal__");
        if (const TVMFFIAny* hook = detail::CustomHook(column, a.type_index)) {
          if (hook->type_index == kTVMFFIOpaquePtr) {
            return detail::EqualFromNative(hook->v_ptr, a, b);
          }
          TVMFFIAny args[2] = {a, b};
          return detail::CallFunctionHook(*hook, args, 2).v_int64 != 0;
        }
      }
      return false;
    }
    // Only a string (or bytes) inline on one side and an object on the other can still match.
    bool strs = (a.type_index == kTVMFFIStr && b.type_index == kTVMFFISmallStr) ||
                (a.type_index == kTVMFFISmallStr && b.type_index == kTVMFFIStr);
    bool bytes = (a.type_index == kTVMFFIBytes && b.type_index == kTVMFFISmallBytes) ||
                 (a.type_index == kTVMFFISmallBytes && b.type_index == kTVMFFIBytes);
    return (strs || bytes) && detail::BytesOfAny(a) == detail::BytesOfAny(b);
  }
  /*! \brief Whether `a` and `b` are the same key. */
  bool operator()(const Any& a, const Any& b) const { return (*this)(*a.raw(), *b.raw()); }
};

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_ANY_HASH_H_
