/*
 * ffi/c_api.h - the stable C ABI.
 *
 * Everything that crosses a shared-library boundary is declared here: the 16-byte tagged value
 * `TVMFFIAny`, the 24-byte header `TVMFFIObject` that starts every reference-counted object, the
 * cells that follow that header for the built-in object kinds, the safe-call convention, and the
 * functions the runtime library exports. Names, enum values, layouts and signatures are those of
 * the TVM-FFI 0.1.x ABI, so libraries built for that convention and for this one interoperate. The
 * header is C99 plus anonymous unions (standard since C11; the layout needs them, and C99 compilers
 * accept them); C++ additionally gets a few inline accessors at the end.
 */
#ifndef FFI_C_API_H_
#define FFI_C_API_H_

#include <stddef.h>
#include <stdint.h>

#include "dlpack.h"

/*!
 * \brief Marks a function exported by the runtime library. On Windows the runtime is built with
 * TVM_FFI_EXPORTS (dllexport) and its users import the functions from its import library.
 */
#ifndef TVM_FFI_DLL
#ifdef _WIN32
#ifdef TVM_FFI_EXPORTS
#define TVM_FFI_DLL __declspec(dllexport)
#else
#define TVM_FFI_DLL __declspec(dllimport)
#endif
#else
#define TVM_FFI_DLL __attribute__((visibility("default")))
#endif
#endif

/*! \brief Marks a symbol a kernel library exports (e.g. `__tvm_ffi_<name>`). */
#ifndef TVM_FFI_DLL_EXPORT
#ifdef _WIN32
#define TVM_FFI_DLL_EXPORT __declspec(dllexport)
#else
#define TVM_FFI_DLL_EXPORT __attribute__((visibility("default")))
#endif
#endif

/*! \brief ABI version: major. Libraries agreeing on major.minor interoperate. */
#define TVM_FFI_VERSION_MAJOR 0
/*! \brief ABI version: minor. */
#define TVM_FFI_VERSION_MINOR 1
/*! \brief ABI version: patch. */
#define TVM_FFI_VERSION_PATCH 16

