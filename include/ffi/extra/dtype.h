/*
 * ffi/extra/dtype.h - dtype_trait<T>: the DLPack element type of a C++ element type, as a
 * compile-time constant, for kernels that check or build tensors from a template parameter:
 *
 *   template <typename T>
 *   void Fill(ffi::TensorView t, T v) {
 *     FFI_CHECK(t.dtype() == ffi::dtype_trait<T>::value, TypeError) << "wrong element type";
 *     ...
 *   }
 *
 * Covered: the signed and unsigned integer types (plain `char`, whose signedness varies, is left
 * out), float, double, bool, and the CUDA and HIP half, bfloat16, float8 and float4 types. Those
 * are only declared here, so the trait compiles without the GPU toolkits' headers; a type with no
 * specialization has no `value` (a compile error where it is used).
 */
#ifndef FFI_EXTRA_DTYPE_H_
#define FFI_EXTRA_DTYPE_H_

#include <cstdint>
#include <type_traits>

#include "../dlpack.h"

// The GPU element types, as the CUDA (cuda_fp16.h, cuda_bf16.h, cuda_fp8.h, cuda_fp4.h) and HIP
// headers define them (both toolkits name half precision __half).
struct __half;
struct __nv_bfloat16;
struct __nv_fp8_e4m3;
struct __nv_fp8_e5m2;
struct __nv_fp8_e8m0;
struct __nv_fp4_e2m1;
struct __nv_fp4x2_e2m1;
struct __hip_bfloat16;
struct hip_bfloat16;
struct __hip_fp8_e4m3;
struct __hip_fp8_e4m3_fnuz;
struct __hip_fp8_e5m2;
struct __hip_fp8_e5m2_fnuz;
struct __hip_fp4_e2m1;
struct __hip_fp4x2_e2m1;

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

/*!
 * \brief The DLPack element type of `T` as `dtype_trait<T>::value` (a constexpr DLDataType);
 * no `value` for a type without one. Specialize it for your own element types.
 */
template <typename T>
struct dtype_trait {};

namespace detail {
/*! \brief A trait whose `value` is {code, bits, lanes}. */
template <DLDataTypeCode code, uint8_t bits, uint16_t lanes = 1>
struct DTypeConstant {
  /*! \brief The element type. */
  static constexpr DLDataType value{static_cast<uint8_t>(code), bits, lanes};
};
/*! \brief The element type of a standard integer type: int or uint of its width. */
template <typename T>
using IntDType =
    DTypeConstant<std::is_signed_v<T> ? kDLInt : kDLUInt, static_cast<uint8_t>(8 * sizeof(T))>;
/*! \brief The element type of a standard floating-point type: float of its width. */
template <typename T>
using FloatDType = DTypeConstant<kDLFloat, static_cast<uint8_t>(8 * sizeof(T))>;
}  // namespace detail

/// \cond Doxygen_Suppress
template <>
struct dtype_trait<signed char> : detail::IntDType<signed char> {};
template <>
struct dtype_trait<unsigned char> : detail::IntDType<unsigned char> {};
template <>
struct dtype_trait<short> : detail::IntDType<short> {};
template <>
struct dtype_trait<unsigned short> : detail::IntDType<unsigned short> {};
template <>
struct dtype_trait<int> : detail::IntDType<int> {};
template <>
struct dtype_trait<unsigned int> : detail::IntDType<unsigned int> {};
template <>
struct dtype_trait<long> : detail::IntDType<long> {};
template <>
struct dtype_trait<unsigned long> : detail::IntDType<unsigned long> {};
template <>
struct dtype_trait<long long> : detail::IntDType<long long> {};
template <>
struct dtype_trait<unsigned long long> : detail::IntDType<unsigned long long> {};
template <>
struct dtype_trait<float> : detail::FloatDType<float> {};
template <>
struct dtype_trait<double> : detail::FloatDType<double> {};
template <>
struct dtype_trait<bool> : detail::DTypeConstant<kDLBool, 8> {};

// CUDA.
template <>
struct dtype_trait<__half> : detail::DTypeConstant<kDLFloat, 16> {};
template <>
struct dtype_trait<__nv_bfloat16> : detail::DTypeConstant<kDLBfloat, 16> {};
template <>
struct dtype_trait<__nv_fp8_e4m3> : detail::DTypeConstant<kDLFloat8_e4m3fn, 8> {};
template <>
struct dtype_trait<__nv_fp8_e5m2> : detail::DTypeConstant<kDLFloat8_e5m2, 8> {};
template <>
struct dtype_trait<__nv_fp8_e8m0> : detail::DTypeConstant<kDLFloat8_e8m0fnu, 8> {};
template <>
struct dtype_trait<__nv_fp4_e2m1> : detail::DTypeConstant<kDLFloat4_e2m1fn, 4> {};
template <>
struct dtype_trait<__nv_fp4x2_e2m1> : detail::DTypeConstant<kDLFloat4_e2m1fn, 4, 2> {};

// HIP.
template <>
struct dtype_trait<__hip_bfloat16> : detail::DTypeConstant<kDLBfloat, 16> {};
template <>
struct dtype_trait<hip_bfloat16> : detail::DTypeConstant<kDLBfloat, 16> {};
template <>
struct dtype_trait<__hip_fp8_e4m3> : detail::DTypeConstant<kDLFloat8_e4m3fn, 8> {};
template <>
struct dtype_trait<__hip_fp8_e4m3_fnuz> : detail::DTypeConstant<kDLFloat8_e4m3fnuz, 8> {};
template <>
struct dtype_trait<__hip_fp8_e5m2> : detail::DTypeConstant<kDLFloat8_e5m2, 8> {};
template <>
struct dtype_trait<__hip_fp8_e5m2_fnuz> : detail::DTypeConstant<kDLFloat8_e5m2fnuz, 8> {};
template <>
struct dtype_trait<__hip_fp4_e2m1> : detail::DTypeConstant<kDLFloat4_e2m1fn, 4> {};
template <>
struct dtype_trait<__hip_fp4x2_e2m1> : detail::DTypeConstant<kDLFloat4_e2m1fn, 4, 2> {};
/// \endcond

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_EXTRA_DTYPE_H_
