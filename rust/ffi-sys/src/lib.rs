//! The ffi C ABI, declared by hand from `include/ffi/c_api.h`, `c_reflection_api.h`,
//! `c_env_api.h` and `dlpack.h`: the same types, enum values, layouts and functions, binary
//! compatible with the TVM-FFI ABI 0.1.x.
//!
//! Everything here is `unsafe` and follows the C headers' contracts; the `ffi` crate wraps it.
//! Linking: the build script finds the runtime library (`FFI_LIBDIR`, or `python3 -m ffi.config
//! --libdir`) and links it; the library's SONAME is the standard runtime's, so a library or
//! program built with this crate binds to whichever TVM-FFI runtime a process loaded first.
#![allow(non_camel_case_types, non_snake_case, non_upper_case_globals)]
#![warn(missing_docs)]

use std::ffi::{c_char, c_int, c_void};

// ---------------------------------------------------------------------------------------------
// DLPack 1.x
// ---------------------------------------------------------------------------------------------

/// A DLPack version pair.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DLPackVersion {
    /// Major version; changes break the ABI.
    pub major: u32,
    /// Minor version; changes are compatible.
    pub minor: u32,
}

/// The DLPack version these declarations follow.
pub const DLPACK_MAJOR_VERSION: u32 = 1;
/// The DLPack minor version these declarations follow.
pub const DLPACK_MINOR_VERSION: u32 = 3;

/// A device kind (`DLDeviceType`); the constants `kDL*` below are its values.
pub type DLDeviceType = i32;
/// Host memory.
pub const kDLCPU: DLDeviceType = 1;
/// CUDA device memory.
pub const kDLCUDA: DLDeviceType = 2;
/// Pinned host memory allocated by CUDA.
pub const kDLCUDAHost: DLDeviceType = 3;
/// OpenCL.
pub const kDLOpenCL: DLDeviceType = 4;
/// Vulkan.
pub const kDLVulkan: DLDeviceType = 7;
/// Metal.
pub const kDLMetal: DLDeviceType = 8;
/// Verilog simulator.
pub const kDLVPI: DLDeviceType = 9;
/// ROCm device memory.
pub const kDLROCM: DLDeviceType = 10;
/// Pinned host memory allocated by ROCm.
pub const kDLROCMHost: DLDeviceType = 11;
/// Reserved for extension devices.
pub const kDLExtDev: DLDeviceType = 12;
/// CUDA managed (unified) memory.
pub const kDLCUDAManaged: DLDeviceType = 13;
/// oneAPI.
pub const kDLOneAPI: DLDeviceType = 14;
/// WebGPU.
pub const kDLWebGPU: DLDeviceType = 15;
/// Qualcomm Hexagon DSP.
pub const kDLHexagon: DLDeviceType = 16;
/// Microsoft MAIA.
pub const kDLMAIA: DLDeviceType = 17;
/// AWS Trainium.
pub const kDLTrn: DLDeviceType = 18;

/// A device: its kind and its ordinal among devices of that kind.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DLDevice {
    /// One of the `kDL*` device kinds.
    pub device_type: DLDeviceType,
    /// Ordinal of the device.
    pub device_id: i32,
}

/// Signed integer element family (`DLDataTypeCode`).
pub const kDLInt: u8 = 0;
/// Unsigned integer.
pub const kDLUInt: u8 = 1;
/// IEEE binary floating point.
pub const kDLFloat: u8 = 2;
/// Opaque handle.
pub const kDLOpaqueHandle: u8 = 3;
/// bfloat16.
pub const kDLBfloat: u8 = 4;
/// Complex: real then imaginary part; `bits` covers both.
pub const kDLComplex: u8 = 5;
/// Boolean.
pub const kDLBool: u8 = 6;
/// 8-bit float e3m4.
pub const kDLFloat8_e3m4: u8 = 7;
/// 8-bit float e4m3.
pub const kDLFloat8_e4m3: u8 = 8;
/// 8-bit float e4m3b11fnuz.
pub const kDLFloat8_e4m3b11fnuz: u8 = 9;
/// 8-bit float e4m3fn.
pub const kDLFloat8_e4m3fn: u8 = 10;
/// 8-bit float e4m3fnuz.
pub const kDLFloat8_e4m3fnuz: u8 = 11;
/// 8-bit float e5m2.
pub const kDLFloat8_e5m2: u8 = 12;
/// 8-bit float e5m2fnuz.
pub const kDLFloat8_e5m2fnuz: u8 = 13;
/// 8-bit exponent-only scale e8m0fnu.
pub const kDLFloat8_e8m0fnu: u8 = 14;
/// 6-bit float e2m3fn.
pub const kDLFloat6_e2m3fn: u8 = 15;
/// 6-bit float e3m2fn.
pub const kDLFloat6_e3m2fn: u8 = 16;
/// 4-bit float e2m1fn.
pub const kDLFloat4_e2m1fn: u8 = 17;

