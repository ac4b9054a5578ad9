// Python lists, tuples and dicts <-> the FFI's Array, List, Map and Dict, built and read natively:
// a call with a list never goes through a Python-level constructor.
#include "containers.h"

#include <ffi/container/array.h>
#include <ffi/container/dict.h>
#include <ffi/container/list.h>
#include <ffi/container/map.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "arguments.h"
#include "boundary.h"
#include "callback.h"
#include "classify.h"
#include "convert.h"
#include "free_threading.h"
#include "objects.h"
#include "reflection.h"

namespace tvm::ffi::python {
namespace {

/*!
 * \brief Prefixes the pending TypeError with where in a container the value failed, so that a
 * nested failure reads "list element [2]: dict value for key 'a': cannot convert ...". `where` is
 * shown by its str, or by its repr with `use_repr` (computed with no exception pending).
 */
void PrefixTypeError(const char* what, PyObject* where, bool use_repr = false) {
  if (!PyErr_ExceptionMatches(PyExc_TypeError)) return;
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  PyErr_Format(PyExc_TypeError, use_repr ? "%s %R: %S" : "%s %S: %S", what, where,
               value ? value : Py_None);
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(tb);
}

/*! \brief Converts `item` (borrowed) to an owned Any; false with a Python error. */
bool ItemToAny(PyObject* item, Any* out) {
  TVMFFIAny raw;
  PyTypeObject* type = Py_TYPE(item);
  if (type == &PyLong_Type) {
    // The common case, inline: an exact int runs no user code and needs no reference.
    raw.zero_padding = 0;
    if (!IntToAny(item, &raw)) return false;
    *out = Any::FromRaw(raw);
    return true;
  }
  // Converting may run Python code that changes the container: hold the item meanwhile.
  Py_INCREF(item);
  bool ok = ToOwnedAny(item, &raw);
  Py_DECREF(item);
  if (!ok) return false;
  *out = Any::FromRaw(raw);
  return true;
}

/*!
 * \brief Whether a key of this kind converts to a new FFI object each time (an Array, a Map, a
 * Function, a tensor, an error, an opaque object), which as a map key would never be found again:
 * such a key is held as itself in an OpaquePyObject, found by Python's hash and == instead.
 */
bool KeyByPythonValue(PyKind kind) {
  switch (kind) {
    case PyKind::kSequence:
    case PyKind::kMapping:
    case PyKind::kCallable:
    case PyKind::kOpaque:
    case PyKind::kExchange:
    case PyKind::kNumpy:
    case PyKind::kDLPack:
    case PyKind::kException:
      return true;
    default:
      return false;
  }
}

/*!
 * \brief KeyByPythonValue for `key`'s kind, asked with the pending exception set aside: classifying
 * a type looks attributes up in its MRO, and CPython clears a pending exception on a miss of its
 * type cache (the caller would then fail with "error return without exception set").
 */
bool KeyByPythonValueKeepingError(PyObject* key) {
  PendingErrorGuard keep;
  return KeyByPythonValue(Classify(key).kind);
}

/*!
 * \brief `key` as a key of a Map or Dict made or read through the container API: refused with
 * Python's TypeError when Python refuses it as a dict key (a list, a dict, a set), held in an
 * OpaquePyObject when KeyByPythonValue, else converted as any value. `*held` (optional) tells
 * whether it was held.
 */
bool KeyToAny(PyObject* key, Any* out, bool* held = nullptr) {
  if (held != nullptr) *held = false;
  if (Py_TYPE(key) == &PyUnicode_Type || Py_TYPE(key) == &PyLong_Type) return ItemToAny(key, out);
  if (PyByteArray_Check(key)) {
    PyObject_Hash(key);  // TypeError: unhashable type: 'bytearray', as a dict says
    return false;
  }
  if (!KeyByPythonValue(Classify(key).kind)) return ItemToAny(key, out);
  if (PyObject_Hash(key) == -1) return false;  // TypeError: unhashable type, as a dict says
  TVMFFIObject* opaque = NewOpaquePyObject(key);
  if (opaque == nullptr) return false;
  *out = ObjectRef(detail::ObjectUnsafe::ObjectPtrFromOwned<Object>(
      static_cast<Object*>(detail::ObjectUnsafe::FromHeader(opaque))));
  if (held != nullptr) *held = true;
  return true;
}

/*! \brief Guards one level of container nesting against runaway depth (RecursionError). */
class NestingGuard {
 public:
  NestingGuard() : ok_(Py_EnterRecursiveCall(" while converting a nested container") == 0) {}
  ~NestingGuard() {
    if (ok_) Py_LeaveRecursiveCall();
  }
  bool ok() const { return ok_; }

