/*
 * ffi/big_int.h - BigInt: an immutable integer of any size.
 *
 * A BigInt holds what fits in int64_t inline, as a plain kTVMFFIInt, and anything larger as a
 * kTVMFFIBigInt object: the object header, a word count, then the value's 64-bit two's-complement
 * words (least significant first, minimal: no top word that only repeats the sign). Both runtimes
 * and both header sets lay the object out so, and the C functions TVMFFIBigIntFromByteArray /
 * TVMFFIBigIntGetContentByteArray read and write the same words; Python ints beyond 64 bits cross
 * as these objects.
 *
 *   BigInt a = BigInt(1) << 100;             // 2^100
 *   BigInt b = a * a + 7;                    // int64_t operands mix in
 *   std::cout << b % 1000;                   // decimal
 *   std::optional<int64_t> small = (b >> 150).as<int64_t>();
 *
 * Arithmetic never overflows (results grow; the int64_t fast path is exact): `/` and `%` truncate
 * toward zero, floordiv / floormod round the quotient down; a zero divisor is ZeroDivisionError.
 * Bitwise operators act on the infinite two's complement, `>>` rounds down, a negative shift count
 * is ValueError. Conversions to int64_t or double are explicit and throw OverflowError when the
 * value does not fit.
 */
#ifndef FFI_BIG_INT_H_
#define FFI_BIG_INT_H_

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <istream>
#include <limits>
#include <optional>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>

#include "any_hash.h"
#include "detail/big_int_ops.h"
#include "error.h"
#include "object.h"
#include "type_traits.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

namespace detail {
/*!
 * \brief The kTVMFFIBigInt object: the header, the word count, then `size` words in the same
 * allocation (detail::ExtraStorage).
 */
class BigIntObj : public Object {
 public:
  explicit BigIntObj(size_t size) : size(size) {}
  BigIntObj(const BigIntObj&) = delete;
  BigIntObj& operator=(const BigIntObj&) = delete;
  /*! \brief The number of 64-bit words after the object. */
  size_t size;
  /*! \brief The words, least significant first. */
  const int64_t* words() const { return static_cast<const int64_t*>(ExtraStorage(this)); }
  static constexpr bool _type_final = true;
  FFI_DECLARE_STATIC_OBJECT_INFO("ffi.BigInt", BigIntObj, Object, kTVMFFIBigInt);
};
static_assert(sizeof(BigIntObj) == sizeof(TVMFFIObject) + sizeof(size_t),
              "the words start right after the word count");
struct BigIntAccess;
}  // namespace detail

/*! \brief An integer of any size; see the file comment. Copies share the (immutable) words. */
class BigInt {
 public:
  /*! \brief Borrowed words of a value: 64-bit two's complement, least significant first. */
  class ArrayView {
   public:
    /*! \brief Views `size` words at `data` (which must outlive the view). */
    ArrayView(const int64_t* data, size_t size) : data_(data), size_(size) {}
    /*! \brief Word `i` (0 is the least significant). */
    const int64_t& operator[](size_t i) const { return data_[i]; }
    /*! \brief The number of words (at least one). */
    size_t size() const { return size_; }
    /*! \brief The first word. */
    const int64_t* data() const { return data_; }

   private:
    const int64_t* data_;
    size_t size_;
  };

