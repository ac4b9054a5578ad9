/*
 * ffi/dlpack.h - the DLPack 1.x data structures (through DLPack 1.3).
 *
 * DLPack is the common in-memory description of an n-dimensional array shared by ML frameworks.
 * This header declares the structures under DLPack's standard include guard, so a program that
 * also includes its own <dlpack/dlpack.h> gets exactly one definition of each type.
 * Layouts and enum values follow the DLPack specification; the words are ours.
 */
#ifndef DLPACK_DLPACK_H_
#define DLPACK_DLPACK_H_

#include <stddef.h>
#include <stdint.h>

/*! \brief Major version of the DLPack structures declared here. */
#define DLPACK_MAJOR_VERSION 1
/*! \brief Minor version of the DLPack structures declared here. */
#define DLPACK_MINOR_VERSION 3

#ifdef __cplusplus
#define DLPACK_EXTERN_C extern "C"
#else
#define DLPACK_EXTERN_C
#endif

#ifdef _WIN32
#ifdef DLPACK_EXPORTS
#define DLPACK_DLL __declspec(dllexport)
#else
#define DLPACK_DLL __declspec(dllimport)
#endif
#else
#define DLPACK_DLL
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*! \brief A DLPack ABI version; a consumer refuses a major version it does not know. */
typedef struct {
  /*! \brief Bumped on changes that break the layout of the structures. */
  uint32_t major;
  /*! \brief Bumped on compatible additions. */
  uint32_t minor;
} DLPackVersion;

