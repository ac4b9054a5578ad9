// ffi.Function: calls (keyword binding), name, signature and doc from metadata, the GIL setting.
#include "function.h"

#include <Python.h>  // before any other Python header
#include <nanobind/nanobind.h>
#include <structmember.h>

#include <vector>

#include "boundary.h"
#include "call.h"
#include "free_threading.h"
#include "hooks.h"
#include "objects.h"
#include "reflection.h"

namespace nb = nanobind;

namespace tvm::ffi::python {

PyTypeObject* FunctionType = nullptr;

namespace {

/*! \brief "'a'", "'a' and 'b'", "'a', 'b', and 'c'": names as Python's own errors list them. */
PyObject* JoinMissing(PyObject* const* names, Py_ssize_t n) {
  PyObject* out = PyUnicode_FromString("");
  for (Py_ssize_t i = 0; out != nullptr && i < n; ++i) {
    const char* sep = i == 0 ? "" : (n == 2 ? " and " : (i + 1 == n ? ", and " : ", "));
    Py_SETREF(out, PyUnicode_FromFormat("%U%s'%U'", out, sep, names[i]));
  }
  return out;
}

/*!
 * \brief A call with keywords, or with a positional count other than the parameter count, of a
 * function with parameter names: binds the arguments as Python binds them to a function
 * `name(p0, p1=d1, ...)` (with Python's TypeErrors), then calls with every argument positional.
 */
PyObject* CallBoundImpl(PyFunc* f, PyObject* const* args, Py_ssize_t n, PyObject* kwnames) {
  Py_ssize_t nkw = kwnames != nullptr ? PyTuple_GET_SIZE(kwnames) : 0;
  PyObject* fname = f->name != nullptr ? f->name : Py_None;
  if (f->arg_names == nullptr) {
    if (nkw == 0) return CallFunction(f->base.handle, f->name, args, n, KeepGil(f));
    PyErr_Format(PyExc_TypeError,
                 "`%S` takes positional arguments only: its export declares no parameter names "
                 "(declare them with FFI_DLL_EXPORT_TYPED_FUNC_ARGS, or wrap it with "
                 "ffi.utils.kwargs_wrapper.make_kwargs_wrapper)",
                 fname);
    return nullptr;
  }
  Py_ssize_t total = PyTuple_GET_SIZE(f->arg_names);
  Py_ssize_t ndef = PyTuple_GET_SIZE(f->arg_defaults);
  if (n > total) {
    if (ndef > 0) {
      PyErr_Format(PyExc_TypeError,
                   "%S() takes from %zd to %zd positional arguments but %zd %s given", fname,
                   total - ndef, total, n, n == 1 ? "was" : "were");
    } else {
      PyErr_Format(PyExc_TypeError, "%S() takes %zd positional argument%s but %zd %s given", fname,
                   total, total == 1 ? "" : "s", n, n == 1 ? "was" : "were");
    }
    return nullptr;
  }
  // On the stack for the usual parameter counts: binding then allocates nothing.
  constexpr Py_ssize_t kInline = 16;
  PyObject* inline_bound[kInline];
  std::vector<PyObject*> heap_bound(total > kInline ? static_cast<size_t>(total) : 0);
  PyObject** bound = total > kInline ? heap_bound.data() : inline_bound;
  for (Py_ssize_t j = 0; j < total; ++j) bound[j] = j < n ? args[j] : nullptr;
  for (Py_ssize_t k = 0; k < nkw; ++k) {
    PyObject* key = PyTuple_GET_ITEM(kwnames, k);
    Py_ssize_t j = 0;
    while (j < total && PyTuple_GET_ITEM(f->arg_names, j) != key) ++j;  // interned: identity
    if (j == total) {
      for (j = 0; j < total; ++j) {
        int eq = PyUnicode_Compare(PyTuple_GET_ITEM(f->arg_names, j), key);
        if (eq == 0) break;
        if (eq == -1 && PyErr_Occurred()) return nullptr;
      }
    }
    if (j == total) {
      PyErr_Format(PyExc_TypeError, "%S() got an unexpected keyword argument '%S'", fname, key);
      return nullptr;
    }
    if (bound[j] != nullptr) {
      PyErr_Format(PyExc_TypeError, "%S() got multiple values for argument '%S'", fname, key);
      return nullptr;
    }
    bound[j] = args[n + k];
  }
  std::vector<PyObject*> missing;
  for (Py_ssize_t j = 0; j < total; ++j) {
    if (bound[j] != nullptr) continue;
    if (j >= total - ndef) {
      bound[j] = PyTuple_GET_ITEM(f->arg_defaults, j - (total - ndef));
    } else {
      missing.push_back(PyTuple_GET_ITEM(f->arg_names, j));
    }
  }
  if (!missing.empty()) {
    PyObject* list = JoinMissing(missing.data(), static_cast<Py_ssize_t>(missing.size()));
    if (list == nullptr) return nullptr;
    PyErr_Format(PyExc_TypeError, "%S() missing %zd required positional argument%s: %U", fname,
                 static_cast<Py_ssize_t>(missing.size()), missing.size() == 1 ? "" : "s", list);
    Py_DECREF(list);
    return nullptr;
  }
  return CallFunction(f->base.handle, f->name, bound, total, KeepGil(f));
}

/*! \brief CallBoundImpl, with its C++ exceptions (std::bad_alloc binding) as Python's. */
// Out of line: inlined, its vectors would cost every plain call a larger frame.
[[gnu::noinline, gnu::cold]] PyObject* CallBound(PyFunc* f, PyObject* const* args, Py_ssize_t n,
                                                 PyObject* kwnames) {
  try {
    return CallBoundImpl(f, args, n, kwnames);
  }
  FFI_PY_CATCH(return nullptr)
}

}  // namespace

// The two vectorcalls are the call path, and throw nothing themselves: CallFunction and CallBound
// turn C++ exceptions into Python's. Not wrapped in FFI_PY_ENTRY, which would keep them from
// tail-calling CallFunction.
PyObject* FunctionVectorcall(PyObject* self, PyObject* const* args, size_t nargsf,
                             PyObject* kwnames) {
  auto* f = reinterpret_cast<PyFunc*>(self);
  if (FFI_UNLIKELY(f->base.handle == nullptr)) return RaiseNoObject(self);  // moved out
  if (FFI_UNLIKELY(kwnames != nullptr)) {
    return CallBound(f, args, PyVectorcall_NARGS(nargsf), kwnames);  // refuses keywords
  }
  return CallFunction(f->base.handle, f->name, args, PyVectorcall_NARGS(nargsf), KeepGil(f));
}

namespace {

/*!
 * \brief The vectorcall of functions with parameter names (set with them): calls giving every
 * parameter positionally go straight through; keywords and omitted defaults are bound first.
 */
PyObject* NamedFunctionVectorcall(PyObject* self, PyObject* const* args, size_t nargsf,
                                  PyObject* kwnames) {
  auto* f = reinterpret_cast<PyFunc*>(self);
  if (FFI_UNLIKELY(f->base.handle == nullptr)) return RaiseNoObject(self);  // moved out
  Py_ssize_t n = PyVectorcall_NARGS(nargsf);
  if (FFI_LIKELY(kwnames == nullptr) && n == PyTuple_GET_SIZE(f->arg_names)) {
    return CallFunction(f->base.handle, f->name, args, n, KeepGil(f));
  }
  return CallBound(f, args, n, kwnames);
}

/*!
 * \brief `dict[key]` as a new reference, or NULL (errors cleared). A new reference: another thread
 * may replace the item meanwhile (free-threaded Python).
 */
PyObject* DictItem(PyObject* dict, const char* key) {
  PyObject* item = nullptr;
  if (dict != nullptr && PyDict_Check(dict) && DictGetItemStringRef(dict, key, &item) < 0) {
    PyErr_Clear();
  }
  return item;
}

/*! \brief The function's `_ffi_metadata` (from its export), or NULL (new reference). */
PyObject* Metadata(PyFunc* f) { return DictItem(f->dict, "_ffi_metadata"); }

/*! \brief The signature text from the function's metadata, or NULL (new reference). */
PyObject* SignatureText(PyFunc* f) {
  PyObject* meta = Metadata(f);
  PyObject* text = DictItem(meta, "signature");
  Py_XDECREF(meta);
  return text;
}

PyObject* FunctionRepr(PyObject* self) {
  auto* f = reinterpret_cast<PyFunc*>(self);
  if (f->base.handle == nullptr) {  // moved out (or a subclass's instance not yet given one)
    if (f->name != nullptr)
      return PyUnicode_FromFormat("<ffi.Function %S (no FFI object)>", f->name);
    return PyUnicode_FromString("<ffi.Function (no FFI object)>");
  }
  if (PyObject* sig = SignatureText(f)) {
    PyObject* repr = PyUnicode_FromFormat("<ffi.Function %S>", sig);
    Py_DECREF(sig);
    return repr;
  }
  if (f->name != nullptr) return PyUnicode_FromFormat("<ffi.Function %S>", f->name);
  return PyUnicode_FromFormat("<ffi.Function at %p>", f->base.handle);
}

PyObject* FunctionGetName(PyObject* self, void*) {
  PyObject* name = reinterpret_cast<PyFunc*>(self)->name;
  if (name == nullptr) Py_RETURN_NONE;
  Py_INCREF(name);
  return name;
}

PyObject* FunctionGetSignature(PyObject* self, void*) {
  auto* f = reinterpret_cast<PyFunc*>(self);
  PyObject* meta = Metadata(f);
  if (meta == nullptr) {
    PyErr_SetString(PyExc_AttributeError, "the function carries no signature metadata");
    return nullptr;
  }
  PyObject* hook = GetHooks().signature_from_metadata;
  if (hook == nullptr) {
    Py_DECREF(meta);
    PyErr_SetString(PyExc_AttributeError, "the ffi package has not registered its hooks");
    return nullptr;
  }
  PyObject* signature = PyObject_CallOneArg(hook, meta);
  Py_DECREF(meta);
  return signature;
}

PyObject* FunctionGetDoc(PyObject* self, void*) {
  auto* f = reinterpret_cast<PyFunc*>(self);
  PyObject* meta = Metadata(f);
  PyObject* hook = GetHooks().signature_from_metadata;
  if (f->arg_names != nullptr && meta != nullptr && hook != nullptr && f->name != nullptr) {
    // Named parameters: "scale(x: 'float', alpha: 'float' = 2.0) -> 'float'", as help() shows.
    PyObject* sig = PyObject_CallOneArg(hook, meta);
    Py_DECREF(meta);
    if (sig == nullptr) return nullptr;
    PyObject* doc = PyUnicode_FromFormat("%S%S", f->name, sig);
    Py_DECREF(sig);
    return doc;
  }
  Py_XDECREF(meta);
  if (PyObject* sig = SignatureText(f)) return sig;
  return PyUnicode_FromString("A callable FFI function: ffi.Function(*args) calls it.");
}

PyObject* FunctionGetKeepGil(PyObject* self, void*) {
  return PyBool_FromLong(KeepGil(reinterpret_cast<PyFunc*>(self)));
}

int FunctionSetKeepGil(PyObject* self, PyObject* value, void*) {
  if (value == nullptr || !PyBool_Check(value)) {
    PyErr_SetString(PyExc_TypeError, "keep_gil must be True or False");
    return -1;
  }
  SetKeepGil(reinterpret_cast<PyFunc*>(self), value == Py_True);
  return 0;
}

PyObject* FunctionGetReleaseGil(PyObject* self, void*) {
  return PyBool_FromLong(!KeepGil(reinterpret_cast<PyFunc*>(self)));
}

int FunctionSetReleaseGil(PyObject* self, PyObject* value, void*) {
  if (value == nullptr) {
    PyErr_SetString(PyExc_TypeError, "release_gil cannot be deleted");
    return -1;
  }
  int release = PyObject_IsTrue(value);
  if (release < 0) return -1;
  SetKeepGil(reinterpret_cast<PyFunc*>(self), release == 0);
  return 0;
}

int FunctionTraverse(PyObject* self, visitproc visit, void* arg) {
  auto* f = reinterpret_cast<PyFunc*>(self);
  Py_VISIT(f->dict);
  Py_VISIT(f->name);
  Py_VISIT(f->arg_defaults);
  Py_VISIT(Py_TYPE(self));
  return 0;
}

int FunctionClear(PyObject* self) {
  auto* f = reinterpret_cast<PyFunc*>(self);
  Py_CLEAR(f->dict);
  Py_CLEAR(f->name);
  Py_CLEAR(f->arg_names);
  Py_CLEAR(f->arg_defaults);
  return 0;
}

PyGetSetDef function_getset[] = {
    {"__name__", FFI_PY_ENTRY(FunctionGetName), nullptr, "The name the function was looked up by.",
     nullptr},
    {"__signature__", FFI_PY_ENTRY(FunctionGetSignature), nullptr,
     "inspect.Signature from the metadata.", nullptr},
    {"__doc__", FFI_PY_ENTRY(FunctionGetDoc), nullptr, "The signature text when known.", nullptr},
    {"keep_gil", FFI_PY_ENTRY(FunctionGetKeepGil), FFI_PY_ENTRY(FunctionSetKeepGil),
     "Opt-in fast path: when True, calls keep holding the GIL (no other Python thread runs "
     "during the call, and a kernel whose worker threads call back into Python deadlocks). "
     "Default False: the GIL is released around every call. On a free-threaded interpreter "
     "there is no GIL: other threads run either way, and True keeps the calling thread attached "
     "to the interpreter through the call (delaying its stop-the-world pauses).",
     nullptr},
    {"release_gil", FFI_PY_ENTRY(FunctionGetReleaseGil), FFI_PY_ENTRY(FunctionSetReleaseGil),
     "The reference's name for `not keep_gil`: whether calls release the GIL (default True).",
     nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyMemberDef function_members[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(PyFunc, vectorcall), READONLY, nullptr},
    {"__dictoffset__", T_PYSSIZET, offsetof(PyFunc, dict), READONLY, nullptr},
    {nullptr, 0, 0, 0, nullptr}};

}  // namespace

void SetFunctionName(PyObject* func, PyObject* name) {
  auto* f = reinterpret_cast<PyFunc*>(func);
  Py_XINCREF(name);
  Py_XSETREF(f->name, name);
}

bool SetFunctionParams(PyObject* func, PyObject* names, PyObject* defaults) {
  if (!PyObject_TypeCheck(func, FunctionType) || !PyTuple_Check(names) ||
      !PyTuple_Check(defaults) || PyTuple_GET_SIZE(defaults) > PyTuple_GET_SIZE(names)) {
    PyErr_SetString(PyExc_TypeError,
                    "_set_function_params(func, names, defaults): an ffi.Function, a tuple of "
                    "names and a tuple of at most as many defaults");
    return false;
  }
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(names); ++i) {
    if (!PyUnicode_CheckExact(PyTuple_GET_ITEM(names, i))) {
      PyErr_SetString(PyExc_TypeError, "parameter names must be str");
      return false;
    }
  }
  // Interned names make the keyword lookup an identity comparison for literal keywords.
  PyObject* interned = PyTuple_New(PyTuple_GET_SIZE(names));
  if (interned == nullptr) return false;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(names); ++i) {
    PyObject* name = PyTuple_GET_ITEM(names, i);
    Py_INCREF(name);
    PyUnicode_InternInPlace(&name);
    PyTuple_SET_ITEM(interned, i, name);
  }
  auto* f = reinterpret_cast<PyFunc*>(func);
  Py_XSETREF(f->arg_names, interned);
  Py_INCREF(defaults);
  Py_XSETREF(f->arg_defaults, defaults);
  f->vectorcall = NamedFunctionVectorcall;  // functions without names keep the plain entry
  return true;
}

