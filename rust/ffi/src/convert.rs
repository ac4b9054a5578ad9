//! [`IntoAny`], [`FromAny`] and [`TypeName`] for Rust's own types and the ABI's POD values.
//!
//! The rules are the ABI's, as C++ and Python apply them: an `int` reads as any Rust integer it
//! fits in and as a float; a `bool` reads as an integer too; `None` reads as `Option::None`;
//! objects read as their wrapper type or any ancestor's.

use crate::any::{Any, AnyView, FromAny, IntoAny, TypeName};
use crate::dtype::{DataType, Device};
use crate::object::{ObjectRef, ObjectType};
use crate::sys;

#[inline]
fn pod(type_index: i32, payload: sys::TVMFFIAnyPayload) -> Any {
    unsafe { Any::from_raw(sys::TVMFFIAny { type_index, small_str_len: 0, payload }) }
}

#[inline]
fn int_value(value: &AnyView<'_>) -> Option<i128> {
    match value.type_index() {
        sys::kTVMFFIInt | sys::kTVMFFIBool => {
            Some(unsafe { value.as_raw().payload.v_int64 } as i128)
        }
        // A big integer of up to two words (two's complement, least significant first): what an
        // unsigned 64-bit value above i64::MAX becomes.
        sys::kTVMFFIBigInt => {
            let words = unsafe { sys::TVMFFIBigIntGetContentByteArray(value.as_raw()) };
            let bytes = unsafe { crate::object::byte_slice(&words) };
            match bytes.len() {
                8 => Some(i64::from_ne_bytes(bytes.try_into().ok()?) as i128),
                16 => {
                    let low = u64::from_ne_bytes(bytes[..8].try_into().ok()?) as i128;
                    let high = i64::from_ne_bytes(bytes[8..].try_into().ok()?) as i128;
                    Some((high << 64) | low)
                }
                _ => None,
            }
        }
        _ => None,
    }
}

macro_rules! integer {
    ($($t:ty),*) => {$(
        impl TypeName for $t {
            fn type_name() -> std::string::String {
                "int".into()
            }
        }
        impl<'a> FromAny<'a> for $t {
            /// An `int` (or `bool`, or a big integer) whose value fits.
            #[inline]
            fn from_any(value: AnyView<'a>) -> Option<Self> {
                if value.type_index() == sys::kTVMFFIInt {
                    return <$t>::try_from(unsafe { value.as_raw().payload.v_int64 }).ok();
                }
                int_value(&value).and_then(|v| <$t>::try_from(v).ok())
            }
        }
        impl IntoAny for $t {
            #[inline]
            fn into_any(self) -> Any {
                match i64::try_from(self) {
                    Ok(v) => pod(sys::kTVMFFIInt, sys::TVMFFIAnyPayload { v_int64: v }),
                    // Only u64/usize/u128 values above i64::MAX get here: a big integer.
                    Err(_) => Any::from_int_words(&[self as u64, 0])
                        .expect("a two-word integer is always representable"),
                }
            }
        }
    )*};
}
integer!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

impl TypeName for f64 {
    fn type_name() -> std::string::String {
        "float".into()
    }
}

impl<'a> FromAny<'a> for f64 {
    /// A `float`, or an `int` or `bool` converted, as in C++.
    #[inline]
    fn from_any(value: AnyView<'a>) -> Option<Self> {
        match value.type_index() {
            sys::kTVMFFIFloat => Some(unsafe { value.as_raw().payload.v_float64 }),
            sys::kTVMFFIInt | sys::kTVMFFIBool => {
                Some(unsafe { value.as_raw().payload.v_int64 } as f64)
            }
            _ => None,
        }
    }
}

impl IntoAny for f64 {
    #[inline]
    fn into_any(self) -> Any {
        pod(sys::kTVMFFIFloat, sys::TVMFFIAnyPayload { v_float64: self })
    }
}

impl TypeName for f32 {
    fn type_name() -> std::string::String {
        "float".into()
    }
}

impl<'a> FromAny<'a> for f32 {
    /// A `float` or an `int`, narrowed to `f32`.
    fn from_any(value: AnyView<'a>) -> Option<Self> {
        f64::from_any(value).map(|v| v as f32)
    }
}

impl IntoAny for f32 {
    fn into_any(self) -> Any {
        (self as f64).into_any()
    }
}

impl TypeName for bool {
    fn type_name() -> std::string::String {
        "bool".into()
    }
}

impl<'a> FromAny<'a> for bool {
    /// A `bool`, or an `int` (non-zero is true).
    #[inline]
    fn from_any(value: AnyView<'a>) -> Option<Self> {
        int_value(&value).map(|v| v != 0)
    }
}

impl IntoAny for bool {
    #[inline]
    fn into_any(self) -> Any {
        pod(sys::kTVMFFIBool, sys::TVMFFIAnyPayload { v_int64: self as i64 })
    }
}

impl TypeName for () {
    fn type_name() -> std::string::String {
        "void".into()
    }
    fn type_schema() -> std::string::String {
        r#"{"type":"None"}"#.into()
    }
}

impl<'a> FromAny<'a> for () {
    /// None.
    fn from_any(value: AnyView<'a>) -> Option<Self> {
        value.is_none().then_some(())
    }
}

impl IntoAny for () {
    #[inline]
    fn into_any(self) -> Any {
        Any::none()
    }
}

