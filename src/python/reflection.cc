// Python classes for FFI object types: the registry of classes (most derived registered class
// along a type's ancestors, generated classes for reflected types nobody registered), reflected
// methods as method descriptors (fields: fields.cc), and the functions ffi.register_object builds
// on.
#include "reflection.h"

#include <Python.h>  // before any other Python header
#include <ffi/container/array.h>
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <structmember.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <new>
#include <string>
#include <unordered_map>
#include <vector>

#include "arguments.h"
#include "boundary.h"
#include "convert.h"
#include "dtype_device.h"
#include "errors.h"
#include "fields.h"
#include "free_threading.h"
#include "function.h"
#include "objects.h"
#include "py_text.h"
#include "tensor.h"

namespace nb = nanobind;

namespace tvm::ffi::python {
namespace {

// ---- the class registry ----------------------------------------------------------------------

// Registrations and generated classes come from any thread (free-threaded Python): the maps are
// read and changed under RegistryLock, and the resolved classes that every conversion reads are
// atomics read without it. RegistryGeneration counts registrations, so that a resolution made
// while one happened is not kept.

/*! \brief Guards Classes, Generated and Reflected, and the writes of resolved classes. */
TableLock& RegistryLock() {
  static TableLock lock;
  return lock;
}
std::atomic<uint64_t> registry_generation{0};

/*! \brief Classes registered per type index (owned references). */
std::unordered_map<int32_t, PyTypeObject*>& Classes() {
  static auto* classes = new std::unordered_map<int32_t, PyTypeObject*>();
  return *classes;
}

/*! \brief Classes generated for reflected types nobody registered (owned references). */
std::unordered_map<int32_t, PyTypeObject*>& Generated() {
  static auto* generated = new std::unordered_map<int32_t, PyTypeObject*>();
  return *generated;
}

/*!
 * \brief Resolved class per type index (borrowed from the two maps above); NULL: not yet. Type
 * indices from `kResolvedCapacity` on are resolved anew each time. `resolved_end`: one past the
 * highest index set.
 */
constexpr int32_t kResolvedCapacity = 1 << 14;
std::atomic<PyTypeObject*> resolved_classes[kResolvedCapacity];
std::atomic<int32_t> resolved_end{0};

/*! \brief Classes bound by register_object (owned), with their type index: these may be
 * constructed. */
std::unordered_map<PyTypeObject*, int32_t>& Reflected() {
  static auto* reflected = new std::unordered_map<PyTypeObject*, int32_t>();
  return *reflected;
}

bool HasReflection(const TVMFFITypeInfo* info) {
  return info->num_fields > 0 || info->num_methods > 0;
}

PyTypeObject* MakeGeneratedClass(const TVMFFITypeInfo* info, PyTypeObject* base);

/*!
 * \brief The class for objects of `type_index`: its registered class, else — when it or an
 * unregistered ancestor reflects fields or methods — a generated subclass of the nearest
 * registered ancestor's class showing them, else that ancestor's class (or ffi.Object).
 */
PyTypeObject* Resolve(int32_t type_index) {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(type_index);
  PyTypeObject* base = ObjectType;
  bool reflected = info != nullptr && HasReflection(info);
  {
    TableGuard guard(RegistryLock());
    auto& classes = Classes();
    auto exact = classes.find(type_index);
    if (exact != classes.end()) return exact->second;
    if (info == nullptr) return ObjectType;
    for (int32_t d = info->type_depth - 1; d >= 0; --d) {
      const TVMFFITypeInfo* ancestor = info->type_ancestors[d];
      auto it = classes.find(ancestor->type_index);
      if (it != classes.end()) {
        base = it->second;
        break;
      }
      reflected = reflected || HasReflection(ancestor);
    }
  }
  if (!reflected || !PyType_IsSubtype(base, ObjectType)) return base;
  // Derive from the parent's class (itself generated when the parent or an unregistered ancestor
  // of it reflects), so that generated classes nest as the types do, as in the reference:
  // isinstance(point3, type(point)) for unregistered Point3 : Point.
  if (info->type_depth > 0) {
    PyTypeObject* parent =
        ClassForTypeIndex(info->type_ancestors[info->type_depth - 1]->type_index);
    if (parent != nullptr && PyType_IsSubtype(parent, base)) base = parent;
  }
  PyTypeObject* made = MakeGeneratedClass(info, base);  // Python code: outside the lock
  if (made == nullptr) {
    PyErr_Clear();  // the object still arrives, as its base class
    return base;
  }
  PyTypeObject* kept = made;
  {
    TableGuard guard(RegistryLock());
    try {
      auto [it, added] = Generated().emplace(type_index, made);
      kept = it->second;  // another thread's, when it generated one first
    } catch (const std::bad_alloc&) {
      kept = base;  // not kept: the object arrives as its base class, as above
    }
  }
  if (kept != made) Py_DECREF(made);
  return kept;
}

PyTypeObject* MethodType = nullptr;

// ---- methods ---------------------------------------------------------------------------------

/*! \brief Binds a method to an instance (LOAD_METHOD skips this: the type is a method descriptor).
 */
PyObject* MethodGet(PyObject* self, PyObject* obj, PyObject*) {
  if (obj == nullptr || obj == Py_None) {
    Py_INCREF(self);
    return self;
  }
  return PyMethod_New(self, obj);
}

PyObject* MethodDoc(PyObject* self, void*) {
  PyObject* dict = reinterpret_cast<PyFunc*>(self)->dict;
  PyObject* doc = nullptr;
  if (dict != nullptr && DictGetItemStringRef(dict, "_ffi_doc", &doc) < 0) return nullptr;
  return doc != nullptr ? doc : NewRef(Py_None);
}

PyGetSetDef method_getset[] = {
    {"__doc__", FFI_PY_ENTRY(MethodDoc), nullptr, "The method's documentation.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyMemberDef method_members[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(PyFunc, vectorcall), READONLY, nullptr},
    {nullptr, 0, 0, 0, nullptr}};

/*! \brief The method's Function as a Python object: a method descriptor, or for a static method
 * the plain ffi.Function (which does not bind). */
PyObject* NewMethod(const TVMFFIMethodInfo& info, PyObject* name) {
  TVMFFIAny owned;
  if (TVMFFIAnyViewToOwnedAny(&info.method, &owned) != 0) return RaiseFromFFI(-1);
  if (owned.type_index != kTVMFFIFunction) {
    ReleaseAny(&owned);
    PyErr_Format(PyExc_TypeError, "reflected method `%U` is not a function", name);
    return nullptr;
  }
  bool is_static = info.flags & kTVMFFIFieldFlagBitMaskIsStaticMethod;
  PyObject* fn = WrapObject(is_static ? FunctionType : MethodType, owned.v_obj);
  if (fn == nullptr) return nullptr;
  SetFunctionName(fn, name);
  if (info.doc.size != 0) {
    PyObject* doc = Str(info.doc);
    if (doc == nullptr || PyObject_SetAttrString(fn, "_ffi_doc", doc) != 0) Py_CLEAR(fn);
    Py_XDECREF(doc);
  }
  return fn;
}

/*! \brief The type attribute `name` of `type_index` as Python, or a new None. */
PyObject* TypeAttr(int32_t type_index, const char* name) {
  TVMFFIByteArray key{name, std::strlen(name)};
  const TVMFFITypeAttrColumn* column = TVMFFIGetTypeAttrColumn(&key);
  if (column == nullptr) Py_RETURN_NONE;
  // Read as the runtime publishes a grown column while others read it (buffer, then size): the
  // size first, so the buffer read after it holds at least that many values.
  int32_t size = __atomic_load_n(&column->size, __ATOMIC_ACQUIRE);
  const TVMFFIAny* data = __atomic_load_n(&column->data, __ATOMIC_ACQUIRE);
  if (type_index < column->begin_index || type_index >= column->begin_index + size) {
    Py_RETURN_NONE;
  }
  TVMFFIAny owned;
  if (TVMFFIAnyViewToOwnedAny(&data[type_index - column->begin_index], &owned) != 0) {
    return RaiseFromFFI(-1);
  }
  return ToPython(&owned);
}

/*!
 * \brief Sets the reflected fields (of the type and its ancestors) and methods on `cls`, keeping
 * whatever the class body itself defines. Returns the constructor `__ffi_init__` (a method of
 * the type, else its type attribute) or None.
 */
PyObject* InstallReflection(PyTypeObject* cls, int32_t type_index) {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(type_index);
  if (info == nullptr) {
    PyErr_Format(PyExc_ValueError, "no type is registered at index %d", type_index);
    return nullptr;
  }
  PyObject* own = cls->tp_dict;  // what the class body defined
  PyObject* init = nullptr;
  // Root first, so a derived type's field or method replaces an ancestor's of the same name.
  for (int32_t d = 0; d <= info->type_depth; ++d) {
    const TVMFFITypeInfo* t = d < info->type_depth ? info->type_ancestors[d] : info;
    for (int32_t i = 0; i < t->num_fields; ++i) {
      PyObject* name = Str(t->fields[i].name);
      if (name == nullptr) return nullptr;
      int rc = 0;
      if (!PyDict_Contains(own, name)) {
        PyObject* field = NewField(t->fields[i], t);
        rc = field ? PyObject_SetAttr(reinterpret_cast<PyObject*>(cls), name, field) : -1;
        Py_XDECREF(field);
      }
      Py_DECREF(name);
      if (rc != 0) return nullptr;
    }
    for (int32_t i = 0; i < t->num_methods; ++i) {
      const TVMFFIMethodInfo& m = t->methods[i];
      PyObject* name = Str(m.name);
      if (name == nullptr) return nullptr;
      bool is_init = PyUnicode_CompareWithASCIIString(name, "__ffi_init__") == 0;
      if ((is_init && t != info) || (!is_init && PyDict_Contains(own, name))) {
        Py_DECREF(name);  // constructors are per type; the class body's definitions stay
        continue;
      }
      PyObject* fn = NewMethod(m, name);
      int rc = -1;
      if (fn != nullptr && is_init) {
        Py_XSETREF(init, NewRef(fn));
        rc = 0;
      } else if (fn != nullptr) {
        rc = PyObject_SetAttr(reinterpret_cast<PyObject*>(cls), name, fn);
      }
      Py_XDECREF(fn);
      Py_DECREF(name);
      if (rc != 0) {
        Py_XDECREF(init);
        return nullptr;
      }
    }
  }
  return init != nullptr ? init : TypeAttr(type_index, "__ffi_init__");
}

PyTypeObject* MakeGeneratedClass(const TVMFFITypeInfo* info, PyTypeObject* base) {
  PyObject* key = Str(info->type_key);
  if (key == nullptr) return nullptr;
  Py_ssize_t dot = PyUnicode_FindChar(key, '.', 0, PyUnicode_GET_LENGTH(key), -1);
  PyObject* name =
      dot >= 0 ? PyUnicode_Substring(key, dot + 1, PyUnicode_GET_LENGTH(key)) : NewRef(key);
  PyObject* module = dot >= 0 ? PyUnicode_Substring(key, 0, dot) : PyUnicode_FromString("ffi");
  // Named as the reference names them: qualified by the whole type key, and saying what they are
  // before the type's own documentation.
  PyObject* doc = PyUnicode_FromFormat(
      "Auto-generated fallback class for `%U`: no Python class is registered for the type (bind "
      "one with ffi.register_object).",
      key);
  if (doc != nullptr && info->metadata != nullptr && info->metadata->doc.size != 0) {
    PyObject* type_doc = Str(info->metadata->doc);
    PyObject* joined = type_doc ? PyUnicode_FromFormat("%U\n\n%U", doc, type_doc) : nullptr;
    Py_XDECREF(type_doc);
    Py_SETREF(doc, joined);
  }
  PyObject* cls = nullptr;
  if (name != nullptr && module != nullptr && doc != nullptr) {
    cls = PyObject_CallFunction(reinterpret_cast<PyObject*>(&PyType_Type), "O(O){sOsOs()sO}", name,
                                base, "__module__", module, "__qualname__", key, "__slots__",
                                "__doc__", doc);
  }
  Py_XDECREF(doc);
  Py_XDECREF(name);
  Py_XDECREF(module);
  Py_DECREF(key);
  if (cls == nullptr) return nullptr;
  PyObject* init = InstallReflection(reinterpret_cast<PyTypeObject*>(cls), info->type_index);
  if (init == nullptr) Py_CLEAR(cls);
  Py_XDECREF(init);
  return reinterpret_cast<PyTypeObject*>(cls);
}

// ---- module functions ------------------------------------------------------------------------

/*! \brief _register_object(type_index, cls) -> the constructor Function or None. */
PyObject* RegisterObject(PyObject*, PyObject* const* args, Py_ssize_t n) {
  long long index = 0;
  if (n != 2) {
    PyErr_SetString(PyExc_TypeError, "_register_object(type_index, cls)");
    return nullptr;
  }
  if (!IntInRange(args[0], 0, INT32_MAX, "type_index", &index)) return nullptr;
  if (!PyType_Check(args[1]) ||
      !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(args[1]), ObjectType)) {
    PyErr_SetString(PyExc_TypeError, "register_object needs a subclass of ffi.Object");
    return nullptr;
  }
  auto* cls = reinterpret_cast<PyTypeObject*>(args[1]);
  PyObject* init = InstallReflection(cls, static_cast<int32_t>(index));
  if (init == nullptr) return nullptr;
  RegisterClass(static_cast<int32_t>(index), cls);
  // Held for good: a class replaced by a later registration stays constructible, and its
  // address may not be reused by another class.
  TableGuard guard(RegistryLock());
  auto [it, added] = Reflected().emplace(cls, static_cast<int32_t>(index));
  if (added) Py_INCREF(cls);
  it->second = static_cast<int32_t>(index);
  return init;
}

/*! \brief _type_attr(type_index, name): the type attribute, or None. */
PyObject* GetTypeAttr(PyObject*, PyObject* const* args, Py_ssize_t n) {
  long long index = 0;
  if (n != 2 || !PyUnicode_Check(args[1])) {
    PyErr_SetString(PyExc_TypeError, "_type_attr(type_index, name)");
    return nullptr;
  }
  if (!IntInRange(args[0], 0, INT32_MAX, "type_index", &index)) return nullptr;
  const char* name = PyUnicode_AsUTF8(args[1]);
  return name ? TypeAttr(static_cast<int32_t>(index), name) : nullptr;
}

/*! \brief The type a type-index argument names; NULL with a ValueError when none does. */
const TVMFFITypeInfo* TypeInfoArg(PyObject* arg) {
  long long index = 0;
  if (!IntInRange(arg, 0, INT32_MAX, "type_index", &index)) return nullptr;
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(static_cast<int32_t>(index));
  if (info == nullptr) PyErr_Format(PyExc_ValueError, "no type is registered at index %lld", index);
  return info;
}

/*! \brief _type_fields(type_index): descriptors for every field of the type, its ancestors' first
 * (root first, in declaration order), whatever the registered class shadows. */
PyObject* TypeFields(PyObject*, PyObject* arg) {
  const TVMFFITypeInfo* info = TypeInfoArg(arg);
  if (info == nullptr) return nullptr;
  PyObject* out = PyList_New(0);
  for (int32_t d = 0; out != nullptr && d <= info->type_depth; ++d) {
    const TVMFFITypeInfo* t = d < info->type_depth ? info->type_ancestors[d] : info;
    for (int32_t i = 0; i < t->num_fields; ++i) {
      PyObject* field = NewField(t->fields[i], t);
      if (field == nullptr || PyList_Append(out, field) != 0) Py_CLEAR(out);
      Py_XDECREF(field);
      if (out == nullptr) break;
    }
  }
  return out;
}

/*! \brief `text` as a Python str, or None when it is empty. */
PyObject* StrOrNone(const TVMFFIByteArray& text) { return text.size ? Str(text) : NewRef(Py_None); }

/*! \brief Appends `item` (stolen) to `list`; false (and `list` released) on failure. */
bool AppendStolen(PyObject*& list, PyObject* item) {
  if (item == nullptr || PyList_Append(list, item) != 0) Py_CLEAR(list);
  Py_XDECREF(item);
  return list != nullptr;
}

/*!
 * \brief _type_info(type_index) -> (type_key, ancestors, doc, fields, methods, total_size): the
 * type's own reflection records, from which ffi.core.TypeInfo is built. `ancestors` are type
 * indices, root first; each field is (descriptor, size, alignment, offset, static type index);
 * each method is (name, doc, metadata, flags, Function); total_size is the object's size in bytes
 * from its metadata (0 when unknown). Empty texts are None.
 */
PyObject* TypeInfoRecords(PyObject*, PyObject* arg) {
  const TVMFFITypeInfo* info = TypeInfoArg(arg);
  if (info == nullptr) return nullptr;
  PyObject* ancestors = PyTuple_New(info->type_depth);
  for (int32_t d = 0; ancestors != nullptr && d < info->type_depth; ++d) {
    PyObject* index = PyLong_FromLong(info->type_ancestors[d]->type_index);
    if (index == nullptr) Py_CLEAR(ancestors);
    if (index != nullptr) PyTuple_SET_ITEM(ancestors, d, index);
  }
  PyObject* fields = PyList_New(0);
  for (int32_t i = 0; fields != nullptr && i < info->num_fields; ++i) {
    const TVMFFIFieldInfo& f = info->fields[i];
    PyObject* field = NewField(f, info);
    AppendStolen(fields, field == nullptr ? nullptr
                                          : Py_BuildValue("(NLLLi)", field, f.size, f.alignment,
                                                          f.offset, f.field_static_type_index));
  }
  PyObject* methods = PyList_New(0);
  for (int32_t i = 0; methods != nullptr && i < info->num_methods; ++i) {
    const TVMFFIMethodInfo& m = info->methods[i];
    TVMFFIAny owned;
    PyObject* fn = nullptr;
    if (TVMFFIAnyViewToOwnedAny(&m.method, &owned) != 0) {
      RaiseFromFFI(-1);
    } else {
      fn = ToPython(&owned);  // an ffi.Function (or whatever the record holds)
    }
    PyObject* name = fn ? Str(m.name) : nullptr;
    PyObject* doc = name ? StrOrNone(m.doc) : nullptr;
    PyObject* meta = doc ? StrOrNone(m.metadata) : nullptr;
    PyObject* record = meta ? Py_BuildValue("(OOOLO)", name, doc, meta, m.flags, fn) : nullptr;
    Py_XDECREF(fn);
    Py_XDECREF(name);
    Py_XDECREF(doc);
    Py_XDECREF(meta);
    AppendStolen(methods, record);
  }
  PyObject* key = Str(info->type_key);
  PyObject* doc = info->metadata ? StrOrNone(info->metadata->doc) : NewRef(Py_None);
  PyObject* out = nullptr;
  if (ancestors && fields && methods && key && doc) {
    int32_t total_size = info->metadata ? info->metadata->total_size : 0;
    out = Py_BuildValue("(OOOOOi)", key, ancestors, doc, fields, methods, total_size);
  }
  Py_XDECREF(ancestors);
  Py_XDECREF(fields);
  Py_XDECREF(methods);
  Py_XDECREF(key);
  Py_XDECREF(doc);
  return out;
}

/*! \brief _type_key(type_index): the type's key; ValueError for an index no type has. */
PyObject* TypeKey(PyObject*, PyObject* arg) {
  const TVMFFITypeInfo* info = TypeInfoArg(arg);
  return info ? Str(info->type_key) : nullptr;
}

/*! \brief _registered_type_keys(): every type key, through ffi.GetRegisteredTypeKeys. */
PyObject* RegisteredTypeKeys(PyObject*, PyObject*) {
  // Throws the runtime's error when the global is missing or returns something else (raised as
  // the class registered for its kind, FFI_PY_ENTRY).
  Array<String> keys =
      Function::GetGlobalRequired("ffi.GetRegisteredTypeKeys")().cast<Array<String>>();
  PyObject* list = PyList_New(static_cast<Py_ssize_t>(keys.size()));
  if (list == nullptr) return nullptr;
  for (size_t i = 0; i < keys.size(); ++i) {
    PyObject* s = PyUnicode_DecodeUTF8(keys[i].data(), static_cast<Py_ssize_t>(keys[i].size()),
                                       "surrogateescape");
    if (s == nullptr) {
      Py_DECREF(list);
      return nullptr;
    }
    PyList_SET_ITEM(list, static_cast<Py_ssize_t>(i), s);
  }
  return list;
}

/*! \brief _class_for_type_index(type_index): the class objects of the type arrive as (the one
 * registered for it or for its nearest registered ancestor). */
PyObject* ClassForIndex(PyObject*, PyObject* arg) {
  const TVMFFITypeInfo* info = TypeInfoArg(arg);
  return info ? NewRef(reinterpret_cast<PyObject*>(ClassForTypeIndex(info->type_index))) : nullptr;
}

/*! \brief _class_type_index(cls): the type index of the nearest class along cls's MRO that is
 * registered for one (ffi.register_object or a built-in class) or was generated for one, or -1. */
PyObject* ClassTypeIndex(PyObject*, PyObject* cls) {
  if (!PyType_Check(cls)) {
    PyErr_SetString(PyExc_TypeError, "_class_type_index(cls): cls must be a class");
    return nullptr;
  }
  PyObject* mro = reinterpret_cast<PyTypeObject*>(cls)->tp_mro;
  Py_ssize_t n = mro != nullptr ? PyTuple_GET_SIZE(mro) : 0;
  TableGuard guard(RegistryLock());
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* base = PyTuple_GET_ITEM(mro, i);
    for (const auto* table : {&Classes(), &Generated()}) {
      for (const auto& [index, bound] : *table) {
        if (reinterpret_cast<PyObject*>(bound) == base) return PyLong_FromLong(index);
      }
    }
  }
  return PyLong_FromLong(-1);
}

/*! \brief The slot of the class values of `base` (ffi.Tensor, ffi.dtype, ffi.Device) arrive as. */
std::atomic<PyTypeObject*>* ValueClassSlot(PyObject* base) {
  if (base == reinterpret_cast<PyObject*>(TensorType)) return &TensorClass;
  if (base == reinterpret_cast<PyObject*>(DTypeType)) return &DTypeClass;
  if (base == reinterpret_cast<PyObject*>(DeviceType)) return &DeviceClass;
  PyErr_Format(PyExc_TypeError, "expected ffi.Tensor, ffi.dtype or ffi.Device, got %R", base);
  return nullptr;
}

PyObject* SetValueClass(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 2) {
    PyErr_SetString(PyExc_TypeError, "_set_value_class(base, cls)");
    return nullptr;
  }
  std::atomic<PyTypeObject*>* slot = ValueClassSlot(args[0]);
  if (slot == nullptr) return nullptr;
  auto* base = reinterpret_cast<PyTypeObject*>(args[0]);
  if (!PyType_Check(args[1]) || !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(args[1]), base)) {
    PyErr_Format(PyExc_TypeError, "the class must be %s or a subclass of it, got %R", base->tp_name,
                 args[1]);
    return nullptr;
  }
  Py_INCREF(args[1]);
  ReleaseShared(reinterpret_cast<PyObject*>(
      slot->exchange(reinterpret_cast<PyTypeObject*>(args[1]), std::memory_order_acq_rel)));
  Py_RETURN_NONE;
}

