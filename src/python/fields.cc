// ffi._Field: a reflected field as a C-level data descriptor on its class. Reads and writes go
// through the field's C++ getter and setter; set() writes even read-only or frozen fields (for
// construction and dataclasses.replace), _frozen() makes the read-only copy a frozen class uses,
// _converting(fn) a copy that passes every written value through fn first (enum fields taking
// their index).
#include "fields.h"

#include <Python.h>  // before any other Python header
#include <structmember.h>

#include "boundary.h"
#include "convert.h"
#include "errors.h"
#include "objects.h"
#include "py_text.h"
#include "reflection.h"

namespace tvm::ffi::python {
namespace {

/*! \brief A reflected field, copied from its record (the runtime may grow its tables). */
struct FieldRec {
  TVMFFIFieldGetter getter;
  void* setter;
  int64_t flags;
  int64_t offset;
  int32_t owner_index;  // the type declaring the field
};

/*! \brief Layout of ffi._Field, the descriptor a reflected field is on its class. */
struct PyField {
  PyObject_HEAD FieldRec rec;
  PyObject* name;      // str
  PyObject* owner;     // str: the declaring type's key, for messages
  PyObject* doc;       // str or None
  PyObject* metadata;  // str (JSON) or None
  PyObject* fallback;  // the default value, or the factory Function; None without a default
  PyObject* convert;   // callable applied to each written value, or NULL
};

PyTypeObject* FieldType = nullptr;

/*! \brief The object's handle when it is one `f` applies to; NULL with an error otherwise. */
TVMFFIObject* FieldTarget(PyField* f, PyObject* obj) {
  TVMFFIObject* h =
      PyObject_TypeCheck(obj, ObjectType) ? LoadHandle(reinterpret_cast<PyObj*>(obj)) : nullptr;
  if (h == nullptr) {
    PyErr_Format(PyExc_TypeError, "field `%U` of `%U` needs an initialized `%U` object, not `%s`",
                 f->name, f->owner, f->owner, Py_TYPE(obj)->tp_name);
    return nullptr;
  }
  if (!IsInstanceOfIndex(h, f->rec.owner_index)) {
    PyErr_Format(PyExc_TypeError, "field `%U` belongs to `%U`, not to this `%s` object", f->name,
                 f->owner, Py_TYPE(obj)->tp_name);
    return nullptr;
  }
  return h;
}

PyObject* FieldGet(PyObject* self, PyObject* obj, PyObject*) {
  auto* f = reinterpret_cast<PyField*>(self);
  if (obj == nullptr || obj == Py_None) {
    Py_INCREF(self);
    return self;
  }
  TVMFFIObject* h = FieldTarget(f, obj);
  if (h == nullptr) return nullptr;
  TVMFFIAny value;
  value.type_index = kTVMFFINone;
  value.v_int64 = 0;
  int rc = f->rec.getter(reinterpret_cast<char*>(h) + f->rec.offset, &value);
  if (rc != 0) return RaiseFromFFI(rc);
  return ToPython(&value);
}

/*! \brief Writes `value` into the field of `obj` through the C++ setter (writable or not). */
int WriteField(PyField* f, PyObject* obj, PyObject* value) {
  if (f->rec.setter == nullptr) {
    PyErr_Format(PyExc_AttributeError, "field `%U` of `%U` has no setter", f->name, f->owner);
    return -1;
  }
  TVMFFIObject* h = FieldTarget(f, obj);
  if (h == nullptr) return -1;
  PyObject* converted = f->convert ? PyObject_CallOneArg(f->convert, value) : NewRef(value);
  if (converted == nullptr) return -1;
  TVMFFIAny owned;
  bool ok = ToOwnedAny(converted, &owned);
  Py_DECREF(converted);
  if (!ok) {
    // As for call arguments: a value no FFI value can hold is a TypeError, the field named.
    if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
      PyObject *type, *why, *tb;
      PyErr_Fetch(&type, &why, &tb);
      PyErr_Format(PyExc_TypeError, "field `%U` of `%U` cannot hold the value: %S", f->name,
                   f->owner, why ? why : Py_None);
      Py_XDECREF(type);
      Py_XDECREF(why);
      Py_XDECREF(tb);
    }
    return -1;
  }
  void* addr = reinterpret_cast<char*>(h) + f->rec.offset;
  int rc = 0;
  if (f->rec.flags & kTVMFFIFieldFlagBitSetterIsFunctionObj) {
    TVMFFIAny args[2];
    args[0].type_index = kTVMFFIOpaquePtr;
    args[0].zero_padding = 0;
    args[0].v_ptr = addr;
    args[1] = owned;
    TVMFFIAny result;
    result.type_index = kTVMFFINone;
    result.v_int64 = 0;
    rc = TVMFFIFunctionCall(f->rec.setter, args, 2, &result);
    if (rc == 0) ReleaseAny(&result);
  } else {
    rc = reinterpret_cast<TVMFFIFieldSetter>(f->rec.setter)(addr, &owned);
  }
  ReleaseAny(&owned);
  if (rc != 0) {
    RaiseFromFFI(rc);
    return -1;
  }
  return 0;
}

int FieldSet(PyObject* self, PyObject* obj, PyObject* value) {
  auto* f = reinterpret_cast<PyField*>(self);
  if (value == nullptr) {
    PyErr_Format(PyExc_AttributeError, "field `%U` of `%U` cannot be deleted", f->name, f->owner);
    return -1;
  }
  if (!(f->rec.flags & kTVMFFIFieldFlagBitMaskWritable)) {
    PyErr_Format(PyExc_AttributeError, "field `%U` of `%U` is read-only", f->name, f->owner);
    return -1;
  }
  return WriteField(f, obj, value);
}

/*! \brief _Field.set(obj, value): writes even a read-only (or frozen) field; for construction
 * and translation code that must (dataclasses.replace builds on it). */
PyObject* FieldForceSet(PyObject* self, PyObject* const* args, Py_ssize_t n) {
  if (n != 2) {
    PyErr_SetString(PyExc_TypeError, "_Field.set(obj, value) takes two arguments");
    return nullptr;
  }
  if (WriteField(reinterpret_cast<PyField*>(self), args[0], args[1]) != 0) return nullptr;
  Py_RETURN_NONE;
}

PyObject* NewFieldCopy(PyField* from, int64_t flags, PyObject* convert);

/*! \brief _Field._frozen(): the same field, refusing assignment (set() still writes). */
PyObject* FieldFrozen(PyObject* self, PyObject*) {
  auto* f = reinterpret_cast<PyField*>(self);
  return NewFieldCopy(f, f->rec.flags & ~static_cast<int64_t>(kTVMFFIFieldFlagBitMaskWritable),
                      f->convert);
}

/*! \brief _Field._converting(fn): the same field, passing each written value through fn. */
PyObject* FieldConverting(PyObject* self, PyObject* fn) {
  if (!PyCallable_Check(fn)) {
    PyErr_SetString(PyExc_TypeError, "_Field._converting(fn) needs a callable");
    return nullptr;
  }
  auto* f = reinterpret_cast<PyField*>(self);
  return NewFieldCopy(f, f->rec.flags, fn);
}

/*! \brief _Field._get(obj): the field of obj (what `fget` gives, as for a property). */
PyObject* FieldGetMethod(PyObject* self, PyObject* obj) { return FieldGet(self, obj, nullptr); }

/*! \brief _Field._assign(obj, value): an assignment, refused for read-only fields (`fset`). */
PyObject* FieldAssignMethod(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 2) {
    PyErr_SetString(PyExc_TypeError, "_Field._assign(obj, value) takes two arguments");
    return nullptr;
  }
  if (FieldSet(self, args[0], args[1]) != 0) return nullptr;
  Py_RETURN_NONE;
}