/// An element type: family (`kDL*` code), bits per lane and number of lanes.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DLDataType {
    /// The family, one of the `kDL*` type codes.
    pub code: u8,
    /// Bits per lane.
    pub bits: u8,
    /// Lanes (1 for scalars).
    pub lanes: u16,
}

/// A tensor description: memory, device, shape, element type and layout.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DLTensor {
    /// Start of the allocation (device memory for device tensors).
    pub data: *mut c_void,
    /// Where the memory lives.
    pub device: DLDevice,
    /// Number of dimensions.
    pub ndim: i32,
    /// Element type.
    pub dtype: DLDataType,
    /// `ndim` extents.
    pub shape: *mut i64,
    /// `ndim` strides in elements, or null for a compact row-major layout.
    pub strides: *mut i64,
    /// Bytes from `data` to the first element.
    pub byte_offset: u64,
}

/// A legacy (unversioned) managed tensor: the description plus who frees it.
#[repr(C)]
#[derive(Debug)]
pub struct DLManagedTensor {
    /// The tensor.
    pub dl_tensor: DLTensor,
    /// The producer's context.
    pub manager_ctx: *mut c_void,
    /// Called once by the consumer when it is done; may be null.
    pub deleter: Option<unsafe extern "C" fn(*mut DLManagedTensor)>,
}

/// The tensor's data must not be written.
pub const DLPACK_FLAG_BITMASK_READ_ONLY: u64 = 1 << 0;
/// The tensor was copied for the consumer.
pub const DLPACK_FLAG_BITMASK_IS_COPIED: u64 = 1 << 1;
/// Sub-byte elements are padded to whole bytes.
pub const DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED: u64 = 1 << 2;

/// A versioned managed tensor (DLPack 1.x).
#[repr(C)]
#[derive(Debug)]
pub struct DLManagedTensorVersioned {
    /// The DLPack version the producer wrote.
    pub version: DLPackVersion,
    /// The producer's context.
    pub manager_ctx: *mut c_void,
    /// Called once by the consumer when it is done; may be null.
    pub deleter: Option<unsafe extern "C" fn(*mut DLManagedTensorVersioned)>,
    /// `DLPACK_FLAG_BITMASK_*` bits.
    pub flags: u64,
    /// The tensor.
    pub dl_tensor: DLTensor,
}

/// Allocates a tensor shaped like `prototype`; reports failures through `SetError`.
pub type DLPackManagedTensorAllocator = Option<
    unsafe extern "C" fn(
        prototype: *mut DLTensor,
        out: *mut *mut DLManagedTensorVersioned,
        error_ctx: *mut c_void,
        SetError: Option<
            unsafe extern "C" fn(
                error_ctx: *mut c_void,
                kind: *const c_char,
                message: *const c_char,
            ),
        >,
    ) -> c_int,
>;

// ---------------------------------------------------------------------------------------------
// Values and objects
// ---------------------------------------------------------------------------------------------

/// Major version of the ABI declared here.
pub const TVM_FFI_VERSION_MAJOR: u32 = 0;
/// Minor version of the ABI declared here.
pub const TVM_FFI_VERSION_MINOR: u32 = 1;
/// Patch version of the ABI declared here.
pub const TVM_FFI_VERSION_PATCH: u32 = 16;

/// A version triple, as `TVMFFIGetVersion` reports it.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TVMFFIVersion {
    /// Major version.
    pub major: u32,
    /// Minor version.
    pub minor: u32,
    /// Patch version.
    pub patch: u32,
}

