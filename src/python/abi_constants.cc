// The ABI's constants as this extension was compiled against them: type indices, field flags,
// structural kinds, DLPack codes, the C++ enums hosts exchange as integers, the ABI version and the
// sizes of the C types objects are laid out in. Each is a read-only mapping on ffi._core named
// after its C enum, keyed by the enumerator's name, so that the Python package (python/ffi/_abi.py)
// reads every number from the headers instead of writing it a second time.
#include "abi_constants.h"

#include <ffi/c_api.h>
#include <ffi/c_reflection_api.h>
#include <ffi/extra/structural_mutate.h>
#include <ffi/extra/structural_visit.h>
#include <ffi/reflection/access_path.h>

#include <cstdint>
#include <initializer_list>

namespace tvm::ffi::python {
namespace {

/*! \brief One named value of a table. */
struct Entry {
  const char* name;
  long long value;
};

/*! \brief The entry `name` holding `value`. */
constexpr Entry Named(const char* name, long long value) { return Entry{name, value}; }

// An enumerator of a C enum under its own name, and one of a scoped C++ enum.
#define FFI_ABI_ENTRY(name) Named(#name, static_cast<long long>(name))
#define FFI_ABI_SCOPED(scope, name) Named(#name, static_cast<long long>(scope::name))

/*! \brief Adds `entries` to `module` as the read-only mapping `table` (name -> int). */
bool AddTable(PyObject* module, const char* table, std::initializer_list<Entry> entries) {
  PyObject* dict = PyDict_New();
  if (dict == nullptr) return false;
  for (const Entry& entry : entries) {
    PyObject* value = PyLong_FromLongLong(entry.value);
    int rc = value == nullptr ? -1 : PyDict_SetItemString(dict, entry.name, value);
    Py_XDECREF(value);
    if (rc < 0) {
      Py_DECREF(dict);
      return false;
    }
  }
  PyObject* proxy = PyDictProxy_New(dict);  // read-only: the numbers are the headers'
  Py_DECREF(dict);
  if (proxy == nullptr) return false;
  if (PyModule_AddObject(module, table, proxy) < 0) {  // steals `proxy` only on success
    Py_DECREF(proxy);
    return false;
  }
  return true;
}

/*! \brief Adds `value` (a new reference, NULL on failure) to `module` as `name`. */
bool AddValue(PyObject* module, const char* name, PyObject* value) {
  if (value == nullptr) return false;
  if (PyModule_AddObject(module, name, value) < 0) {
    Py_DECREF(value);
    return false;
  }
  return true;
}

}  // namespace

bool InitAbiConstants(PyObject* module) {
  return AddTable(module, "TVMFFITypeIndex",
                  {
                      FFI_ABI_ENTRY(kTVMFFIAny),
                      FFI_ABI_ENTRY(kTVMFFINone),
                      FFI_ABI_ENTRY(kTVMFFIInt),
                      FFI_ABI_ENTRY(kTVMFFIBool),
                      FFI_ABI_ENTRY(kTVMFFIFloat),
                      FFI_ABI_ENTRY(kTVMFFIOpaquePtr),
                      FFI_ABI_ENTRY(kTVMFFIDataType),
                      FFI_ABI_ENTRY(kTVMFFIDevice),
                      FFI_ABI_ENTRY(kTVMFFIDLTensorPtr),
                      FFI_ABI_ENTRY(kTVMFFIRawStr),
                      FFI_ABI_ENTRY(kTVMFFIByteArrayPtr),
                      FFI_ABI_ENTRY(kTVMFFIObjectRValueRef),
                      FFI_ABI_ENTRY(kTVMFFISmallStr),
                      FFI_ABI_ENTRY(kTVMFFISmallBytes),
                      FFI_ABI_ENTRY(kTVMFFIUnchanged),
                      FFI_ABI_ENTRY(kTVMFFIStaticObjectBegin),
                      FFI_ABI_ENTRY(kTVMFFIObject),
                      FFI_ABI_ENTRY(kTVMFFIStr),
                      FFI_ABI_ENTRY(kTVMFFIBytes),
                      FFI_ABI_ENTRY(kTVMFFIError),
                      FFI_ABI_ENTRY(kTVMFFIFunction),
                      FFI_ABI_ENTRY(kTVMFFIShape),
                      FFI_ABI_ENTRY(kTVMFFITensor),
                      FFI_ABI_ENTRY(kTVMFFIArray),
                      FFI_ABI_ENTRY(kTVMFFIMap),
                      FFI_ABI_ENTRY(kTVMFFIModule),
                      FFI_ABI_ENTRY(kTVMFFIOpaquePyObject),
                      FFI_ABI_ENTRY(kTVMFFIList),
                      FFI_ABI_ENTRY(kTVMFFIDict),
                      FFI_ABI_ENTRY(kTVMFFIVisitInterrupt),
                      FFI_ABI_ENTRY(kTVMFFIBigInt),
                      FFI_ABI_ENTRY(kTVMFFIStaticObjectEnd),
                      FFI_ABI_ENTRY(kTVMFFIDynObjectBegin),
                  }) &&
         AddTable(module, "TVMFFIFieldFlagBitMask",
                  {
                      FFI_ABI_ENTRY(kTVMFFIFieldFlagBitMaskWritable),
                      FFI_ABI_ENTRY(kTVMFFIFieldFlagBitMaskHasDefault),
                      FFI_ABI_ENTRY(kTVMFFIFieldFlagBitMaskIsStaticMethod),
                      FFI_ABI_ENTRY(kTVMFFIFieldFlagBitMaskSEqHashIgnore),
                      FFI_ABI_ENTRY(kTVMFFIFieldFlagBitMaskSEqHashDefPattern),
                      FFI_ABI_ENTRY(kTVMFFIFieldFlagBitMaskDefaultFromFactory),
                      FFI_ABI_ENTRY(kTVMFFIFieldFlagBitMaskReprOff),
                      FFI_ABI_ENTRY(kTVMFFIFieldFlagBitMaskCompareOff),
                      FFI_ABI_ENTRY(kTVMFFIFieldFlagBitMaskHashOff),
                      FFI_ABI_ENTRY(kTVMFFIFieldFlagBitMaskInitOff),
                      FFI_ABI_ENTRY(kTVMFFIFieldFlagBitMaskKwOnly),
                      FFI_ABI_ENTRY(kTVMFFIFieldFlagBitSetterIsFunctionObj),
                      FFI_ABI_ENTRY(kTVMFFIFieldFlagBitMaskSEqHashDefSimple),
                  }) &&
         AddTable(module, "TVMFFISEqHashKind",
                  {
                      FFI_ABI_ENTRY(kTVMFFISEqHashKindUnsupported),
                      FFI_ABI_ENTRY(kTVMFFISEqHashKindTreeNode),
                      FFI_ABI_ENTRY(kTVMFFISEqHashKindFreeVar),
                      FFI_ABI_ENTRY(kTVMFFISEqHashKindDAGNode),
                      FFI_ABI_ENTRY(kTVMFFISEqHashKindConstTreeNode),
                      FFI_ABI_ENTRY(kTVMFFISEqHashKindUniqueInstance),
                  }) &&
         AddTable(module, "TVMFFIDefRegionKind",
                  {
                      FFI_ABI_ENTRY(kTVMFFIDefRegionKindNone),
                      FFI_ABI_ENTRY(kTVMFFIDefRegionKindPattern),
                      FFI_ABI_ENTRY(kTVMFFIDefRegionKindSimple),
                  }) &&
         AddTable(module, "DLDeviceType",
                  {
                      FFI_ABI_ENTRY(kDLCPU),
                      FFI_ABI_ENTRY(kDLCUDA),
                      FFI_ABI_ENTRY(kDLCUDAHost),
                      FFI_ABI_ENTRY(kDLOpenCL),
                      FFI_ABI_ENTRY(kDLVulkan),
                      FFI_ABI_ENTRY(kDLMetal),
                      FFI_ABI_ENTRY(kDLVPI),
                      FFI_ABI_ENTRY(kDLROCM),
                      FFI_ABI_ENTRY(kDLROCMHost),
                      FFI_ABI_ENTRY(kDLExtDev),
                      FFI_ABI_ENTRY(kDLCUDAManaged),
                      FFI_ABI_ENTRY(kDLOneAPI),
                      FFI_ABI_ENTRY(kDLWebGPU),
                      FFI_ABI_ENTRY(kDLHexagon),
                      FFI_ABI_ENTRY(kDLMAIA),
                      FFI_ABI_ENTRY(kDLTrn),
                  }) &&
         AddTable(module, "DLDataTypeCode",
                  {
                      FFI_ABI_ENTRY(kDLInt),
                      FFI_ABI_ENTRY(kDLUInt),
                      FFI_ABI_ENTRY(kDLFloat),
                      FFI_ABI_ENTRY(kDLOpaqueHandle),
                      FFI_ABI_ENTRY(kDLBfloat),
                      FFI_ABI_ENTRY(kDLComplex),
                      FFI_ABI_ENTRY(kDLBool),
                      FFI_ABI_ENTRY(kDLFloat8_e3m4),
                      FFI_ABI_ENTRY(kDLFloat8_e4m3),
                      FFI_ABI_ENTRY(kDLFloat8_e4m3b11fnuz),
                      FFI_ABI_ENTRY(kDLFloat8_e4m3fn),
                      FFI_ABI_ENTRY(kDLFloat8_e4m3fnuz),
                      FFI_ABI_ENTRY(kDLFloat8_e5m2),
                      FFI_ABI_ENTRY(kDLFloat8_e5m2fnuz),
                      FFI_ABI_ENTRY(kDLFloat8_e8m0fnu),
                      FFI_ABI_ENTRY(kDLFloat6_e2m3fn),
                      FFI_ABI_ENTRY(kDLFloat6_e3m2fn),
                      FFI_ABI_ENTRY(kDLFloat4_e2m1fn),
                  }) &&
         AddTable(module, "AccessKind",
                  {
                      FFI_ABI_SCOPED(reflection::AccessKind, kAttr),
                      FFI_ABI_SCOPED(reflection::AccessKind, kArrayItem),
                      FFI_ABI_SCOPED(reflection::AccessKind, kMapItem),
                      FFI_ABI_SCOPED(reflection::AccessKind, kAttrMissing),
                      FFI_ABI_SCOPED(reflection::AccessKind, kArrayItemMissing),
                      FFI_ABI_SCOPED(reflection::AccessKind, kMapItemMissing),
                  }) &&
         AddTable(module, "WalkOrder",
                  {
                      FFI_ABI_SCOPED(WalkOrder, kPreOrder),
                      FFI_ABI_SCOPED(WalkOrder, kPostOrder),
                  }) &&
         AddTable(module, "WalkResult",
                  {
                      FFI_ABI_SCOPED(WalkResult, kAdvance),
                      FFI_ABI_SCOPED(WalkResult, kSkip),
                  }) &&
         AddTable(module, "InplaceMode",
                  {
                      FFI_ABI_SCOPED(InplaceMode, kDisallow),
                      FFI_ABI_SCOPED(InplaceMode, kAllow),
                  }) &&
         // Sizes and alignments of what objects are laid out in (py_class fields, the header).
         AddTable(module, "sizeof",
                  {
                      Entry{"TVMFFIObject", sizeof(TVMFFIObject)},
                      Entry{"TVMFFIAny", sizeof(TVMFFIAny)},
                      Entry{"int64_t", sizeof(int64_t)},
                      Entry{"double", sizeof(double)},
                      Entry{"bool", sizeof(bool)},
                      Entry{"void*", sizeof(void*)},
                  }) &&
         AddTable(module, "alignof",
                  {
                      Entry{"TVMFFIObject", alignof(TVMFFIObject)},
                      Entry{"TVMFFIAny", alignof(TVMFFIAny)},
                      Entry{"int64_t", alignof(int64_t)},
                      Entry{"double", alignof(double)},
                      Entry{"bool", alignof(bool)},
                      Entry{"void*", alignof(void*)},
                  }) &&
         AddValue(module, "TVM_FFI_VERSION",
                  Py_BuildValue("(iii)", TVM_FFI_VERSION_MAJOR, TVM_FFI_VERSION_MINOR,
                                TVM_FFI_VERSION_PATCH));
}

#undef FFI_ABI_ENTRY
#undef FFI_ABI_SCOPED

}  // namespace tvm::ffi::python
