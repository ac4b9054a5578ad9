// BigInt (ffi/big_int.h): inline and object forms, arithmetic identities on values around every
// word boundary, division and shift rules, conversions, Any and the C functions, map keys.
// (tests/python/objects/test_big_int.py checks each operation against Python's ints.)
#include <ffi/any.h>
#include <ffi/big_int.h>
#include <ffi/container/map.h>
#include <gtest/gtest.h>
#include <tvm/ffi/big_int.h>

#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <unordered_set>
#include <vector>

#include "testing.h"

namespace {

using ffi::BigInt;
using namespace ffi_testing;

BigInt Pow2(int k) { return BigInt(1) << k; }

/*! \brief Values at and around the word boundaries, and pseudo-random ones of up to 4 words. */
std::vector<BigInt> Samples() {
  std::vector<BigInt> out = {
      0, 1, -1, 2, 7, std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()};
  for (int bits : {62, 63, 64, 65, 127, 128, 129, 192}) {
    for (const BigInt& v : {Pow2(bits), Pow2(bits) - 1, Pow2(bits) + 1}) {
      out.push_back(v);
      out.push_back(-v);
    }
  }
  uint64_t state = 0x9e3779b97f4a7c15ULL;
  auto next = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state;
  };
  for (int i = 0; i < 24; ++i) {
    BigInt v = 0;
    for (uint64_t w = 0, n = 1 + next() % 4; w < n; ++w) v = (v << 64) + BigInt(next());
    out.push_back(next() % 2 ? v : -v);
  }
  return out;
}

