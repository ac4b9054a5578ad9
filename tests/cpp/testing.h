/*
 * tests/cpp/testing.h - helpers shared by the C++ test suites (tests/cpp/test_*.cc): catching
 * thrown and raised errors, an object type (Box), common dtype/device constants, shape comparison
 * and CPU allocators.
 * Test files include it as "testing.h" and use `using namespace ffi_testing;` in their own
 * anonymous namespace.
 */
#ifndef FFI_TESTS_CPP_TESTING_H_
#define FFI_TESTS_CPP_TESTING_H_

#include <ffi/ffi.h>
#include <gtest/gtest.h>
#include <pthread.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// Only the CUDA test targets define these (CMake sets them where nvcc built their kernels).
#if defined(FFI_CUDA_KERNELS) || defined(FFI_SEED_CUDA_KERNELS) || defined(FFI_CUBIN_OPS)
#include <cuda_runtime.h>
#endif

namespace ffi_testing {

/*! \brief `s` as the ABI's byte array (not owning: `s` must outlive it). */
inline TVMFFIByteArray Bytes(std::string_view s) { return TVMFFIByteArray{s.data(), s.size()}; }

/*!
 * \brief The object holding a String's or Bytes' bytes, or null when they are held inline (7 bytes
 * or fewer): read from the value's TVMFFIAny cell without touching its reference count.
 */
template <typename S>
const ffi::Object* HeapObject(const S& s) {
  TVMFFIAny cell;
  ffi::TypeTraits<S>::CopyToAnyView(s, &cell);
  if (cell.type_index < kTVMFFIStaticObjectBegin) return nullptr;
  return ffi::detail::ObjectUnsafe::FromHeader(cell.v_obj);
}
/*! \brief The ABI header of a String's object (the String must be longer than 7 bytes). */
template <typename S>
TVMFFIObject* HeapHeader(const S& s) {
  return ffi::detail::ObjectUnsafe::Header(HeapObject(s));
}
/*! \brief Strong references to a String's object (0 for one held inline). */
template <typename S>
uint32_t UseCount(const S& s) {
  const ffi::Object* obj = HeapObject(s);
  return obj == nullptr ? 0 : obj->use_count();
}
/*! \brief Whether two Strings share one object (never for inline ones). */
template <typename S>
bool SameObject(const S& a, const S& b) {
  return HeapObject(a) != nullptr && HeapObject(a) == HeapObject(b);
}

/*! \brief An object type of the tests' own: one int. Box(7) makes one. */
class BoxObj : public ffi::Object {
 public:
  explicit BoxObj(int v) : value(v) {}
  int value;
  FFI_DECLARE_OBJECT_INFO("testing.Box", BoxObj, ffi::Object);
};
/*! \brief The reference class of a BoxObj. */
class Box : public ffi::ObjectRef {
 public:
  explicit Box(int v) : ObjectRef(ffi::make_object<BoxObj>(v)) {}
  FFI_DEFINE_OBJECT_REF_METHODS(Box, ObjectRef, BoxObj);
};

/*! \brief float32, one lane. */
inline constexpr DLDataType kF32{kDLFloat, 32, 1};
/*! \brief The host CPU, device 0. */
inline constexpr DLDevice kCPU{kDLCPU, 0};

/*! \brief The extents (or strides) as a vector, for comparisons that print nicely. */
inline std::vector<int64_t> Vec(ffi::ShapeView s) {
  return std::vector<int64_t>(s.begin(), s.end());
}

/*! \brief Runs `fn`; returns the ffi::Error it throws, std::nullopt when it throws none. */
template <typename F>
ffi::Optional<ffi::Error> TryCatchError(F fn) {
  try {
    fn();
  } catch (const ffi::Error& e) {
    return e;
  }
  return std::nullopt;
}

/*! \brief Runs `fn`, expecting an ffi::Error; returns it (kind "" when nothing was thrown). */
template <typename F>
ffi::Error CatchError(F fn) {
  ffi::Optional<ffi::Error> thrown = TryCatchError(std::move(fn));
  if (!thrown.has_value()) return ffi::Error("", "nothing thrown");
  return *thrown;
}

/*!
 * \brief Runs `fn` on a new thread with a 1 MiB stack (what walkers of deep values are tested on:
 * 768 KiB usable after the runtime's reserve, whatever the build) and waits for it.
 */
template <typename F>
void RunOnSmallStack(F fn) {
  pthread_attr_t attr;
  ASSERT_EQ(pthread_attr_init(&attr), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attr, size_t{1} << 20), 0);
  pthread_t thread;
  auto trampoline = [](void* arg) -> void* {
    (*static_cast<F*>(arg))();
    return nullptr;
  };
  ASSERT_EQ(pthread_create(&thread, &attr, trampoline, &fn), 0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
}

/*! \brief Like CatchError, but nothing thrown is a test failure (and gives kind "None"). */
template <typename F>
ffi::Error ExpectError(F fn) {
  ffi::Optional<ffi::Error> thrown = TryCatchError(std::move(fn));
  if (thrown.has_value()) return *thrown;
  ADD_FAILURE() << "expected an ffi::Error";
  return ffi::Error("None", "");
}

/*! \brief Moves the thread's raised error out; std::nullopt when none was raised. */
inline ffi::Optional<ffi::Error> TryTakeRaised() {
  TVMFFIObjectHandle err = nullptr;
  TVMFFIErrorMoveFromRaised(&err);
  if (err == nullptr) return std::nullopt;
  return ffi::Error(ffi::ObjectPtr<ffi::Object>::Steal(ffi::detail::ObjectUnsafe::FromHeader(err)));
}

/*! \brief Moves the thread's raised error out; kind "" when none was raised. */
inline ffi::Error TakeRaised() {
  ffi::Optional<ffi::Error> raised = TryTakeRaised();
  if (!raised.has_value()) return ffi::Error("", "nothing raised");
  return *raised;
}

/*! \brief Moves the raised error out and releases it, C API only: "Kind" ("Kind: message"), or "".
 */
inline std::string RaisedKindAndClear(bool with_message = false) {
  TVMFFIObjectHandle err = nullptr;
  TVMFFIErrorMoveFromRaised(&err);
  if (err == nullptr) return "";
  TVMFFIErrorCell* cell = TVMFFIErrorGetCellPtr(err);
  std::string out(cell->kind.data, cell->kind.size);
  if (with_message) out += ": " + std::string(cell->message.data, cell->message.size);
  TVMFFIObjectDecRef(err);
  return out;
}

/*! \brief A malloc-backed CPU allocator for Tensor::FromNDAlloc that counts into its counters. */
struct CountingCPUAlloc {
  /*! \brief When set, incremented by every FreeData. */
  int* freed = nullptr;
  /*! \brief When set, the number of live buffers: +1 per AllocData, -1 per FreeData. */
  int* live = nullptr;

