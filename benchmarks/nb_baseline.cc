// The floor: plain nanobind functions doing the same (nothing) with the same arguments. For
// PyTorch tensors the floor is PyTorch's own DLPack exchange API called on each argument, which
// any FFI taking PyTorch tensors must call too.
#include <ffi/dlpack.h>
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace nb = nanobind;

namespace {
/*! \brief The object of the "field access" row: one int field. */
struct Point {
  int64_t x = 0;
};

/*! \brief PyTorch's exchange table, from `torch.Tensor.__dlpack_c_exchange_api__`. */
const DLPackExchangeAPI* TorchAPI() {
  static const DLPackExchangeAPI* api = [] {
    nb::object cap = nb::module_::import_("torch").attr("Tensor").attr("__dlpack_c_exchange_api__");
    return static_cast<const DLPackExchangeAPI*>(
        PyCapsule_GetPointer(cap.ptr(), "dlpack_exchange_api"));
  }();
  return api;
}

/*!
 * \brief What a call must do with one PyTorch tensor argument: take its DLTensor view, and for a
 * device tensor read the current stream once per call (`*stream_device` remembers the device).
 */
void ViewTensor(const DLPackExchangeAPI* api, nb::handle t, DLTensor* view, int* stream_device) {
  if (api->dltensor_from_py_object_no_sync(t.ptr(), view) != 0) throw nb::python_error();
  if (view->device.device_type != kDLCPU && *stream_device != view->device.device_id) {
    void* stream = nullptr;
    api->current_work_stream(view->device.device_type, view->device.device_id, &stream);
    *stream_device = view->device.device_id;
  }
}

/*! \brief The floor of a call with PyTorch tensors: one view (and stream) per argument. */
void ViewAll(nb::args args) {
  const DLPackExchangeAPI* api = TorchAPI();
  int stream_device = -1;
  DLTensor view;
  for (nb::handle t : args) ViewTensor(api, t, &view, &stream_device);
}

/*!
 * \brief The floor of a kernel returning a new tensor: view, allocate, wrap as torch.Tensor. With
 * `release_gil`, as a binding that releases the GIL around its kernel must do it (both FFIs do):
 * the allocation, inside the kernel, runs without the GIL (PyTorch's allocator takes it again).
 */
template <bool release_gil>
nb::object MakeOutput(nb::handle x) {
  const DLPackExchangeAPI* api = TorchAPI();
  int stream_device = -1;
  DLTensor view;
  ViewTensor(api, x, &view, &stream_device);
  DLManagedTensorVersioned* out = nullptr;
  int rc = 0;
  if constexpr (release_gil) {
    nb::gil_scoped_release released;
    rc = api->managed_tensor_allocator(&view, &out, nullptr, nullptr);
  } else {
    rc = api->managed_tensor_allocator(&view, &out, nullptr, nullptr);
  }
  if (rc != 0) throw std::runtime_error("allocation failed");
  void* py = nullptr;
  if (api->managed_tensor_to_py_object_no_sync(out, &py) != 0) throw nb::python_error();
  return nb::steal(static_cast<PyObject*>(py));
}

/*!
 * \brief The cheapest producer `torch.from_dlpack` can be given: a PyTorch tensor behind the
 * DLPack protocol, exported by PyTorch's own exchange API (the floor of that row).
 */
struct Exported {
  nb::object tensor;
  nb::tuple device;  // (device_type, device_id), read once at export

  nb::tuple Device() const { return device; }
  nb::object DLPack(nb::handle, nb::handle, nb::handle, nb::handle) const {
    DLManagedTensorVersioned* m = nullptr;
    if (TorchAPI()->managed_tensor_from_py_object_no_sync(tensor.ptr(), &m) != 0) {
      throw nb::python_error();
    }
    return nb::steal(PyCapsule_New(m, "dltensor_versioned", [](PyObject* cap) {
      // Still named so: no consumer took it, so it is ours to free.
      if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
        auto* t =
            static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(cap, "dltensor_versioned"));
        if (t->deleter != nullptr) t->deleter(t);
      }
    }));
  }
};
}  // namespace

NB_MODULE(nb_baseline, m) {
  m.def("nop", []() {});
  m.def("add3", [](int64_t a, int64_t b, int64_t c) { return a + b + c; });
  // The same, releasing the GIL around the body as both FFIs do around a call.
  m.def(
      "nop_released", []() {}, nb::call_guard<nb::gil_scoped_release>());
  m.def(
      "add3_released", [](int64_t a, int64_t b, int64_t c) { return a + b + c; },
      nb::call_guard<nb::gil_scoped_release>());
  m.def("tensors3", [](nb::ndarray<>, nb::ndarray<>, nb::ndarray<>) {});
  m.def("torch3", [](nb::handle a, nb::handle b, nb::handle c) {
    const DLPackExchangeAPI* api = TorchAPI();
    int stream_device = -1;
    DLTensor view;
    ViewTensor(api, a, &view, &stream_device);
    ViewTensor(api, b, &view, &stream_device);
    ViewTensor(api, c, &view, &stream_device);
  });
  m.def("torch_n", &ViewAll);
  m.def("make_output", &MakeOutput<false>);
  m.def("make_output_released", &MakeOutput<true>);
  nb::class_<Exported>(m, "Exported")
      .def("__dlpack_device__", &Exported::Device)
      .def("__dlpack__", &Exported::DLPack, nb::kw_only(), nb::arg("stream") = nb::none(),
           nb::arg("max_version") = nb::none(), nb::arg("dl_device") = nb::none(),
           nb::arg("copy") = nb::none());
  m.def("export", [](nb::object t) {
    DLTensor view;
    int stream_device = -1;
    ViewTensor(TorchAPI(), t, &view, &stream_device);
    nb::tuple device =
        nb::make_tuple(static_cast<int>(view.device.device_type), view.device.device_id);
    return Exported{std::move(t), std::move(device)};
  });
  nb::class_<Point>(m, "Point").def_rw("x", &Point::x);
  m.def("make_point", [](int64_t x) { return Point{x}; });
  // Containers through nanobind's STL casters, which copy into std::vector / std::map.
  m.def("sum_ints", [](const std::vector<int64_t>& v) {
    int64_t total = 0;
    for (int64_t x : v) total += x;
    return total;
  });
  m.def("map_len",
        [](const std::map<std::string, int64_t>& m) { return static_cast<int64_t>(m.size()); });
}