std::string Text(const BigInt& v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

TEST(BigInt, InlineWhenItFitsAnObjectOtherwise) {
  ffi::Any small = BigInt(-5);
  EXPECT_EQ(small.type_index(), kTVMFFIInt);
  ffi::Any big = Pow2(64);
  EXPECT_EQ(big.type_index(), kTVMFFIBigInt);
  EXPECT_EQ(Pow2(64).words().size(), 2u);  // [0, 1]
  EXPECT_EQ((Pow2(64) - Pow2(64)).words().size(), 1u);
  EXPECT_EQ(ffi::Any(Pow2(64) - 1 - Pow2(64)).type_index(), kTVMFFIInt);  // back to inline
  EXPECT_EQ(Text(BigInt(std::numeric_limits<uint64_t>::max())), "18446744073709551615");
  EXPECT_EQ(BigInt(std::numeric_limits<uint64_t>::max()).words().size(), 2u);
  EXPECT_FALSE(static_cast<bool>(BigInt()));
  EXPECT_TRUE(static_cast<bool>(Pow2(100)));
}

TEST(BigInt, ArithmeticIdentities) {
  std::vector<BigInt> values = Samples();
  for (const BigInt& a : values) {
    EXPECT_EQ(a + 0, a);
    EXPECT_EQ(a - a, 0);
    EXPECT_EQ(-(-a), a);
    EXPECT_EQ(~a, -a - 1);
    EXPECT_EQ(a * 1, a);
    EXPECT_EQ((a << 70) >> 70, a);
    EXPECT_EQ(a << 3, a * 8);
    for (const BigInt& b : values) {
      EXPECT_EQ(a + b - b, a);
      EXPECT_EQ(a * b, b * a);
      EXPECT_EQ((a + b) * (a - b), a * a - b * b);
      EXPECT_EQ(a ^ b, (a | b) - (a & b));
      EXPECT_EQ((a < b) + (a == b) + (a > b), 1);
      if (!b) continue;
      BigInt q = a / b, r = a % b;
      EXPECT_EQ(q * b + r, a) << a << " / " << b;
      EXPECT_TRUE(!r || ((r < 0) == (a < 0))) << a << " % " << b;  // the dividend's sign
      EXPECT_LT(r < 0 ? -r : r, b < 0 ? -b : b);
      BigInt fq = floordiv(a, b), fr = floormod(a, b);
      EXPECT_EQ(fq * b + fr, a);
      EXPECT_TRUE(!fr || ((fr < 0) == (b < 0))) << a << " floormod " << b;  // the divisor's
      EXPECT_EQ((a * b) / b, a);
    }
  }
}

TEST(BigInt, DivisionShiftAndConversionErrors) {
  EXPECT_EQ(CatchError([] { (void)(Pow2(100) / 0); }).kind(), "ZeroDivisionError");
  EXPECT_EQ(CatchError([] { (void)floormod(BigInt(3), 0); }).kind(), "ZeroDivisionError");
  EXPECT_EQ(CatchError([] { (void)(BigInt(1) << -1); }).kind(), "ValueError");
  EXPECT_EQ(CatchError([] { (void)(BigInt(1) << Pow2(40)); }).kind(), "OverflowError");
  EXPECT_EQ(Pow2(100) >> Pow2(70), 0);
  EXPECT_EQ(-Pow2(100) >> 1000, -1);
  EXPECT_EQ(BigInt(std::numeric_limits<int64_t>::min()) / -1, Pow2(63));  // no int64 overflow
  EXPECT_EQ(BigInt(std::numeric_limits<int64_t>::min()) % -1, 0);
  EXPECT_EQ(CatchError([] { (void)static_cast<int64_t>(Pow2(63)); }).kind(), "OverflowError");
  EXPECT_EQ(CatchError([] { (void)static_cast<double>(Pow2(1100)); }).kind(), "OverflowError");
  EXPECT_EQ(CatchError([] { BigInt(std::nan("")); }).kind(), "ValueError");
  EXPECT_EQ(CatchError([] { BigInt(-HUGE_VAL); }).kind(), "OverflowError");
}

TEST(BigInt, Conversions) {
  EXPECT_EQ(Text(Pow2(100)), "1267650600228229401496703205376");
  EXPECT_EQ(Text(-Pow2(64)), "-18446744073709551616");
  for (const BigInt& v : Samples()) {
    std::istringstream is(Text(v));
    BigInt back = 99;
    ASSERT_TRUE(is >> back);
    EXPECT_EQ(back, v);
  }
  std::istringstream bad("-x");
  BigInt kept = 99;
  EXPECT_FALSE(bad >> kept);
  EXPECT_EQ(kept, 99);
  EXPECT_EQ(static_cast<double>(Pow2(80)), 1208925819614629174706176.0);
  EXPECT_EQ(static_cast<double>(Pow2(53) + 1), 9007199254740992.0);  // ties to even
  EXPECT_EQ(static_cast<double>(Pow2(53) + 3), 9007199254740996.0);
  EXPECT_EQ(BigInt(1e30), BigInt(1000000000000000019884624838656.0));
  EXPECT_EQ(Text(BigInt(-1e30)), "-1000000000000000019884624838656");
  EXPECT_EQ(BigInt(-2.9), -2);
  EXPECT_EQ(Pow2(63).as<uint64_t>(), std::optional<uint64_t>(uint64_t{1} << 63));
  EXPECT_FALSE(Pow2(64).as<uint64_t>().has_value());
  EXPECT_FALSE(BigInt(-1).as<uint32_t>().has_value());
  EXPECT_EQ(BigInt(300).as<int16_t>(), std::optional<int16_t>(300));
  EXPECT_FALSE(BigInt(300).as<int8_t>().has_value());
}

TEST(BigInt, ThroughAnyAndTheCFunctions) {
  BigInt v = -Pow2(130) + 5;
  ffi::Any any = v;
  EXPECT_EQ(any.cast<BigInt>(), v);
  EXPECT_EQ(ffi::Any(int64_t{7}).cast<BigInt>(), 7);
  EXPECT_EQ(ffi::Any(true).cast<BigInt>(), 1);
  EXPECT_FALSE(ffi::Any(1.5).as<BigInt>().has_value());
  TVMFFIByteArray words = TVMFFIBigIntGetContentByteArray(any.raw());
  ASSERT_EQ(words.size, 3 * sizeof(int64_t));
  TVMFFIAny made;
  ASSERT_EQ(TVMFFIBigIntFromByteArray(&words, &made), 0);
  EXPECT_EQ(ffi::Any::FromRaw(made).cast<BigInt>(), v);
  EXPECT_EQ(BigInt::FromWords(nullptr, 0), 0);
  const int64_t padded[] = {5, 0, 0};  // not minimal: trimmed to an inline 5
  ffi::Any five = BigInt::FromWords(padded, 3);
  EXPECT_EQ(five.type_index(), kTVMFFIInt);
}

TEST(BigInt, HashesAndMapKeysByValue) {
  std::unordered_set<BigInt> set;
  for (const BigInt& v : Samples()) set.insert(v);
  for (const BigInt& v : Samples()) EXPECT_EQ(set.count(v + 0), 1u);
  EXPECT_EQ(Pow2(100).hash(), (Pow2(101) >> 1).hash());
  ffi::Map<ffi::Any, int> m{{Pow2(100), 1}, {-Pow2(70), 2}};
  EXPECT_EQ(m.at(Pow2(99) * 2), 1);  // another object of the same value
  EXPECT_EQ(m.at(-Pow2(70)), 2);
  EXPECT_EQ(m.count(Pow2(100) + 1), 0u);
}

}  // namespace
