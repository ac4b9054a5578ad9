// The extension module ffi._core: registers the types and the module-level functions.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <initializer_list>
#include <string>
#include <string_view>

#include "core.h"

namespace nb = nanobind;

namespace tvm {
namespace ffi {
namespace python {
namespace {

/*! \brief Turns a NULL-with-error result of the C-level helpers into a nanobind exception. */
nb::object Check(PyObject* result) {
  if (result == nullptr) throw nb::python_error();
  return nb::steal(result);
}

/*! \brief The FFI error a Python ffi.Error object holds; TypeError for anything else. */
ffi::Error ErrorOf(nb::handle obj) {
  TVMFFIAny owned;
  if (!ToOwnedAny(obj.ptr(), &owned)) throw nb::python_error();
  ffi::Any value = ffi::Any::FromRaw(owned);
  if (value.type_index() != kTVMFFIError) throw nb::type_error("expected an ffi.Error object");
  return std::move(value).cast<ffi::Error>();
}

/*!
 * \brief A stream handle given as an int (or anything with __index__) in [0, 2**64): TypeError or
 * ValueError naming the argument otherwise (nanobind's own refusal would list the overloads).
 */
uintptr_t StreamHandle(nb::handle stream) {
  if (!PyIndex_Check(stream.ptr())) {
    PyErr_Format(PyExc_TypeError, "stream must be an int handle, not `%s`",
                 Py_TYPE(stream.ptr())->tp_name);
    throw nb::python_error();
  }
  nb::object index = Check(PyNumber_Index(stream.ptr()));
  unsigned long long value = PyLong_AsUnsignedLongLong(index.ptr());
  if ((value == static_cast<unsigned long long>(-1) && PyErr_Occurred()) || value > UINTPTR_MAX) {
    if (PyErr_Occurred() && !PyErr_ExceptionMatches(PyExc_OverflowError)) throw nb::python_error();
    PyErr_Clear();
    PyErr_Format(PyExc_ValueError,
                 "stream must be a handle in [0, 2**%d) (an address, 0 for the default stream), "
                 "not %R",
                 static_cast<int>(8 * sizeof(uintptr_t)), index.ptr());
    throw nb::python_error();
  }
  return static_cast<uintptr_t>(value);
}

/*! \brief The UTF-8 text of a Python str; raises (UnicodeEncodeError) when it has none. */
std::string_view Text(nb::handle s) {
  Py_ssize_t n = 0;
  const char* p = Utf8(s.ptr(), &n);
  if (p == nullptr) throw nb::python_error();
  return std::string_view(p, static_cast<size_t>(n));
}

/*!
 * \brief Looks the global function `name` up: true with `*out` a new reference, or NULL when none
 * is registered; false with a Python error when the lookup failed.
 */
bool LookupGlobal(std::string_view name, TVMFFIObject** out) {
  TVMFFIByteArray key{name.data(), name.size()};
  TVMFFIObjectHandle f = nullptr;
  if (TVMFFIFunctionGetGlobal(&key, &f) != 0) return RaiseFromFFI(-1), false;
  *out = static_cast<TVMFFIObject*>(f);
  return true;
}

/*! \brief Calls the global function `name` with Python arguments; NULL with a Python error. */
PyObject* CallGlobalRaw(const char* name, PyObject* const* args, Py_ssize_t n) {
  TVMFFIObject* f = nullptr;
  if (!LookupGlobal(name, &f)) return nullptr;
  if (f == nullptr) return PyErr_Format(PyExc_ValueError, "missing global function %s", name);
  PyObject* r = CallFunction(f, nullptr, args, n);
  TVMFFIObjectDecRef(f);
  return r;
}

/*! \brief CallGlobalRaw for nanobind-bound functions (raising nb::python_error). */
nb::object CallGlobal(const char* name, std::initializer_list<PyObject*> args) {
  return Check(CallGlobalRaw(name, args.begin(), static_cast<Py_ssize_t>(args.size())));
}

}  // namespace

Hooks& GetHooks() {
  static Hooks hooks;  // references held until exit, like the module's own attributes
  return hooks;
}

bool BindArguments(const char* name, PyObject* const* args, Py_ssize_t nargsf, PyObject* kwnames,
                   const char* const* names, int nparams, int npositional, int nrequired,
                   PyObject** out) {
  Py_ssize_t n = PyVectorcall_NARGS(nargsf);
  for (int i = 0; i < nparams; ++i) out[i] = nullptr;
  if (n > npositional) {
    PyErr_Format(PyExc_TypeError, "%s() takes at most %d positional argument%s (%zd given)", name,
                 npositional, npositional == 1 ? "" : "s", n);
    return false;
  }
  for (Py_ssize_t i = 0; i < n; ++i) out[i] = args[i];
  Py_ssize_t nkw = kwnames != nullptr ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t i = 0; i < nkw; ++i) {
    PyObject* key = PyTuple_GET_ITEM(kwnames, i);
    int slot = 0;
    while (slot < nparams && PyUnicode_CompareWithASCIIString(key, names[slot]) != 0) ++slot;
    if (slot == nparams) {
      PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%S'", name, key);
      return false;
    }
    if (out[slot] != nullptr) {
      PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", name,
                   names[slot]);
      return false;
    }
    out[slot] = args[n + i];
  }
  for (int i = 0; i < nrequired; ++i) {
    if (out[i] == nullptr) {
      PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s' (pos %d)", name, names[i],
                   i + 1);
      return false;
    }
  }
  return true;
}

