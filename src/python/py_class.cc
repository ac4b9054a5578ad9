// Object types defined in Python (ffi.dataclasses.py_class): a type index allocated under a parent,
// fields registered with their native layout, and the conversion callback the runtime's field
// setters (ffi.MakeFieldSetter) call with each field's Python converter. Storage, copying and the
// keyword constructor are the runtime's standard globals; this file only reaches the C ABI calls
// Python cannot make itself.
#include "py_class.h"

#include <Python.h>  // before any other Python header
#include <ffi/reflection/accessor.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "arguments.h"
#include "boundary.h"
#include "convert.h"
#include "errors.h"
#include "free_threading.h"
#include "function.h"
#include "objects.h"
#include "py_text.h"

namespace tvm::ffi::python {
namespace {

/*!
 * \brief The convert_fn of ffi.MakeFieldSetter: `converter` is a Python callable (kept alive by the
 * class); `value` is handed to it as a Python value and its result stored, or its exception raised
 * as the FFI error (a TypeError names the field's expected type). A NULL `converter` (a field
 * taking any value) stores the value as it is, without Python; the reference's runtime calls
 * convert_fn for every field, so every field is given this function.
 */
int ConvertThroughPython(void* converter, const TVMFFIAny* value, TVMFFIAny* result) {
  if (converter == nullptr) return TVMFFIAnyViewToOwnedAny(value, result);
  if (!PythonAlive()) {
    TVMFFIErrorSetRaisedFromCStr("RuntimeError",
                                 "a Python-defined field was set while Python is shutting down");
    return -1;
  }
  PyGILState_STATE gil = PyGILState_Ensure();
  int rc = 0;
  // The runtime calls this as a C function: the conversions report failures as Python errors
  // (never C++ exceptions), which become the raised FFI error; the try is a backstop.
  try {
    TVMFFIAny owned;
    PyObject* arg = TVMFFIAnyViewToOwnedAny(value, &owned) == 0 ? ToPython(&owned) : nullptr;
    PyObject* out = arg ? PyObject_CallOneArg(static_cast<PyObject*>(converter), arg) : nullptr;
    if (arg == nullptr && !PyErr_Occurred()) RaiseFromFFI(-1);
    if (out == nullptr || !ToOwnedAny(out, result)) rc = SetFFIErrorFromPython();
    Py_XDECREF(out);
    Py_XDECREF(arg);
  }
  FFI_DETAIL_LET_FORCED_UNWIND_PASS
  catch (...) {
    rc = SetFFIErrorFromCppException();
  }
  PyGILState_Release(gil);
  return rc;
}

/*! \brief _py_class_new_type(type_key, parent_index) -> the new type's index. */
PyObject* NewType(PyObject*, PyObject* const* args, Py_ssize_t n) {
  long long parent = 0;
  if (n != 2 || !PyUnicode_Check(args[0])) {
    PyErr_SetString(PyExc_TypeError, "_py_class_new_type(type_key, parent_index)");
    return nullptr;
  }
  if (!IntInRange(args[1], 0, INT32_MAX, "parent_index", &parent)) return nullptr;
  Py_ssize_t size = 0;
  const char* key = Utf8(args[0], &size);
  if (key == nullptr) return nullptr;
  TVMFFIByteArray type_key{key, static_cast<size_t>(size)};
  // The check and the allocation as one step: two threads defining one key at once (free-threaded
  // Python) must not both take the index as theirs. Neither runs Python code.
  static TableLock lock;
  TableGuard guard(lock);
  int32_t existing = 0;
  if (TVMFFITypeKeyToIndex(&type_key, &existing) == 0) {
    return RaiseFormatted(PyExc_ValueError, "type key `%U` is already registered (type index %d)",
                          args[0], existing);
  }
  ClearRaisedFFIError();  // the lookup's error is the expected answer
  const TVMFFITypeInfo* parent_info = TVMFFIGetTypeInfo(static_cast<int32_t>(parent));
  if (parent_info == nullptr) {
    PyErr_Format(PyExc_ValueError, "no type is registered at index %lld", parent);
    return nullptr;
  }
  int32_t index = TVMFFITypeGetOrAllocIndex(&type_key, -1, parent_info->type_depth + 1, 0, 1,
                                            static_cast<int32_t>(parent));
  if (index < 0) return RaiseFromFFI(-1);
  return PyLong_FromLong(index);
}

/*! \brief Text of a str argument, or of None as empty. */
bool OptionalText(PyObject* value, TVMFFIByteArray* out) {
  out->data = nullptr;
  out->size = 0;
  if (value == Py_None) return true;
  Py_ssize_t size = 0;
  const char* text = PyUnicode_Check(value) ? Utf8(value, &size) : nullptr;
  if (text == nullptr) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "expected str or None");
    return false;
  }
  out->data = text;
  out->size = static_cast<size_t>(size);
  return true;
}