/// A type index (`TVMFFITypeIndex`): what an Any holds or what kind an object is.
pub type TVMFFITypeIndex = i32;
/// Any type (used in type schemas, never stored).
pub const kTVMFFIAny: TVMFFITypeIndex = -1;
/// None.
pub const kTVMFFINone: TVMFFITypeIndex = 0;
/// A 64-bit signed integer.
pub const kTVMFFIInt: TVMFFITypeIndex = 1;
/// A boolean (stored in `v_int64`).
pub const kTVMFFIBool: TVMFFITypeIndex = 2;
/// A double.
pub const kTVMFFIFloat: TVMFFITypeIndex = 3;
/// An opaque pointer.
pub const kTVMFFIOpaquePtr: TVMFFITypeIndex = 4;
/// A DLDataType.
pub const kTVMFFIDataType: TVMFFITypeIndex = 5;
/// A DLDevice.
pub const kTVMFFIDevice: TVMFFITypeIndex = 6;
/// A borrowed `DLTensor*`.
pub const kTVMFFIDLTensorPtr: TVMFFITypeIndex = 7;
/// A borrowed NUL-terminated C string.
pub const kTVMFFIRawStr: TVMFFITypeIndex = 8;
/// A borrowed `TVMFFIByteArray*`.
pub const kTVMFFIByteArrayPtr: TVMFFITypeIndex = 9;
/// An object reference the callee may move from.
pub const kTVMFFIObjectRValueRef: TVMFFITypeIndex = 10;
/// A string of at most 7 bytes stored in the Any.
pub const kTVMFFISmallStr: TVMFFITypeIndex = 11;
/// Bytes, at most 7, stored in the Any.
pub const kTVMFFISmallBytes: TVMFFITypeIndex = 12;
/// "Leave the value as it was" marker.
pub const kTVMFFIUnchanged: TVMFFITypeIndex = 13;
/// First object type index.
pub const kTVMFFIStaticObjectBegin: TVMFFITypeIndex = 64;
/// The root object type.
pub const kTVMFFIObject: TVMFFITypeIndex = 64;
/// A String object.
pub const kTVMFFIStr: TVMFFITypeIndex = 65;
/// A Bytes object.
pub const kTVMFFIBytes: TVMFFITypeIndex = 66;
/// An Error object.
pub const kTVMFFIError: TVMFFITypeIndex = 67;
/// A Function object.
pub const kTVMFFIFunction: TVMFFITypeIndex = 68;
/// A Shape object.
pub const kTVMFFIShape: TVMFFITypeIndex = 69;
/// A Tensor object.
pub const kTVMFFITensor: TVMFFITypeIndex = 70;
/// An Array object.
pub const kTVMFFIArray: TVMFFITypeIndex = 71;
/// A Map object.
pub const kTVMFFIMap: TVMFFITypeIndex = 72;
/// A Module object.
pub const kTVMFFIModule: TVMFFITypeIndex = 73;
/// An opaque host-language object (a Python object).
pub const kTVMFFIOpaquePyObject: TVMFFITypeIndex = 74;
/// A List object.
pub const kTVMFFIList: TVMFFITypeIndex = 75;
/// A Dict object.
pub const kTVMFFIDict: TVMFFITypeIndex = 76;
/// The visitor's interrupt marker.
pub const kTVMFFIVisitInterrupt: TVMFFITypeIndex = 77;
/// An integer too large for 64 bits.
pub const kTVMFFIBigInt: TVMFFITypeIndex = 78;
/// One past the last static object index.
pub const kTVMFFIStaticObjectEnd: TVMFFITypeIndex = 79;
/// First index handed out at run time.
pub const kTVMFFIDynObjectBegin: TVMFFITypeIndex = 128;

/// An object handle: a pointer to a `TVMFFIObject` header.
pub type TVMFFIObjectHandle = *mut c_void;

/// Deleter flag: the last strong reference is gone.
pub const kTVMFFIObjectDeleterFlagBitMaskStrong: c_int = 1 << 0;
/// Deleter flag: the last weak reference is gone.
pub const kTVMFFIObjectDeleterFlagBitMaskWeak: c_int = 1 << 1;
/// Deleter flags: both at once.
pub const kTVMFFIObjectDeleterFlagBitMaskBoth: c_int = 3;

/// The 24-byte header every reference-counted object starts with.
#[repr(C)]
#[derive(Debug)]
pub struct TVMFFIObject {
    /// Strong count in the low 32 bits, weak count in the high 32 bits (updated atomically).
    pub combined_ref_count: u64,
    /// The object's type index.
    pub type_index: i32,
    /// Padding.
    pub __padding: u32,
    /// Destroys and/or frees the object as `flags` say.
    pub deleter: Option<unsafe extern "C" fn(self_: *mut c_void, flags: c_int)>,
}

/// The 8-byte payload of a `TVMFFIAny`.
#[repr(C)]
#[derive(Clone, Copy)]
pub union TVMFFIAnyPayload {
    /// Ints and bools.
    pub v_int64: i64,
    /// Floats.
    pub v_float64: f64,
    /// Pointers: opaque pointers, `DLTensor*`, byte arrays, rvalue references.
    pub v_ptr: *mut c_void,
    /// A raw C string.
    pub v_c_str: *const c_char,
    /// An object.
    pub v_obj: *mut TVMFFIObject,
    /// A data type.
    pub v_dtype: DLDataType,
    /// A device.
    pub v_device: DLDevice,
    /// Small string or bytes content.
    pub v_bytes: [u8; 8],
    /// The raw bits.
    pub v_uint64: u64,
}

