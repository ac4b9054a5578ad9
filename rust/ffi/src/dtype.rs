//! Devices and element types: DLPack's `DLDevice` and `DLDataType`, with names.

use std::fmt;

use crate::any::Any;
use crate::error::{check, Result};
use crate::sys;

/// A device: a DLPack device kind and an ordinal (`Device::cpu()`, `Device::cuda(0)`).
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Device(pub sys::DLDevice);

impl Device {
    /// A device of DLPack kind `device_type` (`sys::kDLCPU`, ...) and ordinal `device_id`.
    pub const fn new(device_type: i32, device_id: i32) -> Device {
        Device(sys::DLDevice { device_type, device_id })
    }

    /// The host.
    pub const fn cpu() -> Device {
        Device::new(sys::kDLCPU, 0)
    }

    /// CUDA device `id`.
    pub const fn cuda(id: i32) -> Device {
        Device::new(sys::kDLCUDA, id)
    }

    /// The DLPack device kind.
    pub fn device_type(&self) -> i32 {
        self.0.device_type
    }

    /// The ordinal.
    pub fn device_id(&self) -> i32 {
        self.0.device_id
    }

    /// The kind's name as Python's `ffi.Device` prints it (`"cpu"`, `"cuda"`, ...).
    pub fn type_name(&self) -> &'static str {
        match self.0.device_type {
            sys::kDLCPU => "cpu",
            sys::kDLCUDA => "cuda",
            sys::kDLCUDAHost => "cuda_host",
            sys::kDLOpenCL => "opencl",
            sys::kDLVulkan => "vulkan",
            sys::kDLMetal => "metal",
            sys::kDLVPI => "vpi",
            sys::kDLROCM => "rocm",
            sys::kDLROCMHost => "rocm_host",
            sys::kDLExtDev => "ext_dev",
            sys::kDLCUDAManaged => "cuda_managed",
            sys::kDLOneAPI => "oneapi",
            sys::kDLWebGPU => "webgpu",
            sys::kDLHexagon => "hexagon",
            sys::kDLMAIA => "maia",
            sys::kDLTrn => "trn",
            _ => "unknown",
        }
    }
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.type_name(), self.0.device_id)
    }
}

impl fmt::Debug for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Device({self})")
    }
}

/// An element type: DLPack's code, bits and lanes (`DataType::F32`, `"int8x4".parse()`).
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct DataType(pub sys::DLDataType);

impl DataType {
    /// A type of family `code` (`sys::kDLFloat`, ...), `bits` per lane and `lanes` lanes.
    pub const fn new(code: u8, bits: u8, lanes: u16) -> DataType {
        DataType(sys::DLDataType { code, bits, lanes })
    }
    /// bool (one byte per element).
    pub const BOOL: DataType = DataType::new(sys::kDLBool, 8, 1);
    /// int8.
    pub const I8: DataType = DataType::new(sys::kDLInt, 8, 1);
    /// int16.
    pub const I16: DataType = DataType::new(sys::kDLInt, 16, 1);
    /// int32.
    pub const I32: DataType = DataType::new(sys::kDLInt, 32, 1);
    /// int64.
    pub const I64: DataType = DataType::new(sys::kDLInt, 64, 1);
    /// uint8.
    pub const U8: DataType = DataType::new(sys::kDLUInt, 8, 1);
    /// uint16.
    pub const U16: DataType = DataType::new(sys::kDLUInt, 16, 1);
    /// uint32.
    pub const U32: DataType = DataType::new(sys::kDLUInt, 32, 1);
    /// uint64.
    pub const U64: DataType = DataType::new(sys::kDLUInt, 64, 1);
    /// float16.
    pub const F16: DataType = DataType::new(sys::kDLFloat, 16, 1);
    /// bfloat16.
    pub const BF16: DataType = DataType::new(sys::kDLBfloat, 16, 1);
    /// float32.
    pub const F32: DataType = DataType::new(sys::kDLFloat, 32, 1);
    /// float64.
    pub const F64: DataType = DataType::new(sys::kDLFloat, 64, 1);

    /// Parses a name such as `"float32"`, `"int8x4"` or `"bool"` (a `ValueError` otherwise).
    pub fn parse(name: &str) -> Result<DataType> {
        let bytes = sys::TVMFFIByteArray::from_bytes(name.as_bytes());
        let mut out = sys::DLDataType { code: 0, bits: 0, lanes: 0 };
        check(unsafe { sys::TVMFFIDataTypeFromString(&bytes, &mut out) })?;
        Ok(DataType(out))
    }

    /// The family (a `sys::kDL*` code).
    pub fn code(&self) -> u8 {
        self.0.code
    }

    /// Bits per lane.
    pub fn bits(&self) -> u8 {
        self.0.bits
    }

    /// Lanes.
    pub fn lanes(&self) -> u16 {
        self.0.lanes
    }

    /// Bytes one element takes, rounded up (sub-byte types count one byte per element).
    pub fn bytes_per_element(&self) -> usize {
        (self.0.bits as usize * self.0.lanes as usize).div_ceil(8)
    }
}

impl std::str::FromStr for DataType {
    type Err = crate::Error;
    fn from_str(name: &str) -> Result<DataType> {
        DataType::parse(name)
    }
}

impl fmt::Display for DataType {
    /// The runtime's name for the type (`float32`, `int8x4`), which [`DataType::parse`] reads.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = sys::TVMFFIAny::NONE;
        if unsafe { sys::TVMFFIDataTypeToString(&self.0, &mut out) } != 0 {
            drop(crate::Error::take_raised(-1));
            let d = &self.0;
            return write!(f, "DataType(code={}, bits={}, lanes={})", d.code, d.bits, d.lanes);
        }
        let name = unsafe { Any::from_raw(out) };
        match name.view().str_bytes() {
            Some(text) => f.write_str(&std::string::String::from_utf8_lossy(text)),
            None => Err(fmt::Error),
        }
    }
}

impl fmt::Debug for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DataType({self})")
    }
}