/*!
 * \brief _py_class_add_field(type_index, name, doc, metadata, flags, size, alignment, offset,
 * static_type_index, getter_address, setter, default): registers one field (the runtime copies the
 * record). `setter` is an ffi.Function; `default` the default value or factory (flags say which).
 */
PyObject* AddField(PyObject*, PyObject* const* args, Py_ssize_t n) {
  if (n != 12) {
    PyErr_SetString(PyExc_TypeError, "_py_class_add_field takes 12 arguments");
    return nullptr;
  }
  long long index, flags, size, alignment, offset, static_index, getter;
  if (!IntInRange(args[0], 0, INT32_MAX, "type_index", &index) ||
      !IntInRange(args[4], 0, INT64_MAX, "flags", &flags) ||
      !IntInRange(args[5], 1, 16, "size", &size) ||
      !IntInRange(args[6], 1, 16, "alignment", &alignment) ||
      !IntInRange(args[7], static_cast<long long>(sizeof(TVMFFIObject)), INT32_MAX, "offset",
                  &offset) ||
      !IntInRange(args[8], -1, INT32_MAX, "static_type_index", &static_index) ||
      !IntInRange(args[9], 1, INT64_MAX, "getter_address", &getter)) {
    return nullptr;
  }
  if (!PyObject_TypeCheck(args[10], FunctionType)) {
    PyErr_SetString(PyExc_TypeError, "the setter must be an ffi.Function");
    return nullptr;
  }
  TVMFFIObject* setter = HandleOf(args[10]);
  if (setter == nullptr) return nullptr;
  TVMFFIFieldInfo info{};
  Py_ssize_t name_size = 0;
  const char* name = PyUnicode_Check(args[1]) ? Utf8(args[1], &name_size) : nullptr;
  if (name == nullptr) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "the field name must be a str");
    return nullptr;
  }
  info.name = TVMFFIByteArray{name, static_cast<size_t>(name_size)};
  if (!OptionalText(args[2], &info.doc) || !OptionalText(args[3], &info.metadata)) return nullptr;
  info.flags = flags | kTVMFFIFieldFlagBitSetterIsFunctionObj;
  info.size = size;
  info.alignment = alignment;
  info.offset = offset;
  info.getter = reinterpret_cast<TVMFFIFieldGetter>(static_cast<intptr_t>(getter));
  info.setter = setter;
  info.field_static_type_index = static_cast<int32_t>(static_index);
  info.default_value_or_factory.type_index = kTVMFFINone;
  TVMFFIAny fallback{};
  fallback.type_index = kTVMFFINone;
  if ((flags & kTVMFFIFieldFlagBitMaskHasDefault) && !ToOwnedAny(args[11], &fallback)) {
    return nullptr;
  }
  info.default_value_or_factory = fallback;
  int rc = TVMFFITypeRegisterField(static_cast<int32_t>(index), &info);
  ReleaseAny(&fallback);  // the runtime keeps its own reference
  if (rc != 0) return RaiseFromFFI(rc);
  Py_RETURN_NONE;
}

