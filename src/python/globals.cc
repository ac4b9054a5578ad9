// Global functions and modules: the runtime's function registry and module loading, as the
// module functions get_global_func, register_global_func, load_module, ...
#include "globals.h"

#include <Python.h>
#include <nanobind/nanobind.h>

#include <initializer_list>
#include <string_view>

#include "arguments.h"
#include "boundary.h"
#include "call.h"
#include "convert.h"
#include "errors.h"
#include "function.h"
#include "hooks.h"
#include "nb_check.h"
#include "objects.h"
#include "py_text.h"

namespace nb = nanobind;

namespace tvm::ffi::python {
namespace {

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

/*!
 * \brief Hands a global function's metadata `text` to the package when it names the parameters
 * (GlobalDef with ffi::arg annotations), so that the function takes keywords; the text is only
 * scanned here, and parsed only for such functions. False with a Python error.
 */
bool NameGlobalParams(PyObject* fn, PyObject* text) {
  PyObject* hook = GetHooks().global_metadata;
  bool ok = true;
  if (hook != nullptr && PyUnicode_Check(text)) {
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
  return ok;
}

/*!
 * \brief The global function `name` (`key`: its text) and, when the package wants it, the
 * metadata it was registered with, as one snapshot: the C ABI reads them apart, so the function is
 * looked up again after its metadata, and a function removed or replaced in between (by another
 * thread) starts the read over. `*fn` is NULL when `name` is not registered; `*metadata` NULL when
 * not wanted. False with a Python error.
 */
bool ReadGlobal(PyObject* name, std::string_view key, TVMFFIObject** fn, PyObject** metadata) {
  *metadata = nullptr;
  for (;;) {
    TVMFFIObject* found = nullptr;
    if (!LookupGlobal(key, &found)) return false;
    if (found == nullptr || GetHooks().global_metadata == nullptr) {
      *fn = found;
      return true;
    }
    PyObject* text = CallGlobalRaw("ffi.GetGlobalFuncMetadata", &name, 1);
    PyObject *type = nullptr, *value = nullptr, *traceback = nullptr;
    PyErr_Fetch(&type, &value, &traceback);  // the metadata's error, if any, set aside
    TVMFFIObject* again = nullptr;
    bool looked = LookupGlobal(key, &again);
    if (again != nullptr) TVMFFIObjectDecRef(again);
    if (looked && again == found) {
      PyErr_Restore(type, value, traceback);
      if (text == nullptr) {
        ReleaseKeepingError([&] { TVMFFIObjectDecRef(found); });
        return false;
      }
      *fn = found;
      *metadata = text;
      return true;
    }
    // Removed or replaced in between (the metadata's error, if any, said so): read again; or the
    // second lookup failed, and its error is raised.
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(traceback);
    ReleaseKeepingError([&] {
      TVMFFIObjectDecRef(found);
      Py_XDECREF(text);
    });
    if (!looked) return false;
  }
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
  PyObject* metadata = nullptr;
  if (!ReadGlobal(a[0], std::string_view(text, static_cast<size_t>(size)), &f, &metadata)) {
    return nullptr;
  }
  if (f == nullptr) {
    if (allow_missing) Py_RETURN_NONE;
    return RaiseFormatted(PyExc_ValueError, "Global function `%U` is not registered", a[0]);
  }
  PyObject* fn = WrapObject(FunctionType, f);
  if (fn != nullptr) SetFunctionName(fn, a[0]);
  if (fn != nullptr && metadata != nullptr && !NameGlobalParams(fn, metadata)) Py_CLEAR(fn);
  Py_XDECREF(metadata);
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

// Text signature ("name($module, ...)\n--\n\n"), so that inspect.signature reads it, with the
// reference's parameter names.
PyMethodDef global_functions[] = {
    {"get_global_func", FFI_PY_METHOD(GetGlobalFunc), METH_FASTCALL | METH_KEYWORDS,
     "get_global_func($module, name, allow_missing=False)\n--\n\nThe global function `name`; "
     "None when missing and allow_missing, else ValueError."},
    {"remove_global_func", FFI_PY_METHOD(RemoveGlobalFunc), METH_FASTCALL | METH_KEYWORDS,
     "remove_global_func($module, name)\n--\n\nRemoves the global function `name`; returns "
     "whether it existed."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

void BindGlobalFunctions(nb::module_& m) {
  if (PyModule_AddFunctions(m.ptr(), global_functions) != 0) throw nb::python_error();
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
}

}  // namespace tvm::ffi::python