/// The 16-byte tagged value passed through the ABI.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct TVMFFIAny {
    /// What the payload holds.
    pub type_index: i32,
    /// Zero, or the length of a small string or small bytes value.
    pub small_str_len: u32,
    /// The value.
    pub payload: TVMFFIAnyPayload,
}

impl TVMFFIAny {
    /// None.
    pub const NONE: TVMFFIAny = TVMFFIAny {
        type_index: kTVMFFINone,
        small_str_len: 0,
        payload: TVMFFIAnyPayload { v_int64: 0 },
    };
}

impl Default for TVMFFIAny {
    fn default() -> Self {
        Self::NONE
    }
}

/// A borrowed run of bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct TVMFFIByteArray {
    /// First byte.
    pub data: *const c_char,
    /// Number of bytes.
    pub size: usize,
}

impl TVMFFIByteArray {
    /// A view of `bytes` (valid while `bytes` is).
    pub fn from_bytes(bytes: &[u8]) -> Self {
        TVMFFIByteArray { data: bytes.as_ptr() as *const c_char, size: bytes.len() }
    }
}

/// The cell after the header of a Shape object.
#[repr(C)]
#[derive(Debug)]
pub struct TVMFFIShapeCell {
    /// The extents.
    pub data: *const i64,
    /// Number of extents.
    pub size: usize,
}

/// The cell after the header of an Array or List object.
#[repr(C)]
#[derive(Debug)]
pub struct TVMFFISeqCell {
    /// The first of `capacity` `TVMFFIAny` cells.
    pub data: *mut c_void,
    /// Number of cells holding values.
    pub size: i64,
    /// Number of cells allocated.
    pub capacity: i64,
    /// Frees `data` when it is a separate buffer.
    pub data_deleter: Option<unsafe extern "C" fn(*mut c_void)>,
}

/// Backtrace update: replace.
pub const kTVMFFIBacktraceUpdateModeReplace: i32 = 0;
/// Backtrace update: append.
pub const kTVMFFIBacktraceUpdateModeAppend: i32 = 1;

/// The cell after the header of an Error object.
#[repr(C)]
#[derive(Debug)]
pub struct TVMFFIErrorCell {
    /// Kind, e.g. "ValueError".
    pub kind: TVMFFIByteArray,
    /// Message.
    pub message: TVMFFIByteArray,
    /// Frames as text, most recent call first.
    pub backtrace: TVMFFIByteArray,
    /// Updates `backtrace` in place.
    pub update_backtrace: Option<
        unsafe extern "C" fn(
            self_: TVMFFIObjectHandle,
            backtrace: *const TVMFFIByteArray,
            mode: i32,
        ),
    >,
    /// The error that caused this one, or null.
    pub cause_chain: TVMFFIObjectHandle,
    /// Extra context, or null.
    pub extra_context: TVMFFIObjectHandle,
}

/// The calling convention: borrowed `args`, `result` None on entry and owned on return; 0 on
/// success, -1 after raising an error, -2 when a host-language error is pending.
pub type TVMFFISafeCallType = Option<
    unsafe extern "C" fn(
        handle: *mut c_void,
        args: *const TVMFFIAny,
        num_args: i32,
        result: *mut TVMFFIAny,
    ) -> c_int,
>;

/// The cell after the header of a Function object.
#[repr(C)]
#[derive(Debug)]
pub struct TVMFFIFunctionCell {
    /// Called with the Function object as `handle`.
    pub safe_call: TVMFFISafeCallType,
    /// A same-library C++ fast path, or null.
    pub cpp_call: *mut c_void,
}

/// The cell after the header of an opaque foreign object.
#[repr(C)]
#[derive(Debug)]
pub struct TVMFFIOpaqueObjectCell {
    /// The foreign handle.
    pub handle: *mut c_void,
}

