// ffi.Object (objects.cc): its layout, its type, and wrapping ABI objects in it.
#ifndef FFI_PYTHON_OBJECTS_H_
#define FFI_PYTHON_OBJECTS_H_

#include <Python.h>
#include <ffi/ffi.h>

#include "nb_module.h"

namespace tvm::ffi::python {

/*! \brief Layout of ffi.Object and its subclasses: one owned reference to an ABI object. */
struct PyObj {
  PyObject_HEAD TVMFFIObject* handle;
  PyObject* weakrefs;
  /*!
   * \brief For a container returned by a call that received framework tensors: that framework's
   * DLPack exchange API, so tensors read from it arrive as framework tensors. NULL otherwise.
   */
  const DLPackExchangeAPI* tensor_api;
};

/*!
 * \brief The FFI object `o` holds (borrowed), or NULL: read atomically, as a call taking the
 * object over (`_move()`) may take it out, and put it back, from another thread at once
 * (free-threaded Python). Every read of a live object's handle goes through here.
 */
inline TVMFFIObject* LoadHandle(const PyObj* o) {
  return __atomic_load_n(&o->handle, __ATOMIC_ACQUIRE);
}
/*! \brief Sets the handle of `o` (a new object's, or a re-initialized one's); the previous one. */
inline TVMFFIObject* ExchangeHandle(PyObj* o, TVMFFIObject* handle) {
  return __atomic_exchange_n(&o->handle, handle, __ATOMIC_ACQ_REL);
}

/*!
 * \brief What Object._move() returns: passed to a call, it hands the object over (the callee may
 * take the Python object's reference, leaving it without an object), so that the callee can own
 * it alone.
 */
struct PyRValueRef {
  PyObject_HEAD PyObject* target;  // the ffi.Object moved from (strong reference)
};

/*! \brief ffi.Object (created by InitObjectTypes). */
extern PyTypeObject* ObjectType;
/*! \brief ffi.core.ObjectRValueRef, what Object._move() returns. */
extern PyTypeObject* RValueRefType;

/*!
 * \brief Starts the header of an object the extension lays out itself (a Tensor describing
 * memory it does not own): one strong reference, the weak one every live object carries, and
 * `deleter` to run when they go.
 */
inline void InitObjectHeader(TVMFFIObject* header, int32_t type_index,
                             void (*deleter)(void* self, int flags)) {
  header->combined_ref_count = detail::kSoleReference;
  header->type_index = type_index;
  header->__padding = 0;
  header->deleter = deleter;
}

/*! \brief Creates the Object type; false with a Python error on failure. */
bool InitObjectTypes(PyObject* module);
/*! \brief Adds `type` to `module` as `name`. */
bool AddType(PyObject* module, const char* name, PyTypeObject* type);
/*! \brief A new Python object of `type` owning `handle` (steals the reference, also on failure). */
PyObject* WrapObject(PyTypeObject* type, TVMFFIObject* handle);
/*!
 * \brief Why an ffi.Object holds no FFI object: completes "this `X` holds no FFI object" and the
 * messages of conversions that refuse such an object.
 */
inline constexpr const char* kNoObjectReason =
    "it was handed over to a call with _move() (using it afterwards is an error), or its "
    "__init__ did not make one";
/*! \brief Raises the RuntimeError of an ffi.Object `self` that holds no FFI object; NULL. */
[[gnu::cold]] PyObject* RaiseNoObject(PyObject* self);
/*!
 * \brief The FFI object the ffi.Object `self` holds (borrowed), or NULL with a RuntimeError when
 * it holds none: after its `_move()` was consumed by a call, or when a registered class's
 * __init__ made none. Every use of an object's FFI object fetches it here (or checks as Classify
 * does), so that such an object fails cleanly wherever it is used.
 */
inline TVMFFIObject* HandleOf(PyObject* self) {
  TVMFFIObject* h = LoadHandle(reinterpret_cast<PyObj*>(self));
  if (FFI_UNLIKELY(h == nullptr)) RaiseNoObject(self);
  return h;
}
/*! \brief Adds _wrap_as. */
void BindObjectFunctions(nanobind::module_& m);

}  // namespace tvm::ffi::python

#endif  // FFI_PYTHON_OBJECTS_H_
