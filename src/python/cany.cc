// ffi.core.CAny: one owned ABI value (TVMFFIAny) held by Python, the result of
// TypeSchema.convert. It keeps the value exactly as the FFI stores it (a short str as a small
// string, an int as an int), so what a schema converted to can be inspected before Python sees it.
#include "cany.h"

#include <string>

#include "boundary.h"
#include "convert.h"
#include "objects.h"
#include "py_text.h"

namespace tvm::ffi::python {
namespace {

/*! \brief The instance layout: the Python header and the owned value. */
struct PyCAny {
  PyObject_HEAD TVMFFIAny value;
};

PyTypeObject* CAnyType = nullptr;

TVMFFIAny& ValueOf(PyObject* self) { return reinterpret_cast<PyCAny*>(self)->value; }

void CAnyDealloc(PyObject* self) {
  ReleaseAny(&ValueOf(self));
  PyTypeObject* type = Py_TYPE(self);
  type->tp_free(self);
  Py_DECREF(type);  // heap types own a reference from each instance
}

PyObject* CAnyNew(PyTypeObject* cls, PyObject* args, PyObject* kwargs) {
  PyObject* value = nullptr;
  static const char* kwlist[] = {"value", nullptr};
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O:CAny", const_cast<char**>(kwlist), &value)) {
    return nullptr;
  }
  TVMFFIAny owned;
  if (!ToOwnedAny(value, &owned)) return nullptr;
  PyObject* self = cls->tp_alloc(cls, 0);
  if (self == nullptr) {
    ReleaseAny(&owned);
    return nullptr;
  }
  ValueOf(self) = owned;
  return self;
}

PyObject* CAnyTypeIndex(PyObject* self, void*) { return PyLong_FromLong(ValueOf(self).type_index); }

PyObject* CAnyRepr(PyObject* self) {
  const TVMFFIAny& v = ValueOf(self);
  switch (v.type_index) {
    case kTVMFFINone:
      return PyUnicode_FromString("CAny(None)");
    case kTVMFFIInt:
      return PyUnicode_FromFormat("CAny(int=%lld)", static_cast<long long>(v.v_int64));
    case kTVMFFIBool:
      return PyUnicode_FromString(v.v_int64 != 0 ? "CAny(bool=True)" : "CAny(bool=False)");
    case kTVMFFIFloat: {
      PyObject* f = PyFloat_FromDouble(v.v_float64);
      if (f == nullptr) return nullptr;
      PyObject* out = PyUnicode_FromFormat("CAny(float=%R)", f);
      Py_DECREF(f);
      return out;
    }
    default:
      if (v.type_index >= kTVMFFIStaticObjectBegin) {
        return PyUnicode_FromFormat("CAny(object, type_index=%d)", static_cast<int>(v.type_index));
      }
      return PyUnicode_FromFormat("CAny(type_index=%d)", static_cast<int>(v.type_index));
  }
}

/*! \brief _to_py_class_value(cany): the held value as Python sees a returned value. */
PyObject* ToPyClassValue(PyObject*, PyObject* cany) {
  if (!PyObject_TypeCheck(cany, CAnyType)) {
    PyErr_Format(PyExc_TypeError, "_to_py_class_value() takes a CAny, not `%s`",
                 Py_TYPE(cany)->tp_name);
    return nullptr;
  }
  TVMFFIAny copy = ValueOf(cany);  // ToPython consumes its argument: hand it a new reference
  if (copy.type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectIncRef(copy.v_obj);
  return ToPython(&copy);
}

PyGetSetDef cany_getset[] = {
    {"type_index", FFI_PY_ENTRY(CAnyTypeIndex), nullptr,
     "The type index of the held value (a TVMFFITypeIndex or an object type's).", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyMethodDef cany_functions[] = {{"_to_py_class_value", FFI_PY_ENTRY(ToPyClassValue), METH_O,
                                 "_to_py_class_value(cany, /)\n--\n\nThe value a CAny holds, "
                                 "converted as a returned value is."},
                                {nullptr, nullptr, 0, nullptr}};

}  // namespace

bool InitCAnyType(PyObject* module) {
  static const char doc[] =
      "CAny(value)\n--\n\nOne value converted to the FFI and owned here (what TypeSchema.convert "
      "returns); _to_py_class_value(cany) reads it back.";
  PyType_Slot slots[] = {
      {Py_tp_new, FFI_PY_SLOT(CAnyNew)},
      {Py_tp_dealloc, FFI_PY_SLOT(CAnyDealloc)},
      {Py_tp_repr, FFI_PY_SLOT(CAnyRepr)},
      {Py_tp_getset, cany_getset},
      // Begins with the signature inspect.signature reads (kept on 3.9 by KeepTextSignature).
      {Py_tp_doc, const_cast<char*>(doc)},
      {0, nullptr}};
  PyType_Spec spec = {"ffi.core.CAny", sizeof(PyCAny), 0, Py_TPFLAGS_DEFAULT, slots};
  CAnyType = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&spec));
  if (CAnyType == nullptr || !KeepTextSignature(CAnyType, doc)) return false;
  return AddType(module, "CAny", CAnyType) && PyModule_AddFunctions(module, cany_functions) == 0;
}

}  // namespace tvm::ffi::python
