// Lists, tuples and dicts <-> Array, List, Map and Dict (containers.cc).
#ifndef FFI_PYTHON_CONTAINERS_H_
#define FFI_PYTHON_CONTAINERS_H_

#include <Python.h>
#include <ffi/container/array.h>
#include <ffi/ffi.h>

#include <cstdint>

namespace tvm::ffi::python {

/*!
 * \brief Converts any iterable (a list or tuple on calls) to an owned Array, or List when
 * `type_index` is kTVMFFIList, converting its elements. False with a Python error: TypeError naming
 * the element that does not convert, RecursionError when nested past the recursion limit.
 */
bool SequenceToAny(PyObject* value, int32_t type_index, TVMFFIAny* out);
/*!
 * \brief Converts the elements of a list or tuple into `array`, which is empty and has room for
 * them. False with the same errors as SequenceToAny; `array` then holds the values converted so
 * far.
 */
bool ListIntoArray(PyObject* value, ArrayObj* array);
/*!
 * \brief Converts a dict or other mapping to an owned Map, or Dict for kTVMFFIDict. With
 * `python_keys` (the container API: ffi.Map(...), ffi.Dict(...)), keys that would convert to a
 * new object each time are held as themselves and found by Python's hash and == (containers.cc,
 * KeyToAny); otherwise every key is converted as any value.
 */
bool MappingToAny(PyObject* value, int32_t type_index, TVMFFIAny* out, bool python_keys = false);
/*! \brief Adds the module functions the package's container classes are built on. */
bool InitContainerFunctions(PyObject* module);

}  // namespace tvm::ffi::python

#endif  // FFI_PYTHON_CONTAINERS_H_