/*! \brief The kind of memory a tensor's data lives in. */
#ifdef __cplusplus
typedef enum : int32_t {
#else
typedef enum {
#endif
  /*! \brief Host memory. */
  kDLCPU = 1,
  /*! \brief CUDA device memory. */
  kDLCUDA = 2,
  /*! \brief Host memory pinned by cudaMallocHost. */
  kDLCUDAHost = 3,
  /*! \brief OpenCL buffers. */
  kDLOpenCL = 4,
  /*! \brief Vulkan buffers. */
  kDLVulkan = 7,
  /*! \brief Apple Metal buffers. */
  kDLMetal = 8,
  /*! \brief Verilog simulator buffers. */
  kDLVPI = 9,
  /*! \brief AMD ROCm device memory. */
  kDLROCM = 10,
  /*! \brief Host memory pinned by hipMallocHost. */
  kDLROCMHost = 11,
  /*! \brief Reserved for experimental devices. */
  kDLExtDev = 12,
  /*! \brief CUDA managed (unified) memory. */
  kDLCUDAManaged = 13,
  /*! \brief Intel oneAPI unified shared memory. */
  kDLOneAPI = 14,
  /*! \brief WebGPU buffers. */
  kDLWebGPU = 15,
  /*! \brief Qualcomm Hexagon DSP memory. */
  kDLHexagon = 16,
  /*! \brief Microsoft MAIA device memory. */
  kDLMAIA = 17,
  /*! \brief AWS Trainium device memory. */
  kDLTrn = 18,
} DLDeviceType;

/*! \brief A device: its kind and its ordinal among devices of that kind. */
typedef struct {
  /*! \brief The kind of device. */
  DLDeviceType device_type;
  /*! \brief The ordinal of the device (0 for the host). */
  int32_t device_id;
} DLDevice;

/*! \brief The family of an element type; `DLDataType::code` holds one of these. */
typedef enum {
  /*! \brief Signed two's-complement integer. */
  kDLInt = 0U,
  /*! \brief Unsigned integer. */
  kDLUInt = 1U,
  /*! \brief IEEE 754 binary floating point. */
  kDLFloat = 2U,
  /*! \brief An opaque handle whose meaning producer and consumer agree on. */
  kDLOpaqueHandle = 3U,
  /*! \brief bfloat16: a float32 with its low 16 mantissa bits dropped. */
  kDLBfloat = 4U,
  /*! \brief Complex number: real then imaginary part, `bits` covers both. */
  kDLComplex = 5U,
  /*! \brief Boolean stored in `bits` bits (8 for one byte per element). */
  kDLBool = 6U,
  /*! \brief 8-bit float, 3 exponent and 4 mantissa bits. */
  kDLFloat8_e3m4 = 7U,
  /*! \brief 8-bit float, 4 exponent and 3 mantissa bits, IEEE-like. */
  kDLFloat8_e4m3 = 8U,
  /*! \brief 8-bit float e4m3, bias 11, finite, unsigned zero, NaN at 0x80. */
  kDLFloat8_e4m3b11fnuz = 9U,
  /*! \brief 8-bit float e4m3, finite, NaN at all-ones (OCP FP8 E4M3). */
  kDLFloat8_e4m3fn = 10U,
  /*! \brief 8-bit float e4m3, finite, unsigned zero, NaN at 0x80. */
  kDLFloat8_e4m3fnuz = 11U,
  /*! \brief 8-bit float, 5 exponent and 2 mantissa bits (OCP FP8 E5M2). */
  kDLFloat8_e5m2 = 12U,
  /*! \brief 8-bit float e5m2, finite, unsigned zero, NaN at 0x80. */
  kDLFloat8_e5m2fnuz = 13U,
  /*! \brief 8-bit exponent-only scale type (OCP MX E8M0). */
  kDLFloat8_e8m0fnu = 14U,
  /*! \brief 6-bit float, 2 exponent and 3 mantissa bits, finite (OCP MX). */
  kDLFloat6_e2m3fn = 15U,
  /*! \brief 6-bit float, 3 exponent and 2 mantissa bits, finite (OCP MX). */
  kDLFloat6_e3m2fn = 16U,
  /*! \brief 4-bit float, 2 exponent and 1 mantissa bit, finite (OCP MX). */
  kDLFloat4_e2m1fn = 17U,
} DLDataTypeCode;

/*! \brief An element type: family, width and vector lanes (float32 is {kDLFloat, 32, 1}). */
typedef struct {
  /*! \brief The family, one of `DLDataTypeCode`. */
  uint8_t code;
  /*! \brief Width of one lane in bits. */
  uint8_t bits;
  /*! \brief Number of lanes; more than one for vector types such as float32x4. */
  uint16_t lanes;
} DLDataType;

/*! \brief A non-owning description of an n-dimensional array. */
typedef struct {
  /*! \brief Base address of the data (a device pointer for device memory); see byte_offset. */
  void* data;
  /*! \brief Where the data lives. */
  DLDevice device;
  /*! \brief Number of dimensions; 0 for a scalar. */
  int32_t ndim;
  /*! \brief Element type. */
  DLDataType dtype;
  /*! \brief Extent of each dimension, `ndim` entries. */
  int64_t* shape;
  /*! \brief Step of each dimension in elements, `ndim` entries; NULL means compact row-major. */
  int64_t* strides;
  /*! \brief Offset in bytes from `data` to the first element. */
  uint64_t byte_offset;
} DLTensor;

/*! \brief The pre-1.0 owning tensor: a DLTensor and a deleter the consumer calls once. */
typedef struct DLManagedTensor {
  /*! \brief The tensor being handed over. */
  DLTensor dl_tensor;
  /*! \brief Producer's private state, for the deleter. */
  void* manager_ctx;
  /*! \brief Called once by the consumer when done; may be NULL when nothing is to be freed. */
  void (*deleter)(struct DLManagedTensor* self);
} DLManagedTensor;

/*! \brief Flag: the consumer must not write to the data. */
#define DLPACK_FLAG_BITMASK_READ_ONLY (1UL << 0UL)
/*! \brief Flag: the data was copied for this exchange, so the consumer owns it exclusively. */
#define DLPACK_FLAG_BITMASK_IS_COPIED (1UL << 1UL)
/*! \brief Flag: sub-byte elements are padded to whole bytes. */
#define DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED (1UL << 2UL)

/*! \brief The versioned (1.x) owning tensor. */
typedef struct DLManagedTensorVersioned {
  /*! \brief Version of this structure, checked by the consumer before reading further. */
  DLPackVersion version;
  /*! \brief Producer's private state, for the deleter. */
  void* manager_ctx;
  /*! \brief Called once by the consumer when done; may be NULL when nothing is to be freed. */
  void (*deleter)(struct DLManagedTensorVersioned* self);
  /*! \brief Bit set of DLPACK_FLAG_BITMASK_* values. */
  uint64_t flags;
  /*! \brief The tensor being handed over. */
  DLTensor dl_tensor;
} DLManagedTensorVersioned;

/*!
 * \brief Allocates a tensor like `prototype` (its data pointer ignored) in a framework's allocator.
 * Returns 0 and sets `*out` on success; on failure calls `SetError(error_ctx, kind, message)` and
 * returns non-zero.
 */
typedef int (*DLPackManagedTensorAllocator)(DLTensor* prototype, DLManagedTensorVersioned** out,
                                            void* error_ctx,
                                            void (*SetError)(void* error_ctx, const char* kind,
                                                             const char* message));

/*! \brief Exports a framework's Python tensor object as a new owning DLPack tensor, no sync. */
typedef int (*DLPackManagedTensorFromPyObjectNoSync)(void* py_object,
                                                     DLManagedTensorVersioned** out);

/*! \brief Fills a borrowed DLTensor view of a framework's Python tensor object, no sync. */
typedef int (*DLPackDLTensorFromPyObjectNoSync)(void* py_object, DLTensor* out);

/*! \brief Reads the framework's current work stream for a device. */
typedef int (*DLPackCurrentWorkStream)(DLDeviceType device_type, int32_t device_id,
                                       void** out_current_stream);

/*! \brief Wraps an owning DLPack tensor into a framework's Python tensor object, no sync. */
typedef int (*DLPackManagedTensorToPyObjectNoSync)(DLManagedTensorVersioned* tensor,
                                                   void** out_py_object);

/*! \brief Header of a DLPackExchangeAPI table, so tables can be versioned and chained. */
typedef struct DLPackExchangeAPIHeader {
  /*! \brief Version of the table layout. */
  DLPackVersion version;
  /*! \brief An older table of the same framework, or NULL. */
  struct DLPackExchangeAPIHeader* prev_api;
} DLPackExchangeAPIHeader;

/*! \brief C function pointers a framework publishes for exchanging tensors without Python calls. */
typedef struct DLPackExchangeAPI {
  /*! \brief Version and chaining. */
  DLPackExchangeAPIHeader header;
  /*! \brief Allocates through the framework's allocator. */
  DLPackManagedTensorAllocator managed_tensor_allocator;
  /*! \brief Framework tensor to owning DLPack tensor. */
  DLPackManagedTensorFromPyObjectNoSync managed_tensor_from_py_object_no_sync;
  /*! \brief Owning DLPack tensor to framework tensor. */
  DLPackManagedTensorToPyObjectNoSync managed_tensor_to_py_object_no_sync;
  /*! \brief Framework tensor to borrowed DLTensor view. */
  DLPackDLTensorFromPyObjectNoSync dltensor_from_py_object_no_sync;
  /*! \brief The framework's current stream for a device. */
  DLPackCurrentWorkStream current_work_stream;
} DLPackExchangeAPI;

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // DLPACK_DLPACK_H_