void FieldDealloc(PyObject* self) {
  auto* f = reinterpret_cast<PyField*>(self);
  PyTypeObject* type = Py_TYPE(self);
  Py_XDECREF(f->name);
  Py_XDECREF(f->owner);
  Py_XDECREF(f->doc);
  Py_XDECREF(f->metadata);
  Py_XDECREF(f->fallback);
  Py_XDECREF(f->convert);
  type->tp_free(self);
  Py_DECREF(type);
}

PyObject* FieldRepr(PyObject* self) {
  auto* f = reinterpret_cast<PyField*>(self);
  return PyUnicode_FromFormat(
      "<ffi field `%U` of `%U` (%s)>", f->name, f->owner,
      (f->rec.flags & kTVMFFIFieldFlagBitMaskWritable) ? "writable" : "read-only");
}

PyObject* FieldWritable(PyObject* self, void*) {
  return PyBool_FromLong(reinterpret_cast<PyField*>(self)->rec.flags &
                         kTVMFFIFieldFlagBitMaskWritable);
}

PyMemberDef field_members[] = {
    {"__name__", T_OBJECT, offsetof(PyField, name), READONLY, "The field's name."},
    {"__doc__", T_OBJECT, offsetof(PyField, doc), READONLY, "The field's documentation."},
    {"metadata", T_OBJECT, offsetof(PyField, metadata), READONLY,
     "The field's metadata (JSON text), or None."},
    {"flags", T_LONGLONG, offsetof(PyField, rec) + offsetof(FieldRec, flags), READONLY,
     "The field's TVMFFIFieldFlagBitMask bits."},
    {"_owner", T_OBJECT, offsetof(PyField, owner), READONLY,
     "The type key of the type declaring the field."},
    {"_default", T_OBJECT, offsetof(PyField, fallback), READONLY,
     "The default value, or the factory producing it (see flags); None without one."},
    {nullptr, 0, 0, 0, nullptr}};