/// What the runtime knows of a type.
#[repr(C)]
#[derive(Debug)]
pub struct TVMFFITypeInfo {
    /// The type index.
    pub type_index: i32,
    /// Number of ancestors.
    pub type_depth: i32,
    /// Unique name, e.g. "ffi.Tensor".
    pub type_key: TVMFFIByteArray,
    /// `type_depth` ancestors, root first.
    pub type_ancestors: *const *const TVMFFITypeInfo,
    /// Hash of the type key.
    pub type_key_hash: u64,
    /// Number of reflected fields.
    pub num_fields: i32,
    /// Number of reflected methods.
    pub num_methods: i32,
    /// Reflected fields.
    pub fields: *const TVMFFIFieldInfo,
    /// Reflected methods.
    pub methods: *const TVMFFIMethodInfo,
    /// Extra metadata, or null.
    pub metadata: *const TVMFFITypeMetadata,
}

// ---------------------------------------------------------------------------------------------
// Reflection
// ---------------------------------------------------------------------------------------------

/// Reads a field into `result`.
pub type TVMFFIFieldGetter =
    Option<unsafe extern "C" fn(field: *mut c_void, result: *mut TVMFFIAny) -> c_int>;
/// Writes a field from `value`.
pub type TVMFFIFieldSetter =
    Option<unsafe extern "C" fn(field: *mut c_void, value: *const TVMFFIAny) -> c_int>;
/// Makes an empty object of a type.
pub type TVMFFIObjectCreator =
    Option<unsafe extern "C" fn(result: *mut TVMFFIObjectHandle) -> c_int>;

/// Field flag: writable through the setter.
pub const kTVMFFIFieldFlagBitMaskWritable: i64 = 1 << 0;
/// Field flag: has a default.
pub const kTVMFFIFieldFlagBitMaskHasDefault: i64 = 1 << 1;
/// Method flag: static (no `self`).
pub const kTVMFFIFieldFlagBitMaskIsStaticMethod: i64 = 1 << 2;
/// Field flag: structural equality and hashing skip it.
pub const kTVMFFIFieldFlagBitMaskSEqHashIgnore: i64 = 1 << 3;
/// Field flag: opens a pattern definition region.
pub const kTVMFFIFieldFlagBitMaskSEqHashDefPattern: i64 = 1 << 4;
/// Field flag: the default comes from a factory Function.
pub const kTVMFFIFieldFlagBitMaskDefaultFromFactory: i64 = 1 << 5;
/// Field flag: generic repr leaves it out.
pub const kTVMFFIFieldFlagBitMaskReprOff: i64 = 1 << 6;
/// Field flag: generic comparison leaves it out.
pub const kTVMFFIFieldFlagBitMaskCompareOff: i64 = 1 << 7;
/// Field flag: generic hashing leaves it out.
pub const kTVMFFIFieldFlagBitMaskHashOff: i64 = 1 << 8;
/// Field flag: the constructor takes no argument for it.
pub const kTVMFFIFieldFlagBitMaskInitOff: i64 = 1 << 9;
/// Field flag: keyword-only in the constructor.
pub const kTVMFFIFieldFlagBitMaskKwOnly: i64 = 1 << 10;
/// Field flag: `setter` is a Function handle.
pub const kTVMFFIFieldFlagBitSetterIsFunctionObj: i64 = 1 << 11;
/// Field flag: opens a simple definition region.
pub const kTVMFFIFieldFlagBitMaskSEqHashDefSimple: i64 = 1 << 12;

/// Structural kind: unsupported.
pub const kTVMFFISEqHashKindUnsupported: i32 = 0;
/// Structural kind: tree node.
pub const kTVMFFISEqHashKindTreeNode: i32 = 1;
/// Structural kind: free variable.
pub const kTVMFFISEqHashKindFreeVar: i32 = 2;
/// Structural kind: DAG node.
pub const kTVMFFISEqHashKindDAGNode: i32 = 3;
/// Structural kind: constant tree node.
pub const kTVMFFISEqHashKindConstTreeNode: i32 = 4;
/// Structural kind: unique instance.
pub const kTVMFFISEqHashKindUniqueInstance: i32 = 5;

/// A reflected field.
#[repr(C)]
pub struct TVMFFIFieldInfo {
    /// Field name.
    pub name: TVMFFIByteArray,
    /// Documentation.
    pub doc: TVMFFIByteArray,
    /// Metadata as JSON.
    pub metadata: TVMFFIByteArray,
    /// `kTVMFFIFieldFlag*` bits.
    pub flags: i64,
    /// Size in bytes.
    pub size: i64,
    /// Alignment in bytes.
    pub alignment: i64,
    /// Byte offset from the object's header.
    pub offset: i64,
    /// Reads the field.
    pub getter: TVMFFIFieldGetter,
    /// A `TVMFFIFieldSetter` or a Function handle (see the flags).
    pub setter: *mut c_void,
    /// Default value or factory.
    pub default_value_or_factory: TVMFFIAny,
    /// Type index of the declared type.
    pub field_static_type_index: i32,
}