  /*! \brief Allocates the tensor's bytes (one byte for a zero-size tensor). */
  void AllocData(DLTensor* t) {
    size_t n = ffi::GetDataSize(*t);
    t->data = std::malloc(n == 0 ? 1 : n);
    if (live) ++*live;
  }
  /*! \brief Frees what AllocData allocated. */
  void FreeData(DLTensor* t) {
    std::free(t->data);
    if (freed) ++*freed;
    if (live) --*live;
  }
};

/*! \brief What a CountingAlloc saw (the tensor suites, test_tensor*.cc). */
struct Counters {
  int alloc = 0;
  int free = 0;
  void* last_data = nullptr;
  size_t last_bytes = 0;
  void* freed_data = nullptr;
};

/*!
 * \brief A CPU allocator for FromNDAlloc that counts its calls. `bytes` overrides the size (for
 * strided layouts that need more than GetDataSize); `byte_offset` is written into the tensor.
 */
struct CountingAlloc {
  Counters* c;
  size_t bytes = 0;
  uint64_t byte_offset = 0;
  bool clear_strides = false;

  void AllocData(DLTensor* t) {
    ++c->alloc;
    size_t n = (bytes != 0 ? bytes : ffi::GetDataSize(*t)) + byte_offset;
    t->data = std::malloc(n == 0 ? 1 : n);
    t->byte_offset = byte_offset;
    if (clear_strides) t->strides = nullptr;
    c->last_data = t->data;
    c->last_bytes = n;
  }
  /*! \brief The variant FromNDAlloc uses when given extra arguments. */
  void AllocData(DLTensor* t, int fill, size_t* seen_bytes) {
    AllocData(t);
    std::memset(t->data, fill, c->last_bytes);
    *seen_bytes = c->last_bytes;
  }
  void FreeData(DLTensor* t) {
    ++c->free;
    c->freed_data = t->data;
    std::free(t->data);
    t->data = nullptr;
  }
};

#if defined(FFI_CUDA_KERNELS) || defined(FFI_SEED_CUDA_KERNELS) || defined(FFI_CUBIN_OPS)
/*! \brief Whether a CUDA device can be used; `why` gets the CUDA error otherwise. */
inline bool HasGPU(cudaError_t* why = nullptr) {
  int n = 0;
  cudaError_t err = cudaGetDeviceCount(&n);
  (void)cudaGetLastError();
  if (why) *why = err;
  return err == cudaSuccess && n > 0;
}
#endif

}  // namespace ffi_testing

#endif  // FFI_TESTS_CPP_TESTING_H_