  /*! \brief Zero. */
  BigInt() noexcept { Reset(); }
  /*! \brief An integer of any integral type of at most 64 bits, exactly. */
  template <typename Int, std::enable_if_t<std::is_integral_v<Int> && sizeof(Int) <= 8, int> = 0>
  BigInt(Int value) {  // NOLINT(google-explicit-constructor): integers mix into BigInt arithmetic
    Reset();
    if constexpr (std::is_unsigned_v<Int> && sizeof(Int) == 8) {
      if (FFI_UNLIKELY(value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))) {
        *this = FromWordVector({static_cast<uint64_t>(value), 0});
        return;
      }
    }
    data_.v_int64 = static_cast<int64_t>(value);
  }
  /*! \brief The integer part of `value` (truncated); NaN is ValueError, an infinity OverflowError.
   */
  explicit BigInt(double value) {
    Reset();
    if (std::isnan(value)) FFI_THROW(ValueError) << "cannot convert NaN to an integer";
    if (std::isinf(value)) FFI_THROW(OverflowError) << "cannot convert infinity to an integer";
    constexpr double kLimit = 9223372036854775808.0;  // 2^63
    if (value > -kLimit && value < kLimit) {
      data_.v_int64 = static_cast<int64_t>(value);
    } else {
      *this = FromWordVector(detail::bigint::FromDouble(value));
    }
  }
  BigInt(const BigInt& other) noexcept : data_(other.data_) {
    if (data_.type_index == kTVMFFIBigInt) detail::ObjectUnsafe::IncRef(data_.v_obj);
  }
  BigInt(BigInt&& other) noexcept : data_(other.data_) { other.Reset(); }
  ~BigInt() {
    if (data_.type_index == kTVMFFIBigInt) detail::ObjectUnsafe::DecRef(data_.v_obj);
  }
  BigInt& operator=(const BigInt& other) noexcept {
    BigInt(other).swap(*this);
    return *this;
  }
  BigInt& operator=(BigInt&& other) noexcept {
    BigInt(std::move(other)).swap(*this);
    return *this;
  }
  /*! \brief Exchanges two values. */
  void swap(BigInt& other) noexcept { std::swap(data_, other.data_); }

  /*! \brief Whether the value is non-zero. */
  explicit operator bool() const noexcept {
    return data_.type_index == kTVMFFIBigInt || data_.v_int64 != 0;
  }
  /*! \brief The value as int64_t; OverflowError when it does not fit. */
  explicit operator int64_t() const {
    if (FFI_UNLIKELY(data_.type_index == kTVMFFIBigInt)) {
      FFI_THROW(OverflowError) << "the integer " << ToString() << " does not fit in int64_t";
    }
    return data_.v_int64;
  }
  /*! \brief The nearest double (ties to even); OverflowError beyond the double range. */
  explicit operator double() const {
    if (FFI_LIKELY(data_.type_index == kTVMFFIInt)) return static_cast<double>(data_.v_int64);
    double value = detail::bigint::ToDouble(Words());
    if (std::isinf(value)) FFI_THROW(OverflowError) << "the integer is too large for a double";
    return value;
  }
  /*! \brief The value as `Int` when it fits (unsigned types: non-negative values), else nullopt. */
  template <typename Int, std::enable_if_t<std::is_integral_v<Int> && sizeof(Int) <= 8, int> = 0>
  std::optional<Int> as() const {
    if (data_.type_index == kTVMFFIInt) {
      int64_t v = data_.v_int64;
      if constexpr (std::is_signed_v<Int>) {
        if (v < std::numeric_limits<Int>::min() || v > std::numeric_limits<Int>::max()) return {};
      } else {
        if (v < 0 || static_cast<uint64_t>(v) > std::numeric_limits<Int>::max()) return {};
      }
      return static_cast<Int>(v);
    }
    if constexpr (std::is_unsigned_v<Int> && sizeof(Int) == 8) {
      ArrayView w = words();  // [low, 0]: in [2^63, 2^64)
      if (w.size() == 2 && w[1] == 0) return static_cast<Int>(w[0]);
    }
    return std::nullopt;
  }
  /*! \brief A hash of the value (an int64_t value hashes to itself). */
  uint64_t hash() const {
    if (data_.type_index == kTVMFFIInt) return static_cast<uint64_t>(data_.v_int64);
    ArrayView w = words();
    return detail::StableHashBytes(w.data(), w.size() * sizeof(int64_t));
  }
  /*! \brief The value's words (one for an int64_t value), valid while this BigInt is. */
  ArrayView words() const {
    if (data_.type_index == kTVMFFIInt) return ArrayView(&data_.v_int64, 1);
    const auto* obj =
        static_cast<const detail::BigIntObj*>(detail::ObjectUnsafe::FromHeader(data_.v_obj));
    return ArrayView(obj->words(), obj->size);
  }
  /*!
   * \brief The value of `size` two's-complement words at `data`, least significant first (any
   * length; none is zero). What TVMFFIBigIntFromByteArray reads.
   */
  static BigInt FromWords(const int64_t* data, size_t size) {
    detail::bigint::Words w(size == 0 ? 1 : size, 0);
    if (size != 0) std::memcpy(w.data(), data, size * sizeof(int64_t));
    return FromWordVector(std::move(w));
  }
  /*! \brief The decimal digits, with a leading '-' when negative. */
  std::string ToString() const {
    if (data_.type_index == kTVMFFIInt) return std::to_string(data_.v_int64);
    return detail::bigint::ToDecimal(Words());
  }

  BigInt& operator+=(const BigInt& rhs);
  BigInt& operator-=(const BigInt& rhs);
  BigInt& operator*=(const BigInt& rhs);
  BigInt& operator/=(const BigInt& rhs);
  BigInt& operator%=(const BigInt& rhs);
  BigInt& operator&=(const BigInt& rhs);
  BigInt& operator|=(const BigInt& rhs);
  BigInt& operator^=(const BigInt& rhs);
  BigInt& operator<<=(const BigInt& rhs);
  BigInt& operator>>=(const BigInt& rhs);
  BigInt& operator++();
  BigInt& operator--();
  BigInt operator++(int);
  BigInt operator--(int);

 private:
  void Reset() noexcept {
    data_.type_index = kTVMFFIInt;
    data_.zero_padding = 0;
    data_.v_int64 = 0;
  }
  /*! \brief The words as the arithmetic's working form. */
  detail::bigint::Words Words() const {
    ArrayView w = words();
    detail::bigint::Words out(w.size());
    std::memcpy(out.data(), w.data(), w.size() * sizeof(int64_t));
    return out;
  }
  /*! \brief The value of two's-complement words (any length >= 1, trimmed here). */
  static BigInt FromWordVector(detail::bigint::Words w) {
    detail::bigint::Trim(&w);
    BigInt out;
    if (w.size() == 1) {
      out.data_.v_int64 = static_cast<int64_t>(w[0]);
      return out;
    }
    ObjectPtr<detail::BigIntObj> obj =
        make_object_with_extra<detail::BigIntObj>(w.size() * sizeof(int64_t), w.size());
    std::memcpy(detail::ExtraStorage(obj.get()), w.data(), w.size() * sizeof(int64_t));
    out.data_.type_index = kTVMFFIBigInt;
    out.data_.v_obj = detail::ObjectUnsafe::Header(obj.release());
    return out;
  }

  TVMFFIAny data_;
  friend struct detail::BigIntAccess;
  friend struct TypeTraits<BigInt>;
};