namespace {

/*!
 * \brief Hands a global function's metadata to the package when it names the parameters
 * (GlobalDef with ffi::arg annotations), so that the function takes keywords; the text is only
 * scanned here, and parsed only for such functions. False with a Python error.
 */
bool NameGlobalParams(PyObject* fn, PyObject* name) {
  PyObject* hook = GetHooks().global_metadata;
  if (hook == nullptr) return true;
  PyObject* text = CallGlobalRaw("ffi.GetGlobalFuncMetadata", &name, 1);
  if (text == nullptr) return false;
  bool ok = true;
  if (PyUnicode_Check(text)) {
    Py_ssize_t n = 0;
    const char* s = Utf8(text, &n);
    if (s == nullptr) {
      ok = false;
    } else if (std::string_view(s, static_cast<size_t>(n)).find("\"arg_names\"") !=
               std::string_view::npos) {
      PyObject* r = PyObject_CallFunctionObjArgs(hook, fn, text, nullptr);
      ok = r != nullptr;
      Py_XDECREF(r);
    }
  }
  Py_DECREF(text);
  return ok;
}

/*! \brief The str argument `what` of `func`, or NULL with a TypeError. */
const char* StrArgument(const char* func, const char* what, PyObject* arg, Py_ssize_t* size) {
  if (!PyUnicode_Check(arg)) {
    PyErr_Format(PyExc_TypeError, "%s() argument '%s' must be str, not %s", func, what,
                 Py_TYPE(arg)->tp_name);
    return nullptr;
  }
  return Utf8(arg, size);
}

/*! \brief get_global_func(name, allow_missing=False) (METH_FASTCALL | METH_KEYWORDS). */
PyObject* GetGlobalFunc(PyObject*, PyObject* const* args, Py_ssize_t nargsf, PyObject* kwnames) {
  static const char* const kNames[] = {"name", "allow_missing"};
  PyObject* a[2];
  if (!BindArguments("get_global_func", args, nargsf, kwnames, kNames, 2, 2, 1, a)) return nullptr;
  Py_ssize_t size = 0;
  const char* text = StrArgument("get_global_func", "name", a[0], &size);
  if (text == nullptr) return nullptr;
  int allow_missing = a[1] != nullptr ? PyObject_IsTrue(a[1]) : 0;
  if (allow_missing < 0) return nullptr;
  TVMFFIObject* f = nullptr;
  if (!LookupGlobal(std::string_view(text, static_cast<size_t>(size)), &f)) return nullptr;
  if (f == nullptr) {
    if (allow_missing) Py_RETURN_NONE;
    return PyErr_Format(PyExc_ValueError, "Global function `%U` is not registered", a[0]);
  }
  PyObject* fn = WrapObject(FunctionType, f);
  if (fn == nullptr) return nullptr;
  SetFunctionName(fn, a[0]);
  if (!NameGlobalParams(fn, a[0])) Py_CLEAR(fn);
  return fn;
}

/*! \brief remove_global_func(name) (METH_FASTCALL | METH_KEYWORDS). */
PyObject* RemoveGlobalFunc(PyObject*, PyObject* const* args, Py_ssize_t nargsf, PyObject* kwnames) {
  static const char* const kNames[] = {"name"};
  PyObject* name = nullptr;
  if (!BindArguments("remove_global_func", args, nargsf, kwnames, kNames, 1, 1, 1, &name)) {
    return nullptr;
  }
  Py_ssize_t size = 0;
  if (StrArgument("remove_global_func", "name", name, &size) == nullptr) return nullptr;
  return CallGlobalRaw("ffi.FunctionRemoveGlobal", &name, 1);
}

/*! \brief convert(value) (METH_FASTCALL | METH_KEYWORDS). */
PyObject* Convert(PyObject*, PyObject* const* args, Py_ssize_t nargsf, PyObject* kwnames) {
  static const char* const kNames[] = {"value"};
  PyObject* value = nullptr;
  if (!BindArguments("convert", args, nargsf, kwnames, kNames, 1, 1, 1, &value)) return nullptr;
  TVMFFIAny owned;
  if (!ToOwnedAny(value, &owned)) return nullptr;
  if (owned.type_index == kTVMFFIOpaquePyObject) {  // shown as the FFI object it became
    return WrapObject(ClassForTypeIndex(kTVMFFIOpaquePyObject), owned.v_obj);
  }
  return ToPython(&owned);
}

/*! \brief _function_from_c_symbol(address, keep_alive, mlir_packed) -> ffi.Function. */
PyObject* FunctionFromCSymbolPy(PyObject*, PyObject* args) {
  PyObject* address = nullptr;
  PyObject* keep_alive = nullptr;
  int mlir_packed = 0;
  if (!PyArg_ParseTuple(args, "OOp", &address, &keep_alive, &mlir_packed)) return nullptr;
  if (!PyLong_Check(address)) {
    PyErr_Format(PyExc_TypeError, "the function address must be an int, not `%s`",
                 Py_TYPE(address)->tp_name);
    return nullptr;
  }
  void* fn = PyLong_AsVoidPtr(address);
  if (fn == nullptr) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "the function address is null");
    return nullptr;
  }
  TVMFFIObject* f =
      FunctionFromCSymbol(fn, keep_alive == Py_None ? nullptr : keep_alive, mlir_packed != 0);
  return f != nullptr ? WrapObject(FunctionType, f) : nullptr;
}