PyMethodDef field_methods[] = {
    {"set", FFI_PY_METHOD(FieldForceSet), METH_FASTCALL,
     "set(obj, value)\n\nWrites the field of obj even when it is read-only or frozen."},
    {"_get", FFI_PY_ENTRY(FieldGetMethod), METH_O, "_get(obj)\n\nThe field of obj."},
    {"_assign", FFI_PY_METHOD(FieldAssignMethod), METH_FASTCALL,
     "_assign(obj, value)\n\nAssigns the field of obj (refused when it is read-only)."},
    {"_frozen", FFI_PY_ENTRY(FieldFrozen), METH_NOARGS, "The same field, refusing assignment."},
    {"_converting", FFI_PY_ENTRY(FieldConverting), METH_O,
     "_converting(fn)\n\nThe same field, passing each written value through fn first."},
    {nullptr, nullptr, 0, nullptr}};

/*! \brief `fget`, as a property has it: a callable reading the field of its argument. */
PyObject* FieldFget(PyObject* self, void*) { return PyObject_GetAttrString(self, "_get"); }

/*! \brief `fset`, as a property has it: a callable assigning the field, None when read-only. */
PyObject* FieldFset(PyObject* self, void*) {
  if (!(reinterpret_cast<PyField*>(self)->rec.flags & kTVMFFIFieldFlagBitMaskWritable)) {
    Py_RETURN_NONE;
  }
  return PyObject_GetAttrString(self, "_assign");
}

PyGetSetDef field_getset[] = {
    {"writable", FFI_PY_ENTRY(FieldWritable), nullptr, "Whether the field may be assigned.",
     nullptr},
    {"fget", FFI_PY_ENTRY(FieldFget), nullptr, "fget(obj): reads the field (as property.fget).",
     nullptr},
    {"fset", FFI_PY_ENTRY(FieldFset), nullptr,
     "fset(obj, value): assigns the field (as property.fset); None when it is read-only.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

}  // namespace

PyObject* NewField(const TVMFFIFieldInfo& info, const TVMFFITypeInfo* owner) {
  auto* f = PyObject_New(PyField, FieldType);
  if (f == nullptr) return nullptr;
  f->rec = FieldRec{info.getter, info.setter, info.flags, info.offset, owner->type_index};
  f->name = Str(info.name);
  f->owner = Str(owner->type_key);
  f->doc = info.doc.size ? Str(info.doc) : NewRef(Py_None);
  f->metadata = info.metadata.size ? Str(info.metadata) : NewRef(Py_None);
  f->fallback = nullptr;
  f->convert = nullptr;
  if (info.flags & kTVMFFIFieldFlagBitMaskHasDefault) {
    TVMFFIAny owned;
    if (TVMFFIAnyViewToOwnedAny(&info.default_value_or_factory, &owned) == 0) {
      f->fallback = ToPython(&owned);
    } else {
      RaiseFromFFI(-1);
    }
  } else {
    f->fallback = NewRef(Py_None);
  }
  if (!f->name || !f->owner || !f->doc || !f->metadata || !f->fallback) Py_CLEAR(f);
  return reinterpret_cast<PyObject*>(f);
}

namespace {

PyObject* NewFieldCopy(PyField* from, int64_t flags, PyObject* convert) {
  auto* f = PyObject_New(PyField, FieldType);
  if (f == nullptr) return nullptr;
  f->rec = from->rec;
  f->rec.flags = flags;
  f->name = NewRef(from->name);
  f->owner = NewRef(from->owner);
  f->doc = NewRef(from->doc);
  f->metadata = NewRef(from->metadata);
  f->fallback = NewRef(from->fallback);
  f->convert = convert ? NewRef(convert) : nullptr;
  return reinterpret_cast<PyObject*>(f);
}

}  // namespace

bool InitFieldType(PyObject* module) {
  PyType_Slot field_slots[] = {{Py_tp_dealloc, FFI_PY_SLOT(FieldDealloc)},
                               {Py_tp_repr, FFI_PY_SLOT(FieldRepr)},
                               {Py_tp_descr_get, FFI_PY_SLOT(FieldGet)},
                               {Py_tp_descr_set, FFI_PY_SLOT(FieldSet)},
                               {Py_tp_members, field_members},
                               {Py_tp_getset, field_getset},
                               {Py_tp_methods, field_methods},
                               {0, nullptr}};
  PyType_Spec field_spec = {"ffi._Field", sizeof(PyField), 0, Py_TPFLAGS_DEFAULT, field_slots};
  FieldType = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&field_spec));
  return FieldType != nullptr && AddType(module, "_Field", FieldType);
}

}  // namespace tvm::ffi::python
