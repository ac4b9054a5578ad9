// FFIRuntimeTensorDetachDLPackVersioned (ffi/detail/runtime_entries.h), found by name as the
// Python extension finds it: a Tensor imported from a versioned DLPack tensor gives that tensor
// back when its caller holds the only reference, and nothing changes otherwise.
#include <ffi/detail/runtime_entries.h>
#include <ffi/ffi.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "testing.h"

#ifdef _WIN32
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>
#else
#include <dlfcn.h>
#endif

namespace {

using namespace ffi_testing;

using ffi::Tensor;

FFIRuntimeTensorDetachDLPackVersionedType Detach() {
#ifdef _WIN32
  // No global symbol scope on Windows: the entry is looked up in the runtime's own DLL, the one
  // that defines the C ABI.
  HMODULE runtime = nullptr;
  GetModuleHandleExA(
      GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
      reinterpret_cast<LPCSTR>(&TVMFFIObjectIncRef), &runtime);
  return reinterpret_cast<FFIRuntimeTensorDetachDLPackVersionedType>(
      reinterpret_cast<void*>(GetProcAddress(runtime, FFI_RUNTIME_TENSOR_DETACH_DLPACK_VERSIONED)));
#else
  return reinterpret_cast<FFIRuntimeTensorDetachDLPackVersionedType>(
      dlsym(RTLD_DEFAULT, FFI_RUNTIME_TENSOR_DETACH_DLPACK_VERSIONED));
#endif
}

/*! \brief A versioned DLPack tensor over a test-owned buffer whose deleter counts. */
struct Producer {
  float storage[6] = {};
  int64_t shape[2] = {2, 3};
  int deleted = 0;
  DLManagedTensorVersioned managed{};
  Producer() {
    managed.version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
    managed.manager_ctx = this;
    managed.flags = DLPACK_FLAG_BITMASK_IS_COPIED;
    managed.deleter = [](DLManagedTensorVersioned* self) {
      ++static_cast<Producer*>(self->manager_ctx)->deleted;
    };
    managed.dl_tensor = DLTensor{storage, kCPU, 2, kF32, shape, nullptr, 0};
  }
};

TVMFFIObjectHandle HandleOf(const Tensor& t) {
  return ffi::detail::ObjectUnsafe::GetHeader(t.get());
}

TEST(TensorDetach, TheRuntimeExportsIt) { ASSERT_NE(Detach(), nullptr); }

TEST(TensorDetach, SoleOwnerGetsTheProducersTensorBack) {
  Producer p;
  // The caller's reference, handed over as it would be released (the tensor is consumed).
  TVMFFIObjectHandle handle =
      ffi::detail::ObjectUnsafe::MoveToHeader(Tensor::FromDLPackVersioned(&p.managed));
  DLManagedTensorVersioned* out = nullptr;
  ASSERT_EQ(Detach()(handle, &out), 0);
  ASSERT_EQ(out, &p.managed);  // the producer's own, flags and all
  EXPECT_EQ(out->flags, static_cast<uint64_t>(DLPACK_FLAG_BITMASK_IS_COPIED));
  EXPECT_EQ(p.deleted, 0);  // the tensor went without running the producer's deleter
  out->deleter(out);
  EXPECT_EQ(p.deleted, 1);
}

TEST(TensorDetach, NothingChangesWithAnotherOwner) {
  Producer p;
  Tensor t = Tensor::FromDLPackVersioned(&p.managed);
  DLManagedTensorVersioned* out = &p.managed;
  {
    Tensor other = t;  // a second strong reference
    ASSERT_EQ(Detach()(HandleOf(t), &out), 0);
    EXPECT_EQ(out, nullptr);
  }
  {
    // A weak reference (its strong one gone at once) could become a strong one.
    ffi::WeakObjectPtr<ffi::Object> weak(
        ffi::detail::ObjectUnsafe::ObjectPtrFromObjectRef<ffi::Object>(t));
    ASSERT_EQ(Detach()(HandleOf(t), &out), 0);
    EXPECT_EQ(out, nullptr);
  }
  EXPECT_EQ(t.data_ptr(), p.storage);
  t = Tensor();
  EXPECT_EQ(p.deleted, 1);
}

TEST(TensorDetach, NothingChangesForTensorsNotImportedVersioned) {
  int freed = 0;
  Tensor made = Tensor::FromNDAlloc(CountingCPUAlloc{&freed}, {4}, kF32, kCPU);
  DLManagedTensorVersioned* out = nullptr;
  ASSERT_EQ(Detach()(HandleOf(made), &out), 0);
  EXPECT_EQ(out, nullptr);
  EXPECT_NE(made.data_ptr(), nullptr);

  Producer p;
  DLManagedTensor legacy{p.managed.dl_tensor, &p, [](DLManagedTensor* self) {
                           ++static_cast<Producer*>(self->manager_ctx)->deleted;
                         }};
  Tensor old = Tensor::FromDLPack(&legacy);
  ASSERT_EQ(Detach()(HandleOf(old), &out), 0);
  EXPECT_EQ(out, nullptr);
  old = Tensor();
  EXPECT_EQ(p.deleted, 1);
  made = Tensor();
  EXPECT_EQ(freed, 1);
}

TEST(TensorDetach, BadArgumentsAreTypedErrors) {
  DLManagedTensorVersioned* out = nullptr;
  ffi::Shape not_a_tensor({1, 2});
  EXPECT_EQ(Detach()(ffi::detail::ObjectUnsafe::GetHeader(not_a_tensor.get()), &out), -1);
  EXPECT_EQ(TakeRaised().kind(), "TypeError");
  EXPECT_EQ(Detach()(nullptr, &out), -1);
  EXPECT_EQ(TakeRaised().kind(), "TypeError");
  Producer p;
  Tensor t = Tensor::FromDLPackVersioned(&p.managed);
  EXPECT_EQ(Detach()(HandleOf(t), nullptr), -1);
  EXPECT_EQ(TakeRaised().kind(), "ValueError");
  EXPECT_EQ(t.data_ptr(), p.storage);
}

}  // namespace