// Text signatures ("name($module, ...)\n--\n\n"), so that inspect.signature reads them, with the
// reference's parameter names.
PyMethodDef fast_functions[] = {
    {"_function_from_c_symbol", FFI_PY_METHOD(FunctionFromCSymbolPy), METH_VARARGS,
     "_function_from_c_symbol(address, keep_alive, mlir_packed)\n\nAn ffi.Function calling a C "
     "safe-call function (or an MLIR packed-interface one) at `address`, keeping `keep_alive`."},
    {"from_dlpack", FFI_PY_METHOD(FromDLPack), METH_FASTCALL | METH_KEYWORDS,
     "from_dlpack($module, ext_tensor, *, require_alignment=0, require_contiguous=False)\n--\n\n"
     "An ffi.Tensor sharing the memory of any DLPack producer (PyTorch, NumPy, JAX, ...). "
     "require_alignment (bytes) and require_contiguous refuse tensors that do not meet them with "
     "a ValueError (they are also taken by position)."},
    {"get_global_func", FFI_PY_METHOD(GetGlobalFunc), METH_FASTCALL | METH_KEYWORDS,
     "get_global_func($module, name, allow_missing=False)\n--\n\nThe global function `name`; "
     "None when missing and allow_missing, else ValueError."},
    {"remove_global_func", FFI_PY_METHOD(RemoveGlobalFunc), METH_FASTCALL | METH_KEYWORDS,
     "remove_global_func($module, name)\n--\n\nRemoves the global function `name`; returns "
     "whether it existed."},
    {"convert", FFI_PY_METHOD(Convert), METH_FASTCALL | METH_KEYWORDS,
     "convert($module, value)\n--\n\nConverts a Python value to its FFI form: callables become "
     "ffi.Function, DLPack producers ffi.Tensor, lists and tuples ffi.Array, dicts ffi.Map, other "
     "objects ffi.core.OpaquePyObject; plain values round-trip."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace
}  // namespace python
}  // namespace ffi
}  // namespace tvm

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
      !InitCAnyType(m.ptr()) || PyModule_AddFunctions(m.ptr(), fast_functions) != 0 ||
      !InitContainerFunctions(m.ptr()) || !InitForeignObjects() || !InitAbiConstants(m.ptr())) {
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

  m.def(
      "load_module",
      [](nb::str path) {
        // (path, format): the form both runtimes' loaders take.
        static PyObject* so = PyUnicode_InternFromString("so");
        return CallGlobal("ffi.Module.load_from_file.so", {path.ptr(), so});
      },
      nb::arg("path"), "Loads a shared library of `__tvm_ffi_<name>` functions as a Module.");

  m.def(
      "module_get_function",
      [](nb::handle mod, nb::str name) -> nb::object {
        PyObject* no = Py_False;
        nb::object f = CallGlobal("ffi.ModuleGetFunction", {mod.ptr(), name.ptr(), no});
        if (!f.is_none()) SetFunctionName(f.ptr(), name.ptr());
        return f;
      },
      nb::arg("module"), nb::arg("name"),
      "The module's function `name` (symbol `__tvm_ffi_<name>`), or None.");

  m.def(
      "_set_function_params",
      [](nb::handle func, nb::handle names, nb::handle defaults) {
        if (!SetFunctionParams(func.ptr(), names.ptr(), defaults.ptr())) throw nb::python_error();
      },
      nb::arg("func"), nb::arg("names"), nb::arg("defaults"),
      "Gives an ffi.Function parameter names and the defaults of its last parameters, so that "
      "calls take keywords (the package calls it from export metadata).");

  m.def(
      "register_global_func",
      [](nb::str name, nb::handle func, bool override) {
        std::string_view text = Text(name);
        TVMFFIAny value;
        if (!ToOwnedAny(func.ptr(), &value)) throw nb::python_error();
        if (value.type_index != kTVMFFIFunction) {
          ReleaseAny(&value);
          throw nb::type_error("register_global_func needs a callable or an ffi.Function");
        }
        TVMFFIByteArray key{text.data(), text.size()};
        int rc = TVMFFIFunctionSetGlobal(&key, value.v_obj, override ? 1 : 0);
        if (rc != 0) {
          TVMFFIObjectDecRef(value.v_obj);
          Check(RaiseFromFFI(rc));
        }
        return Check(WrapObject(FunctionType, value.v_obj));
      },
      nb::arg("name"), nb::arg("func"), nb::arg("override") = false,
      "Registers a callable (or ffi.Function) as the global function `name`; returns the "
      "registered ffi.Function.");

  m.def(
      "list_global_func_names",
      []() {
        nb::object functor = CallGlobal("ffi.FunctionListGlobalNamesFunctor", {});
        nb::object count = Check(PyObject_CallFunction(functor.ptr(), "i", -1));
        nb::list names;
        Py_ssize_t n = PyLong_AsSsize_t(count.ptr());
        for (Py_ssize_t i = 0; i < n; ++i) {
          names.append(Check(PyObject_CallFunction(functor.ptr(), "n", i)));
        }
        return names;
      },
      "Names of all global functions.");

  m.def(
      "_convert_to_opaque_object",
      [](nb::handle value) {
        TVMFFIObject* h = NewOpaquePyObject(value.ptr());
        if (h == nullptr) throw nb::python_error();
        return Check(WrapObject(ClassForTypeIndex(kTVMFFIOpaquePyObject), h));
      },
      nb::arg("value").none(), "An ffi.core.OpaquePyObject holding `value`, whatever it is.");

  m.def(
      "_opaque_pyobject",
      [](nb::handle obj) {
        TVMFFIObject* h = PyObject_TypeCheck(obj.ptr(), ObjectType)
                              ? reinterpret_cast<PyObj*>(obj.ptr())->handle
                              : nullptr;
        if (h == nullptr || h->type_index != kTVMFFIOpaquePyObject) {
          throw nb::type_error("_opaque_pyobject needs an ffi.core.OpaquePyObject");
        }
        return nb::borrow(static_cast<PyObject*>(TVMFFIOpaqueObjectGetCellPtr(h)->handle));
      },
      "The Python object an ffi.core.OpaquePyObject holds.");

  m.def(
      "register_error",
      [](std::string kind, nb::handle cls) {
        if (!PyExceptionClass_Check(cls.ptr())) {
          throw nb::type_error("register_error needs an exception class");
        }
        RegisterErrorClass(kind, cls.ptr());
      },
      nb::arg("kind"), nb::arg("cls"), "Maps the FFI error kind `kind` to exception class `cls`.");

  m.def(
      "_error_parts",
      [](nb::handle obj) {
        ffi::Error error = ErrorOf(obj);
        return nb::make_tuple(error.kind(), error.message(), error.backtrace());
      },
      "(kind, message, backtrace) of an ffi.Error object.");

  m.def(
      "_error_to_exception", [](nb::handle obj) { return Check(ExceptionFromError(ErrorOf(obj))); },
      "The Python exception an ffi.Error object stands for.");

  m.def(
      "_make_error",
      [](const std::string& kind, const std::string& message, const std::string& backtrace) {
        TVMFFIAny owned{};
        owned.type_index = kTVMFFIError;
        owned.v_obj = ffi::detail::ObjectUnsafe::MoveToHeader(ffi::Error(kind, message, backtrace));
        return Check(ToPython(&owned));
      },
      nb::arg("kind"), nb::arg("message"), nb::arg("backtrace"), "A new ffi.Error object.");

  m.def(
      "_tensor_as",
      [](nb::handle tensor, nb::handle cls) {
        if (!PyType_Check(cls.ptr())) throw nb::type_error("tensor_cls must be a class");
        const DLPackExchangeAPI* api = ExchangeAPIOf(reinterpret_cast<PyTypeObject*>(cls.ptr()));
        if (api == nullptr) {
          throw nb::type_error("tensor_cls must expose __dlpack_c_exchange_api__ (a PyCapsule)");
        }
        if (!PyObject_TypeCheck(tensor.ptr(), TensorType)) {
          throw nb::type_error("expected an ffi.Tensor");
        }
        TVMFFIAny owned;
        if (!ToOwnedAny(tensor.ptr(), &owned)) throw nb::python_error();
        return Check(TensorToFramework(static_cast<TVMFFIObject*>(owned.v_obj), api));
      },
      "The ffi.Tensor `tensor` as a tensor of class `cls` (through its DLPack exchange API), "
      "zero-copy.");

  m.def(
      "_wrap_as",
      [](nb::handle obj, nb::handle cls) {
        auto* type = reinterpret_cast<PyTypeObject*>(cls.ptr());
        PyTypeObject* from = Py_TYPE(obj.ptr());
        if (!PyObject_TypeCheck(obj.ptr(), ObjectType) || !PyType_Check(cls.ptr()) ||
            !PyType_IsSubtype(type, from) || type->tp_basicsize != from->tp_basicsize) {
          throw nb::type_error("_wrap_as needs an ffi.Object and a subclass of its class");
        }
        TVMFFIObject* h = reinterpret_cast<PyObj*>(obj.ptr())->handle;
        if (h == nullptr) throw nb::type_error("_wrap_as needs an object that holds one");
        TVMFFIObjectIncRef(h);
        return Check(WrapObject(type, h));
      },
      "A new `cls` (a Python subclass of obj's class) holding another reference to obj's "
      "object.");

  m.def(
      "_register_class",
      [](int32_t type_index, nb::handle cls) {
        if (!PyType_Check(cls.ptr())) throw nb::type_error("expected a class");
        RegisterClass(type_index, reinterpret_cast<PyTypeObject*>(cls.ptr()));
      },
      "Sets the Python class used for FFI objects of a type index.");

  m.def(
      "type_key_to_index",
      [](const std::string& key) {
        TVMFFIByteArray k{key.data(), key.size()};
        int32_t index = 0;
        if (TVMFFITypeKeyToIndex(&k, &index) != 0) {
          // A KeyError whichever runtime serves the process (the reference's raises a
          // RuntimeError for an unknown key).
          ClearRaisedFFIError();
          throw nb::key_error(("no type is registered with the key `" + key + "`").c_str());
        }
        return index;
      },
      "The type index registered for a type key; KeyError for an unknown key.");

  m.def(
      "_set_hooks",
      [](nb::handle module_loaded, nb::handle signature_from_metadata, nb::handle global_metadata) {
        Hooks& hooks = GetHooks();
        Py_XSETREF(hooks.module_loaded, nb::borrow(module_loaded).release().ptr());
        Py_XSETREF(hooks.signature_from_metadata,
                   nb::borrow(signature_from_metadata).release().ptr());
        Py_XSETREF(hooks.global_metadata, global_metadata.is_none()
                                              ? nullptr
                                              : nb::borrow(global_metadata).release().ptr());
      },
      nb::arg("module_loaded"), nb::arg("signature_from_metadata"),
      nb::arg("global_metadata").none() = nb::none(),
      "Registers the package's Python-level behaviour: `module_loaded(module)` runs when a Module "
      "arrives in Python, `signature_from_metadata(dict)` builds a Function's __signature__, "
      "`global_metadata(func, str)` names the parameters of a global function whose metadata "
      "declares them.");

  m.def(
      "env_set_stream",
      [](int32_t device_type, int32_t device_id, nb::handle stream) {
        TVMFFIStreamHandle previous = nullptr;
        void* handle = reinterpret_cast<void*>(StreamHandle(stream));
        if (TVMFFIEnvSetStream(device_type, device_id, handle, &previous) != 0) {
          Check(RaiseFromFFI(-1));
        }
        return reinterpret_cast<uintptr_t>(previous);
      },
      "Sets this thread's current stream for a device; returns the previous one.");

  m.def(
      "env_get_stream",
      [](int32_t device_type, int32_t device_id) {
        return reinterpret_cast<uintptr_t>(TVMFFIEnvGetStream(device_type, device_id));
      },
      "This thread's current stream for a device (0: the default stream).");
}