/*! \brief _py_class_set_metadata(type_index, total_size, structural_kind, doc): the type's size,
 * documentation and structural equality kind (TVMFFISEqHashKind). */
PyObject* SetMetadata(PyObject*, PyObject* const* args, Py_ssize_t n) {
  long long index = 0, size = 0, kind = 0;
  if (n != 4) {
    PyErr_SetString(PyExc_TypeError, "_py_class_set_metadata takes 4 arguments");
    return nullptr;
  }
  if (!IntInRange(args[0], 0, INT32_MAX, "type_index", &index) ||
      !IntInRange(args[1], static_cast<long long>(sizeof(TVMFFIObject)), INT32_MAX, "total_size",
                  &size) ||
      !IntInRange(args[2], kTVMFFISEqHashKindUnsupported, kTVMFFISEqHashKindUniqueInstance,
                  "structural_kind", &kind)) {
    return nullptr;
  }
  TVMFFITypeMetadata metadata{};
  if (!OptionalText(args[3], &metadata.doc)) return nullptr;
  metadata.creator = nullptr;
  metadata.total_size = static_cast<int32_t>(size);
  metadata.structural_eq_hash_kind = static_cast<TVMFFISEqHashKind>(kind);
  int rc = TVMFFITypeRegisterMetadata(static_cast<int32_t>(index), &metadata);
  if (rc != 0) return RaiseFromFFI(rc);
  Py_RETURN_NONE;
}

/*!
 * \brief _py_class_parent_size(type_index) -> the type's size when a Python class may extend it,
 * else -1. A Python-defined subclass is allocated zeroed and freed by the runtime, which releases
 * only the Any and object fields reflection lists; so the parent's whole state must be reflected
 * fields of those kinds (or plain numbers), covering every byte after the header up to its size.
 */
PyObject* ParentSize(PyObject*, PyObject* arg) {
  long long index = 0;
  if (!IntInRange(arg, 0, INT32_MAX, "type_index", &index)) return nullptr;
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(static_cast<int32_t>(index));
  if (info == nullptr || info->metadata == nullptr) return PyLong_FromLong(-1);
  int64_t total = info->metadata->total_size;
  std::vector<std::pair<int64_t, int64_t>> spans;  // (offset, size), aliases counted once
  bool plain = true;
  reflection::ForEachFieldInfo(info, [&](const TVMFFIFieldInfo* f) {
    int32_t k = f->field_static_type_index;
    bool owning = k == kTVMFFIAny || k >= kTVMFFIStaticObjectBegin;
    bool number = k == kTVMFFIInt || k == kTVMFFIFloat || k == kTVMFFIBool;
    int64_t want = k == kTVMFFIBool ? 1 : k == kTVMFFIAny ? 16 : 8;
    plain = plain && (owning || number) && f->size == want;
    spans.emplace_back(f->offset, f->size);
  });
  std::sort(spans.begin(), spans.end());
  spans.erase(std::unique(spans.begin(), spans.end()), spans.end());
  int64_t end = static_cast<int64_t>(sizeof(TVMFFIObject));
  for (auto [offset, size] : spans) {
    // Exact aliases were merged; a gap of 8 bytes or more would be state reflection does not see.
    if (offset < end || offset - end >= 8) plain = false;
    end = offset + size;
  }
  if (!plain || (end + 7) / 8 * 8 != total) return PyLong_FromLong(-1);
  return PyLong_FromLongLong(total);
}

/*! \brief _py_class_add_method(type_index, name, func, is_static, doc): publishes a method in the
 * type's reflection table (`func` takes the object first unless static). */
