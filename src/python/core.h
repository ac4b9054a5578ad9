// Shared declarations of the Python extension `ffi._core`, one section per source file.
//
// The types on the call path (Object, Function, Tensor, dtype, Device) are plain CPython types so
// that a call is one vectorcall with no binding layer in between; nanobind builds the module and
// binds the rest. Each file holds one concern:
//   classify.cc       what a Python value is, decided once for every conversion path
//   call.cc           Python -> C++ calls: argument packing, the borrowed-tensor pool, the GIL
//   callback.cc       C++ -> Python calls: Python callables as FFI functions
//   convert.cc        Python <-> TVMFFIAny values (owned and viewed)
//   containers.cc     lists, tuples and dicts <-> Array, List, Map and Dict
//   errors.cc         FFI errors <-> Python exceptions
//   foreign.cc        objects of the reference's package (tvm_ffi) in our calls, ours in its
//   dlpack_import.cc  tensors from NumPy, the DLPack exchange API and any __dlpack__ producer
//   objects.cc        ffi.Object
//   function.cc       ffi.Function: keyword binding, signature metadata, the GIL setting
//   reflection.cc     the class registry, reflected fields and methods (ffi.register_object)
//   tensor.cc         ffi.Tensor and its DLPack export (__dlpack__, __dlpack_device__)
//   dlpack_export.cc  ffi.Tensor's DLPack exchange API; tensor results as framework tensors
//   stream_sync.cc    producer/consumer stream ordering for __dlpack__ (CUDA driver, dlopen'ed)
//   dtype_device.cc   ffi.dtype and ffi.Device
//   module.cc         the module, its functions, and the hooks the package registers
// and boundary.h holds what every entry point from CPython relies on (exceptions, exit, threads).
#ifndef FFI_PYTHON_CORE_H_
#define FFI_PYTHON_CORE_H_

#include <Python.h>
#include <ffi/container/array.h>
#include <ffi/ffi.h>

#include <string>
#include <type_traits>
#include <utility>

#include "boundary.h"