namespace detail {
/*! \brief The operations behind BigInt's operators: an int64_t fast path, else the words. */
struct BigIntAccess {
  static bool Small(const BigInt& x) { return x.data_.type_index == kTVMFFIInt; }
  static int64_t Value(const BigInt& x) { return x.data_.v_int64; }
  static bigint::Words Words(const BigInt& x) { return x.Words(); }
  static BigInt FromWordVector(bigint::Words w) { return BigInt::FromWordVector(std::move(w)); }

  /*! \brief `fast(x, y, &r)` on two int64_t values (true when it overflowed), else `slow`. */
  template <typename Fast, typename Slow>
  static BigInt Binary(const BigInt& a, const BigInt& b, Fast fast, Slow slow) {
    if (FFI_LIKELY(Small(a) && Small(b))) {
      int64_t r;
      if (!fast(Value(a), Value(b), &r)) return BigInt(r);
    }
    return FromWordVector(slow(Words(a), Words(b)));
  }
  static void CheckDivisor(const BigInt& b) {
    if (FFI_UNLIKELY(!b)) FFI_THROW(ZeroDivisionError) << "integer division or modulo by zero";
  }
  /*! \brief Quotient (`quotient`) or remainder of a / b, truncated or floored. */
  static BigInt Divide(const BigInt& a, const BigInt& b, bool floor, bool quotient) {
    CheckDivisor(b);
    if (FFI_LIKELY(Small(a) && Small(b)) &&
        !(Value(a) == std::numeric_limits<int64_t>::min() && Value(b) == -1)) {
      int64_t x = Value(a), y = Value(b), q = x / y, r = x % y;
      if (floor && r != 0 && ((r < 0) != (y < 0))) {
        q -= 1;
        r += y;
      }
      return BigInt(quotient ? q : r);
    }
    auto qr = bigint::DivMod(Words(a), Words(b), floor);
    return FromWordVector(quotient ? std::move(qr.first) : std::move(qr.second));
  }
  /*! \brief A shift count: ValueError when negative; OverflowError past `limit`. */
  static uint64_t ShiftCount(const BigInt& count, uint64_t limit, bool saturate) {
    BigInt::ArrayView w = count.words();
    if (FFI_UNLIKELY(w[w.size() - 1] < 0)) {
      FFI_THROW(ValueError) << "negative shift count " << count.ToString();
    }
    std::optional<uint64_t> n = count.as<uint64_t>();
    if (n.has_value() && *n <= limit) return *n;
    if (saturate) return limit;
    FFI_THROW(OverflowError) << "shift count " << count.ToString() << " is too large";
  }
  static int Compare(const BigInt& a, const BigInt& b) {
    if (FFI_LIKELY(Small(a) && Small(b))) return (Value(a) > Value(b)) - (Value(a) < Value(b));
    return bigint::Compare(Words(a), Words(b));
  }
};

/*! \brief Whether `T` is an integral type a BigInt operator takes beside a BigInt. */
template <typename T>
inline constexpr bool kBigIntOperand = std::is_integral_v<T> && sizeof(T) <= 8;
}  // namespace detail