/// A reflected method.
#[repr(C)]
pub struct TVMFFIMethodInfo {
    /// Name.
    pub name: TVMFFIByteArray,
    /// Documentation.
    pub doc: TVMFFIByteArray,
    /// Metadata as JSON.
    pub metadata: TVMFFIByteArray,
    /// `kTVMFFIFieldFlagBitMaskIsStaticMethod` or 0.
    pub flags: i64,
    /// The Function.
    pub method: TVMFFIAny,
}

/// Extra metadata of a type.
#[repr(C)]
pub struct TVMFFITypeMetadata {
    /// Documentation.
    pub doc: TVMFFIByteArray,
    /// Makes an empty object, or none.
    pub creator: TVMFFIObjectCreator,
    /// Fixed object size, or 0.
    pub total_size: i32,
    /// A `kTVMFFISEqHashKind*` value.
    pub structural_eq_hash_kind: i32,
}

/// A type attribute column.
#[repr(C)]
pub struct TVMFFITypeAttrColumn {
    /// Values indexed by type index - `begin_index`.
    pub data: *const TVMFFIAny,
    /// Number of entries.
    pub size: i32,
    /// Type index of `data[0]`.
    pub begin_index: i32,
}

// ---------------------------------------------------------------------------------------------
// Object storage allocator
// ---------------------------------------------------------------------------------------------

/// The header an object allocator puts right before each object body.
#[repr(C)]
pub struct TVMFFIObjectAllocHeader {
    /// Reclaims the allocation given the body pointer, or none.
    pub delete_space: Option<unsafe extern "C" fn(ptr: *mut c_void)>,
}

/// A process-wide allocator for object storage.
#[repr(C)]
pub struct TVMFFICustomAllocator {
    /// Returns storage preceded by a `TVMFFIObjectAllocHeader`, or null after raising.
    pub allocate: Option<
        unsafe extern "C" fn(
            size: usize,
            alignment: usize,
            type_index: i32,
            context: *mut c_void,
        ) -> *mut c_void,
    >,
    /// Passed to `allocate`.
    pub context: *mut c_void,
}

/// A device stream (`cudaStream_t` for CUDA).
pub type TVMFFIStreamHandle = *mut c_void;

