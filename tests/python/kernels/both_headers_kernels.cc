// Kernels in the reference's vocabulary (<tvm/ffi/...>, tvm::ffi, TVM_FFI_*), built with our
// headers and with the reference's by test_both_headers.py: what ffi hands such kernels must
// satisfy either implementation of the headers. The reference's headers write export metadata
// (the type_schema signatures come from) only when asked; ours always do.
#define TVM_FFI_DLL_EXPORT_INCLUDE_METADATA 1
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/container/tuple.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

#include <chrono>
#include <cstdint>
#include <thread>

namespace {
namespace ffi = tvm::ffi;

// The strides a kernel reads (the reference's TensorView::strides() refuses null ones).
ffi::Array<int64_t> StridesOf(ffi::TensorView x) {
  ffi::Array<int64_t> out;
  for (int32_t i = 0; i < x.ndim(); ++i) out.push_back(x.strides()[i]);
  return out;
}

// Calls `f` with the tensor: a Python callback receives it as a view.
ffi::Any CallWithTensor(ffi::Function f, ffi::TensorView x) { return f(x); }

// Two tensors taken from a 1-d one: a container of framework tensors for the caller.
ffi::Tuple<ffi::Tensor, ffi::Tensor> Split2(ffi::Tensor x) {
  return ffi::Tuple<ffi::Tensor, ffi::Tensor>(x, x);
}

// Spins for up to `ms` milliseconds, checking for signals as a long kernel should: a pending
// KeyboardInterrupt ends it, through the host's own error.
int64_t PollSignals(int64_t ms) {
  auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  int64_t polls = 0;
  while (std::chrono::steady_clock::now() < end) {
    ++polls;
    if (TVMFFIEnvCheckSignals() != 0) throw ffi::EnvErrorAlreadySet();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return polls;
}

// Calls `f`; the kind and message of the error it raised ("none|" when it raised none).
ffi::String CatchKind(ffi::Function f) {
  try {
    f();
  } catch (const ffi::Error& e) {
    return e.kind() + "|" + e.message();
  }
  return "none|";
}

// Throws an error of any kind.
void ThrowKind(ffi::String kind, ffi::String message) {
  throw ffi::Error(kind, message, TVMFFIBacktrace(__FILE__, __LINE__, TVM_FFI_FUNC_SIG, 0));
}

// The type key of any object: a Python str longer than 7 bytes arrives as a String object.
ffi::String TypeKeyOf(ffi::ObjectRef o) { return o->GetTypeKey(); }

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(type_key_of, TypeKeyOf);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(poll_signals, PollSignals);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(catch_kind, CatchKind);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(throw_kind, ThrowKind);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(strides_of, StridesOf);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(call_with_tensor, CallWithTensor);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(split2, Split2);