#ifdef __cplusplus
extern "C" {
#endif

/*! \brief A version triple, as reported by TVMFFIGetVersion. */
typedef struct {
  /*! \brief Major version. */
  uint32_t major;
  /*! \brief Minor version. */
  uint32_t minor;
  /*! \brief Patch version. */
  uint32_t patch;
} TVMFFIVersion;

/*!
 * \brief Type indices: what a TVMFFIAny holds, or what kind of object a TVMFFIObject is.
 * Below kTVMFFIStaticObjectBegin the value sits in the Any itself (POD); from it on the Any holds
 * a pointer to a reference-counted object. Indices from kTVMFFIDynObjectBegin are handed out at
 * run time by TVMFFITypeGetOrAllocIndex.
 */
#ifdef __cplusplus
enum TVMFFITypeIndex : int32_t {
#else
typedef enum {
#endif
  /*! \brief Any type at all; appears in type descriptions, never in a value. */
  kTVMFFIAny = -1,
  /*! \brief None / null. */
  kTVMFFINone = 0,
  /*! \brief int64_t in v_int64. */
  kTVMFFIInt = 1,
  /*! \brief bool in v_int64 (0 or 1). */
  kTVMFFIBool = 2,
  /*! \brief double in v_float64. */
  kTVMFFIFloat = 3,
  /*! \brief void* in v_ptr, not owned. */
  kTVMFFIOpaquePtr = 4,
  /*! \brief DLDataType in v_dtype. */
  kTVMFFIDataType = 5,
  /*! \brief DLDevice in v_device. */
  kTVMFFIDevice = 6,
  /*! \brief Borrowed DLTensor* in v_ptr (a view, never owned). */
  kTVMFFIDLTensorPtr = 7,
  /*! \brief Borrowed NUL-terminated const char* in v_c_str; only in arguments, never owned. */
  kTVMFFIRawStr = 8,
  /*! \brief Borrowed TVMFFIByteArray* in v_ptr; only in arguments, never owned. */
  kTVMFFIByteArrayPtr = 9,
  /*! \brief Pointer to an object handle the callee may move from (C++ rvalue argument). */
  kTVMFFIObjectRValueRef = 10,
  /*! \brief String of at most 7 bytes stored in v_bytes, length in small_str_len. */
  kTVMFFISmallStr = 11,
  /*! \brief Bytes of at most 7 bytes stored in v_bytes, length in small_str_len. */
  kTVMFFISmallBytes = 12,
  /*! \brief Marker meaning "no new value was produced" (structural rewriting). */
  kTVMFFIUnchanged = 13,
  /*! \brief First index of the statically numbered object kinds. */
  kTVMFFIStaticObjectBegin = 64,
  /*! \brief The root object kind. */
  kTVMFFIObject = 64,
  /*! \brief String object: {TVMFFIObject, TVMFFIByteArray, ...}. */
  kTVMFFIStr = 65,
  /*! \brief Bytes object: {TVMFFIObject, TVMFFIByteArray, ...}. */
  kTVMFFIBytes = 66,
  /*! \brief Error object: {TVMFFIObject, TVMFFIErrorCell, ...}. */
  kTVMFFIError = 67,
  /*! \brief Function object: {TVMFFIObject, TVMFFIFunctionCell, ...}. */
  kTVMFFIFunction = 68,
  /*! \brief Shape object: {TVMFFIObject, TVMFFIShapeCell, ...}. */
  kTVMFFIShape = 69,
  /*! \brief Tensor object: {TVMFFIObject, DLTensor, ...}. */
  kTVMFFITensor = 70,
  /*! \brief Array object. */
  kTVMFFIArray = 71,
  /*! \brief Map object. */
  kTVMFFIMap = 72,
  /*! \brief A loaded module. */
  kTVMFFIModule = 73,
  /*! \brief A foreign (e.g. Python) object: {TVMFFIObject, TVMFFIOpaqueObjectCell}. */
  kTVMFFIOpaquePyObject = 74,
  /*! \brief List object. */
  kTVMFFIList = 75,
  /*! \brief Dict object. */
  kTVMFFIDict = 76,
  /*! \brief Structural visit interrupt object. */
  kTVMFFIVisitInterrupt = 77,
  /*! \brief Arbitrary-precision integer object. */
  kTVMFFIBigInt = 78,
  /*! \brief One past the last static object kind. */
  kTVMFFIStaticObjectEnd,
  /*! \brief First index handed out at run time. */
  kTVMFFIDynObjectBegin = 128
#ifdef __cplusplus
};
#else
} TVMFFITypeIndex;
#endif

/*! \brief An object pointer as the C API sees it (points at a TVMFFIObject). */
typedef void* TVMFFIObjectHandle;

/*! \brief What an object's deleter is asked to do. */
#ifdef __cplusplus
enum TVMFFIObjectDeleterFlagBitMask : int32_t {
#else
typedef enum {
#endif
  /*! \brief The last strong reference is gone: destroy the contents. */
  kTVMFFIObjectDeleterFlagBitMaskStrong = 1 << 0,
  /*! \brief The last weak reference is gone: free the memory. */
  kTVMFFIObjectDeleterFlagBitMaskWeak = 1 << 1,
  /*! \brief Both at once: destroy and free. */
  kTVMFFIObjectDeleterFlagBitMaskBoth =
      (kTVMFFIObjectDeleterFlagBitMaskStrong | kTVMFFIObjectDeleterFlagBitMaskWeak),
#ifdef __cplusplus
};
#else
} TVMFFIObjectDeleterFlagBitMask;
#endif

/*!
 * \brief The 24-byte header every reference-counted object starts with.
 * Reference counts are updated atomically; the library that made the object supplies the deleter,
 * so any library can release any object.
 */
typedef struct {
  /*!
   * \brief Strong count in the low 32 bits, weak count in the high 32 bits. A new object holds one
   * of each; the strong references together hold the one weak reference.
   */
  uint64_t combined_ref_count;
  /*! \brief The object's type index. */
  int32_t type_index;
  /*! \brief Padding, keeps the header 8-byte aligned. */
  uint32_t __padding;
  union {
    /*! \brief Destroys and/or frees the object, as `flags` (TVMFFIObjectDeleterFlagBitMask) say. */
    void (*deleter)(void* self, int flags);
    /*! \brief Keeps the union 8 bytes on every platform. */
    int64_t __ensure_align;
  };
} TVMFFIObject;

/*!
 * \brief The 16-byte tagged value passed through the ABI: a type index and an 8-byte payload.
 * An "AnyView" borrows whatever it points to; an "Any" owns one strong reference when it holds an
 * object (type_index >= kTVMFFIStaticObjectBegin).
 */
typedef struct {
  /*! \brief What the payload holds (TVMFFITypeIndex or a dynamic index). */
  int32_t type_index;
  union {
    /*! \brief Zero for every kind of value except small strings and bytes. */
    uint32_t zero_padding;
    /*! \brief Length of a kTVMFFISmallStr / kTVMFFISmallBytes value. */
    uint32_t small_str_len;
  };
  union {
    /*! \brief kTVMFFIInt and kTVMFFIBool. */
    int64_t v_int64;
    /*! \brief kTVMFFIFloat. */
    double v_float64;
    /*! \brief Pointers: kTVMFFIOpaquePtr, kTVMFFIDLTensorPtr, kTVMFFIByteArrayPtr, rvalue refs. */
    void* v_ptr;
    /*! \brief kTVMFFIRawStr. */
    const char* v_c_str;
    /*! \brief Objects. */
    TVMFFIObject* v_obj;
    /*! \brief kTVMFFIDataType. */
    DLDataType v_dtype;
    /*! \brief kTVMFFIDevice. */
    DLDevice v_device;
    /*! \brief Small string and small bytes content (NUL-terminated when shorter than 8). */
    char v_bytes[8];
    /*! \brief The payload as raw bits. */
    uint64_t v_uint64;
  };
} TVMFFIAny;

/*! \brief A borrowed run of bytes. */
typedef struct {
  /*! \brief First byte. */
  const char* data;
  /*! \brief Number of bytes. */
  size_t size;
} TVMFFIByteArray;

/*! \brief The cell after the header of a Shape object. */
typedef struct {
  /*! \brief The extents. */
  const int64_t* data;
  /*! \brief Number of extents. */
  size_t size;
} TVMFFIShapeCell;

/*!
 * \brief The cell after the header of an Array or List object: a run of TVMFFIAny values. An
 * Array keeps them inside its own allocation (`data_deleter` null); a List in a separate buffer
 * that `data_deleter` frees.
 */
typedef struct {
  /*! \brief The first of `capacity` TVMFFIAny cells. */
  void* data;
  /*! \brief Number of cells holding values. */
  int64_t size;
  /*! \brief Number of cells allocated. */
  int64_t capacity;
  /*! \brief Frees `data` when it is a separate buffer; null when it lives inside the object. */
  void (*data_deleter)(void*);
} TVMFFISeqCell;

/*! \brief How TVMFFIErrorCell::update_backtrace combines the new text with the old. */
#ifdef __cplusplus
enum TVMFFIBacktraceUpdateMode : int32_t {
#else
typedef enum {
#endif
  /*! \brief Replace the backtrace. */
  kTVMFFIBacktraceUpdateModeReplace = 0,
  /*! \brief Append to the backtrace (frames further from the throw site). */
  kTVMFFIBacktraceUpdateModeAppend = 1,
#ifdef __cplusplus
};
#else
} TVMFFIBacktraceUpdateMode;
#endif

/*! \brief The cell after the header of an Error object. */
typedef struct {
  /*! \brief Kind, e.g. "ValueError"; maps to an exception type in a host language. */
  TVMFFIByteArray kind;
  /*! \brief Human-readable message. */
  TVMFFIByteArray message;
  /*! \brief Frames as text, most recent call first, one per line. */
  TVMFFIByteArray backtrace;
  /*! \brief Updates `backtrace` in place (mode: TVMFFIBacktraceUpdateMode). */
  void (*update_backtrace)(TVMFFIObjectHandle self, const TVMFFIByteArray* backtrace,
                           int32_t update_mode);
  /*! \brief The error that caused this one, or NULL. */
  TVMFFIObjectHandle cause_chain;
  /*! \brief Extra context object, or NULL. */
  TVMFFIObjectHandle extra_context;
} TVMFFIErrorCell;

/*!
 * \brief The one calling convention. `args` are borrowed views; `result` starts as None and
 * receives an owned value. Returns 0 on success; -1 after setting the thread-local error
 * (TVMFFIErrorSetRaised*); -2 when a host-language error (e.g. a Python exception) is pending in
 * that host.
 */
typedef int (*TVMFFISafeCallType)(void* handle, const TVMFFIAny* args, int32_t num_args,
                                  TVMFFIAny* result);

/*! \brief The cell after the header of a Function object. */
typedef struct {
  /*! \brief Called with the Function object itself as `handle`. */
  TVMFFISafeCallType safe_call;
  /*! \brief Optional same-library C++ fast path; NULL for functions made through the C API. */
  void* cpp_call;
} TVMFFIFunctionCell;

/*! \brief The cell after the header of an opaque foreign object. */
typedef struct {
  /*! \brief The foreign handle (a PyObject* for Python). */
  void* handle;
} TVMFFIOpaqueObjectCell;

/* Reflection records, defined with the reflection functions below (TypeInfo points to them). */
struct TVMFFIFieldInfo;
struct TVMFFIMethodInfo;
struct TVMFFITypeMetadata;

/*! \brief What the runtime knows of a type. */
typedef struct TVMFFITypeInfo {
  /*! \brief The type index. */
  int32_t type_index;
  /*! \brief Number of ancestors (0 for the root object kind). */
  int32_t type_depth;
  /*! \brief Unique name, e.g. "ffi.Tensor". */
  TVMFFIByteArray type_key;
  /*! \brief `type_depth` ancestors, root first. */
  const struct TVMFFITypeInfo** type_ancestors;
  /*! \brief Hash of type_key. */
  uint64_t type_key_hash;
  /*! \brief Number of reflected fields. */
  int32_t num_fields;
  /*! \brief Number of reflected methods. */
  int32_t num_methods;
  /*! \brief Reflected fields. */
  const struct TVMFFIFieldInfo* fields;
  /*! \brief Reflected methods. */
  const struct TVMFFIMethodInfo* methods;
  /*! \brief Extra metadata, or NULL. */
  const struct TVMFFITypeMetadata* metadata;
} TVMFFITypeInfo;

/*------------------------------------------------------------------------------------------------
 * Runtime functions. Functions returning int return 0 on success and non-zero after setting the
 * thread-local error, which TVMFFIErrorMoveFromRaised retrieves.
 *------------------------------------------------------------------------------------------------*/

/*! \brief Reports the runtime's ABI version. */
TVM_FFI_DLL void TVMFFIGetVersion(TVMFFIVersion* out_version);

/*! \brief Adds one strong reference to `obj`. */
TVM_FFI_DLL int TVMFFIObjectIncRef(TVMFFIObjectHandle obj);

/*! \brief Drops one strong reference to `obj`, destroying it when it was the last. */
TVM_FFI_DLL int TVMFFIObjectDecRef(TVMFFIObjectHandle obj);

/*!
 * \brief Wraps a foreign handle into an object of `type_index` (kTVMFFIOpaquePyObject);
 * `deleter(handle)` runs when the object dies.
 */
TVM_FFI_DLL int TVMFFIObjectCreateOpaque(void* handle, int32_t type_index,
                                         void (*deleter)(void* handle), TVMFFIObjectHandle* out);

/*! \brief Looks up the index of a registered type key; an unknown key is a KeyError. */
TVM_FFI_DLL int TVMFFITypeKeyToIndex(const TVMFFIByteArray* type_key, int32_t* out_tindex);

/*!
 * \brief Registers a type, or returns the index it already has.
 * `static_type_index` >= 0 pins the index; -1 asks for a dynamic one (a slot reserved by the
 * parent when one is free, else >= kTVMFFIDynObjectBegin). `parent_type_index` is -1 for the root
 * and -2 to only query (returning -2 when the key is unknown).
 */
TVM_FFI_DLL int32_t TVMFFITypeGetOrAllocIndex(const TVMFFIByteArray* type_key,
                                              int32_t static_type_index, int32_t type_depth,
                                              int32_t num_child_slots,
                                              int32_t child_slots_can_overflow,
                                              int32_t parent_type_index);

/*! \brief The type's information, or NULL for an index never registered. */
TVM_FFI_DLL const TVMFFITypeInfo* TVMFFIGetTypeInfo(int32_t type_index);

// Reflection registration (fields, methods, metadata, type attributes) is in its own header.
#include "c_reflection_api.h"

/*!
 * \brief Makes a Function object around a C callback; `safe_call(self, ...)` is called on each
 * call and `deleter(self)` (may be NULL) when the function dies.
 */
TVM_FFI_DLL int TVMFFIFunctionCreate(void* self, TVMFFISafeCallType safe_call,
                                     void (*deleter)(void* self), TVMFFIObjectHandle* out);

/*! \brief Calls a Function object; `result` must be None on entry and is owned on return. */
TVM_FFI_DLL int TVMFFIFunctionCall(TVMFFIObjectHandle func, TVMFFIAny* args, int32_t num_args,
                                   TVMFFIAny* result);

/*!
 * \brief Registers `f` as a global function under `name` (the registry takes a reference).
 * An existing name is an error unless `allow_override` is non-zero.
 */
TVM_FFI_DLL int TVMFFIFunctionSetGlobal(const TVMFFIByteArray* name, TVMFFIObjectHandle f,
                                        int allow_override);

/*! \brief Looks up a global function; sets `*out` (a new reference) or NULL when absent. */
TVM_FFI_DLL int TVMFFIFunctionGetGlobal(const TVMFFIByteArray* name, TVMFFIObjectHandle* out);

/*!
 * \brief Copies a borrowed value into an owned one: raw strings and byte arrays become String and
 * Bytes, objects gain a reference, rvalue references are moved from. `out` must be None.
 */
TVM_FFI_DLL int TVMFFIAnyViewToOwnedAny(const TVMFFIAny* any_view, TVMFFIAny* out);

/*! \brief Moves the thread's raised error into `*result` (NULL when none) and clears it. */
TVM_FFI_DLL void TVMFFIErrorMoveFromRaised(TVMFFIObjectHandle* result);

/*! \brief Sets the thread's raised error to `error` (takes a new reference; NULL clears it). */
TVM_FFI_DLL void TVMFFIErrorSetRaised(TVMFFIObjectHandle error);

/*! \brief Raises a new error of `kind` with `message`, backtrace taken here. */
TVM_FFI_DLL void TVMFFIErrorSetRaisedFromCStr(const char* kind, const char* message);

/*! \brief Like TVMFFIErrorSetRaisedFromCStr with the message the concatenation of the parts. */
TVM_FFI_DLL void TVMFFIErrorSetRaisedFromCStrParts(const char* kind, const char** message_parts,
                                                   int32_t num_parts);

/*! \brief Makes a new Error object (not raised). */
TVM_FFI_DLL int TVMFFIErrorCreate(const TVMFFIByteArray* kind, const TVMFFIByteArray* message,
                                  const TVMFFIByteArray* backtrace, TVMFFIObjectHandle* out);

/*! \brief Makes a new Error object with a cause and an extra context (each may be NULL). */
TVM_FFI_DLL int TVMFFIErrorCreateWithCauseAndExtraContext(
    const TVMFFIByteArray* kind, const TVMFFIByteArray* message, const TVMFFIByteArray* backtrace,
    TVMFFIObjectHandle cause_chain, TVMFFIObjectHandle extra_context, TVMFFIObjectHandle* out);

/*!
 * \brief The current C++ stack as text, most recent call first, one frame per line, starting
 * with "File <filename>, line <lineno>, in <func>" when `filename` is given. The buffer is
 * thread-local and valid until the next call on the thread.
 */
TVM_FFI_DLL const TVMFFIByteArray* TVMFFIBacktrace(const char* filename, int lineno,
                                                   const char* func, int cross_ffi_boundary);

/*! \brief Makes a String (kTVMFFISmallStr when it fits in 7 bytes, else an object) in `out`. */
TVM_FFI_DLL int TVMFFIStringFromByteArray(const TVMFFIByteArray* input, TVMFFIAny* out);

/*! \brief Makes a Bytes value (kTVMFFISmallBytes when it fits in 7 bytes, else an object). */
TVM_FFI_DLL int TVMFFIBytesFromByteArray(const TVMFFIByteArray* input, TVMFFIAny* out);

/*! \brief Parses a dtype string such as "float32" or "int8x4". */
TVM_FFI_DLL int TVMFFIDataTypeFromString(const TVMFFIByteArray* str, DLDataType* out);

/*! \brief Prints a dtype as a String value in `out`. */
TVM_FFI_DLL int TVMFFIDataTypeToString(const DLDataType* dtype, TVMFFIAny* out);

/*!
 * \brief Thread-safe one-time initialisation for code generators without static initialisers:
 * when `*handle_addr` is NULL, calls `init_func` and stores its result there.
 */
TVM_FFI_DLL int TVMFFIHandleInitOnce(void** handle_addr, int (*init_func)(void** result));

/*! \brief The reverse of TVMFFIHandleInitOnce: when set, calls `deinit_func` and clears it. */
TVM_FFI_DLL int TVMFFIHandleDeinitOnce(void** handle_addr, int (*deinit_func)(void* handle));

/*------------------------------------------------------------------------------------------------
 * Tensors and DLPack.
 *------------------------------------------------------------------------------------------------*/

/*!
 * \brief Takes ownership of a legacy DLPack tensor as a Tensor object. On failure nothing is taken:
 * the tensor is still the caller's (to free with its deleter). `require_alignment` (bytes, 0 for
 * none) checks the data address; non-zero `require_contiguous` refuses strided layouts.
 */
TVM_FFI_DLL int TVMFFITensorFromDLPack(DLManagedTensor* from, int32_t require_alignment,
                                       int32_t require_contiguous, TVMFFIObjectHandle* out);

/*! \brief Exports a Tensor object as a legacy DLPack tensor holding a reference to it. */
TVM_FFI_DLL int TVMFFITensorToDLPack(TVMFFIObjectHandle from, DLManagedTensor** out);

/*! \brief As TVMFFITensorFromDLPack for a versioned DLPack tensor. */
TVM_FFI_DLL int TVMFFITensorFromDLPackVersioned(DLManagedTensorVersioned* from,
                                                int32_t require_alignment,
                                                int32_t require_contiguous,
                                                TVMFFIObjectHandle* out);

/*! \brief Exports a Tensor object as a versioned DLPack tensor holding a reference to it. */
TVM_FFI_DLL int TVMFFITensorToDLPackVersioned(TVMFFIObjectHandle from,
                                              DLManagedTensorVersioned** out);

/* The environment a host provides to kernels (streams, allocation, signals, module context). */
#include "c_env_api.h"

//------------------------------------------------------------------------------------------------
// Object storage allocator, big integers, unsafe tensor views and system-library symbols.
//------------------------------------------------------------------------------------------------

/*!
 * \brief The header an object allocator places immediately before each object body it returns.
 * `delete_space` (may be NULL when the deleter frees the storage itself) receives the body pointer
 * once the object's weak lifetime is over and reclaims the whole allocation, including any private
 * prefix the allocator put before this header. It must not read the object's fields.
 */
typedef struct {
  void (*delete_space)(void* ptr);
} TVMFFIObjectAllocHeader;

/*!
 * \brief A process-wide allocator for object storage, installed by a frontend (e.g. a Python
 * package that wants to keep per-object state in front of each object).
 *
 * `allocate(size, alignment, type_index, context)` returns uninitialized storage of `size` bytes
 * aligned to `alignment`, immediately preceded by an initialized TVMFFIObjectAllocHeader, or NULL
 * after raising an error with TVMFFIErrorSetRaised. It may be called from several threads at once.
 * `context` is passed unchanged to `allocate`; the runtime neither reads nor owns it. The struct
 * and its context must stay valid while installed.
 */
typedef struct {
  void* (*allocate)(size_t size, size_t alignment, int32_t type_index, void* context);
  void* context;
} TVMFFICustomAllocator;

/*!
 * \brief The installed object allocator, never NULL: the built-in one until a frontend installs
 * its own. Reading is not synchronized with TVMFFISetCustomAllocator: install once, early.
 */
TVM_FFI_DLL TVMFFICustomAllocator* TVMFFIGetCustomAllocator(void);

/*!
 * \brief Installs `allocator` process-wide (NULL restores the built-in one). It must stay valid
 * for as long as it is installed. Returns 0; never fails.
 */
TVM_FFI_DLL int TVMFFISetCustomAllocator(TVMFFICustomAllocator* allocator);

/*!
 * \brief Makes an integer from 64-bit words, least significant first, each in native byte order,
 * two's complement. `input->size` must be a multiple of 8 (ValueError otherwise); zero bytes mean
 * 0, and redundant sign-extension words are dropped. A value that fits in int64_t comes back as
 * kTVMFFIInt, a larger one as a kTVMFFIBigInt object owned by the caller.
 */
TVM_FFI_DLL int TVMFFIBigIntFromByteArray(const TVMFFIByteArray* input, TVMFFIAny* out);

/*!
 * \brief Borrows the words of a kTVMFFIInt or kTVMFFIBigInt value (the layout
 * TVMFFIBigIntFromByteArray takes, minimal, at least one word). The view lives as long as `value`
 * and what it references. Anything else (including NULL) gives {NULL, 0} and raises a TypeError.
 */
TVM_FFI_DLL TVMFFIByteArray TVMFFIBigIntGetContentByteArray(const TVMFFIAny* value);

/*!
 * \brief A Tensor that describes the memory of Tensor `source` as `prototype` does (data pointer,
 * byte_offset, dtype, device, shape and strides are copied; NULL strides mean compact ones) and
 * keeps `source` alive. Unsafe: whether `prototype` addresses memory inside `source` is the
 * caller's promise and is not checked; the prototype itself is validated (ndim, shape, sizes).
 */
TVM_FFI_DLL int TVMFFITensorCreateUnsafeView(TVMFFIObjectHandle source, const DLTensor* prototype,
                                             TVMFFIObjectHandle* out);

/*!
 * \brief Registers a symbol of a statically linked ("system") library under `name` (usually
 * `__tvm_ffi_<prefix><function>`, the function a TVMFFISafeCallType). Registering a name again
 * replaces the address. The global function "ffi.SystemLib"(prefix) gives a module over them.
 */
TVM_FFI_DLL int TVMFFIEnvModRegisterSystemLibSymbol(const char* name, void* symbol);

#ifdef __cplusplus
}  // extern "C"

