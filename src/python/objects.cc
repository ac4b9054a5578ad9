// ffi.Object (and ObjectRValueRef, ffi._ModuleBase). ffi.Function is function.cc; the registry of
// Python classes for type indices is reflection.cc.
#include "objects.h"

#include <Python.h>  // before any other Python header
#include <nanobind/nanobind.h>
#include <structmember.h>

#include <utility>

#include "boundary.h"
#include "call.h"
#include "classify.h"
#include "errors.h"
#include "foreign.h"
#include "function.h"
#include "nb_check.h"
#include "reflection.h"

namespace nb = nanobind;

namespace tvm::ffi::python {

PyTypeObject* ObjectType = nullptr;
PyTypeObject* RValueRefType = nullptr;

namespace {

void ObjectDealloc(PyObject* self) {
  auto* o = reinterpret_cast<PyObj*>(self);
  PyTypeObject* type = Py_TYPE(self);
  if (type->tp_flags & Py_TPFLAGS_HAVE_GC) PyObject_GC_UnTrack(self);
  if (o->weakrefs != nullptr) PyObject_ClearWeakRefs(self);
  if (type == FunctionType || PyType_IsSubtype(type, FunctionType)) {
    Py_CLEAR(reinterpret_cast<PyFunc*>(self)->name);
    Py_CLEAR(reinterpret_cast<PyFunc*>(self)->dict);
    Py_CLEAR(reinterpret_cast<PyFunc*>(self)->arg_names);
    Py_CLEAR(reinterpret_cast<PyFunc*>(self)->arg_defaults);
  }
  TVMFFIObject* h = o->handle;
  o->handle = nullptr;
  // Deallocation may come with an exception pending (the interpreter drops the arguments of a
  // call that failed with it set): the object's deleters, which may run Python code, leave it
  // intact.
  if (h != nullptr) ReleaseObject(h);
  type->tp_free(self);
  if (type->tp_flags & Py_TPFLAGS_HEAPTYPE) Py_DECREF(type);
}

PyObject* EmptyFunctionVectorcall(PyObject* self, PyObject* const*, size_t, PyObject*) {
  PyErr_Format(PyExc_RuntimeError,
               "this `%s` holds no function: give it one with __move_handle_from__(function)",
               Py_TYPE(self)->tp_name);
  return nullptr;
}

PyObject* ObjectNew(PyTypeObject* type, PyObject*, PyObject*) {
  // A class bound by register_object starts empty; its __init__ (the reflected constructor, or
  // the class's own calling __ffi_init__) gives it its object.
  if (ReflectedIndexOf(type) >= 0) return type->tp_alloc(type, 0);
  // So does a Python subclass of ffi.Function (a JIT's function class carrying its own state):
  // __move_handle_from__ gives it a function.
  if (type != FunctionType && PyType_IsSubtype(type, FunctionType)) {
    PyObject* self = type->tp_alloc(type, 0);
    if (self != nullptr) reinterpret_cast<PyFunc*>(self)->vectorcall = EmptyFunctionVectorcall;
    return self;
  }
  PyErr_Format(PyExc_TypeError, "%s objects are made by FFI calls, not constructed directly",
               type->tp_name);
  return nullptr;
}

PyObject* ObjectTypeKey(PyObject* self, void*) {
  TVMFFIObject* h = HandleOf(self);
  if (h == nullptr) return nullptr;
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(h->type_index);
  if (info == nullptr) Py_RETURN_NONE;
  return PyUnicode_FromStringAndSize(info->type_key.data,
                                     static_cast<Py_ssize_t>(info->type_key.size));
}

PyObject* ObjectTypeIndex(PyObject* self, void*) {
  TVMFFIObject* h = HandleOf(self);
  return h != nullptr ? PyLong_FromLong(h->type_index) : nullptr;
}

PyObject* ObjectHandle(PyObject* self, void*) {
  return PyLong_FromVoidPtr(LoadHandle(reinterpret_cast<PyObj*>(self)));
}

PyObject* ObjectHandleMethod(PyObject* self, PyObject*) { return ObjectHandle(self, nullptr); }

PyObject* ObjectMove(PyObject* self, PyObject*) {
  if (HandleOf(self) == nullptr) return nullptr;
  auto* ref = PyObject_New(PyRValueRef, RValueRefType);
  if (ref == nullptr) return nullptr;
  Py_INCREF(self);
  ref->target = self;
  return reinterpret_cast<PyObject*>(ref);
}

void RValueRefDealloc(PyObject* self) {
  PyTypeObject* type = Py_TYPE(self);
  Py_XDECREF(reinterpret_cast<PyRValueRef*>(self)->target);
  PyObject_Free(self);
  Py_DECREF(type);
}

PyObject* RValueRefRepr(PyObject* self) {
  PyObject* target = reinterpret_cast<PyRValueRef*>(self)->target;
  if (LoadHandle(reinterpret_cast<PyObj*>(target)) == nullptr) {  // consumed by a call
    return PyUnicode_FromFormat("<ffi.ObjectRValueRef of <%s (no FFI object)>>",
                                Py_TYPE(target)->tp_name);
  }
  return PyUnicode_FromFormat("<ffi.ObjectRValueRef of %R>", target);
}

/*! \brief The runtime's ffi.ReprPrint (looked up once; NULL when the runtime has none). */
TVMFFIObject* ReprPrintFunction() {
  static TVMFFIObject* const fn = [] {
    const char name[] = "ffi.ReprPrint";
    TVMFFIByteArray key{name, sizeof(name) - 1};
    TVMFFIObjectHandle out = nullptr;
    if (TVMFFIFunctionGetGlobal(&key, &out) != 0) {
      ClearRaisedFFIError();
      return static_cast<TVMFFIObject*>(nullptr);
    }
    return static_cast<TVMFFIObject*>(out);  // kept for the life of the process
  }();
  return fn;
}

/*!
 * \brief repr of an object, as the reference shows it: the runtime's ffi.ReprPrint
 * ("type.key(field=value, ...)", or the type's __ffi_repr__), else `<key object at 0x...>`.
 */
PyObject* ObjectRepr(PyObject* self) {
  if (LoadHandle(reinterpret_cast<PyObj*>(self)) == nullptr) {
    return PyUnicode_FromFormat("<%s (no FFI object)>", Py_TYPE(self)->tp_name);
  }
  if (TVMFFIObject* print = ReprPrintFunction()) {
    PyObject* text = CallFunction(print, nullptr, &self, 1, /*keep_gil=*/true);
    if (text != nullptr && PyUnicode_Check(text)) return text;
    Py_XDECREF(text);
    PyErr_Clear();  // repr never fails: fall back to the plain form
  }
  PyObject* key = ObjectTypeKey(self, nullptr);
  if (key == nullptr) return nullptr;
  PyObject* r =
      PyUnicode_FromFormat("<%S object at %p>", key, LoadHandle(reinterpret_cast<PyObj*>(self)));
  Py_DECREF(key);
  return r;
}

PyObject* ObjectSameAs(PyObject* self, PyObject* other) {
  TVMFFIObject* mine = LoadHandle(reinterpret_cast<PyObj*>(self));
  if (mine == nullptr) return PyBool_FromLong(self == other);  // holds nothing: only itself
  if (PyObject_TypeCheck(other, ObjectType)) {
    return PyBool_FromLong(LoadHandle(reinterpret_cast<PyObj*>(other)) == mine);
  }
  // A tvm_ffi object is the same as this one when it holds the same FFI object.
  if (!IsForeignObjectType(Py_TYPE(other))) Py_RETURN_FALSE;
  TVMFFIObject* theirs = ForeignObjectHandle(other);
  if (theirs == nullptr) {
    PyErr_Clear();  // one holding no object is not this one
    Py_RETURN_FALSE;
  }
  TVMFFIObjectDecRef(theirs);
  return PyBool_FromLong(theirs == mine);
}

/*! \brief `==` / `!=`: the same FFI object (ffi's or a tvm_ffi value's), as the reference does;
 * other comparisons, and other values, are NotImplemented. */
PyObject* ObjectRichCompare(PyObject* self, PyObject* other, int op) {
  if ((op != Py_EQ && op != Py_NE) ||
      !(PyObject_TypeCheck(other, ObjectType) || IsForeignObjectType(Py_TYPE(other)))) {
    Py_RETURN_NOTIMPLEMENTED;
  }
  if (LoadHandle(reinterpret_cast<PyObj*>(self)) == nullptr) {  // holds nothing: only itself
    return PyBool_FromLong((self == other) == (op == Py_EQ));
  }
  PyObject* same = ObjectSameAs(self, other);
  if (same == nullptr || op == Py_EQ) return same;
  Py_DECREF(same);
  return PyBool_FromLong(same == Py_False);
}

/*! \brief The FFI object's address (the reference's hash), so equal objects hash alike. */
Py_hash_t ObjectHash(PyObject* self) {
  void* h = LoadHandle(reinterpret_cast<PyObj*>(self));
  auto value = static_cast<Py_hash_t>(reinterpret_cast<uintptr_t>(h != nullptr ? h : self));
  return value == -1 ? -2 : value;
}

PyObject* ObjectUseCount(PyObject* self, PyObject*) {
  TVMFFIObject* h = HandleOf(self);
  if (h == nullptr) return nullptr;
  return PyLong_FromUnsignedLong(static_cast<unsigned long>(
      __atomic_load_n(&h->combined_ref_count, __ATOMIC_RELAXED) & 0xffffffffu));
}

/*!
 * \brief __init_handle_by_constructor__(constructor, *args): calls the constructor and makes
 * the object it returns this one's (the reference's name, used by custom __init__ methods).
 */
PyObject* ObjectInitHandle(PyObject* self, PyObject* const* args, Py_ssize_t n) {
  if (n < 1 || !PyObject_TypeCheck(args[0], FunctionType)) {
    PyErr_SetString(PyExc_TypeError,
                    "__init_handle_by_constructor__ needs an ffi.Function constructor first");
    return nullptr;
  }
  TVMFFIObject* ctor = HandleOf(args[0]);
  if (ctor == nullptr) return nullptr;
  PyObject* made = CallFunction(ctor, reinterpret_cast<PyFunc*>(args[0])->name, args + 1, n - 1);
  if (made == nullptr) return nullptr;
  TVMFFIObject* h =
      PyObject_TypeCheck(made, ObjectType) ? LoadHandle(reinterpret_cast<PyObj*>(made)) : nullptr;
  int32_t want = ReflectedIndexOf(Py_TYPE(self));
  if (h == nullptr || (want >= 0 && !IsInstanceOfIndex(h, want))) {
    PyErr_Format(PyExc_TypeError,
                 "the constructor of %s returned `%s`, not an object of its type (a base "
                 "class's constructor on an instance of a subclass is not supported)",
                 Py_TYPE(self)->tp_name, Py_TYPE(made)->tp_name);
    Py_DECREF(made);
    return nullptr;
  }
  TVMFFIObjectIncRef(h);
  // One step: another thread may be reading or moving the object meanwhile.
  TVMFFIObject* old = ExchangeHandle(reinterpret_cast<PyObj*>(self), h);
  if (old != nullptr) TVMFFIObjectDecRef(old);
  Py_DECREF(made);
  Py_RETURN_NONE;
}

PyGetSetDef object_getset[] = {
    {"type_key", FFI_PY_ENTRY(ObjectTypeKey), nullptr,
     "The registered type key, e.g. \"ffi.Tensor\".", nullptr},
    {"type_index", FFI_PY_ENTRY(ObjectTypeIndex), nullptr, "The runtime type index.", nullptr},
    {"_handle", FFI_PY_ENTRY(ObjectHandle), nullptr, "Address of the underlying TVMFFIObject.",
     nullptr},
    {"id_", FFI_PY_ENTRY(ObjectHandle), nullptr,
     "The address of the underlying FFI object as an int (0 when there is none), as the "
     "reference names it.",
     nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

/*!
 * \brief `f.__move_handle_from__(g)`: `f` (an ffi.Function, e.g. an instance of a subclass made
 * empty) takes over the function `g` holds; `g` is left empty. As the reference's, for functions.
 */
PyObject* ObjectMoveHandleFrom(PyObject* self, PyObject* other) {
  if (!PyObject_TypeCheck(self, FunctionType) || !PyObject_TypeCheck(other, FunctionType)) {
    PyErr_Format(PyExc_TypeError,
                 "__move_handle_from__ moves an ffi.Function into an ffi.Function, not `%s` into "
                 "`%s`",
                 Py_TYPE(other)->tp_name, Py_TYPE(self)->tp_name);
    return nullptr;
  }
  if (self == other) Py_RETURN_NONE;
  auto* to = reinterpret_cast<PyFunc*>(self);
  auto* from = reinterpret_cast<PyFunc*>(other);
  TVMFFIObject* taken = ExchangeHandle(&from->base, nullptr);
  TVMFFIObject* old = ExchangeHandle(&to->base, taken);
  to->vectorcall = taken != nullptr ? FunctionVectorcall : EmptyFunctionVectorcall;
  from->vectorcall = EmptyFunctionVectorcall;
  Py_XINCREF(from->name);
  Py_XSETREF(to->name, from->name);
  TVMFFIObjectDecRef(old);
  Py_RETURN_NONE;
}

PyMethodDef object_methods[] = {
    {"__move_handle_from__", FFI_PY_ENTRY(ObjectMoveHandleFrom), METH_O,
     "Takes over the function another ffi.Function holds, leaving that one empty (for instances "
     "of Function subclasses, which start empty)."},
    {"same_as", FFI_PY_ENTRY(ObjectSameAs), METH_O, "Whether both refer to the same FFI object."},
    {"is_", FFI_PY_ENTRY(ObjectSameAs), METH_O, "Same as same_as (the reference's name)."},
    {"__chandle__", FFI_PY_ENTRY(ObjectHandleMethod), METH_NOARGS,
     "The address of the underlying FFI object as an int, as id_ (the reference's name)."},
    {"_move", FFI_PY_ENTRY(ObjectMove), METH_NOARGS,
     "Hands the object over to the call it is passed to: the callee may take this Python object's "
     "reference (leaving it without an object), so that it owns the object alone and may change "
     "it in place."},
    {"_use_count", FFI_PY_ENTRY(ObjectUseCount), METH_NOARGS,
     "The object's strong reference count."},
    {"__tvm_ffi_object__", FFI_PY_ENTRY(ObjectToReference), METH_NOARGS,
     "This object as a tvm_ffi object: the same FFI object, for the reference package's calls."},
    {"__init_handle_by_constructor__", FFI_PY_METHOD(ObjectInitHandle), METH_FASTCALL,
     "__init_handle_by_constructor__(constructor, *args)\n\nCalls the constructor and holds the "
     "object it makes (for custom __init__ methods)."},
    {nullptr, nullptr, 0, nullptr}};

PyMemberDef object_members[] = {
    {"__weaklistoffset__", T_PYSSIZET, offsetof(PyObj, weakrefs), READONLY, nullptr},
    {nullptr, 0, 0, 0, nullptr}};

}  // namespace

PyObject* RaiseNoObject(PyObject* self) {
  PyErr_Format(PyExc_RuntimeError, "this %s holds no FFI object: %s", Py_TYPE(self)->tp_name,
               kNoObjectReason);
  return nullptr;
}

bool AddType(PyObject* module, const char* name, PyTypeObject* type) {
  Py_INCREF(type);
  if (PyModule_AddObject(module, name, reinterpret_cast<PyObject*>(type)) < 0) {
    Py_DECREF(type);
    return false;
  }
  return true;
}

PyObject* WrapObject(PyTypeObject* type, TVMFFIObject* handle) {
  PyObject* self = type->tp_alloc(type, 0);
  if (self == nullptr) {
    ReleaseObject(handle);  // with the MemoryError kept
    return nullptr;
  }
  reinterpret_cast<PyObj*>(self)->handle = handle;
  if (type == FunctionType || PyType_IsSubtype(type, FunctionType)) {
    reinterpret_cast<PyFunc*>(self)->vectorcall = FunctionVectorcall;
  }
  return self;
}

/*!
 * \brief Attribute lookup of modules: the instance dict (where the package puts every exported
 * function when the module arrives), else the class's `_missing_attribute(name)`. A class
 * defining __getattr__ in Python would make every `mod.fn` lookup take CPython's slower hook.
 */
PyObject* ModuleGetAttr(PyObject* self, PyObject* name) {
  // The instance dict first, without the class's lookup along its bases: the package never puts
  // a function there under the name of a class member (Module._populate), and setting a member's
  // name on a module goes through the member, so the generic order finds the same.
  if (PyObject* dict = PyObject_GenericGetDict(self, nullptr)) {
#if PY_VERSION_HEX >= 0x030D0000
    // A strong reference from the lookup itself: safe while another thread changes the dict.
    PyObject* function = nullptr;
    int found = PyDict_GetItemRef(dict, name, &function);
#else
    PyObject* function = PyDict_GetItemWithError(dict, name);
    Py_XINCREF(function);
    int found = function != nullptr ? 1 : (PyErr_Occurred() ? -1 : 0);
#endif
    Py_DECREF(dict);
    if (found != 0) return function;  // NULL with the error when the lookup failed
  } else {
    PyErr_Clear();  // no instance dict: the generic lookup decides
  }
  PyObject* found = PyObject_GenericGetAttr(self, name);
  if (found != nullptr || !PyErr_ExceptionMatches(PyExc_AttributeError)) return found;
  if (PyUnicode_Check(name) && PyUnicode_GET_LENGTH(name) >= 2 &&
      PyUnicode_READ_CHAR(name, 0) == '_' && PyUnicode_READ_CHAR(name, 1) == '_') {
    return nullptr;  // special names never stand for functions
  }
  PyErr_Clear();
  static PyObject* hook = PyUnicode_InternFromString("_missing_attribute");
  return PyObject_CallMethodOneArg(self, hook, name);
}

namespace {

/*! \brief Makes `meta` the metaclass of `type` and of its subclasses that still have `type`. */
void AdoptMetaclass(PyTypeObject* type, PyTypeObject* meta) {
  if (Py_TYPE(type) != &PyType_Type) return;
  Py_INCREF(meta);  // a heap type holds its metaclass
  Py_SET_TYPE(type, meta);
  PyObject* subclasses =
      PyObject_CallMethod(reinterpret_cast<PyObject*>(type), "__subclasses__", nullptr);
  if (subclasses == nullptr) return PyErr_Clear();  // cannot fail for a type
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(subclasses); ++i) {
    AdoptMetaclass(reinterpret_cast<PyTypeObject*>(PyList_GET_ITEM(subclasses, i)), meta);
  }
  Py_DECREF(subclasses);
}

/*!
 * \brief _set_object_metaclass(meta): gives ffi.Object and the extension's classes derived from it
 * (Function, Tensor, ...) the metaclass `meta` (ffi._object_meta.ObjectMeta). PyType_FromSpec
 * makes them with `type`, and Python before 3.12 has no PyType_FromMetaclass; the classes are
 * made first, since 3.12+ refuse a spec type whose base has a metaclass with its own __new__.
 */
PyObject* SetObjectMetaclass(PyObject*, PyObject* meta) {
  if (!PyType_Check(meta) ||
      !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(meta), &PyType_Type)) {
    PyErr_SetString(PyExc_TypeError, "_set_object_metaclass needs a subclass of type");
    return nullptr;
  }
  auto* meta_type = reinterpret_cast<PyTypeObject*>(meta);
  if (meta_type->tp_basicsize != PyType_Type.tp_basicsize ||
      meta_type->tp_itemsize != PyType_Type.tp_itemsize) {
    PyErr_SetString(PyExc_TypeError, "_set_object_metaclass needs a metaclass without slots");
    return nullptr;
  }
  if (Py_TYPE(ObjectType) != &PyType_Type && Py_TYPE(ObjectType) != meta_type) {
    PyErr_SetString(PyExc_RuntimeError, "ffi.Object already has another metaclass");
    return nullptr;
  }
  AdoptMetaclass(ObjectType, meta_type);
  Py_RETURN_NONE;
}

PyMethodDef object_functions[] = {
    {"_set_object_metaclass", FFI_PY_ENTRY(SetObjectMetaclass), METH_O,
     "_set_object_metaclass($module, meta, /)\n--\n\nMakes `meta` the metaclass of ffi.Object "
     "and of the extension's classes derived from it (once, at import)."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

bool InitObjectTypes(PyObject* module) {
  PyType_Slot object_slots[] = {
      {Py_tp_dealloc, FFI_PY_SLOT(ObjectDealloc)},
      {Py_tp_new, FFI_PY_SLOT(ObjectNew)},
      {Py_tp_repr, FFI_PY_SLOT(ObjectRepr)},
      {Py_tp_richcompare, FFI_PY_SLOT(ObjectRichCompare)},
      {Py_tp_hash, FFI_PY_SLOT(ObjectHash)},
      {Py_tp_getset, object_getset},
      {Py_tp_methods, object_methods},
      {Py_tp_members, object_members},
      {Py_tp_doc, const_cast<char*>("Base of every FFI object: holds one reference to it.")},
      {0, nullptr}};
  PyType_Spec object_spec = {"ffi.Object", sizeof(PyObj), 0,
                             Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, object_slots};
  ObjectType = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&object_spec));
  if (ObjectType == nullptr) return false;

  PyType_Slot rvalue_slots[] = {
      {Py_tp_dealloc, FFI_PY_SLOT(RValueRefDealloc)},
      {Py_tp_repr, FFI_PY_SLOT(RValueRefRepr)},
      {Py_tp_doc, const_cast<char*>("An object handed over to a call (Object._move()).")},
      {0, nullptr}};
  PyType_Spec rvalue_spec = {"ffi.ObjectRValueRef", sizeof(PyRValueRef), 0, Py_TPFLAGS_DEFAULT,
                             rvalue_slots};
  RValueRefType = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&rvalue_spec));
  if (RValueRefType == nullptr) return false;
  PyType_Slot module_slots[] = {
      {Py_tp_getattro, FFI_PY_SLOT(ModuleGetAttr)},
      {Py_tp_doc, const_cast<char*>("Base of ffi.Module: fast lookup of exported functions.")},
      {0, nullptr}};
  PyType_Spec module_spec = {"ffi._ModuleBase", 0, 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
                             module_slots};
  PyObject* module_bases = PyTuple_Pack(1, ObjectType);
  PyObject* module_base =
      module_bases ? PyType_FromSpecWithBases(&module_spec, module_bases) : nullptr;
  Py_XDECREF(module_bases);
  if (module_base == nullptr) return false;
  return PyModule_AddFunctions(module, object_functions) == 0 &&
         AddType(module, "Object", ObjectType) &&
         AddType(module, "ObjectRValueRef", RValueRefType) &&
         AddType(module, "_ModuleBase", reinterpret_cast<PyTypeObject*>(module_base));
}

void BindObjectFunctions(nb::module_& m) {
  m.def(
      "_wrap_as",
      [](nb::handle obj, nb::handle cls) {
        auto* type = reinterpret_cast<PyTypeObject*>(cls.ptr());
        PyTypeObject* from = Py_TYPE(obj.ptr());
        if (!PyObject_TypeCheck(obj.ptr(), ObjectType) || !PyType_Check(cls.ptr()) ||
            !PyType_IsSubtype(type, from) || type->tp_basicsize != from->tp_basicsize) {
          throw nb::type_error("_wrap_as needs an ffi.Object and a subclass of its class");
        }
        TVMFFIObject* h = LoadHandle(reinterpret_cast<PyObj*>(obj.ptr()));
        if (h == nullptr) throw nb::type_error("_wrap_as needs an object that holds one");
        TVMFFIObjectIncRef(h);
        return Check(WrapObject(type, h));
      },
      "A new `cls` (a Python subclass of obj's class) holding another reference to obj's "
      "object.");
}

}  // namespace tvm::ffi::python
