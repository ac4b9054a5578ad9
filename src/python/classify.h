// What a Python value is (classify.cc), decided once for every conversion path.
#ifndef FFI_PYTHON_CLASSIFY_H_
#define FFI_PYTHON_CLASSIFY_H_

#include <Python.h>
#include <ffi/ffi.h>

#include <atomic>
#include <cstdint>

namespace tvm::ffi::python {

/*! \brief What a Python value converts to. One classification serves every conversion path. */
enum class PyKind : uint8_t {
  kNone,
  kBool,
  kInt,          // int and its subclasses (IntEnum, ...)
  kFloat,        // float and its subclasses
  kStr,          // str and its subclasses
  kBytes,        // bytes or bytearray
  kObject,       // an ffi.Object (Function, Tensor, Module, ...)
  kDType,        // ffi.dtype
  kDTypeLike,    // a numpy.dtype or torch.dtype: a DataType, as ffi.dtype() reads it
  kDevice,       // ffi.Device
  kExchange,     // a type with __dlpack_c_exchange_api__ (torch.Tensor)
  kNumpy,        // exactly numpy.ndarray
  kDLPack,       // any other object with __dlpack__
  kVoidPtr,      // ctypes.c_void_p
  kShape,        // ffi.Shape
  kSequence,     // list or tuple (and their subclasses): an Array
  kMapping,      // dict (and its subclasses): a Map
  kIndex,        // other integers through __index__ (NumPy integer scalars, ...)
  kFloatLike,    // other numbers through __float__ (NumPy float scalars, ...)
  kBoolLike,     // a NumPy bool scalar (np.bool_): a Bool, by its truth
  kForeign,      // a tvm_ffi object, or a value with __tvm_ffi_object__: the object it holds
  kProtocol,     // a class with a conversion protocol method (see Protocol)
  kException,    // an exception instance: an Error object
  kMoved,        // an ffi.ObjectRValueRef (Object._move()): the object, handed over
  kCallable,     // any other callable: becomes an ffi.Function
  kOpaque,       // any other Python object: an OpaquePyObject holding it (as the reference)
  kUnsupported,  // nothing converts it (an ffi.Object whose __init__ made no object)
};

/*! \brief A classified value: its kind and, for kExchange, the type's exchange API. */
struct Classified {
  PyKind kind;
  const DLPackExchangeAPI* api = nullptr;
};

/*! \brief A framework tensor type and its exchange API (never freed, never changed). */
struct ExchangeType {
  PyTypeObject* type;
  const DLPackExchangeAPI* api;
};
/*!
 * \brief The framework tensor type Classify saw last (NULL before any); only Classify sets it.
 * Atomic: calls on other threads read it while one sets it (free-threaded Python).
 */
extern std::atomic<const ExchangeType*> last_exchange;
/*! \brief The conversion protocols a Python class may define, in the order they are looked for. */
enum class Protocol {
  kNone,
  kCudaStream,  // __cuda_stream__() -> (version, handle): the stream handle as an opaque pointer
  kOpaquePtr,   // __tvm_ffi_opaque_ptr__() -> int: an opaque pointer
  kDataType,    // __dlpack_data_type__() -> (code, bits, lanes): a DataType
  kDevice,      // __dlpack_device__() -> (type, id), on a class without __dlpack__: a Device
  kInt,         // __tvm_ffi_int__(): an Int of what it returns
  kFloat,       // __tvm_ffi_float__(): a Float of what it returns
  kValue,       // __tvm_ffi_value__(): what it returns, converted in its turn
};
/*! \brief The conversion protocol `type` defines (the first of Protocol's order), or kNone. */
Protocol ProtocolOf(PyTypeObject* type);
/*! \brief The method name of a protocol (interned, borrowed). */
PyObject* ProtocolMethod(Protocol protocol);
/*! \brief Whether `type` is tvm_ffi's object base (tvm_ffi.core.CObject) or derives from it. */
bool IsReferenceObjectType(PyTypeObject* type);
/*! \brief Whether values of `type` are tvm_ffi objects or carry `__tvm_ffi_object__`. */
bool IsForeignObjectType(PyTypeObject* type);
/*! \brief Classifies `obj` by its real type (never by its type's name). */
Classified Classify(PyObject* obj);
/*! \brief Classify, with the framework tensor type of the last call answered inline. */
inline Classified ClassifyFast(PyObject* obj) {
  const ExchangeType* last = last_exchange.load(std::memory_order_acquire);
  if (last != nullptr && Py_TYPE(obj) == last->type) return {PyKind::kExchange, last->api};
  return Classify(obj);
}
/*! \brief The DLPack exchange API of `type`, or NULL when it has none. */
const DLPackExchangeAPI* ExchangeAPIOf(PyTypeObject* type);
/*! \brief Whether `type` is numpy.ndarray itself (NumPy need not be imported). */
bool IsNumpyArrayType(PyTypeObject* type);

}  // namespace tvm::ffi::python

#endif  // FFI_PYTHON_CLASSIFY_H_