impl TypeName for Device {
    fn type_name() -> std::string::String {
        "Device".into()
    }
}

impl<'a> FromAny<'a> for Device {
    /// A device.
    fn from_any(value: AnyView<'a>) -> Option<Self> {
        (value.type_index() == sys::kTVMFFIDevice)
            .then(|| Device(unsafe { value.as_raw().payload.v_device }))
    }
}

impl IntoAny for Device {
    fn into_any(self) -> Any {
        pod(sys::kTVMFFIDevice, sys::TVMFFIAnyPayload { v_device: self.0 })
    }
}

impl TypeName for DataType {
    fn type_name() -> std::string::String {
        "DataType".into()
    }
}

impl<'a> FromAny<'a> for DataType {
    /// A dtype, or a string naming one (`"float32"`), as C++ and Python accept.
    fn from_any(value: AnyView<'a>) -> Option<Self> {
        if value.type_index() == sys::kTVMFFIDataType {
            return Some(DataType(unsafe { value.as_raw().payload.v_dtype }));
        }
        let name = std::str::from_utf8(value.str_bytes()?).ok()?;
        DataType::parse(name).ok()
    }
}

impl IntoAny for DataType {
    fn into_any(self) -> Any {
        // The payload's 4 bytes past the dtype are zero: runtimes hash and compare all 8.
        let mut payload = sys::TVMFFIAnyPayload { v_uint64: 0 };
        payload.v_dtype = self.0;
        pod(sys::kTVMFFIDataType, payload)
    }
}

impl<T: TypeName> TypeName for Option<T> {
    fn type_name() -> std::string::String {
        format!("Optional<{}>", T::type_name())
    }
    fn type_schema() -> std::string::String {
        format!(r#"{{"type":"Optional","args":[{}]}}"#, T::type_schema())
    }
}

impl<'a, T: FromAny<'a>> FromAny<'a> for Option<T> {
    /// None, or a value `T` takes.
    fn from_any(value: AnyView<'a>) -> Option<Self> {
        if value.is_none() {
            Some(None)
        } else {
            T::from_any(value).map(Some)
        }
    }
}

impl<T: IntoAny> IntoAny for Option<T> {
    fn into_any(self) -> Any {
        match self {
            Some(v) => v.into_any(),
            None => Any::none(),
        }
    }
}

impl TypeName for Any {
    fn type_name() -> std::string::String {
        "Any".into()
    }
}

impl<'a> FromAny<'a> for Any {
    /// Any value, as an owned copy.
    fn from_any(value: AnyView<'a>) -> Option<Self> {
        value.to_owned().ok()
    }
}

impl IntoAny for Any {
    fn into_any(self) -> Any {
        self
    }
}

impl IntoAny for &Any {
    fn into_any(self) -> Any {
        self.clone()
    }
}

impl TypeName for AnyView<'_> {
    fn type_name() -> std::string::String {
        "Any".into()
    }
}

impl<'a> FromAny<'a> for AnyView<'a> {
    /// Any value, still borrowed.
    fn from_any(value: AnyView<'a>) -> Option<Self> {
        Some(value)
    }
}

impl<T: ObjectType> TypeName for T {
    fn type_name() -> std::string::String {
        T::TYPE_NAME.into()
    }
    fn type_schema() -> std::string::String {
        format!(r#"{{"type":"{}"}}"#, T::TYPE_KEY)
    }
}

impl<'a, T: ObjectType> FromAny<'a> for T {
    /// An object of type `T` or a descendant.
    #[inline]
    fn from_any(value: AnyView<'a>) -> Option<Self> {
        T::from_object(value.as_object()?)
    }
}

impl<T: ObjectType> IntoAny for T {
    fn into_any(self) -> Any {
        object_into_any(self.as_object().clone())
    }
}

impl IntoAny for &ObjectRef {
    fn into_any(self) -> Any {
        object_into_any(self.clone())
    }
}

/// An Any owning `obj`'s reference.
pub(crate) fn object_into_any(obj: ObjectRef) -> Any {
    let type_index = obj.type_index();
    let handle = obj.into_raw();
    pod(type_index, sys::TVMFFIAnyPayload { v_ptr: handle })
}

/// Implements `From<T> for Any` through [`IntoAny`] for each type listed.
macro_rules! from_into_any {
    ($($t:ty),*) => {$(
        impl From<$t> for Any {
            fn from(value: $t) -> Any {
                value.into_any()
            }
        }
    )*};
}
from_into_any!(
    i8,
    i16,
    i32,
    i64,
    isize,
    u8,
    u16,
    u32,
    u64,
    usize,
    f32,
    f64,
    bool,
    (),
    Device,
    DataType,
    &str,
    std::string::String,
    &std::string::String,
    &[u8],
    crate::String,
    crate::Bytes
);

impl From<ObjectRef> for Any {
    fn from(value: ObjectRef) -> Any {
        object_into_any(value)
    }
}

impl From<&ObjectRef> for Any {
    fn from(value: &ObjectRef) -> Any {
        object_into_any(value.clone())
    }
}

impl<T: IntoAny> From<Vec<T>> for Any {
    fn from(value: Vec<T>) -> Any {
        value.into_any()
    }
}

impl<T: IntoAny> From<Option<T>> for Any {
    fn from(value: Option<T>) -> Any {
        value.into_any()
    }
}