/*! \brief The type index stored in an object's header. */
inline int32_t TVMFFIObjectGetTypeIndex(TVMFFIObjectHandle obj) {
  return static_cast<TVMFFIObject*>(obj)->type_index;
}

/*! \brief The content of a small string or small bytes value. */
inline TVMFFIByteArray TVMFFISmallBytesGetContentByteArray(const TVMFFIAny* value) {
  return TVMFFIByteArray{value->v_bytes, static_cast<size_t>(value->small_str_len)};
}

/*! \brief The byte array of a String or Bytes object. */
inline TVMFFIByteArray* TVMFFIBytesGetByteArrayPtr(TVMFFIObjectHandle obj) {
  return reinterpret_cast<TVMFFIByteArray*>(static_cast<char*>(obj) + sizeof(TVMFFIObject));
}

/*! \brief The cell of an Error object. */
inline TVMFFIErrorCell* TVMFFIErrorGetCellPtr(TVMFFIObjectHandle obj) {
  return reinterpret_cast<TVMFFIErrorCell*>(static_cast<char*>(obj) + sizeof(TVMFFIObject));
}

/*! \brief The cell of a Function object. */
inline TVMFFIFunctionCell* TVMFFIFunctionGetCellPtr(TVMFFIObjectHandle obj) {
  return reinterpret_cast<TVMFFIFunctionCell*>(static_cast<char*>(obj) + sizeof(TVMFFIObject));
}

/*! \brief The cell of an opaque foreign object. */
inline TVMFFIOpaqueObjectCell* TVMFFIOpaqueObjectGetCellPtr(TVMFFIObjectHandle obj) {
  return reinterpret_cast<TVMFFIOpaqueObjectCell*>(static_cast<char*>(obj) + sizeof(TVMFFIObject));
}

/*! \brief The cell of a Shape object. */
inline TVMFFIShapeCell* TVMFFIShapeGetCellPtr(TVMFFIObjectHandle obj) {
  return reinterpret_cast<TVMFFIShapeCell*>(static_cast<char*>(obj) + sizeof(TVMFFIObject));
}

/*! \brief The DLTensor inside a Tensor object. */
inline DLTensor* TVMFFITensorGetDLTensorPtr(TVMFFIObjectHandle obj) {
  return reinterpret_cast<DLTensor*>(static_cast<char*>(obj) + sizeof(TVMFFIObject));
}

/*! \brief A DLDevice from two integers. */
inline DLDevice TVMFFIDLDeviceFromIntPair(int32_t device_type, int32_t device_id) {
  return DLDevice{static_cast<DLDeviceType>(device_type), device_id};
}
#endif  // __cplusplus

#endif  // FFI_C_API_H_
