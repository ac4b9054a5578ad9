/*
 * ffi/c_reflection_api.h - the reflection part of the stable C ABI: fields, methods, metadata and
 * type attributes registered per type. Included by c_api.h (the reference keeps these functions in
 * its c_api.h, so code including either header sees them); C99-compatible.
 */
#ifndef FFI_C_REFLECTION_API_H_
#define FFI_C_REFLECTION_API_H_

#include "c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/*------------------------------------------------------------------------------------------------
 * Reflection: fields, methods, metadata and attributes registered per type, which
 * TVMFFIGetTypeInfo and TVMFFIGetTypeAttrColumn expose. Records passed in are copied (strings,
 * values and function handles are owned by the runtime), so callers may free theirs afterwards.
 *------------------------------------------------------------------------------------------------*/

/*! \brief Reads the field at address `field` into `result` (owned); 0 on success. */
typedef int (*TVMFFIFieldGetter)(void* field, TVMFFIAny* result);

/*! \brief Writes `value` into the field at address `field`; 0 on success. */
typedef int (*TVMFFIFieldSetter)(void* field, const TVMFFIAny* value);

/*! \brief Makes a new, default-initialized object of a type into `*result`; 0 on success. */
typedef int (*TVMFFIObjectCreator)(TVMFFIObjectHandle* result);

/*! \brief Bits of TVMFFIFieldInfo::flags (and TVMFFIMethodInfo::flags for the static bit). */
#ifdef __cplusplus
enum TVMFFIFieldFlagBitMask : int32_t {
#else
typedef enum {
#endif
  /*! \brief The field may be written through the setter. */
  kTVMFFIFieldFlagBitMaskWritable = 1 << 0,
  /*! \brief default_value_or_factory holds a default. */
  kTVMFFIFieldFlagBitMaskHasDefault = 1 << 1,
  /*! \brief On a method: it takes no `self` argument. */
  kTVMFFIFieldFlagBitMaskIsStaticMethod = 1 << 2,
  /*! \brief Structural equality and hashing skip the field. */
  kTVMFFIFieldFlagBitMaskSEqHashIgnore = 1 << 3,
  /*! \brief The field opens a pattern definition region for structural equality/hashing. */
  kTVMFFIFieldFlagBitMaskSEqHashDefPattern = 1 << 4,
  /*! \brief default_value_or_factory is a Function called with no arguments for the default. */
  kTVMFFIFieldFlagBitMaskDefaultFromFactory = 1 << 5,
  /*! \brief Generic repr leaves the field out. */
  kTVMFFIFieldFlagBitMaskReprOff = 1 << 6,
  /*! \brief Generic recursive comparison leaves the field out. */
  kTVMFFIFieldFlagBitMaskCompareOff = 1 << 7,
  /*! \brief Generic recursive hashing leaves the field out. */
  kTVMFFIFieldFlagBitMaskHashOff = 1 << 8,
  /*! \brief The generated constructor takes no argument for the field. */
  kTVMFFIFieldFlagBitMaskInitOff = 1 << 9,
  /*! \brief The generated constructor takes the field by keyword only. */
  kTVMFFIFieldFlagBitMaskKwOnly = 1 << 10,
  /*! \brief `setter` is a Function object handle called as (field address, value). */
  kTVMFFIFieldFlagBitSetterIsFunctionObj = 1 << 11,
  /*! \brief The field opens a simple definition region for structural equality/hashing. */
  kTVMFFIFieldFlagBitMaskSEqHashDefSimple = 1 << 12,
#ifdef __cplusplus
};
#else
} TVMFFIFieldFlagBitMask;
#endif

/*! \brief How structural equality and hashing treat objects of a type. */
#ifdef __cplusplus
enum TVMFFISEqHashKind : int32_t {
#else
typedef enum {
#endif
  /*! \brief No structural equality or hashing. */
  kTVMFFISEqHashKindUnsupported = 0,
  /*! \brief Compared field by field as a tree. */
  kTVMFFISEqHashKindTreeNode = 1,
  /*! \brief A variable, mapped to another one where it is defined. */
  kTVMFFISEqHashKindFreeVar = 2,
  /*! \brief Compared as a node of a DAG (sharing matters). */
  kTVMFFISEqHashKindDAGNode = 3,
  /*! \brief A tree without free variables. */
  kTVMFFISEqHashKindConstTreeNode = 4,
  /*! \brief One instance per value: pointer equality suffices. */
  kTVMFFISEqHashKindUniqueInstance = 5,
#ifdef __cplusplus
};
#else
} TVMFFISEqHashKind;
#endif

/*! \brief The definition region a structural equality/hash visit is in. */
#ifdef __cplusplus
enum TVMFFIDefRegionKind : int32_t {
#else
typedef enum {
#endif
  /*! \brief Outside any definition region: variables are uses. */
  kTVMFFIDefRegionKindNone = 0,
  /*! \brief A pattern region: variables bind on first sight, including those in types. */
  kTVMFFIDefRegionKindPattern = 1,
  /*! \brief A simple region: only the variable itself is defined. */
  kTVMFFIDefRegionKindSimple = 2,
#ifdef __cplusplus
};
#else
} TVMFFIDefRegionKind;
#endif