// Each binary operator takes two BigInts, or a BigInt and an integer on either side.
#define FFI_BIGINT_BINARY_(Ret, Name, Body)                                                \
  inline Ret Name(const BigInt& a, const BigInt& b)                                        \
      Body template <typename Int, std::enable_if_t<detail::kBigIntOperand<Int>, int> = 0> \
      Ret Name(const BigInt& a, Int b) {                                                   \
    return Name(a, BigInt(b));                                                             \
  }                                                                                        \
  template <typename Int, std::enable_if_t<detail::kBigIntOperand<Int>, int> = 0>          \
  Ret Name(Int a, const BigInt& b) {                                                       \
    return Name(BigInt(a), b);                                                             \
  }

/*! \brief a + b. */
FFI_BIGINT_BINARY_(BigInt, operator+, {
  return detail::BigIntAccess::Binary(
      a, b, [](int64_t x, int64_t y, int64_t* r) { return __builtin_add_overflow(x, y, r); },
      detail::bigint::Add);
})
/*! \brief a - b. */
FFI_BIGINT_BINARY_(BigInt, operator-, {
  return detail::BigIntAccess::Binary(
      a, b, [](int64_t x, int64_t y, int64_t* r) { return __builtin_sub_overflow(x, y, r); },
      detail::bigint::Sub);
})
/*! \brief a * b. */
FFI_BIGINT_BINARY_(BigInt, operator*, {
  return detail::BigIntAccess::Binary(
      a, b, [](int64_t x, int64_t y, int64_t* r) { return __builtin_mul_overflow(x, y, r); },
      [](const detail::bigint::Words& x, const detail::bigint::Words& y) {
        bool negative = detail::bigint::IsNegative(x.data(), x.size()) !=
                        detail::bigint::IsNegative(y.data(), y.size());
        return detail::bigint::FromMagnitude(
            detail::bigint::MulMagnitude(detail::bigint::ToMagnitude(x),
                                         detail::bigint::ToMagnitude(y)),
            negative);
      });
})
/*! \brief a / b, truncated toward zero (ZeroDivisionError for b == 0). */
FFI_BIGINT_BINARY_(BigInt, truncdiv, { return detail::BigIntAccess::Divide(a, b, false, true); })
/*! \brief The remainder of truncdiv: zero or of a's sign. */
FFI_BIGINT_BINARY_(BigInt, truncmod, { return detail::BigIntAccess::Divide(a, b, false, false); })
/*! \brief a / b, rounded down (Python's `//`). */
FFI_BIGINT_BINARY_(BigInt, floordiv, { return detail::BigIntAccess::Divide(a, b, true, true); })
/*! \brief The remainder of floordiv: zero or of b's sign (Python's `%`). */
FFI_BIGINT_BINARY_(BigInt, floormod, { return detail::BigIntAccess::Divide(a, b, true, false); })
/*! \brief truncdiv(a, b), as C++'s `/` on integers. */
FFI_BIGINT_BINARY_(BigInt, operator/, { return truncdiv(a, b); })
/*! \brief truncmod(a, b), as C++'s `%` on integers. */
FFI_BIGINT_BINARY_(BigInt, operator%, { return truncmod(a, b); })
/*! \brief a * 2^b; b negative is ValueError, past 2^32 bits OverflowError. */
FFI_BIGINT_BINARY_(BigInt, operator<<, {
  uint64_t count = detail::BigIntAccess::ShiftCount(b, uint64_t{1} << 32, false);
  if (!a) return BigInt();
  return detail::BigIntAccess::FromWordVector(
      detail::bigint::ShiftLeft(detail::BigIntAccess::Words(a), count));
})
/*! \brief floor(a / 2^b); b negative is ValueError. */
FFI_BIGINT_BINARY_(BigInt, operator>>, {
  uint64_t count = detail::BigIntAccess::ShiftCount(b, std::numeric_limits<uint64_t>::max(), true);
  if (detail::BigIntAccess::Small(a)) {
    int64_t x = detail::BigIntAccess::Value(a);
    return BigInt(count >= 64 ? (x < 0 ? -1 : 0) : x >> count);
  }
  return detail::BigIntAccess::FromWordVector(
      detail::bigint::ShiftRight(detail::BigIntAccess::Words(a), count));
})
/*! \brief Bitwise and (two's complement, sign-extended). */
FFI_BIGINT_BINARY_(BigInt, operator&, {
  return detail::BigIntAccess::Binary(
      a, b, [](int64_t x, int64_t y, int64_t* r) { return *r = x & y, false; },
      [](const detail::bigint::Words& x, const detail::bigint::Words& y) {
        return detail::bigint::Bitwise(x, y, std::bit_and<uint64_t>());
      });
})
/*! \brief Bitwise or (two's complement, sign-extended). */
FFI_BIGINT_BINARY_(BigInt, operator|, {
  return detail::BigIntAccess::Binary(
      a, b, [](int64_t x, int64_t y, int64_t* r) { return *r = x | y, false; },
      [](const detail::bigint::Words& x, const detail::bigint::Words& y) {
        return detail::bigint::Bitwise(x, y, std::bit_or<uint64_t>());
      });
})
/*! \brief Bitwise exclusive or (two's complement, sign-extended). */
FFI_BIGINT_BINARY_(BigInt, operator^, {
  return detail::BigIntAccess::Binary(
      a, b, [](int64_t x, int64_t y, int64_t* r) { return *r = x ^ y, false; },
      [](const detail::bigint::Words& x, const detail::bigint::Words& y) {
        return detail::bigint::Bitwise(x, y, std::bit_xor<uint64_t>());
      });
})
/*! \brief The smaller of a and b. */
FFI_BIGINT_BINARY_(BigInt, min, { return detail::BigIntAccess::Compare(a, b) <= 0 ? a : b; })
/*! \brief The larger of a and b. */
FFI_BIGINT_BINARY_(BigInt, max, { return detail::BigIntAccess::Compare(a, b) >= 0 ? a : b; })
FFI_BIGINT_BINARY_(bool, operator==, { return detail::BigIntAccess::Compare(a, b) == 0; })
FFI_BIGINT_BINARY_(bool, operator!=, { return detail::BigIntAccess::Compare(a, b) != 0; })
FFI_BIGINT_BINARY_(bool, operator<, { return detail::BigIntAccess::Compare(a, b) < 0; })
FFI_BIGINT_BINARY_(bool, operator<=, { return detail::BigIntAccess::Compare(a, b) <= 0; })
FFI_BIGINT_BINARY_(bool, operator>, { return detail::BigIntAccess::Compare(a, b) > 0; })
FFI_BIGINT_BINARY_(bool, operator>=, { return detail::BigIntAccess::Compare(a, b) >= 0; })
#undef FFI_BIGINT_BINARY_

