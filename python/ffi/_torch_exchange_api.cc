// PyTorch's DLPack exchange API (DLPackExchangeAPI) for PyTorch releases that publish none (before
// 2.10). ffi.torch_exchange compiles this file once against the installed PyTorch and sets the
// table on torch.Tensor, so calls with PyTorch tensors keep the C-level path: borrowed views
// without a Python call, PyTorch's allocator for the tensors a kernel allocates, and PyTorch's
// current stream for the kernel.
//
// Only functions that exist in every PyTorch since 2.0 are used (the legacy at::toDLPack and
// at::fromDLPack, wrapped into versioned tensors here), so one source serves every release.
#include <ffi/dlpack.h>  // first: DLPack 1.x under the standard guard (older ATen ships 0.x)
// clang-format off: Python.h comes before the standard headers PyTorch's headers include.
#include <Python.h>
// clang-format on
#include <ATen/DLConvertor.h>
#include <ATen/Functions.h>
#include <torch/csrc/autograd/python_variable.h>
#ifdef FFI_TORCH_CUDA  // a CUDA build of PyTorch: kernels get its current stream
#include <c10/cuda/CUDAStream.h>
#endif

#include <exception>
#include <new>
#include <string>

namespace {

/*! \brief A legacy DLPack tensor from ATen presented as a versioned one (owns the legacy one). */
struct VersionedFromLegacy {
  DLManagedTensorVersioned versioned;
  DLManagedTensor* legacy;

  static void Delete(DLManagedTensorVersioned* self) {
    auto* owner = static_cast<VersionedFromLegacy*>(self->manager_ctx);
    if (owner->legacy->deleter != nullptr) owner->legacy->deleter(owner->legacy);
    delete owner;
  }
};

/*! \brief A versioned DLPack tensor presented as a legacy one, for at::fromDLPack. */
struct LegacyFromVersioned {
  DLManagedTensor legacy;
  DLManagedTensorVersioned* versioned;