namespace tvm {
namespace ffi {
namespace python {

/*! \brief Layout of ffi.Object and its subclasses: one owned reference to an ABI object. */
/*!
 * \brief What Object._move() returns: passed to a call, it hands the object over (the callee may
 * take the Python object's reference, leaving it without an object), so that the callee can own
 * it alone.
 */
struct PyRValueRef {
  PyObject_HEAD PyObject* target;  // the ffi.Object moved from (strong reference)
};

struct PyObj {
  PyObject_HEAD TVMFFIObject* handle;
  PyObject* weakrefs;
  /*!
   * \brief For a container returned by a call that received framework tensors: that framework's
   * DLPack exchange API, so tensors read from it arrive as framework tensors. NULL otherwise.
   */
  const DLPackExchangeAPI* tensor_api;
};

/*! \brief Layout of ffi.Function: an object plus its vectorcall entry and a name for errors. */
struct PyFunc {
  PyObj base;
  vectorcallfunc vectorcall;
  PyObject* name;          // str or NULL
  PyObject* dict;          // attributes, e.g. the signature metadata a module provides
  bool keep_gil;           // opt-in: call without releasing the GIL (see Function.keep_gil)
  PyObject* arg_names;     // tuple of parameter names from the export, or NULL: no keywords
  PyObject* arg_defaults;  // tuple: defaults of the last len() parameters (with arg_names)
};

/*! \brief Layout of ffi.Tensor: an object plus what Python knows of its memory. */
struct PyTensor {
  PyObj base;
  bool read_only;  // imported from a read-only producer: refused as a kernel argument
};

/*!
 * \brief Layout of ffi.dtype: a str (the text it was made from, or the canonical name) and the
 * DLDataType it names. A str subclass as in the reference: NumPy and dict keys take it as text.
 */
struct PyDType {
  PyUnicodeObject text;
  DLDataType dtype;
};

/*! \brief Layout of ffi.Device: a DLDevice. */
struct PyDevice {
  PyObject_HEAD DLDevice device;
};

extern PyTypeObject* ObjectType;
extern PyTypeObject* FunctionType;
extern PyTypeObject* TensorType;
extern PyTypeObject* RValueRefType;
extern PyTypeObject* DTypeType;
extern PyTypeObject* DeviceType;
// The classes tensors, dtypes and devices arrive as from calls and conversions: TensorType,
// DTypeType and DeviceType unless the package set subclasses (ffi.core._set_class_tensor, ...).
extern PyTypeObject* TensorClass;
extern PyTypeObject* DTypeClass;
extern PyTypeObject* DeviceClass;

/*! \brief Whether `obj`, an ffi.Object holding `handle`, is an ffi.Tensor marked read-only. */
inline bool IsReadOnlyTensor(PyObject* obj, const TVMFFIObject* handle) {
  return handle->type_index == kTVMFFITensor && PyObject_TypeCheck(obj, TensorType) &&
         reinterpret_cast<PyTensor*>(obj)->read_only;
}

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

// ---- classify.cc -----------------------------------------------------------------------------

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

/*! \brief The framework tensor type Classify saw last; only Classify sets it. */
struct LastExchangeType {
  PyTypeObject* type = nullptr;
  const DLPackExchangeAPI* api = nullptr;
};
extern LastExchangeType last_exchange;
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
  if (Py_TYPE(obj) == last_exchange.type) return {PyKind::kExchange, last_exchange.api};
  return Classify(obj);
}
/*! \brief The DLPack exchange API of `type`, or NULL when it has none. */
const DLPackExchangeAPI* ExchangeAPIOf(PyTypeObject* type);
/*! \brief Whether `type` is numpy.ndarray itself (NumPy need not be imported). */
bool IsNumpyArrayType(PyTypeObject* type);

// ---- call.cc ---------------------------------------------------------------------------------

/*!
 * \brief Calls a Function object with Python arguments, releasing the GIL around the call
 * unless `keep_gil`; `name` (or NULL) names the function in errors.
 */
PyObject* CallFunction(TVMFFIObject* func, PyObject* name, PyObject* const* args, Py_ssize_t n,
                       bool keep_gil = false);

// ---- callback.cc -----------------------------------------------------------------------------

/*! \brief A Function object calling the Python callable `fn` (new reference), or NULL. */
TVMFFIObject* FunctionFromCallable(PyObject* fn);
/*!
 * \brief An OpaquePyObject holding a reference to `obj` (released from any thread when the object
 * dies); converting it back to Python gives `obj` itself. NULL with a Python error on failure.
 */
TVMFFIObject* NewOpaquePyObject(PyObject* obj);
/*!
 * \brief Gives OpaquePyObject map-key hooks (`__any_hash__`, `__any_equal__`) that use the held
 * objects' Python hash and ==, so that a key the container API holds in one is found again.
 */
void InitOpaqueKeyHooks();
/*!
 * \brief A Function calling C code at `address`: a TVMFFISafeCallType function (which ignores its
 * `self`), or with `mlir_packed` an MLIR packed-interface function `void(void**)`. The Function
 * holds a reference to `keep_alive` (NULL: none), e.g. the JIT engine owning the code.
 */
TVMFFIObject* FunctionFromCSymbol(void* address, PyObject* keep_alive, bool mlir_packed);

// ---- convert.cc ------------------------------------------------------------------------------

/*!
 * \brief Converts a Python value to an owned ABI value (for results of Python callbacks and
 * values stored by C++). False with a Python error when it cannot be converted.
 */
bool ToOwnedAny(PyObject* value, TVMFFIAny* out);
/*! \brief ToOwnedAny for a value already classified as `c`. */
bool ToOwnedAny(PyObject* value, Classified c, TVMFFIAny* out);
/*!
 * \brief Converts an owned ABI value to Python, consuming it (also on failure). Returns NULL
 * with a Python error when the value cannot be represented.
 */
PyObject* ToPython(TVMFFIAny* owned);
/*!
 * \brief ToPython, with tensors converted to the framework of `tensor_api` (when not NULL), and
 * containers remembering it so that the tensors read from them convert too.
 */
PyObject* ToPython(TVMFFIAny* owned, const DLPackExchangeAPI* tensor_api);
/*! \brief Releases an owned ABI value that will not be converted. */
inline void ReleaseAny(TVMFFIAny* owned) {
  if (owned->type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectDecRef(owned->v_obj);
  owned->type_index = kTVMFFINone;
}

// ---- containers.cc ---------------------------------------------------------------------------

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

// ---- errors.cc -------------------------------------------------------------------------------

/*! \brief Raises the Python exception for a failed ABI call returning `rc`; returns NULL. */
PyObject* RaiseFromFFI(int rc);
/*! \brief Drops the error a failed ABI call raised, where failing is an expected answer. */
void ClearRaisedFFIError();
/*!
 * \brief An Error object for a Python exception (its class name as the kind, its str as the
 * message); NULL with a Python error when it cannot be made. With `carry`, for an exception raised
 * through C++, the exception itself rides along so Python gets it back unchanged. An exception
 * passed as a value is not carried: the Error value would often sit in a frame the exception's
 * own traceback reaches, a cycle through C++ that Python's collector cannot see.
 */
TVMFFIObject* ErrorFromException(PyObject* exc, bool carry);

/*! \brief The Python exception an FFI error stands for (new reference; nullptr with a Python error
 * set on failure): the exception it carries when it came from Python, else one of the class
 * registered for its kind with the message and the C++ frames as a note. */
PyObject* ExceptionFromError(const ffi::Error& error);
/*! \brief Turns the pending Python exception into the thread's raised ABI error; returns -1. */
int SetFFIErrorFromPython();
/*! \brief Registers the exception class for an error kind (replacing any earlier one). */
void RegisterErrorClass(const std::string& kind, PyObject* cls);

// ---- dlpack_import.cc ------------------------------------------------------------------------

/*!
 * \brief Fills `out` with a view of the NumPy array `obj` (the caller checked its type). Shape
 * and strides are copied into `dims` (which must hold `cap` entries). False when the array has
 * no DLPack form (dtype, byte order, byte strides) or more than `cap` dimensions.
 */
bool NumpyArrayView(PyObject* obj, DLTensor* out, int64_t* dims, int32_t cap);
/*! \brief Whether the NumPy array `obj` is writeable. */
bool NumpyArrayWriteable(PyObject* obj);
/*!
 * \brief Compact row-major strides of the `ndim` extents `shape`, into `out`. Tensors the
 * extension hands to kernels always carry strides: DLPack 1.2 forbids null ones, and the
 * reference's TensorView::strides() refuses them. (A zero extent makes later strides
 * meaningless; they wrap instead of overflowing.)
 */
inline void FillCompactStrides(const int64_t* shape, int32_t ndim, int64_t* out) {
  uint64_t stride = 1;
  for (int32_t i = ndim - 1; i >= 0; --i) {
    out[i] = static_cast<int64_t>(stride);
    stride *= static_cast<uint64_t>(shape[i] > 0 ? shape[i] : 1);
  }
}
/*!
 * \brief What converting a container argument of a call (a list, a dict, ...) on this thread must
 * know and learns. A call clears `api` and sets `in_call` before converting one, and clears
 * `in_call` after; other conversions (ffi.Array(...), field values) run with it false.
 */
struct ContainerArgument {
  /*!
   * \brief The first framework tensor (one exported through a DLPack exchange API) met: tensors
   * nested in lists and dicts make the call's results arrive in their framework as a tensor
   * argument does.
   */
  const DLPackExchangeAPI* api = nullptr;
  /*! \brief That tensor's device. */
  DLDevice device{};
  /*! \brief Read-only tensors are refused, as they are as arguments themselves. */
  bool in_call = false;
};
extern thread_local ContainerArgument container_argument;
/*!
 * \brief An owned Tensor object for any DLPack producer, with `read_only` set when the producer
 * marked it so; NULL with a Python error on failure.
 */
TVMFFIObject* TensorFromDLPackProducer(PyObject* obj, Classified c, int32_t require_alignment,
                                       bool require_contiguous, bool* read_only);
/*!
 * \brief After a refused import (its error raised by the runtime): raises it and frees the tensor,
 * which a refusal leaves to the caller. Its deleter may run Python code, so the import's exception
 * is set aside meanwhile. Returns NULL.
 */
TVMFFIObject* ReleaseRefused(DLManagedTensorVersioned* tensor);
/*!
 * \brief from_dlpack(ext_tensor, require_alignment=0, require_contiguous=False), each also by
 * keyword (METH_FASTCALL | METH_KEYWORDS).
 */
PyObject* FromDLPack(PyObject*, PyObject* const* args, Py_ssize_t nargsf, PyObject* kwnames);

// ---- objects.cc ------------------------------------------------------------------------------

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
  TVMFFIObject* h = reinterpret_cast<PyObj*>(self)->handle;
  if (FFI_UNLIKELY(h == nullptr)) RaiseNoObject(self);
  return h;
}

// ---- function.cc -----------------------------------------------------------------------------

/*!
 * \brief Creates the Function type, after InitObjectTypes (its base) and before InitReflection
 * (which derives its method type from it); false with a Python error on failure.
 */
bool InitFunctionType(PyObject* module);
/*! \brief The vectorcall of a Function holding a function (without parameter names). */
PyObject* FunctionVectorcall(PyObject* self, PyObject* const* args, size_t nargsf,
                             PyObject* kwnames);
/*! \brief Sets the name ffi.Function shows in errors and repr. */
void SetFunctionName(PyObject* func, PyObject* name);
/*!
 * \brief Gives a Function parameter names (a tuple of str) and the defaults of its last
 * parameters (a tuple), so that calls take keywords; false with a Python error for bad input.
 */
bool SetFunctionParams(PyObject* func, PyObject* names, PyObject* defaults);

// ---- foreign.cc ------------------------------------------------------------------------------

/*! \brief The FFI object a kForeign value holds (a new reference), or NULL with a Python error. */
TVMFFIObject* ForeignObjectHandle(PyObject* obj);
/*!
 * \brief ffi.Object.__tvm_ffi_object__(): the same FFI object as a tvm_ffi object (the protocol
 * tvm_ffi's calls and type converters use for values standing for an object).
 */
PyObject* ObjectToReference(PyObject* self, PyObject*);
/*! \brief Registers the global ObjectToReference calls; false with a Python error. */
bool InitForeignObjects();

// ---- reflection.cc ---------------------------------------------------------------------------

/*! \brief Creates the field and method descriptor types and the registration functions. */
bool InitReflection(PyObject* module);

/*! \brief Why a Python int did not convert: it is outside int64 (every conversion says so). */
inline constexpr const char* kIntOutOfRange =
    "the integer does not fit in 64 bits (outside the int64 range)";

/*!
 * \brief The value of an exact int that fits one internal digit (nearly every int a call passes),
 * read inline; false for any other int (then PyLong_AsLongLongAndOverflow reads it).
 */
inline bool SmallIntValue(PyObject* v, long long* out) {
#if PY_VERSION_HEX >= 0x030C0000
  auto* l = reinterpret_cast<PyLongObject*>(v);
  if (!PyUnstable_Long_IsCompact(l)) return false;
  *out = static_cast<long long>(PyUnstable_Long_CompactValue(l));
#else
  Py_ssize_t size = Py_SIZE(v);
  if (size < -1 || size > 1) return false;
  *out = size * static_cast<long long>(reinterpret_cast<PyLongObject*>(v)->ob_digit[0]);
#endif
  return true;
}
/*!
 * \brief An int (exact or a subclass) as int64; false with an OverflowError saying kIntOutOfRange
 * when it does not fit (or the error reading it raised).
 */
inline bool Int64Of(PyObject* v, long long* out) {
  if (Py_TYPE(v) == &PyLong_Type && SmallIntValue(v, out)) return true;
  int overflow = 0;
  *out = PyLong_AsLongLongAndOverflow(v, &overflow);
  if (overflow != 0) {
    PyErr_SetString(PyExc_OverflowError, kIntOutOfRange);
    return false;
  }
  return !(*out == -1 && PyErr_Occurred());
}

/*! \brief IntToAny for an int that is not a small exact one (see IntToAny). */
bool IntToAnySlow(PyObject* value, TVMFFIAny* out);
/*!
 * \brief A Python int (or subclass) as an owned Any: an Int, or beyond int64 a BigInt object (a
 * new reference in `out`); false with a Python error. Inline: containers convert every element.
 */
inline bool IntToAny(PyObject* value, TVMFFIAny* out) {
  long long v = 0;
  if (Py_TYPE(value) == &PyLong_Type && SmallIntValue(value, &v)) {  // nearly every int
    out->type_index = kTVMFFIInt;
    out->v_int64 = v;
    return true;
  }
  return IntToAnySlow(value, out);
}

/*! \brief A new reference to `o` (Py_NewRef is 3.10+). */
inline PyObject* NewRef(PyObject* o) {
  Py_INCREF(o);
  return o;
}
/*! \brief The text of `a` as a str (undecodable bytes kept as surrogates). */
inline PyObject* Str(const TVMFFIByteArray& a) {
  return PyUnicode_DecodeUTF8(a.data, static_cast<Py_ssize_t>(a.size), "surrogateescape");
}
/*! \brief A new ffi._Field descriptor for `info`, a field of the type `owner` (fields.cc). */
PyObject* NewField(const TVMFFIFieldInfo& info, const TVMFFITypeInfo* owner);
/*! \brief Creates ffi._Field and adds it to the module (fields.cc). */
bool InitFieldType(PyObject* module);

/*! \brief Adds the functions behind ffi.dataclasses.py_class (py_class.cc). */
bool InitPyClass(PyObject* module);
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

// ---- tensor.cc -------------------------------------------------------------------------------

/*! \brief Creates the Tensor type. */
bool InitTensorType(PyObject* module);
/*! \brief A new ffi.Tensor owning `handle` (steals it, also on failure). */
PyObject* WrapTensor(TVMFFIObject* handle, bool read_only);
/*! \brief A new ffi.Shape (a plain tuple before the package registers the class). */
PyObject* NewShape(const int64_t* dims, size_t n);

// ---- dlpack_export.cc ------------------------------------------------------------------------

/*! \brief ffi.Tensor's own exchange API (a static table, valid for the process's lifetime). */
const DLPackExchangeAPI* TensorExchangeAPI();
/*!
 * \brief Whether tensor results of calls that received framework tensors come back as that
 * framework's tensors (the default) or as ffi.Tensor; see set_tensor_results().
 */
extern bool framework_tensor_results;
/*!
 * \brief The tensor `handle` as a tensor of the framework of `api`, zero-copy (steals the
 * reference, also on failure): the producer's own DLPack tensor when `handle` was its only owner
 * and the runtime can hand it back, else an export. Falls back to ffi.Tensor when the framework
 * cannot take it; NULL with an error only when it released a tensor it refused.
 */
PyObject* TensorToFramework(TVMFFIObject* handle, const DLPackExchangeAPI* api);
/*! \brief Adds set_tensor_results and Tensor.__dlpack_c_exchange_api__. */
bool InitDLPackExport(PyObject* module);

// ---- stream_sync.cc --------------------------------------------------------------------------

/*!
 * \brief Orders a DLPack consumer's work after the producer's, as `__dlpack__(stream=...)` asks:
 * the producer stream is this thread's FFI stream for `device` (the legacy default stream when
 * none is set); `stream` is the consumer's Python value. When the two differ on a CUDA device, an
 * event recorded on the producer stream is waited on by the consumer stream. False with a Python
 * error: ValueError/TypeError for a value the protocol forbids, BufferError when synchronizing
 * fails (no CUDA driver, ...).
 */
bool SyncForConsumer(DLDevice device, PyObject* stream);

// ---- cany.cc -------------------------------------------------------------------------------

/*! \brief Creates ffi.core.CAny (an owned ABI value) and _to_py_class_value. */
bool InitCAnyType(PyObject* module);

// ---- abi_constants.cc ------------------------------------------------------------------------

/*! \brief Adds the ABI's constants (type indices, flags, DLPack codes, ...) as read-only tables. */
bool InitAbiConstants(PyObject* module);

// ---- dtype_device.cc -------------------------------------------------------------------------

/*! \brief Creates the dtype and Device types. */
bool InitDTypeDeviceTypes(PyObject* module);
/*!
 * \brief A DTypeClass naming `dtype` by its canonical name (new reference to a shared one).
 */
PyObject* NewDType(DLDataType dtype);
/*!
 * \brief The element type `spec` names: an ffi.dtype, a str, a numpy.dtype, a torch.dtype or a
 * scalar type (np.float32). False with ValueError (or the error str() raised) otherwise.
 */
bool DTypeFromPython(PyObject* spec, DLDataType* out);
/*! \brief A new DeviceClass. */
PyObject* NewDevice(DLDevice device);

// ---- module.cc: hooks the Python package registers (borrowed; NULL until registered) ----------

/*! \brief Python-level behaviour the package provides, set by `_core._set_hooks`. */
struct Hooks {
  PyObject* module_loaded = nullptr;            // f(module): called when a Module arrives
  PyObject* signature_from_metadata = nullptr;  // f(metadata dict) -> inspect.Signature
  PyObject* global_metadata = nullptr;          // f(function, metadata str): names its parameters
};
/*! \brief The registered hooks. */
Hooks& GetHooks();

/*!
 * \brief Binds the arguments of a METH_FASTCALL | METH_KEYWORDS function `name` to its `nparams`
 * parameters `names`: the first `npositional` may come by position, every one by keyword, and the
 * first `nrequired` must come. `out[i]` is the argument of parameter i (borrowed), or NULL when
 * omitted. False with the TypeError Python gives for such a call (module.cc).
 */
bool BindArguments(const char* name, PyObject* const* args, Py_ssize_t nargsf, PyObject* kwnames,
                   const char* const* names, int nparams, int npositional, int nrequired,
                   PyObject** out);

// ---- small helpers -----------------------------------------------------------------------------

/*! \brief Borrowed Python string as UTF-8 (cached by Python) or NULL with an error. */
inline const char* Utf8(PyObject* s, Py_ssize_t* size) { return PyUnicode_AsUTF8AndSize(s, size); }

/*!
 * \brief Copies the text of `text` (a new reference to a str, or NULL after a failed call, which
 * this consumes) into `out`; false with a Python error when there is no text.
 */
inline bool TakeText(PyObject* text, std::string* out) {
  if (text == nullptr) return false;
  Py_ssize_t n = 0;
  const char* s = Utf8(text, &n);
  bool ok = s != nullptr;
  if (ok) {
    try {
      out->assign(s, static_cast<size_t>(n));
    }
    FFI_PY_CATCH(ok = false)  // MemoryError: a text too large to copy
  }
  Py_DECREF(text);
  return ok;
}

/*!
 * \brief Reads an int that must fit in [lo, hi]; false with OverflowError (out of range) or
 * TypeError (not an int) naming `what`.
 */
bool IntInRange(PyObject* value, long long lo, long long hi, const char* what, long long* out);

}  // namespace python
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_PYTHON_CORE_H_
