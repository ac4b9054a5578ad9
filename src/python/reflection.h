// The class registry, reflected fields and methods, ffi.register_object (reflection.cc).
#ifndef FFI_PYTHON_REFLECTION_H_
#define FFI_PYTHON_REFLECTION_H_

#include <Python.h>
#include <ffi/ffi.h>

#include <cstdint>

#include "nb_module.h"

namespace tvm::ffi::python {

/*! \brief Creates the field and method descriptor types and the registration functions. */
bool InitReflection(PyObject* module);
/*!
 * \brief The Python class for objects of `type_index`: the most derived registered class along
 * its ancestors (a generated one showing reflected fields and methods nobody registered), else
 * ffi.Object. Cached per type index.
 */
PyTypeObject* ClassForTypeIndex(int32_t type_index);
/*! \brief Registers the Python class used for objects of `type_index` (and their subtypes). */
void RegisterClass(int32_t type_index, PyTypeObject* cls);
/*! \brief The type index `type` (or its nearest base) was bound to by register_object, or -1. */
int32_t ReflectedIndexOf(PyTypeObject* type);
/*! \brief Whether the object is of type `type_index` or a type derived from it. */
bool IsInstanceOfIndex(const TVMFFIObject* handle, int32_t type_index);
/*! \brief Adds _register_class and type_key_to_index. */
void BindReflectionFunctions(nanobind::module_& m);

}  // namespace tvm::ffi::python

#endif  // FFI_PYTHON_REFLECTION_H_