/*! \brief The value itself. */
inline BigInt operator+(const BigInt& a) { return a; }
/*! \brief -a. */
inline BigInt operator-(const BigInt& a) { return BigInt() - a; }
/*! \brief Bitwise complement: -a - 1. */
inline BigInt operator~(const BigInt& a) { return BigInt(-1) - a; }

inline BigInt& BigInt::operator+=(const BigInt& rhs) { return *this = *this + rhs; }
inline BigInt& BigInt::operator-=(const BigInt& rhs) { return *this = *this - rhs; }
inline BigInt& BigInt::operator*=(const BigInt& rhs) { return *this = *this * rhs; }
inline BigInt& BigInt::operator/=(const BigInt& rhs) { return *this = *this / rhs; }
inline BigInt& BigInt::operator%=(const BigInt& rhs) { return *this = *this % rhs; }
inline BigInt& BigInt::operator&=(const BigInt& rhs) { return *this = *this & rhs; }
inline BigInt& BigInt::operator|=(const BigInt& rhs) { return *this = *this | rhs; }
inline BigInt& BigInt::operator^=(const BigInt& rhs) { return *this = *this ^ rhs; }
inline BigInt& BigInt::operator<<=(const BigInt& rhs) { return *this = *this << rhs; }
inline BigInt& BigInt::operator>>=(const BigInt& rhs) { return *this = *this >> rhs; }
inline BigInt& BigInt::operator++() { return *this += 1; }
inline BigInt& BigInt::operator--() { return *this -= 1; }
inline BigInt BigInt::operator++(int) {
  BigInt old = *this;
  *this += 1;
  return old;
}
inline BigInt BigInt::operator--(int) {
  BigInt old = *this;
  *this -= 1;
  return old;
}