  static void Delete(DLManagedTensor* self) {
    auto* owner = static_cast<LegacyFromVersioned*>(self->manager_ctx);
    if (owner->versioned->deleter != nullptr) owner->versioned->deleter(owner->versioned);
    delete owner;
  }
};

/*! \brief `tensor` exported as a new versioned DLPack tensor owning a reference to it. */
DLManagedTensorVersioned* Export(const at::Tensor& tensor) {
  DLManagedTensor* legacy = at::toDLPack(tensor);
  auto* owner = new (std::nothrow) VersionedFromLegacy{};
  if (owner == nullptr) {
    legacy->deleter(legacy);
    throw std::bad_alloc();
  }
  owner->legacy = legacy;
  owner->versioned.version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  owner->versioned.manager_ctx = owner;
  owner->versioned.deleter = &VersionedFromLegacy::Delete;
  owner->versioned.flags = 0;
  owner->versioned.dl_tensor = legacy->dl_tensor;
  return &owner->versioned;
}

/*! \brief The PyTorch device of a DLPack device: CPU or CUDA. */
c10::Device TorchDevice(DLDevice device) {
  switch (device.device_type) {
    case kDLCPU:
      return c10::Device(c10::DeviceType::CPU);
    case kDLCUDA:
      return c10::Device(c10::DeviceType::CUDA, static_cast<c10::DeviceIndex>(device.device_id));
    default:
      throw std::invalid_argument("PyTorch cannot allocate on DLPack device type " +
                                  std::to_string(static_cast<int>(device.device_type)));
  }
}

/*! \brief The DLPack device of a tensor's PyTorch device. */
DLDevice DLDeviceOf(const at::Tensor& tensor) {
  c10::Device device = tensor.device();
  switch (device.type()) {
    case c10::DeviceType::CPU:
      return DLDevice{kDLCPU, 0};
    case c10::DeviceType::CUDA:
      return DLDevice{kDLCUDA, device.index()};
    default:
      throw std::invalid_argument(std::string("no DLPack device for PyTorch device ") +
                                  c10::DeviceTypeName(device.type()));
  }
}

/*! \brief The Python tensor behind `py_object`, or NULL with a TypeError set. */
const at::Tensor* Unpack(void* py_object) {
  auto* obj = static_cast<PyObject*>(py_object);
  if (obj == nullptr || !THPVariable_Check(obj)) {
    PyErr_Format(PyExc_TypeError, "expected a torch.Tensor, got %s",
                 obj == nullptr ? "NULL" : Py_TYPE(obj)->tp_name);
    return nullptr;
  }
  return &THPVariable_Unpack(obj);
}

/*! \brief Sets the Python error for a C++ exception PyTorch raised (under the GIL). */
void SetPythonError(const std::exception& e) { PyErr_SetString(PyExc_RuntimeError, e.what()); }

int Allocate(DLTensor* prototype, DLManagedTensorVersioned** out, void* error_ctx,
             void (*set_error)(void* error_ctx, const char* kind, const char* message)) {
  try {
    auto options = at::TensorOptions()
                       .dtype(at::toScalarType(prototype->dtype))
                       .device(TorchDevice(prototype->device));
    at::IntArrayRef shape(prototype->shape, prototype->ndim);
    *out = Export(at::empty(shape, options));
    return 0;
  } catch (const std::exception& e) {
    if (set_error != nullptr) set_error(error_ctx, "RuntimeError", e.what());
    return -1;
  }
}

int ManagedFromPyObject(void* py_object, DLManagedTensorVersioned** out) {
  const at::Tensor* tensor = Unpack(py_object);
  if (tensor == nullptr) return -1;
  try {
    *out = Export(*tensor);
    return 0;
  } catch (const std::exception& e) {
    SetPythonError(e);
    return -1;
  }
}

int ManagedToPyObject(DLManagedTensorVersioned* tensor, void** out_py_object) {
  if (tensor == nullptr) {
    PyErr_SetString(PyExc_TypeError, "managed_tensor_to_py_object_no_sync: the tensor is NULL");
    return -1;
  }
  auto* owner = new (std::nothrow) LegacyFromVersioned{};
  if (owner == nullptr) {
    PyErr_NoMemory();
    return -1;
  }
  owner->versioned = tensor;
  owner->legacy.dl_tensor = tensor->dl_tensor;
  owner->legacy.manager_ctx = owner;
  owner->legacy.deleter = &LegacyFromVersioned::Delete;
  try {
    // From here on PyTorch owns `owner`: it calls the deleter, also when it refuses the tensor.
    at::Tensor result = at::fromDLPack(&owner->legacy);
    PyObject* wrapped = THPVariable_Wrap(std::move(result));
    if (wrapped == nullptr) return -1;
    *out_py_object = wrapped;
    return 0;
  } catch (const std::exception& e) {
    SetPythonError(e);
    return -1;
  }
}

int ViewFromPyObject(void* py_object, DLTensor* out) {
  const at::Tensor* tensor = Unpack(py_object);
  if (tensor == nullptr) return -1;
  try {
    // The same fields at::toDLPack fills, without the allocation: shape and strides point into
    // the tensor, which the caller keeps alive for as long as it uses the view.
    out->data = tensor->data_ptr();
    out->device = DLDeviceOf(*tensor);
    out->ndim = static_cast<int32_t>(tensor->dim());
    out->dtype = at::getDLDataType(*tensor);
    out->shape = const_cast<int64_t*>(tensor->sizes().data());
    out->strides = const_cast<int64_t*>(tensor->strides().data());
    out->byte_offset = 0;
    return 0;
  } catch (const std::exception& e) {
    SetPythonError(e);
    return -1;
  }
}

#ifdef FFI_TORCH_CUDA
int CurrentWorkStream(DLDeviceType device_type, int32_t device_id, void** out_current_stream) {
  *out_current_stream = nullptr;
  if (device_type != kDLCUDA) return 0;
  try {
    *out_current_stream =
        c10::cuda::getCurrentCUDAStream(static_cast<c10::DeviceIndex>(device_id)).stream();
    return 0;
  } catch (const std::exception& e) {
    SetPythonError(e);
    return -1;
  }
}
#endif

const DLPackExchangeAPI kExchangeAPI = {
    {{DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION}, nullptr},
    &Allocate,
    &ManagedFromPyObject,
    &ManagedToPyObject,
    &ViewFromPyObject,
#ifdef FFI_TORCH_CUDA
    &CurrentWorkStream,
#else
    nullptr,  // a CPU build: no streams
#endif
};

}  // namespace

/*!
 * \brief The exchange API table in a new `dlpack_exchange_api` capsule, as PyTorch 2.10+ publishes
 * it on torch.Tensor; called with the GIL held (ctypes.PyDLL).
 */
extern "C" __attribute__((visibility("default"))) PyObject* FFITorchExchangeAPICapsule() {
  return PyCapsule_New(const_cast<DLPackExchangeAPI*>(&kExchangeAPI), "dlpack_exchange_api",
                       nullptr);
}