/*! \brief A reflected field of an object type. */
typedef struct TVMFFIFieldInfo {
  /*! \brief Field name, unique within its type. */
  TVMFFIByteArray name;
  /*! \brief Documentation. */
  TVMFFIByteArray doc;
  /*! \brief Structured metadata as JSON text. */
  TVMFFIByteArray metadata;
  /*! \brief TVMFFIFieldFlagBitMask bits. */
  int64_t flags;
  /*! \brief Size of the field in bytes. */
  int64_t size;
  /*! \brief Alignment of the field in bytes. */
  int64_t alignment;
  /*! \brief Byte offset of the field from the start of the object (its header). */
  int64_t offset;
  /*! \brief Reads the field. */
  TVMFFIFieldGetter getter;
  /*! \brief A TVMFFIFieldSetter, or a Function handle with kTVMFFIFieldFlagBitSetterIsFunctionObj.
   */
  void* setter;
  /*! \brief The default value, or a factory Function (see the flags). */
  TVMFFIAny default_value_or_factory;
  /*! \brief Type index of the field's declared type (a hint, not the runtime type). */
  int32_t field_static_type_index;
} TVMFFIFieldInfo;

/*! \brief A reflected method of a type, or a global function with its documentation. */
typedef struct TVMFFIMethodInfo {
  /*! \brief Method (or global function) name. */
  TVMFFIByteArray name;
  /*! \brief Documentation. */
  TVMFFIByteArray doc;
  /*! \brief Structured metadata as JSON text. */
  TVMFFIByteArray metadata;
  /*! \brief TVMFFIFieldFlagBitMask bits (kTVMFFIFieldFlagBitMaskIsStaticMethod). */
  int64_t flags;
  /*! \brief The Function; an instance method takes `self` first. */
  TVMFFIAny method;
} TVMFFIMethodInfo;

/*! \brief Extra information about an object type, used to create objects by reflection. */
typedef struct TVMFFITypeMetadata {
  /*! \brief Documentation of the type. */
  TVMFFIByteArray doc;
  /*! \brief Makes an empty object whose fields the caller then sets, or NULL. */
  TVMFFIObjectCreator creator;
  /*! \brief sizeof the object when fixed, else 0. */
  int32_t total_size;
  /*! \brief How structural equality and hashing treat the type. */
  TVMFFISEqHashKind structural_eq_hash_kind;
} TVMFFITypeMetadata;

/*!
 * \brief One attribute across types: the value for type index `i` is data[i - begin_index] when
 * begin_index <= i < begin_index + size, and None otherwise. Like a type trait, an attribute of a
 * parent type is not inherited.
 */
typedef struct {
  /*! \brief Values indexed by (type index - begin_index); None where unset. */
  const TVMFFIAny* data;
  /*! \brief Number of entries in data. */
  int32_t size;
  /*! \brief Type index of data[0]. */
  int32_t begin_index;
} TVMFFITypeAttrColumn;

/*!
 * \brief Registers a global function as TVMFFIFunctionSetGlobal does, taking the name and the
 * Function (in `method`) from `method_info` and keeping its doc and metadata, which the global
 * function `ffi.GetGlobalFuncMetadata(name)` returns.
 */
TVM_FFI_DLL int TVMFFIFunctionSetGlobalFromMethodInfo(const TVMFFIMethodInfo* method_info,
                                                      int allow_override);

/*! \brief Adds a field to a type's reflection; a name the type already has is a ValueError. */
TVM_FFI_DLL int TVMFFITypeRegisterField(int32_t type_index, const TVMFFIFieldInfo* info);

/*! \brief Adds a method to a type's reflection; a name the type already has is a ValueError. */
TVM_FFI_DLL int TVMFFITypeRegisterMethod(int32_t type_index, const TVMFFIMethodInfo* info);

/*! \brief Sets (or replaces) a type's metadata. */
TVM_FFI_DLL int TVMFFITypeRegisterMetadata(int32_t type_index, const TVMFFITypeMetadata* metadata);

/*!
 * \brief Sets attribute `attr_name` of a type to `attr_value`; setting one a type already has is
 * a ValueError. With type index kTVMFFINone it only makes sure the column exists.
 */
TVM_FFI_DLL int TVMFFITypeRegisterAttr(int32_t type_index, const TVMFFIByteArray* attr_name,
                                       const TVMFFIAny* attr_value);

/*!
 * \brief The column of attribute `attr_name`, or NULL when no type registered it. The pointer is
 * stable; its contents grow as types register the attribute.
 */
TVM_FFI_DLL const TVMFFITypeAttrColumn* TVMFFIGetTypeAttrColumn(const TVMFFIByteArray* attr_name);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // FFI_C_REFLECTION_API_H_