PyObject* GetValueClass(PyObject*, PyObject* base) {
  std::atomic<PyTypeObject*>* slot = ValueClassSlot(base);
  return slot ? NewRef(reinterpret_cast<PyObject*>(slot->load(std::memory_order_acquire)))
              : nullptr;
}

PyMethodDef reflection_functions[] = {
    {"_set_value_class", FFI_PY_METHOD(SetValueClass), METH_FASTCALL,
     "_set_value_class(base, cls)\n\nMakes tensors (base ffi.Tensor), dtypes (ffi.dtype) or "
     "devices (ffi.Device) arrive as `cls`, a subclass of `base`."},
    {"_value_class", FFI_PY_ENTRY(GetValueClass), METH_O,
     "_value_class(base)\n\nThe class values of `base` (ffi.Tensor, ffi.dtype, ffi.Device) "
     "arrive as."},
    {"_register_object", FFI_PY_METHOD(RegisterObject), METH_FASTCALL,
     "_register_object(type_index, cls)\n\nBinds cls to the type, sets its reflected fields and "
     "methods, returns the type's constructor (or None)."},
    {"_type_attr", FFI_PY_METHOD(GetTypeAttr), METH_FASTCALL,
     "_type_attr(type_index, name)\n\nA type attribute's value, or None."},
    {"_class_for_type_index", FFI_PY_ENTRY(ClassForIndex), METH_O,
     "_class_for_type_index(type_index)\n\nThe class objects of the type arrive as."},
    {"_class_type_index", FFI_PY_ENTRY(ClassTypeIndex), METH_O,
     "_class_type_index(cls)\n\nThe type index cls (or its nearest registered base) stands for, "
     "or -1."},
    {"_type_key", FFI_PY_ENTRY(TypeKey), METH_O, "_type_key(type_index)\n\nThe type's key."},
    {"_type_info", FFI_PY_ENTRY(TypeInfoRecords), METH_O,
     "_type_info(type_index)\n\nThe type's own reflection records: (type_key, ancestors, doc, "
     "fields, methods, total_size)."},
    {"_type_fields", FFI_PY_ENTRY(TypeFields), METH_O,
     "_type_fields(type_index)\n\nField descriptors of the type and its ancestors, root first."},
    {"_registered_type_keys", FFI_PY_ENTRY(RegisteredTypeKeys), METH_NOARGS,
     "Every registered type key, as ffi.GetRegisteredTypeKeys returns them."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

bool IsInstanceOfIndex(const TVMFFIObject* handle, int32_t type_index) {
  if (handle->type_index == type_index) return true;
  const TVMFFITypeInfo* target = TVMFFIGetTypeInfo(type_index);
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(handle->type_index);
  return target != nullptr && info != nullptr && info->type_depth > target->type_depth &&
         info->type_ancestors[target->type_depth]->type_index == type_index;
}

int32_t ReflectedIndexOf(PyTypeObject* type) {
  TableGuard guard(RegistryLock());
  auto& reflected = Reflected();
  PyObject* mro = type->tp_mro;
  Py_ssize_t n = mro != nullptr ? PyTuple_GET_SIZE(mro) : 0;
  for (Py_ssize_t i = 0; i < n; ++i) {
    auto it = reflected.find(reinterpret_cast<PyTypeObject*>(PyTuple_GET_ITEM(mro, i)));
    if (it != reflected.end()) return it->second;
  }
  return -1;
}

PyTypeObject* ClassForTypeIndex(int32_t type_index) {
  bool cached = type_index >= 0 && type_index < kResolvedCapacity;
  if (cached) {
    PyTypeObject* cls = resolved_classes[type_index].load(std::memory_order_acquire);
    if (cls != nullptr) return cls;
  }
  uint64_t generation = registry_generation.load(std::memory_order_acquire);
  PyTypeObject* cls = Resolve(type_index);
  if (cached) {
    TableGuard guard(RegistryLock());
    // Kept only when no registration came in between (it may have changed the answer).
    if (registry_generation.load(std::memory_order_relaxed) == generation) {
      resolved_classes[type_index].store(cls, std::memory_order_release);
      if (resolved_end.load(std::memory_order_relaxed) <= type_index) {
        resolved_end.store(type_index + 1, std::memory_order_relaxed);
      }
    }
  }
  return cls;
}

void RegisterClass(int32_t type_index, PyTypeObject* cls) {
  Py_INCREF(cls);
  std::vector<PyTypeObject*> dropped;
  {
    TableGuard guard(RegistryLock());
    PyTypeObject*& slot = Classes()[type_index];
    if (slot != nullptr) dropped.push_back(slot);  // a class registered again replaces the earlier
    slot = cls;
    // Resolution along ancestors may change for any type: resolve again, generating anew.
    registry_generation.fetch_add(1, std::memory_order_release);
    int32_t end = resolved_end.exchange(0, std::memory_order_relaxed);
    for (int32_t i = 0; i < end; ++i) resolved_classes[i].store(nullptr, std::memory_order_relaxed);
    for (auto& [index, generated] : Generated()) dropped.push_back(generated);
    Generated().clear();
  }
  for (PyTypeObject* cls : dropped) ReleaseShared(reinterpret_cast<PyObject*>(cls));
}

bool InitReflection(PyObject* module) {
  if (!InitFieldType(module)) return false;

  // A GC type made from a spec must name its traverse and clear: Function's.
  PyType_Slot method_slots[] = {{Py_tp_descr_get, FFI_PY_SLOT(MethodGet)},
                                {Py_tp_getset, method_getset},
                                {Py_tp_members, method_members},
                                {Py_tp_traverse, PyType_GetSlot(FunctionType, Py_tp_traverse)},
                                {Py_tp_clear, PyType_GetSlot(FunctionType, Py_tp_clear)},
                                {0, nullptr}};
  PyType_Spec method_spec = {"ffi._Method", 0, 0,
                             Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_HAVE_GC |
                                 Py_TPFLAGS_METHOD_DESCRIPTOR,
                             method_slots};
  PyObject* bases = PyTuple_Pack(1, FunctionType);
  MethodType = reinterpret_cast<PyTypeObject*>(PyType_FromSpecWithBases(&method_spec, bases));
  Py_DECREF(bases);
  if (MethodType == nullptr) return false;
  return AddType(module, "_Method", MethodType) &&
         PyModule_AddFunctions(module, reflection_functions) == 0;
}

void BindReflectionFunctions(nb::module_& m) {
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
}

}  // namespace tvm::ffi::python
