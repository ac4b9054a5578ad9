// The extension module ffi._core: the module definition, calling each file's initialization.
//
// The types on the call path (Object, Function, Tensor, dtype, Device) are plain CPython types so
// that a call is one vectorcall with no binding layer in between; nanobind builds the module and
// binds the rest. Each file holds one concern, declared in the header of the same name, and adds
// the module functions of that concern:
//   classify.cc       what a Python value is, decided once for every conversion path
//   call.cc           Python -> C++ calls: argument packing, the borrowed-tensor pool, the GIL
//   callback.cc       C++ -> Python calls: Python callables and C symbols as FFI functions
//   convert.cc        Python <-> TVMFFIAny values (owned and viewed); convert()
//   containers.cc     lists, tuples and dicts <-> Array, List, Map and Dict
//   errors.cc         FFI errors <-> Python exceptions
//   foreign.cc        objects of the reference's package (tvm_ffi) in our calls, ours in its
//   dlpack_import.cc  tensors from NumPy, the DLPack exchange API and any __dlpack__ producer
//   objects.cc        ffi.Object
//   function.cc       ffi.Function: keyword binding, signature metadata, the GIL setting
//   globals.cc        global functions and modules: the registry, load_module
//   reflection.cc     the class registry, reflected fields and methods (ffi.register_object)
//   fields.cc         ffi._Field, the descriptor of a reflected field
//   py_class.cc       the functions behind ffi.dataclasses.py_class
//   tensor.cc         ffi.Tensor and its DLPack export (__dlpack__, __dlpack_device__)
//   dlpack_export.cc  ffi.Tensor's DLPack exchange API; tensor results as framework tensors
//   stream_sync.cc    producer/consumer stream ordering for __dlpack__ (CUDA driver, dlopen'ed),
//                     the thread's current stream
//   dtype_device.cc   ffi.dtype and ffi.Device
//   cany.cc           ffi.core.CAny, an owned ABI value
//   abi_constants.cc  the ABI's constants as read-only tables
//   arguments.cc      reading the arguments of METH_FASTCALL functions
//   module.cc         the module, the hooks the package registers, the signal check
// Headers without a file of their own: boundary.h (what every entry point from CPython relies on:
// exceptions, exit, threads), py_text.h (references and text), nb_check.h (for nanobind bindings).
#include <nanobind/nanobind.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <exception>

#include "abi_constants.h"
#include "boundary.h"
#include "callback.h"
#include "cany.h"
#include "containers.h"
#include "convert.h"
#include "dlpack_export.h"
#include "dlpack_import.h"
#include "dtype_device.h"
#include "errors.h"
#include "foreign.h"
#include "free_threading.h"
#include "function.h"
#include "globals.h"
#include "hooks.h"
#include "objects.h"
#include "py_class.h"
#include "reflection.h"
#include "stream_sync.h"
#include "tensor.h"

namespace nb = nanobind;

namespace tvm::ffi::python {

Hooks& GetHooks() {
  static Hooks hooks;  // references held until exit, like the module's own attributes
  return hooks;
}

namespace {

/*! \brief Sets one hook to `value` (a null handle: none); the one replaced, see ReleaseShared. */
void SetHook(std::atomic<PyObject*>& hook, nb::handle value) {
  ReleaseShared(hook.exchange(value.is_valid() ? nb::borrow(value).release().ptr() : nullptr,
                              std::memory_order_acq_rel));
}

}  // namespace

}  // namespace tvm::ffi::python

using namespace ffi::python;

namespace {
/*! \brief Whether this is the process's main thread, the one Python runs signal handlers on. */
bool OnMainThread() {
  static thread_local const bool main = syscall(SYS_gettid) == getpid();
  return main;
}

/*!
 * \brief The signal check kernels reach through TVMFFIEnvCheckSignals: runs Python's signal
 * handlers; -1 (a KeyboardInterrupt, say, now pending in Python) tells the kernel to stop.
 * Python handles signals on the main thread only, so other threads return at once, without
 * taking the GIL (a caller may hold it while it waits for them).
 */
int CheckPythonSignals() noexcept {
  if (!OnMainThread() || !PythonAlive()) return 0;
  PyGILState_STATE gil = PyGILState_Ensure();
  int rc = PyErr_CheckSignals();
  PyGILState_Release(gil);
  return rc;
}
}  // namespace

NB_MODULE(_core, m) {
  m.doc() = "Native core of the ffi package: FFI objects, functions, tensors and conversions.";
  if (!InitObjectTypes(m.ptr()) || !InitFunctionType(m.ptr()) || !InitReflection(m.ptr()) ||
      !InitPyClass(m.ptr()) || !InitTensorType(m.ptr()) || !InitDTypeDeviceTypes(m.ptr()) ||
      !InitCAnyType(m.ptr()) || !AddDLPackImportFunctions(m.ptr()) ||
      !AddConvertFunctions(m.ptr()) || !InitContainerFunctions(m.ptr()) || !InitForeignObjects() ||
      !InitAbiConstants(m.ptr())) {
    throw nb::python_error();
  }
  TVMFFIEnvRegisterCAPI("TVMFFIPyErrCheckSignals", reinterpret_cast<void*>(CheckPythonSignals));
  InitOpaqueKeyHooks();
  // nanobind-bound functions raise an ffi::Error thrown inside them as raw entry points do: the
  // exception class registered for its kind (nanobind alone would make it a RuntimeError).
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const ffi::Error&) {
      SetPythonErrorFromCppException();
    }
  });

  BindCallbackFunctions(m);
  BindGlobalFunctions(m);
  BindFunctionFunctions(m);
  BindErrorFunctions(m);
  BindDLPackExportFunctions(m);
  BindObjectFunctions(m);
  BindReflectionFunctions(m);
  BindStreamFunctions(m);

  m.def(
      "_set_hooks",
      [](nb::handle module_loaded, nb::handle signature_from_metadata, nb::handle global_metadata) {
        Hooks& hooks = GetHooks();
        SetHook(hooks.module_loaded, module_loaded);
        SetHook(hooks.signature_from_metadata, signature_from_metadata);
        SetHook(hooks.global_metadata, global_metadata.is_none() ? nb::handle() : global_metadata);
      },
      nb::arg("module_loaded"), nb::arg("signature_from_metadata"),
      nb::arg("global_metadata").none() = nb::none(),
      "Registers the package's Python-level behaviour: `module_loaded(module)` runs when a Module "
      "arrives in Python, `signature_from_metadata(dict)` builds a Function's __signature__, "
      "`global_metadata(func, str)` names the parameters of a global function whose metadata "
      "declares them.");
}