bool InitFunctionType(PyObject* module) {
  PyType_Slot function_slots[] = {
      {Py_tp_call, reinterpret_cast<void*>(PyVectorcall_Call)},
      {Py_tp_repr, FFI_PY_SLOT(FunctionRepr)},
      {Py_tp_getset, function_getset},
      {Py_tp_members, function_members},
      // Traverse and clear only visit and drop references: nothing to throw.
      {Py_tp_traverse, reinterpret_cast<void*>(FunctionTraverse)},
      {Py_tp_clear, reinterpret_cast<void*>(FunctionClear)},
      {Py_tp_free, reinterpret_cast<void*>(PyObject_GC_Del)},
      // No Py_tp_doc: it would replace the __doc__ getset that shows each signature.
      {0, nullptr}};
  PyType_Spec function_spec = {
      "ffi.Function", sizeof(PyFunc), 0,
      Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_HAVE_GC,
      function_slots};
  PyObject* bases = PyTuple_Pack(1, ObjectType);
  FunctionType = reinterpret_cast<PyTypeObject*>(PyType_FromSpecWithBases(&function_spec, bases));
  Py_DECREF(bases);
  if (FunctionType == nullptr) return false;
  RegisterClass(kTVMFFIFunction, FunctionType);
  return AddType(module, "Function", FunctionType);
}

void BindFunctionFunctions(nb::module_& m) {
  m.def(
      "_set_function_params",
      [](nb::handle func, nb::handle names, nb::handle defaults) {
        if (!SetFunctionParams(func.ptr(), names.ptr(), defaults.ptr())) throw nb::python_error();
      },
      nb::arg("func"), nb::arg("names"), nb::arg("defaults"),
      "Gives an ffi.Function parameter names and the defaults of its last parameters, so that "
      "calls take keywords (the package calls it from export metadata).");
}

}  // namespace tvm::ffi::python
