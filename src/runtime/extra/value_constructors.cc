// The standard global functions that make value objects from their parts, which the reference's
// Python package calls to build its `String`, `Bytes` and `Shape` objects: ffi.String,
// ffi.Bytes, ffi.Shape; and ffi.ContainerFindFirstNonCPUDevice, which its tensor conversion uses
// to pick the device of a container of tensors.
#include <ffi/any.h>
#include <ffi/container/array.h>
#include <ffi/container/dict.h>
#include <ffi/container/list.h>
#include <ffi/container/map.h>
#include <ffi/function.h>
#include <ffi/reflection/registry.h>
#include <ffi/shape.h>
#include <ffi/string.h>
#include <ffi/tensor.h>

#include <optional>
#include <vector>

namespace tvm {
namespace ffi {
namespace runtime {
namespace {

/*! \brief (dim0, dim1, ...): a Shape; each dimension must be an integer (TypeError otherwise). */
void MakeShape(PackedArgs args, Any* result) {
  std::vector<int64_t> dims;
  dims.reserve(args.size());
  for (int32_t i = 0; i < args.size(); ++i) dims.push_back(args[i].cast<int64_t>());
  *result = Shape(ShapeView(dims.data(), dims.size()));
}

/*! \brief The device of the first tensor not on the CPU, searching containers depth first. */
std::optional<DLDevice> FirstNonCPUDevice(const AnyView& v) {
  switch (v.type_index()) {
    case kTVMFFITensor:
    case kTVMFFIDLTensorPtr: {
      DLDevice device = v.cast<TensorView>().device();
      if (device.device_type != kDLCPU) return device;
      return std::nullopt;
    }
    case kTVMFFIArray:
      for (const Any& item : v.cast<Array<Any>>()) {
        if (auto d = FirstNonCPUDevice(item)) return d;
      }
      return std::nullopt;
    case kTVMFFIList:
      for (const Any& item : v.cast<List<Any>>()) {
        if (auto d = FirstNonCPUDevice(item)) return d;
      }
      return std::nullopt;
    case kTVMFFIMap:
      for (const auto& kv : v.cast<Map<Any, Any>>()) {
        if (auto d = FirstNonCPUDevice(kv.second)) return d;
      }
      return std::nullopt;
    case kTVMFFIDict:
      for (const auto& kv : v.cast<Dict<Any, Any>>()) {
        if (auto d = FirstNonCPUDevice(kv.second)) return d;
      }
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

FFI_STATIC_INIT_BLOCK() {
  reflection::GlobalDef()
      .def(
          "ffi.String", [](String s) { return s; }, "A String holding the given text.")
      .def(
          "ffi.Bytes", [](Bytes b) { return b; }, "A Bytes holding the given bytes.")
      .def_packed("ffi.Shape", MakeShape, "A Shape of the given dimensions.")
      .def(
          "ffi.ContainerFindFirstNonCPUDevice",
          [](AnyView v) {
            return FirstNonCPUDevice(v).value_or(DLDevice{kDLCPU, 0});
          },
          "The device of the first tensor not on the CPU in a (nested) container, else the CPU.");
}

}  // namespace
}  // namespace runtime
}  // namespace ffi
}  // namespace tvm