PyObject* AddMethod(PyObject*, PyObject* const* args, Py_ssize_t n) {
  long long index = 0;
  if (n != 5) {
    PyErr_SetString(PyExc_TypeError, "_py_class_add_method takes 5 arguments");
    return nullptr;
  }
  if (!IntInRange(args[0], 0, INT32_MAX, "type_index", &index)) return nullptr;
  TVMFFIMethodInfo info{};
  if (!OptionalText(args[1], &info.name) || !OptionalText(args[4], &info.doc)) return nullptr;
  int is_static = PyObject_IsTrue(args[3]);
  if (is_static < 0) return nullptr;
  info.flags = is_static ? kTVMFFIFieldFlagBitMaskIsStaticMethod : 0;
  if (!ToOwnedAny(args[2], &info.method)) return nullptr;
  if (info.method.type_index != kTVMFFIFunction) {
    ReleaseAny(&info.method);
    PyErr_SetString(PyExc_TypeError, "a method must be callable");
    return nullptr;
  }
  int rc = TVMFFITypeRegisterMethod(static_cast<int32_t>(index), &info);
  ReleaseAny(&info.method);  // the runtime keeps its own reference
  if (rc != 0) return RaiseFromFFI(rc);
  Py_RETURN_NONE;
}

/*! \brief _py_class_set_type_attr(type_index, name, value): sets a type attribute (a hook such as
 * `__ffi_repr__`, or any value). */
PyObject* SetTypeAttr(PyObject*, PyObject* const* args, Py_ssize_t n) {
  long long index = 0;
  if (n != 3) {
    PyErr_SetString(PyExc_TypeError, "_py_class_set_type_attr(type_index, name, value)");
    return nullptr;
  }
  if (!IntInRange(args[0], 0, INT32_MAX, "type_index", &index)) return nullptr;
  TVMFFIByteArray name;
  if (!OptionalText(args[1], &name)) return nullptr;
  TVMFFIAny value;
  if (!ToOwnedAny(args[2], &value)) return nullptr;
  int rc = TVMFFITypeRegisterAttr(static_cast<int32_t>(index), &name, &value);
  ReleaseAny(&value);
  if (rc != 0) return RaiseFromFFI(rc);
  Py_RETURN_NONE;
}

/*! \brief _py_class_converter_address(): the convert_fn to give ffi.MakeFieldSetter. */
PyObject* ConverterAddress(PyObject*, PyObject*) {
  return PyLong_FromVoidPtr(reinterpret_cast<void*>(&ConvertThroughPython));
}

PyMethodDef py_class_functions[] = {
    {"_py_class_new_type", FFI_PY_METHOD(NewType), METH_FASTCALL,
     "_py_class_new_type(type_key, parent_index)\n\nAllocates a type index for a class defined in "
     "Python; a registered key is a ValueError."},
    {"_py_class_add_field", FFI_PY_METHOD(AddField), METH_FASTCALL,
     "_py_class_add_field(type_index, name, doc, metadata, flags, size, alignment, offset, "
     "static_type_index, getter_address, setter, default)\n\nRegisters a field of a type defined "
     "in Python."},
    {"_py_class_set_metadata", FFI_PY_METHOD(SetMetadata), METH_FASTCALL,
     "_py_class_set_metadata(type_index, total_size, structural_kind, doc)\n\nRegisters the "
     "type's metadata."},
    {"_py_class_add_method", FFI_PY_METHOD(AddMethod), METH_FASTCALL,
     "_py_class_add_method(type_index, name, func, is_static, doc)\n\nPublishes a method of a "
     "type defined in Python."},
    {"_py_class_set_type_attr", FFI_PY_METHOD(SetTypeAttr), METH_FASTCALL,
     "_py_class_set_type_attr(type_index, name, value)\n\nSets a type attribute."},
    {"_py_class_parent_size", FFI_PY_ENTRY(ParentSize), METH_O,
     "_py_class_parent_size(type_index)\n\nThe size of a type a Python class may extend (its "
     "state is all plain reflected fields), else -1."},
    {"_py_class_converter_address", FFI_PY_ENTRY(ConverterAddress), METH_NOARGS,
     "The C conversion callback ffi.MakeFieldSetter calls with a field's Python converter."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

bool InitPyClass(PyObject* module) {
  return PyModule_AddFunctions(module, py_class_functions) == 0;
}

}  // namespace tvm::ffi::python