 private:
  bool ok_;
};

template <typename SeqRef>
bool FillSequence(PyObject* fast, const char* what, SeqRef* seq) {
  // Re-read the size each time: an element's conversion may shrink a list under us.
  for (Py_ssize_t i = 0;; ++i) {
    PyObject* item = SequenceItemRef(fast, i);
    if (item == nullptr) break;
    Any v;
    bool ok = ItemToAny(item, &v);
    Py_DECREF(item);
    if (!ok) {
      PyObject* index = PyUnicode_FromFormat("[%zd]", i);
      if (index != nullptr) {
        PrefixTypeError(what, index);
        Py_DECREF(index);
      }
      return false;
    }
    seq->push_back(std::move(v));
  }
  return true;
}

/*!
 * \brief Converts the elements of `fast` (a list or tuple) straight into the cells of `array`
 * (empty, with room for them) through the ABI's sequence layout: the hot path of a call with a
 * list. Sized once: elements a conversion appends to the list meanwhile are not included. On
 * failure `array` keeps the values converted so far (its owner releases them).
 */
bool FillArrayCells(PyObject* fast, const char* what, ArrayObj* array) {
  // The sequence cell follows the object header (the ABI's layout of ArrayObj).
  auto* cell = reinterpret_cast<TVMFFISeqCell*>(detail::ObjectUnsafe::Header(array) + 1);
  // Never past the room made: without the GIL another thread may have grown the list since.
  const Py_ssize_t n = std::min<Py_ssize_t>(PySequence_Fast_GET_SIZE(fast), cell->capacity);
  auto* slots = static_cast<TVMFFIAny*>(cell->data);
  for (Py_ssize_t i = 0; i < n; ++i) {
    // Held while converted: the conversion (or another thread) may change the list meanwhile.
    PyObject* item = SequenceItemRef(fast, i);
    if (item == nullptr) break;
    TVMFFIAny* slot = &slots[i];
    bool ok;
    if (Py_TYPE(item) == &PyLong_Type) {
      slot->zero_padding = 0;
      ok = IntToAny(item, slot);  // runs no user code
    } else {
      ok = ToOwnedAny(item, slot);
    }
    Py_DECREF(item);
    if (!ok) {
      PyObject* index = PyUnicode_FromFormat("[%zd]", i);
      if (index != nullptr) {
        PrefixTypeError(what, index);
        Py_DECREF(index);
      }
      return false;
    }
    cell->size = i + 1;
  }
  return true;
}

bool FillArray(PyObject* fast, const char* what, TVMFFIAny* out) {
  ObjectPtr<ArrayObj> array = ArrayObj::Empty(PySequence_Fast_GET_SIZE(fast));
  if (!FillArrayCells(fast, what, array.get())) {
    DropKeepingError(&array);  // with what was converted
    return false;
  }
  *out = Any(Array<Any>(std::move(array))).release();
  return true;
}

/*! \brief The converted entries of a dict or other mapping, in its order. */
bool CollectEntries(PyObject* value, std::vector<std::pair<Any, Any>>* entries, bool python_keys) {
  auto set = [&](PyObject* k, PyObject* v) {
    Any key, val;
    if (!(python_keys ? KeyToAny(k, &key) : ItemToAny(k, &key))) {
      PrefixTypeError("dict key", k);
      return false;
    }
    if (!ItemToAny(v, &val)) {
      DropKeepingError(&key);
      PrefixTypeError("dict value for key", k, /*use_repr=*/true);
      return false;
    }
    entries->emplace_back(std::move(key), std::move(val));
    return true;
  };
  if (PyDict_Check(value)) {
    entries->reserve(static_cast<size_t>(PyDict_GET_SIZE(value)));
    // Without the GIL, iterating needs the dict's lock (released while a conversion blocks).
    ObjectCriticalSection section(value);
    Py_ssize_t pos = 0;
    PyObject *k, *v;
    while (PyDict_Next(value, &pos, &k, &v)) {
      Py_INCREF(k);
      Py_INCREF(v);
      bool ok = set(k, v);
      Py_DECREF(k);
      Py_DECREF(v);
      if (!ok) return false;
    }
    return true;
  }
  PyObject* items = PyMapping_Items(value);  // any other Mapping: a list of (key, value)
  if (items == nullptr) return false;
  bool ok = true;
  for (Py_ssize_t i = 0; ok && i < PyList_GET_SIZE(items); ++i) {
    PyObject* kv = PyList_GET_ITEM(items, i);
    if (!PyTuple_Check(kv) || PyTuple_GET_SIZE(kv) != 2) {
      PyErr_SetString(PyExc_TypeError, "a mapping's items() must be (key, value) pairs");
      ok = false;
    } else {
      ok = set(PyTuple_GET_ITEM(kv, 0), PyTuple_GET_ITEM(kv, 1));
    }
  }
  Py_DECREF(items);
  return ok;
}

/*!
 * \brief The sequence object behind an Array or List handle, or NULL with a TypeError (a
 * RuntimeError for one that holds no FFI object, see HandleOf).
 */
const SeqBaseObj* SeqOf(PyObject* obj) {
  if (PyObject_TypeCheck(obj, ObjectType)) {
    TVMFFIObject* h = HandleOf(obj);
    if (h == nullptr) return nullptr;
    if (h->type_index == kTVMFFIArray || h->type_index == kTVMFFIList) {
      return static_cast<const SeqBaseObj*>(detail::ObjectUnsafe::FromHeader(h));
    }
  }
  PyErr_Format(PyExc_TypeError, "expected an ffi.Array or ffi.List, not `%s`",
               Py_TYPE(obj)->tp_name);
  return nullptr;
}

/*!
 * \brief The map object behind a Map or Dict handle, or NULL with a TypeError (a RuntimeError
 * for one that holds no FFI object, see HandleOf).
 */
const MapBaseObj* MapOf(PyObject* obj) {
  if (PyObject_TypeCheck(obj, ObjectType)) {
    TVMFFIObject* h = HandleOf(obj);
    if (h == nullptr) return nullptr;
    if (h->type_index == kTVMFFIMap || h->type_index == kTVMFFIDict) {
      return static_cast<const MapBaseObj*>(detail::ObjectUnsafe::FromHeader(h));
    }
  }
  PyErr_Format(PyExc_TypeError, "expected an ffi.Map or ffi.Dict, not `%s`", Py_TYPE(obj)->tp_name);
  return nullptr;
}

/*!
 * \brief A stored value as Python (a new reference to a converted copy); tensors go to the
 * framework of `api` (what the container read from remembers), or stay ffi.Tensor when NULL.
 */
PyObject* AnyToPython(const Any& v, const DLPackExchangeAPI* api) {
  TVMFFIAny owned;
  detail::ViewToOwned(*v.raw(), &owned);
  return ToPython(&owned, api);
}

/*! \brief The framework a container object (checked by SeqOf/MapOf) hands its tensors to. */
const DLPackExchangeAPI* TensorAPIOf(PyObject* container) {
  return reinterpret_cast<PyObj*>(container)->tensor_api;
}

bool CheckArgs(const char* name, Py_ssize_t n, Py_ssize_t want) {
  if (n == want) return true;
  PyErr_Format(PyExc_TypeError, "%s() takes %zd arguments (%zd given)", name, want, n);
  return false;
}

// ---- module functions the package's container classes are built on -----------------------------

PyObject* NewContainer(PyObject*, PyObject* const* args, Py_ssize_t n) {
  if (!CheckArgs("_new_container", n, 2)) return nullptr;
  long long type_index = 0;
  if (!IntInRange(args[0], 0, INT32_MAX, "type_index", &type_index)) return nullptr;
  TVMFFIAny out;
  bool ok = false;
  switch (type_index) {
    case kTVMFFIArray:
    case kTVMFFIList:
      ok = SequenceToAny(args[1], static_cast<int32_t>(type_index), &out);
      break;
    case kTVMFFIMap:
    case kTVMFFIDict:
      // What dict() takes as a mapping: anything with keys(); a list is not one.
      if (!PyDict_Check(args[1]) && !PyObject_HasAttrString(args[1], "keys")) {
        PyErr_Format(PyExc_TypeError, "expected a mapping, not `%s`", Py_TYPE(args[1])->tp_name);
        return nullptr;
      }
      ok = MappingToAny(args[1], static_cast<int32_t>(type_index), &out, /*python_keys=*/true);
      break;
    default:
      PyErr_Format(PyExc_ValueError, "type index %lld is not a container", type_index);
      return nullptr;
  }
  return ok ? ToPython(&out) : nullptr;
}

PyObject* SeqLen(PyObject*, PyObject* obj) {
  const SeqBaseObj* seq = SeqOf(obj);
  return seq ? PyLong_FromSize_t(seq->size()) : nullptr;
}

PyObject* SeqGetItem(PyObject*, PyObject* const* args, Py_ssize_t n) {
  if (!CheckArgs("_seq_getitem", n, 2)) return nullptr;
  const SeqBaseObj* seq = SeqOf(args[0]);
  if (seq == nullptr) return nullptr;
  Py_ssize_t i = PyNumber_AsSsize_t(args[1], PyExc_IndexError);
  if (i == -1 && PyErr_Occurred()) return nullptr;
  Py_ssize_t size = static_cast<Py_ssize_t>(seq->size());
  if (i < 0) i += size;
  if (i < 0 || i >= size) {
    PyErr_Format(PyExc_IndexError, "index %S is out of range for a sequence of size %zd", args[1],
                 size);
    return nullptr;
  }
  return AnyToPython(seq->begin()[i], TensorAPIOf(args[0]));
}

/*!
 * \brief Whether a container read gives tensors as ffi.Tensor (`raw`, an optional argument: for
 * comparisons) rather than in the container's framework.
 */
bool RawArg(const char* name, PyObject* const* args, Py_ssize_t n, bool* raw) {
  if (n < 1 || n > 2) {
    PyErr_Format(PyExc_TypeError, "%s takes 1 or 2 arguments", name);
    return false;
  }
  int flag = n == 2 ? PyObject_IsTrue(args[1]) : 0;
  *raw = flag == 1;
  return flag >= 0;
}

PyObject* SeqItems(PyObject*, PyObject* const* args, Py_ssize_t n) {
  bool raw = false;
  if (!RawArg("_seq_items", args, n, &raw)) return nullptr;
  PyObject* obj = args[0];
  const SeqBaseObj* seq = SeqOf(obj);
  if (seq == nullptr) return nullptr;
  // Hold the object: converting an element may drop the last Python reference to `obj`.
  const DLPackExchangeAPI* api = raw ? nullptr : TensorAPIOf(obj);
  Object* keep = const_cast<SeqBaseObj*>(seq);
  detail::ObjectUnsafe::IncRef(detail::ObjectUnsafe::Header(keep));
  PyObject* out = PyList_New(static_cast<Py_ssize_t>(seq->size()));
  for (Py_ssize_t i = 0; out != nullptr && i < static_cast<Py_ssize_t>(seq->size()); ++i) {
    PyObject* v = AnyToPython(seq->begin()[i], api);
    if (v == nullptr) Py_CLEAR(out);
    if (out != nullptr) PyList_SET_ITEM(out, i, v);
  }
  ReleaseObject(detail::ObjectUnsafe::Header(keep));  // maybe the last reference
  return out;
}

/*! \brief `key` as the container API stores it (KeyToAny): itself, or an OpaquePyObject. */
PyObject* MapKey(PyObject*, PyObject* key) {
  Any out;
  bool held = false;
  if (!KeyToAny(key, &out, &held)) return nullptr;
  if (!held) {
    Py_INCREF(key);
    return key;
  }
  // The object itself (ToPython would give back the Python object it holds).
  TVMFFIAny raw = std::move(out).release();
  return WrapObject(ClassForTypeIndex(kTVMFFIOpaquePyObject), raw.v_obj);
}

PyObject* MapLen(PyObject*, PyObject* obj) {
  const MapBaseObj* map = MapOf(obj);
  return map ? PyLong_FromSize_t(map->size()) : nullptr;
}

/*!
 * \brief Looks `args[1]` up in the map `args[0]`: its value; else `args[2]` when given, else
 * KeyError. A key with no FFI form is absent.
 */
PyObject* MapGet(PyObject*, PyObject* const* args, Py_ssize_t n) {
  if (n != 2 && n != 3) return CheckArgs("_map_get", n, 3), nullptr;
  const MapBaseObj* map = MapOf(args[0]);
  if (map == nullptr) return nullptr;
  const Any* found = nullptr;
  Any key;
  if (KeyToAny(args[1], &key)) {
    auto it = map->find(key);
    if (it != map->end()) found = &it->second;
  } else if (PyErr_ExceptionMatches(PyExc_TypeError) && !PyByteArray_Check(args[1]) &&
             !KeyByPythonValueKeepingError(args[1])) {
    PyErr_Clear();  // no FFI form: absent
  } else {
    return nullptr;  // an unhashable key, as a dict refuses it, or another error
  }
  if (found != nullptr) return AnyToPython(*found, TensorAPIOf(args[0]));
  if (n == 3) {
    Py_INCREF(args[2]);
    return args[2];
  }
  PyErr_SetObject(PyExc_KeyError, args[1]);
  return nullptr;
}

PyObject* MapItems(PyObject*, PyObject* const* args, Py_ssize_t n) {
  bool raw = false;
  if (!RawArg("_map_items", args, n, &raw)) return nullptr;
  PyObject* obj = args[0];
  const MapBaseObj* map = MapOf(obj);
  if (map == nullptr) return nullptr;
  const DLPackExchangeAPI* api = raw ? nullptr : TensorAPIOf(obj);
  Object* keep = const_cast<MapBaseObj*>(map);
  detail::ObjectUnsafe::IncRef(detail::ObjectUnsafe::Header(keep));
  PyObject* out = PyList_New(0);
  for (auto it = map->begin(); out != nullptr && it != map->end(); ++it) {
    PyObject* k = AnyToPython(it->first, api);
    PyObject* v = k ? AnyToPython(it->second, api) : nullptr;
    PyObject* kv = v ? PyTuple_Pack(2, k, v) : nullptr;
    Py_XDECREF(k);
    Py_XDECREF(v);
    if (kv == nullptr || PyList_Append(out, kv) != 0) Py_CLEAR(out);
    Py_XDECREF(kv);
  }
  ReleaseObject(detail::ObjectUnsafe::Header(keep));  // maybe the last reference
  return out;
}

#define FFI_FASTCALL(fn) FFI_PY_METHOD(fn)
PyMethodDef container_functions[] = {
    {"_new_container", FFI_FASTCALL(NewContainer), METH_FASTCALL,
     "_new_container($module, type_index, values, /)\n--\n\nA new Array or List (from an "
     "iterable) or Map or Dict (from a mapping) of the FFI type `type_index`."},
    {"_seq_len", FFI_PY_ENTRY(SeqLen), METH_O,
     "_seq_len($module, seq, /)\n--\n\nSize of an Array or List."},
    {"_seq_getitem", FFI_FASTCALL(SeqGetItem), METH_FASTCALL,
     "_seq_getitem($module, seq, index, /)\n--\n\nElement `index` (negative counts from the "
     "end) of an Array or List; IndexError when out of range."},
    {"_seq_items", FFI_FASTCALL(SeqItems), METH_FASTCALL,
     "_seq_items($module, seq, raw=False, /)\n--\n\nThe elements of an Array or List as a Python "
     "list; with `raw`, tensors as ffi.Tensor whatever framework the container hands out."},
    {"_map_len", FFI_PY_ENTRY(MapLen), METH_O,
     "_map_len($module, map, /)\n--\n\nSize of a Map or Dict."},
    {"_map_key", MapKey, METH_O,
     "_map_key($module, key, /)\n--\n\nThe key as a Map or Dict made or read through the "
     "container API holds it: itself, or an ffi.core.OpaquePyObject holding it when it would "
     "convert to a new object each time (a tuple, a callable, any other Python object: found by "
     "Python's hash and ==); TypeError for a key Python refuses (a list, a dict, a set)."},
    {"_map_get", FFI_FASTCALL(MapGet), METH_FASTCALL,
     "_map_get($module, map, key, default=..., /)\n--\n\nThe value of `key` in a Map or Dict; "
     "`default` when absent and given, else KeyError."},
    {"_map_items", FFI_FASTCALL(MapItems), METH_FASTCALL,
     "_map_items($module, map, raw=False, /)\n--\n\nThe entries of a Map or Dict as a list of "
     "(key, value), in insertion order; with `raw`, tensors as ffi.Tensor."},
    {nullptr, nullptr, 0, nullptr}};
#undef FFI_FASTCALL

}  // namespace

bool ListIntoArray(PyObject* value, ArrayObj* array) {
  NestingGuard guard;
  if (!guard.ok()) return false;
  const char* what = PyTuple_Check(value) ? "tuple element" : "list element";
  try {
    return FillArrayCells(value, what, array);  // a list or tuple is its own "fast" sequence
  }
  FFI_PY_CATCH(return false)
}

bool SequenceToAny(PyObject* value, int32_t type_index, TVMFFIAny* out) {
  NestingGuard guard;
  if (!guard.ok()) return false;
  PyObject* fast = PySequence_Fast(value, "expected an iterable");
  if (fast == nullptr) return false;
  const char* what = PyTuple_Check(value) ? "tuple element" : "list element";
  bool ok = false;
  try {
    if (type_index == kTVMFFIList) {
      List<Any> list;
      list.reserve(PySequence_Fast_GET_SIZE(fast));
      ok = FillSequence(fast, what, &list);
      if (ok) {
        *out = Any(std::move(list)).release();
      } else {
        DropKeepingError(&list);
      }
    } else {
      ok = FillArray(fast, what, out);
    }
  }
  FFI_PY_CATCH(ok = false)
  Py_DECREF(fast);
  return ok;
}

bool MappingToAny(PyObject* value, int32_t type_index, TVMFFIAny* out, bool python_keys) {
  NestingGuard guard;
  if (!guard.ok()) return false;
  try {
    // Built from all entries at once: the table is sized once instead of growing per entry.
    std::vector<std::pair<Any, Any>> entries;
    if (!CollectEntries(value, &entries, python_keys)) {
      DropKeepingError(&entries);
      return false;
    }
    if (type_index == kTVMFFIDict) {
      *out = Any(Dict<Any, Any>(entries.begin(), entries.end())).release();
    } else {
      *out = Any(Map<Any, Any>(entries.begin(), entries.end())).release();
    }
    return true;
  }
  FFI_PY_CATCH(return false)
}

bool InitContainerFunctions(PyObject* module) {
  return PyModule_AddFunctions(module, container_functions) == 0;
}

}  // namespace tvm::ffi::python
