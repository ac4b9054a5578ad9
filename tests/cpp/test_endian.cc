// Byte order (endian.h): the machine's order as the macros report it (checked against memory),
// FFI_IO_NO_ENDIAN_SWAP for little-endian data, ByteSwap on elements of 1 to 16 bytes (twice is
// the identity), and the TVM-FFI spellings; and dtype_trait (extra/dtype.h), the DLPack element
// type of a C++ type.
#include <ffi/dtype.h>
#include <ffi/endian.h>
#include <ffi/extra/dtype.h>
#include <gtest/gtest.h>
#include <tvm/ffi/endian.h>
#include <tvm/ffi/extra/dtype.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace {

TEST(Endian, MacrosMatchTheMachine) {
  const uint32_t probe = 0x01020304;
  unsigned char first = 0;
  std::memcpy(&first, &probe, 1);
  EXPECT_EQ(FFI_LITTLE_ENDIAN, first == 0x04 ? 1 : 0);
  EXPECT_EQ(FFI_IO_USE_LITTLE_ENDIAN, 1);
  EXPECT_EQ(FFI_IO_NO_ENDIAN_SWAP, FFI_LITTLE_ENDIAN ? 1 : 0);
  // TVM-FFI's spellings are the same values.
  EXPECT_EQ(TVM_FFI_LITTLE_ENDIAN, FFI_LITTLE_ENDIAN);
  EXPECT_EQ(TVM_FFI_IO_USE_LITTLE_ENDIAN, 1);
  EXPECT_EQ(TVM_FFI_IO_NO_ENDIAN_SWAP, FFI_IO_NO_ENDIAN_SWAP);
}

TEST(Endian, ByteSwapReversesEachElement) {
  uint32_t words[3] = {0x01020304u, 0xA0B0C0D0u, 0u};
  ffi::ByteSwap(words, sizeof(uint32_t), 2);
  EXPECT_EQ(words[0], 0x04030201u);
  EXPECT_EQ(words[1], 0xD0C0B0A0u);
  EXPECT_EQ(words[2], 0u);  // past num_elems: untouched
  uint64_t wide = 0x0102030405060708ull;
  tvm::ffi::ByteSwap(&wide, sizeof(wide), 1);
  EXPECT_EQ(wide, 0x0807060504030201ull);
  uint16_t halves[2] = {0x1234, 0xABCD};
  ffi::ByteSwap(halves, 2, 2);
  EXPECT_EQ(halves[0], 0x3412);
  EXPECT_EQ(halves[1], 0xCDAB);
}

TEST(Endian, ByteSwapAnyWidthTwiceIsIdentity) {
  for (size_t width : {0u, 1u, 2u, 3u, 4u, 5u, 8u, 16u}) {
    const size_t count = 5;
    std::vector<unsigned char> data(width * count);
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<unsigned char>(i * 7 + 1);
    std::vector<unsigned char> swapped = data;
    ffi::ByteSwap(swapped.data(), width, count);
    for (size_t e = 0; e < count; ++e) {
      for (size_t b = 0; b < width; ++b) {
        EXPECT_EQ(swapped[e * width + b], data[e * width + width - 1 - b]) << width;
      }
    }
    ffi::ByteSwap(swapped.data(), width, count);
    EXPECT_EQ(swapped, data) << width;
  }
  ffi::ByteSwap(nullptr, 4, 0);  // nothing to do
}

template <typename T>
std::string DTypeOf() {
  return ffi::DLDataTypeToString(ffi::dtype_trait<T>::value);
}

/*! \brief Whether dtype_trait<T> has a `value`. */
template <typename T, typename = void>
struct HasDType : std::false_type {};
template <typename T>
struct HasDType<T, std::void_t<decltype(ffi::dtype_trait<T>::value)>> : std::true_type {};

TEST(DTypeTrait, StandardTypes) {
  EXPECT_EQ(DTypeOf<signed char>(), "int8");
  EXPECT_EQ(DTypeOf<unsigned char>(), "uint8");
  EXPECT_EQ(DTypeOf<int16_t>(), "int16");
  EXPECT_EQ(DTypeOf<uint16_t>(), "uint16");
  EXPECT_EQ(DTypeOf<int32_t>(), "int32");
  EXPECT_EQ(DTypeOf<uint32_t>(), "uint32");
  EXPECT_EQ(DTypeOf<int64_t>(), "int64");
  EXPECT_EQ(DTypeOf<uint64_t>(), "uint64");
  EXPECT_EQ(DTypeOf<long long>(), "int64");
  EXPECT_EQ(DTypeOf<unsigned long>(), "uint" + std::to_string(8 * sizeof(long)));
  EXPECT_EQ(DTypeOf<float>(), "float32");
  EXPECT_EQ(DTypeOf<double>(), "float64");
  EXPECT_EQ(DTypeOf<bool>(), "bool");
  static_assert(tvm::ffi::dtype_trait<float>::value.code == kDLFloat);
  static_assert(ffi::dtype_trait<int8_t>::value.bits == 8 &&
                ffi::dtype_trait<int8_t>::value.lanes == 1);
  static_assert(!HasDType<char>::value && !HasDType<std::string>::value);
  static_assert(HasDType<int>::value);
}

TEST(DTypeTrait, GpuTypesWithoutTheirHeaders) {
  EXPECT_EQ(DTypeOf<__half>(), "float16");
  EXPECT_EQ(DTypeOf<__nv_bfloat16>(), "bfloat16");
  EXPECT_EQ(DTypeOf<__hip_bfloat16>(), "bfloat16");
  EXPECT_EQ(DTypeOf<hip_bfloat16>(), "bfloat16");
  EXPECT_EQ(DTypeOf<__nv_fp8_e4m3>(), "float8_e4m3fn");
  EXPECT_EQ(DTypeOf<__hip_fp8_e4m3>(), "float8_e4m3fn");
  EXPECT_EQ(DTypeOf<__hip_fp8_e4m3_fnuz>(), "float8_e4m3fnuz");
  EXPECT_EQ(DTypeOf<__nv_fp8_e5m2>(), "float8_e5m2");
  EXPECT_EQ(DTypeOf<__hip_fp8_e5m2>(), "float8_e5m2");
  EXPECT_EQ(DTypeOf<__hip_fp8_e5m2_fnuz>(), "float8_e5m2fnuz");
  EXPECT_EQ(DTypeOf<__nv_fp8_e8m0>(), "float8_e8m0fnu");
  EXPECT_EQ(DTypeOf<__nv_fp4_e2m1>(), "float4_e2m1fn");
  EXPECT_EQ(DTypeOf<__hip_fp4_e2m1>(), "float4_e2m1fn");
  EXPECT_EQ(DTypeOf<__nv_fp4x2_e2m1>(), "float4_e2m1fnx2");
  EXPECT_EQ(DTypeOf<__hip_fp4x2_e2m1>(), "float4_e2m1fnx2");
}

}  // namespace