/*! \brief Writes the decimal digits. */
inline std::ostream& operator<<(std::ostream& os, const BigInt& value) {
  return os << value.ToString();
}
/*!
 * \brief Reads an optionally signed run of decimal digits; on failure sets failbit and leaves
 * `value` as it was.
 */
inline std::istream& operator>>(std::istream& is, BigInt& value) {
  std::istream::sentry sentry(is);
  if (!sentry) return is;
  bool negative = false;
  if (is.peek() == '+' || is.peek() == '-') negative = is.get() == '-';
  BigInt result;
  int64_t chunk = 0;
  int chunk_digits = 0;
  bool any = false;
  // 18 digits at a time: one multiply-add of the BigInt per chunk.
  auto flush = [&] {
    int64_t scale = 1;
    for (int i = 0; i < chunk_digits; ++i) scale *= 10;
    result = result * scale + chunk;
    chunk = 0;
    chunk_digits = 0;
  };
  for (int c = is.peek(); c >= '0' && c <= '9'; c = is.peek()) {
    is.get();
    any = true;
    chunk = chunk * 10 + (c - '0');
    if (++chunk_digits == 18) flush();
  }
  if (!any) {
    is.setstate(std::ios::failbit);
    return is;
  }
  flush();
  value = negative ? -result : result;
  return is;
}

/*!
 * \brief BigInt in an Any: a kTVMFFIInt or kTVMFFIBigInt as it is (a bool converts), passed on
 * the same way.
 */
template <>
struct TypeTraits<BigInt> : TypeTraitsBase {
  static void CopyToAnyView(const BigInt& v, TVMFFIAny* out) { *out = v.data_; }
  static void MoveToAny(BigInt v, TVMFFIAny* out) {
    *out = v.data_;
    v.Reset();
  }
  static bool CheckAnyStrict(const TVMFFIAny* src) {
    return src->type_index == kTVMFFIInt || src->type_index == kTVMFFIBigInt;
  }
  static detail::CastResult<BigInt> TryCastFromAnyView(const TVMFFIAny* src) {
    BigInt out;
    if (src->type_index == kTVMFFIInt || src->type_index == kTVMFFIBool) {
      out.data_.v_int64 = src->v_int64;
      return out;
    }
    if (src->type_index != kTVMFFIBigInt) return std::nullopt;
    out.data_ = *src;
    detail::ObjectUnsafe::IncRef(src->v_obj);
    return out;
  }
  static constexpr auto TypeStr() { return ConstString("BigInt"); }
  static std::string TypeSchema() { return R"({"type":"ffi.BigInt"})"; }
};

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

namespace std {
/*! \brief std::hash of a BigInt: its hash(). */
template <>
struct hash<::tvm::ffi::BigInt> {
  size_t operator()(const ::tvm::ffi::BigInt& value) const {
    return static_cast<size_t>(value.hash());
  }
};
}  // namespace std

#endif  // FFI_BIG_INT_H_