extern "C" {
    /// Reports the runtime's ABI version.
    pub fn TVMFFIGetVersion(out_version: *mut TVMFFIVersion);
    /// Adds a strong reference.
    pub fn TVMFFIObjectIncRef(obj: TVMFFIObjectHandle) -> c_int;
    /// Drops a strong reference.
    pub fn TVMFFIObjectDecRef(obj: TVMFFIObjectHandle) -> c_int;
    /// Wraps a foreign handle as an opaque object.
    pub fn TVMFFIObjectCreateOpaque(
        handle: *mut c_void,
        type_index: i32,
        deleter: Option<unsafe extern "C" fn(handle: *mut c_void)>,
        out: *mut TVMFFIObjectHandle,
    ) -> c_int;
    /// Looks up a type key's index.
    pub fn TVMFFITypeKeyToIndex(type_key: *const TVMFFIByteArray, out_tindex: *mut i32) -> c_int;
    /// Finds or allocates a type index.
    pub fn TVMFFITypeGetOrAllocIndex(
        type_key: *const TVMFFIByteArray,
        static_type_index: i32,
        type_depth: i32,
        num_child_slots: i32,
        child_slots_can_overflow: i32,
        parent_type_index: i32,
    ) -> i32;
    /// A type's information, or null.
    pub fn TVMFFIGetTypeInfo(type_index: i32) -> *const TVMFFITypeInfo;

    /// Registers a global function from a method record.
    pub fn TVMFFIFunctionSetGlobalFromMethodInfo(
        method_info: *const TVMFFIMethodInfo,
        allow_override: c_int,
    ) -> c_int;
    /// Registers a reflected field.
    pub fn TVMFFITypeRegisterField(type_index: i32, info: *const TVMFFIFieldInfo) -> c_int;
    /// Registers a reflected method.
    pub fn TVMFFITypeRegisterMethod(type_index: i32, info: *const TVMFFIMethodInfo) -> c_int;
    /// Registers a type's metadata.
    pub fn TVMFFITypeRegisterMetadata(
        type_index: i32,
        metadata: *const TVMFFITypeMetadata,
    ) -> c_int;
    /// Sets a type attribute.
    pub fn TVMFFITypeRegisterAttr(
        type_index: i32,
        attr_name: *const TVMFFIByteArray,
        attr_value: *const TVMFFIAny,
    ) -> c_int;
    /// A type attribute column, or null.
    pub fn TVMFFIGetTypeAttrColumn(
        attr_name: *const TVMFFIByteArray,
    ) -> *const TVMFFITypeAttrColumn;

    /// Makes a Function around a C callback.
    pub fn TVMFFIFunctionCreate(
        self_: *mut c_void,
        safe_call: TVMFFISafeCallType,
        deleter: Option<unsafe extern "C" fn(self_: *mut c_void)>,
        out: *mut TVMFFIObjectHandle,
    ) -> c_int;
    /// Calls a Function.
    pub fn TVMFFIFunctionCall(
        func: TVMFFIObjectHandle,
        args: *mut TVMFFIAny,
        num_args: i32,
        result: *mut TVMFFIAny,
    ) -> c_int;
    /// Registers a global function.
    pub fn TVMFFIFunctionSetGlobal(
        name: *const TVMFFIByteArray,
        f: TVMFFIObjectHandle,
        allow_override: c_int,
    ) -> c_int;
    /// Looks up a global function (null when absent).
    pub fn TVMFFIFunctionGetGlobal(
        name: *const TVMFFIByteArray,
        out: *mut TVMFFIObjectHandle,
    ) -> c_int;
    /// Copies a borrowed value into an owned one.
    pub fn TVMFFIAnyViewToOwnedAny(any_view: *const TVMFFIAny, out: *mut TVMFFIAny) -> c_int;
    /// Moves the thread's raised error out (null when none).
    pub fn TVMFFIErrorMoveFromRaised(result: *mut TVMFFIObjectHandle);
    /// Sets the thread's raised error (takes a new reference).
    pub fn TVMFFIErrorSetRaised(error: TVMFFIObjectHandle);
    /// Raises a new error from C strings.
    pub fn TVMFFIErrorSetRaisedFromCStr(kind: *const c_char, message: *const c_char);
    /// Raises a new error whose message is the concatenated parts.
    pub fn TVMFFIErrorSetRaisedFromCStrParts(
        kind: *const c_char,
        message_parts: *const *const c_char,
        num_parts: i32,
    );
    /// Makes a new Error.
    pub fn TVMFFIErrorCreate(
        kind: *const TVMFFIByteArray,
        message: *const TVMFFIByteArray,
        backtrace: *const TVMFFIByteArray,
        out: *mut TVMFFIObjectHandle,
    ) -> c_int;
    /// Makes a new Error with a cause and an extra context.
    pub fn TVMFFIErrorCreateWithCauseAndExtraContext(
        kind: *const TVMFFIByteArray,
        message: *const TVMFFIByteArray,
        backtrace: *const TVMFFIByteArray,
        cause_chain: TVMFFIObjectHandle,
        extra_context: TVMFFIObjectHandle,
        out: *mut TVMFFIObjectHandle,
    ) -> c_int;
    /// The current native stack as text (thread-local buffer).
    pub fn TVMFFIBacktrace(
        filename: *const c_char,
        lineno: c_int,
        func: *const c_char,
        cross_ffi_boundary: c_int,
    ) -> *const TVMFFIByteArray;
    /// Makes a String value.
    pub fn TVMFFIStringFromByteArray(input: *const TVMFFIByteArray, out: *mut TVMFFIAny) -> c_int;
    /// Makes a Bytes value.
    pub fn TVMFFIBytesFromByteArray(input: *const TVMFFIByteArray, out: *mut TVMFFIAny) -> c_int;
    /// Parses a dtype string.
    pub fn TVMFFIDataTypeFromString(str_: *const TVMFFIByteArray, out: *mut DLDataType) -> c_int;
    /// Prints a dtype as a String value.
    pub fn TVMFFIDataTypeToString(dtype: *const DLDataType, out: *mut TVMFFIAny) -> c_int;
    /// Thread-safe one-time initialisation.
    pub fn TVMFFIHandleInitOnce(
        handle_addr: *mut *mut c_void,
        init_func: Option<unsafe extern "C" fn(result: *mut *mut c_void) -> c_int>,
    ) -> c_int;
    /// The reverse of `TVMFFIHandleInitOnce`.
    pub fn TVMFFIHandleDeinitOnce(
        handle_addr: *mut *mut c_void,
        deinit_func: Option<unsafe extern "C" fn(handle: *mut c_void) -> c_int>,
    ) -> c_int;

    /// Takes a legacy DLPack tensor as a Tensor object (nothing taken on failure).
    pub fn TVMFFITensorFromDLPack(
        from: *mut DLManagedTensor,
        require_alignment: i32,
        require_contiguous: i32,
        out: *mut TVMFFIObjectHandle,
    ) -> c_int;
    /// Exports a Tensor as a legacy DLPack tensor.
    pub fn TVMFFITensorToDLPack(from: TVMFFIObjectHandle, out: *mut *mut DLManagedTensor) -> c_int;
    /// Takes a versioned DLPack tensor as a Tensor object (nothing taken on failure).
    pub fn TVMFFITensorFromDLPackVersioned(
        from: *mut DLManagedTensorVersioned,
        require_alignment: i32,
        require_contiguous: i32,
        out: *mut TVMFFIObjectHandle,
    ) -> c_int;
    /// Exports a Tensor as a versioned DLPack tensor.
    pub fn TVMFFITensorToDLPackVersioned(
        from: TVMFFIObjectHandle,
        out: *mut *mut DLManagedTensorVersioned,
    ) -> c_int;

    /// Sets this thread's stream for a device.
    pub fn TVMFFIEnvSetStream(
        device_type: i32,
        device_id: i32,
        stream: TVMFFIStreamHandle,
        opt_out_original_stream: *mut TVMFFIStreamHandle,
    ) -> c_int;
    /// This thread's stream for a device.
    pub fn TVMFFIEnvGetStream(device_type: i32, device_id: i32) -> TVMFFIStreamHandle;
    /// Installs the tensor allocator.
    pub fn TVMFFIEnvSetDLPackManagedTensorAllocator(
        allocator: DLPackManagedTensorAllocator,
        write_to_global_context: c_int,
        opt_out_original_allocator: *mut DLPackManagedTensorAllocator,
    ) -> c_int;
    /// The tensor allocator in use (none: the built-in one).
    pub fn TVMFFIEnvGetDLPackManagedTensorAllocator() -> DLPackManagedTensorAllocator;
    /// Allocates a Tensor shaped like `prototype`.
    pub fn TVMFFIEnvTensorAlloc(prototype: *mut DLTensor, out: *mut TVMFFIObjectHandle) -> c_int;
    /// Lets the host handle pending signals.
    pub fn TVMFFIEnvCheckSignals() -> c_int;
    /// Registers a host C function.
    pub fn TVMFFIEnvRegisterCAPI(name: *const c_char, symbol: *mut c_void) -> c_int;
    /// Resolves a function through a library's module imports, then the globals.
    pub fn TVMFFIEnvModLookupFromImports(
        library_ctx: TVMFFIObjectHandle,
        func_name: *const c_char,
        out: *mut TVMFFIObjectHandle,
    ) -> c_int;
    /// Registers a context symbol for modules loaded later.
    pub fn TVMFFIEnvModRegisterContextSymbol(name: *const c_char, symbol: *mut c_void) -> c_int;

    /// The installed object allocator.
    pub fn TVMFFIGetCustomAllocator() -> *mut TVMFFICustomAllocator;
    /// Installs an object allocator.
    pub fn TVMFFISetCustomAllocator(allocator: *mut TVMFFICustomAllocator) -> c_int;
    /// Makes an integer from 64-bit words.
    pub fn TVMFFIBigIntFromByteArray(input: *const TVMFFIByteArray, out: *mut TVMFFIAny) -> c_int;
    /// Borrows an integer's words.
    pub fn TVMFFIBigIntGetContentByteArray(value: *const TVMFFIAny) -> TVMFFIByteArray;
    /// A Tensor over another's memory.
    pub fn TVMFFITensorCreateUnsafeView(
        source: TVMFFIObjectHandle,
        prototype: *const DLTensor,
        out: *mut TVMFFIObjectHandle,
    ) -> c_int;
    /// Registers a system-library symbol.
    pub fn TVMFFIEnvModRegisterSystemLibSymbol(name: *const c_char, symbol: *mut c_void) -> c_int;
}

/// The size of an object header: cells start this many bytes after the handle.
pub const OBJECT_HEADER_SIZE: usize = std::mem::size_of::<TVMFFIObject>();

/// The cell right after an object's header, as `T` (the `TVMFFI*GetCellPtr` helpers of C++).
///
/// # Safety
/// `obj` must be a live object whose cell has type `T`.
pub unsafe fn object_cell<T>(obj: TVMFFIObjectHandle) -> *mut T {
    (obj as *mut u8).add(OBJECT_HEADER_SIZE) as *mut T
}
