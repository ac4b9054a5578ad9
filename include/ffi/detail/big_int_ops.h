/*
 * ffi/detail/big_int_ops.h - the arithmetic behind BigInt (big_int.h) when a value or a result
 * leaves int64_t. Internal: included by big_int.h, never by users.
 *
 * Values are `Words`: 64-bit two's-complement words, least significant first, of any length >= 1
 * (the top word's high bit is the sign). Addition, subtraction, bitwise operations, shifts and
 * comparison work on that form directly; multiplication, division and printing on magnitudes
 * (sign and absolute value), division by Knuth's algorithm D on 32-bit digits.
 */
#ifndef FFI_DETAIL_BIG_INT_OPS_H_
#define FFI_DETAIL_BIG_INT_OPS_H_

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {
namespace detail {
namespace bigint {

/*! \brief A two's-complement integer: 64-bit words, least significant first, at least one. */
using Words = std::vector<uint64_t>;

/*! \brief Whether the words (n >= 1) hold a negative value. */
inline bool IsNegative(const uint64_t* w, size_t n) { return static_cast<int64_t>(w[n - 1]) < 0; }
/*! \brief The word that extends `w` to the left: all ones for a negative value, else zero. */
inline uint64_t SignWord(const uint64_t* w, size_t n) {
  return IsNegative(w, n) ? ~uint64_t{0} : 0;
}

/*! \brief The length of the minimal form: top words that only repeat the sign are dropped. */
inline size_t MinimalSize(const uint64_t* w, size_t n) {
  while (n > 1) {
    bool below_negative = static_cast<int64_t>(w[n - 2]) < 0;
    if ((w[n - 1] == 0 && !below_negative) || (w[n - 1] == ~uint64_t{0} && below_negative)) {
      --n;
    } else {
      break;
    }
  }
  return n;
}

/*! \brief Shortens `w` to its minimal form. */
inline void Trim(Words* w) {
  if (w->empty()) w->push_back(0);
  w->resize(MinimalSize(w->data(), w->size()));
}

/*! \brief `w` sign-extended to `size` words (size >= the length of `w`). */
inline Words Extend(const Words& w, size_t size) {
  Words out(w);
  out.resize(size, SignWord(w.data(), w.size()));
  return out;
}

/*! \brief a + b. */
inline Words Add(const Words& a, const Words& b) {
  size_t n = std::max(a.size(), b.size()) + 1;
  Words x = Extend(a, n), y = Extend(b, n);
  uint64_t carry = 0;
  for (size_t i = 0; i < n; ++i) {
    uint64_t s = x[i] + carry;
    carry = s < carry;
    x[i] = s + y[i];
    carry += x[i] < s;
  }
  Trim(&x);
  return x;
}

/*! \brief a - b. */
inline Words Sub(const Words& a, const Words& b) {
  size_t n = std::max(a.size(), b.size()) + 1;
  Words x = Extend(a, n), y = Extend(b, n);
  uint64_t borrow = 0;
  for (size_t i = 0; i < n; ++i) {
    uint64_t d = x[i] - y[i];
    uint64_t next = x[i] < y[i];
    next += d < borrow;
    x[i] = d - borrow;
    borrow = next;
  }
  Trim(&x);
  return x;
}

/*! \brief -a. */
inline Words Negate(const Words& a) { return Sub(Words{0}, a); }

/*! \brief The bitwise operation `op` of a and b, both sign-extended to infinity. */
template <typename Op>
Words Bitwise(const Words& a, const Words& b, Op op) {
  size_t n = std::max(a.size(), b.size());
  Words x = Extend(a, n), y = Extend(b, n);
  for (size_t i = 0; i < n; ++i) x[i] = op(x[i], y[i]);
  Trim(&x);
  return x;
}

/*! \brief -1, 0 or 1 as a is less than, equal to or greater than b (both minimal). */
inline int Compare(const Words& a, const Words& b) {
  bool an = IsNegative(a.data(), a.size()), bn = IsNegative(b.data(), b.size());
  if (an != bn) return an ? -1 : 1;
  if (a.size() != b.size()) return (a.size() < b.size()) != an ? -1 : 1;
  // Same sign and length: two's complement orders as the unsigned words do.
  for (size_t i = a.size(); i-- > 0;) {
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return 0;
}

/*! \brief a * 2^count. */
inline Words ShiftLeft(const Words& a, uint64_t count) {
  size_t words = static_cast<size_t>(count / 64);
  unsigned bits = static_cast<unsigned>(count % 64);
  Words x = Extend(a, a.size() + 1);
  Words out(words + x.size(), 0);
  for (size_t i = 0; i < x.size(); ++i) {
    out[i + words] = (x[i] << bits) | (bits != 0 && i > 0 ? x[i - 1] >> (64 - bits) : 0);
  }
  Trim(&out);
  return out;
}

/*! \brief floor(a / 2^count): an arithmetic shift. */
inline Words ShiftRight(const Words& a, uint64_t count) {
  uint64_t sign = SignWord(a.data(), a.size());
  if (count / 64 >= a.size()) return Words{sign};
  size_t words = static_cast<size_t>(count / 64);
  unsigned bits = static_cast<unsigned>(count % 64);
  Words out(a.size() - words);
  for (size_t i = 0; i < out.size(); ++i) {
    uint64_t next = i + words + 1 < a.size() ? a[i + words + 1] : sign;
    out[i] = (a[i + words] >> bits) | (bits != 0 ? next << (64 - bits) : 0);
  }
  Trim(&out);
  return out;
}

/*! \brief An absolute value: unsigned words, least significant first, no zero words on top. */
using Magnitude = std::vector<uint64_t>;

/*! \brief Drops zero words from the top of a magnitude. */
inline void TrimMagnitude(Magnitude* m) {
  while (!m->empty() && m->back() == 0) m->pop_back();
}

/*! \brief |a|. */
inline Magnitude ToMagnitude(const Words& a) {
  Magnitude m = IsNegative(a.data(), a.size()) ? Negate(a) : a;
  TrimMagnitude(&m);
  return m;
}

/*! \brief The value with magnitude `m`, negated when `negative`. */
inline Words FromMagnitude(Magnitude m, bool negative) {
  m.push_back(0);  // room for the sign
  Words w(std::move(m));
  if (negative) w = Negate(w);
  Trim(&w);
  return w;
}

/*! \brief a * b on magnitudes (schoolbook). */
inline Magnitude MulMagnitude(const Magnitude& a, const Magnitude& b) {
  if (a.empty() || b.empty()) return {};
  Magnitude out(a.size() + b.size(), 0);
  for (size_t i = 0; i < a.size(); ++i) {
    unsigned __int128 carry = 0;
    for (size_t j = 0; j < b.size(); ++j) {
      unsigned __int128 t = static_cast<unsigned __int128>(a[i]) * b[j] + out[i + j] + carry;
      out[i + j] = static_cast<uint64_t>(t);
      carry = t >> 64;
    }
    out[i + b.size()] = static_cast<uint64_t>(carry);
  }
  TrimMagnitude(&out);
  return out;
}

/*! \brief A magnitude as 32-bit digits, least significant first, no zero digits on top. */
inline std::vector<uint32_t> ToDigits(const Magnitude& m) {
  std::vector<uint32_t> d;
  d.reserve(m.size() * 2);
  for (uint64_t w : m) {
    d.push_back(static_cast<uint32_t>(w));
    d.push_back(static_cast<uint32_t>(w >> 32));
  }
  while (!d.empty() && d.back() == 0) d.pop_back();
  return d;
}

/*! \brief 32-bit digits back to a magnitude. */
inline Magnitude FromDigits(const std::vector<uint32_t>& d) {
  Magnitude m((d.size() + 1) / 2, 0);
  for (size_t i = 0; i < d.size(); ++i) m[i / 2] |= static_cast<uint64_t>(d[i]) << (32 * (i % 2));
  TrimMagnitude(&m);
  return m;
}

/*!
 * \brief Quotient and remainder of magnitudes, b non-zero: Knuth's algorithm D (The Art of
 * Computer Programming, vol. 2, 4.3.1) on 32-bit digits.
 */
inline std::pair<Magnitude, Magnitude> DivModMagnitude(const Magnitude& a, const Magnitude& b) {
  std::vector<uint32_t> u = ToDigits(a), v = ToDigits(b);
  size_t n = v.size(), m = u.size();
  if (m < n) return {Magnitude{}, a};
  std::vector<uint32_t> q(m - n + 1, 0);
  if (n == 1) {
    uint64_t rem = 0;
    for (size_t i = m; i-- > 0;) {
      uint64_t cur = (rem << 32) | u[i];
      q[i] = static_cast<uint32_t>(cur / v[0]);
      rem = cur % v[0];
    }
    return {FromDigits(q), rem == 0 ? Magnitude{} : Magnitude{rem}};
  }
  // D1: normalize so that the divisor's top digit has its high bit set.
  int s = __builtin_clz(v[n - 1]);
  auto shifted = [s](uint32_t hi, uint32_t lo) -> uint32_t {
    return s == 0 ? hi : static_cast<uint32_t>((hi << s) | (lo >> (32 - s)));
  };
  std::vector<uint32_t> vn(n), un(m + 1);
  for (size_t i = n - 1; i > 0; --i) vn[i] = shifted(v[i], v[i - 1]);
  vn[0] = v[0] << s;
  un[m] = s == 0 ? 0 : u[m - 1] >> (32 - s);
  for (size_t i = m - 1; i > 0; --i) un[i] = shifted(u[i], u[i - 1]);
  un[0] = u[0] << s;
  constexpr uint64_t kBase = uint64_t{1} << 32;
  for (size_t j = m - n + 1; j-- > 0;) {
    // D3: estimate the quotient digit from the top two digits, correct it at most twice.
    uint64_t top = (static_cast<uint64_t>(un[j + n]) << 32) | un[j + n - 1];
    uint64_t qhat = top / vn[n - 1], rhat = top % vn[n - 1];
    while (qhat >= kBase || qhat * vn[n - 2] > ((rhat << 32) | un[j + n - 2])) {
      --qhat;
      rhat += vn[n - 1];
      if (rhat >= kBase) break;
    }
    // D4: subtract qhat times the divisor.
    uint64_t carry = 0;
    int64_t borrow = 0;
    for (size_t i = 0; i < n; ++i) {
      uint64_t p = qhat * vn[i] + carry;
      carry = p >> 32;
      int64_t t = static_cast<int64_t>(un[i + j]) - borrow - static_cast<int64_t>(p & 0xffffffffu);
      un[i + j] = static_cast<uint32_t>(t);
      borrow = t < 0 ? 1 : 0;
    }
    int64_t t = static_cast<int64_t>(un[j + n]) - borrow - static_cast<int64_t>(carry);
    un[j + n] = static_cast<uint32_t>(t);
    // D6: the estimate was one too large (rare): add the divisor back.
    if (t < 0) {
      --qhat;
      uint64_t c = 0;
      for (size_t i = 0; i < n; ++i) {
        uint64_t sum = static_cast<uint64_t>(un[i + j]) + vn[i] + c;
        un[i + j] = static_cast<uint32_t>(sum);
        c = sum >> 32;
      }
      un[j + n] = static_cast<uint32_t>(un[j + n] + c);
    }
    q[j] = static_cast<uint32_t>(qhat);
  }
  // D8: the remainder is the low n digits, shifted back.
  std::vector<uint32_t> r(n);
  for (size_t i = 0; i + 1 < n; ++i) {
    r[i] = s == 0 ? un[i] : static_cast<uint32_t>((un[i] >> s) | (un[i + 1] << (32 - s)));
  }
  r[n - 1] = un[n - 1] >> s;
  return {FromDigits(q), FromDigits(r)};
}

/*!
 * \brief Quotient and remainder of a / b (b non-zero), the quotient truncated toward zero (the
 * remainder has a's sign) or, with `floor`, rounded down (the remainder has b's sign).
 */
inline std::pair<Words, Words> DivMod(const Words& a, const Words& b, bool floor) {
  bool an = IsNegative(a.data(), a.size()), bn = IsNegative(b.data(), b.size());
  std::pair<Magnitude, Magnitude> qr = DivModMagnitude(ToMagnitude(a), ToMagnitude(b));
  bool inexact = !qr.second.empty();
  Words q = FromMagnitude(std::move(qr.first), an != bn);
  Words r = FromMagnitude(std::move(qr.second), an);
  if (floor && inexact && an != bn) {
    q = Sub(q, Words{1});
    r = Add(r, b);
  }
  return {std::move(q), std::move(r)};
}

/*! \brief The decimal digits of a (with a leading '-' when negative). */
inline std::string ToDecimal(const Words& a) {
  constexpr uint64_t kChunk = 1000000000000000000ULL;  // 10^18: 18 digits per division
  Magnitude m = ToMagnitude(a);
  std::vector<uint64_t> chunks;  // least significant first
  while (!m.empty()) {
    unsigned __int128 rem = 0;
    for (size_t i = m.size(); i-- > 0;) {
      unsigned __int128 cur = (rem << 64) | m[i];
      m[i] = static_cast<uint64_t>(cur / kChunk);
      rem = cur % kChunk;
    }
    chunks.push_back(static_cast<uint64_t>(rem));
    TrimMagnitude(&m);
  }
  std::string out = IsNegative(a.data(), a.size()) ? "-" : "";
  if (chunks.empty()) return "0";
  out += std::to_string(chunks.back());
  for (size_t i = chunks.size() - 1; i-- > 0;) {
    std::string digits = std::to_string(chunks[i]);
    out.append(18 - digits.size(), '0').append(digits);
  }
  return out;
}

/*!
 * \brief a as the nearest double (ties to even), or +-infinity when beyond the double range. The
 * top 64 bits are rounded by the hardware's conversion, the bits below them folded into the
 * lowest bit so that they still break ties.
 */
inline double ToDouble(const Words& a) {
  Magnitude m = ToMagnitude(a);
  if (m.empty()) return 0.0;
  size_t top_bits = 64 - static_cast<size_t>(__builtin_clzll(m.back()));
  size_t total = (m.size() - 1) * 64 + top_bits;
  double value;
  if (total <= 64) {
    value = static_cast<double>(m[0]);
  } else {
    size_t drop = total - 64;
    Words shifted = ShiftRight(FromMagnitude(m, false), drop);
    uint64_t head = shifted[0];
    bool sticky = false;
    for (size_t i = 0; i < drop / 64 && !sticky; ++i) sticky = m[i] != 0;
    if (drop % 64 != 0) sticky = sticky || (m[drop / 64] & ((uint64_t{1} << (drop % 64)) - 1));
    value = std::ldexp(static_cast<double>(head | (sticky ? 1 : 0)), static_cast<int>(drop));
  }
  return IsNegative(a.data(), a.size()) ? -value : value;
}

/*! \brief The integer part of a finite double, truncated toward zero. */
inline Words FromDouble(double value) {
  double t = std::trunc(value);
  int exponent = 0;
  double fraction = std::frexp(std::fabs(t), &exponent);  // |t| = fraction * 2^exponent
  if (exponent <= 63) return Words{static_cast<uint64_t>(static_cast<int64_t>(t))};
  auto mantissa = static_cast<uint64_t>(std::ldexp(fraction, 53));
  Words w = ShiftLeft(Words{mantissa}, static_cast<uint64_t>(exponent - 53));
  return t < 0 ? Negate(w) : w;
}

}  // namespace bigint
}  // namespace detail
}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_DETAIL_BIG_INT_OPS_H_
