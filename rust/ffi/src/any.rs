//! Values: [`Any`] (owned) and [`AnyView`] (borrowed), the ABI's 16-byte tagged value, and the
//! conversions between them and Rust values.
//!
//! An `Any` holding an object owns one strong reference to it; an `AnyView` borrows whatever it
//! holds for its lifetime `'a` (function arguments are views of the caller's values).
//! [`IntoAny`] makes values from Rust ones; [`FromAny`] reads them back, checking the type:
//!
//! ```no_run
//! use ffi::{Any, Device};
//! let x = Any::from(3_i64);
//! assert_eq!(x.cast::<i64>().unwrap(), 3);
//! assert_eq!(x.cast::<f64>().unwrap(), 3.0); // ints convert to floats, as in C++ and Python
//! assert!(x.cast::<std::string::String>().is_err()); // TypeError
//! let s = Any::from("hello");
//! assert_eq!(s.cast::<std::string::String>().unwrap(), "hello");
//! let none: Option<Device> = Any::none().cast().unwrap();
//! assert!(none.is_none());
//! ```

use std::marker::PhantomData;

use crate::error::{check, Error, Result};
use crate::object::{byte_slice, type_key_of, ObjectRef};
use crate::sys;

/// An owned value: None, a POD value (int, float, bool, device, dtype, pointer, small string)
/// or a strong reference to an object.
#[repr(transparent)]
pub struct Any {
    raw: sys::TVMFFIAny,
}

// An Any owns its object through an atomic reference count; POD values are plain data.
unsafe impl Send for Any {}
unsafe impl Sync for Any {}

/// A borrowed value, valid for `'a`: what a function receives as its arguments.
#[repr(transparent)]
#[derive(Clone, Copy)]
pub struct AnyView<'a> {
    raw: sys::TVMFFIAny,
    _borrow: PhantomData<&'a ()>,
}

/// `values` seen as views, in place: `Any` and `AnyView` share one layout.
#[inline]
pub(crate) fn views_of(values: &[Any]) -> &[AnyView<'_>] {
    unsafe { std::slice::from_raw_parts(values.as_ptr() as *const AnyView<'_>, values.len()) }
}

#[inline]
fn holds_object(type_index: i32) -> bool {
    type_index >= sys::kTVMFFIStaticObjectBegin
}

/// The name of what an Any with `raw` holds, as errors say it: `int`, `float`, `str`, `Tensor`...
fn value_type_name(raw: &sys::TVMFFIAny) -> std::string::String {
    match raw.type_index {
        sys::kTVMFFINone => "None".into(),
        sys::kTVMFFIInt => "int".into(),
        sys::kTVMFFIBool => "bool".into(),
        sys::kTVMFFIFloat => "float".into(),
        sys::kTVMFFIOpaquePtr => "void*".into(),
        sys::kTVMFFIDataType => "DataType".into(),
        sys::kTVMFFIDevice => "Device".into(),
        sys::kTVMFFIDLTensorPtr => "DLTensor*".into(),
        sys::kTVMFFIRawStr | sys::kTVMFFISmallStr | sys::kTVMFFIStr => "str".into(),
        sys::kTVMFFIByteArrayPtr | sys::kTVMFFISmallBytes | sys::kTVMFFIBytes => "bytes".into(),
        sys::kTVMFFIFunction => "Function".into(),
        sys::kTVMFFITensor => "Tensor".into(),
        sys::kTVMFFIArray => "Array".into(),
        sys::kTVMFFIMap => "Map".into(),
        sys::kTVMFFIModule => "Module".into(),
        sys::kTVMFFIShape => "Shape".into(),
        sys::kTVMFFIError => "Error".into(),
        other => type_key_of(other),
    }
}

impl Any {
    /// None.
    #[inline]
    pub const fn none() -> Any {
        Any { raw: sys::TVMFFIAny::NONE }
    }

    /// Takes over a raw value the caller owns (e.g. a call's result).
    ///
    /// # Safety
    /// `raw` must be a valid owned value: when it holds an object, one strong reference passes
    /// to the result.
    #[inline]
    pub unsafe fn from_raw(raw: sys::TVMFFIAny) -> Any {
        Any { raw }
    }

    /// Gives up ownership of the raw value.
    #[inline]
    pub fn into_raw(self) -> sys::TVMFFIAny {
        let raw = self.raw;
        std::mem::forget(self);
        raw
    }

    /// The raw value, still owned by `self`.
    #[inline]
    pub fn as_raw(&self) -> &sys::TVMFFIAny {
        &self.raw
    }

    /// A view borrowing this value.
    pub fn view(&self) -> AnyView<'_> {
        AnyView { raw: self.raw, _borrow: PhantomData }
    }

    /// This value seen as a view in place (not a copy: a small string's bytes, which live in
    /// the value itself, may be borrowed from it for as long as `self`).
    pub(crate) fn as_view(&self) -> &AnyView<'_> {
        &views_of(std::slice::from_ref(self))[0]
    }

    /// The type index of what the value holds.
    #[inline]
    pub fn type_index(&self) -> i32 {
        self.raw.type_index
    }

    /// What the value holds, by name: `None`, `int`, `str`, `Tensor`, a type key...
    pub fn type_name(&self) -> std::string::String {
        value_type_name(&self.raw)
    }

    /// Whether the value is None.
    #[inline]
    pub fn is_none(&self) -> bool {
        self.raw.type_index == sys::kTVMFFINone
    }

    /// The value as `T`; a `TypeError` when it holds something else.
    pub fn cast<'a, T: FromAny<'a>>(&'a self) -> Result<T> {
        self.view().cast()
    }

    /// The value as `T`, or `None` when it holds something else.
    pub fn try_as<'a, T: FromAny<'a>>(&'a self) -> Option<T> {
        T::from_any(self.view())
    }

    /// The object held, as a new reference (`None` for POD values).
    pub fn as_object(&self) -> Option<ObjectRef> {
        self.view().as_object()
    }

    /// An integer from 64-bit words, least significant first, two's complement: an `int` when it
    /// fits in `i64`, else a big-integer object (Python sees one `int`).
    pub fn from_int_words(words: &[u64]) -> Result<Any> {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_ne_bytes()).collect();
        let input = sys::TVMFFIByteArray::from_bytes(&bytes);
        let mut out = sys::TVMFFIAny::NONE;
        check(unsafe { sys::TVMFFIBigIntFromByteArray(&input, &mut out) })?;
        Ok(unsafe { Any::from_raw(out) })
    }
}

impl Default for Any {
    fn default() -> Self {
        Any::none()
    }
}

impl Clone for Any {
    #[inline]
    fn clone(&self) -> Self {
        if holds_object(self.raw.type_index) {
            unsafe { sys::TVMFFIObjectIncRef(self.raw.payload.v_obj as sys::TVMFFIObjectHandle) };
        }
        Any { raw: self.raw }
    }
}

impl Drop for Any {
    #[inline]
    fn drop(&mut self) {
        if holds_object(self.raw.type_index) {
            unsafe { sys::TVMFFIObjectDecRef(self.raw.payload.v_obj as sys::TVMFFIObjectHandle) };
        }
    }
}

impl std::fmt::Debug for Any {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.view().fmt(f)
    }
}

impl<'a> AnyView<'a> {
    /// None.
    pub const fn none() -> AnyView<'a> {
        AnyView { raw: sys::TVMFFIAny::NONE, _borrow: PhantomData }
    }

    /// A view of a raw value that lives for `'a`.
    ///
    /// # Safety
    /// `raw` must be a valid value, and what it references must outlive `'a`.
    pub unsafe fn from_raw(raw: sys::TVMFFIAny) -> AnyView<'a> {
        AnyView { raw, _borrow: PhantomData }
    }

    /// Views of the `num_args` raw arguments a safe call received.
    ///
    /// # Safety
    /// `args` must point to `num_args` valid values that outlive `'a` (null when `num_args` is 0).
    #[inline]
    pub unsafe fn slice_from_raw(args: *const sys::TVMFFIAny, num_args: i32) -> &'a [AnyView<'a>] {
        if num_args <= 0 || args.is_null() {
            &[]
        } else {
            std::slice::from_raw_parts(args as *const AnyView<'a>, num_args as usize)
        }
    }

    /// The raw value.
    #[inline]
    pub fn as_raw(&self) -> &sys::TVMFFIAny {
        &self.raw
    }

    /// The type index of what the value holds.
    #[inline]
    pub fn type_index(&self) -> i32 {
        self.raw.type_index
    }

    /// What the value holds, by name: `None`, `int`, `str`, `Tensor`, a type key...
    pub fn type_name(&self) -> std::string::String {
        value_type_name(&self.raw)
    }

    /// Whether the value is None.
    #[inline]
    pub fn is_none(&self) -> bool {
        self.raw.type_index == sys::kTVMFFINone
    }

    /// An owned copy: objects gain a reference, borrowed strings and bytes are copied. A
    /// borrowed `DLTensor*` is a `TypeError`, as in C++: nothing owns what it points to (read it
    /// as a [`crate::TensorView`] while the view lives).
    pub fn to_owned(&self) -> Result<Any> {
        if self.raw.type_index == sys::kTVMFFIDLTensorPtr {
            return Err(Error::new(
                "TypeError",
                "a borrowed DLTensor* cannot be owned: read it as a TensorView during the call",
            ));
        }
        let mut out = sys::TVMFFIAny::NONE;
        check(unsafe { sys::TVMFFIAnyViewToOwnedAny(&self.raw, &mut out) })?;
        Ok(unsafe { Any::from_raw(out) })
    }

    /// The value as `T`; a `TypeError` naming both types when it holds something else.
    pub fn cast<T: FromAny<'a>>(self) -> Result<T> {
        T::from_any(self).ok_or_else(|| {
            let (expected, got) = (T::type_name(), self.type_name());
            let note = out_of_range_note::<T>(&expected, &got, self);
            Error::new(
                "TypeError",
                format!("Cannot convert from type `{got}` to `{expected}`{note}"),
            )
        })
    }

    /// The value as `T`, or `None` when it holds something else.
    pub fn try_as<T: FromAny<'a>>(self) -> Option<T> {
        T::from_any(self)
    }

    /// The object held (an rvalue reference's target included), as a new reference.
    #[inline]
    pub fn as_object(&self) -> Option<ObjectRef> {
        unsafe {
            if holds_object(self.raw.type_index) {
                ObjectRef::from_borrowed(self.raw.payload.v_obj as sys::TVMFFIObjectHandle)
            } else if self.raw.type_index == sys::kTVMFFIObjectRValueRef {
                let slot = self.raw.payload.v_ptr as *const sys::TVMFFIObjectHandle;
                if slot.is_null() {
                    return None;
                }
                ObjectRef::from_borrowed(*slot)
            } else {
                None
            }
        }
    }

    /// The text of a string value (small, object or raw C string), borrowed from the view (a
    /// small string's bytes live inside the 16-byte value itself).
    pub(crate) fn str_bytes(&self) -> Option<&[u8]> {
        unsafe {
            match self.raw.type_index {
                sys::kTVMFFISmallStr => Some(self.small_bytes()),
                sys::kTVMFFIStr => Some(object_bytes(self.raw.payload.v_obj)),
                sys::kTVMFFIRawStr if !self.raw.payload.v_c_str.is_null() => {
                    Some(std::ffi::CStr::from_ptr(self.raw.payload.v_c_str).to_bytes())
                }
                _ => None,
            }
        }
    }

    /// The content of a bytes value (small, object or byte-array pointer), borrowed likewise.
    pub(crate) fn bytes_content(&self) -> Option<&[u8]> {
        unsafe {
            match self.raw.type_index {
                sys::kTVMFFISmallBytes => Some(self.small_bytes()),
                sys::kTVMFFIBytes => Some(object_bytes(self.raw.payload.v_obj)),
                sys::kTVMFFIByteArrayPtr if !self.raw.payload.v_ptr.is_null() => {
                    Some(byte_slice(&*(self.raw.payload.v_ptr as *const sys::TVMFFIByteArray)))
                }
                _ => None,
            }
        }
    }

    fn small_bytes(&self) -> &[u8] {
        let len = (self.raw.small_str_len as usize).min(8);
        unsafe { &self.raw.payload.v_bytes[..len] }
    }
}

/// The bytes of a String or Bytes object.
unsafe fn object_bytes<'a>(obj: *mut sys::TVMFFIObject) -> &'a [u8] {
    byte_slice(&*sys::object_cell::<sys::TVMFFIByteArray>(obj as sys::TVMFFIObjectHandle))
}

impl<'a> From<&'a Any> for AnyView<'a> {
    fn from(value: &'a Any) -> Self {
        value.view()
    }
}

impl std::fmt::Debug for AnyView<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let raw = &self.raw;
        unsafe {
            match raw.type_index {
                sys::kTVMFFINone => write!(f, "None"),
                sys::kTVMFFIInt => write!(f, "{}", raw.payload.v_int64),
                sys::kTVMFFIBool => write!(f, "{}", raw.payload.v_int64 != 0),
                sys::kTVMFFIFloat => write!(f, "{:?}", raw.payload.v_float64),
                _ => match (self.str_bytes(), self.bytes_content()) {
                    (Some(s), _) => write!(f, "{:?}", std::string::String::from_utf8_lossy(s)),
                    (_, Some(b)) => write!(f, "b{:?}", b),
                    _ => write!(f, "<{}>", self.type_name()),
                },
            }
        }
    }
}

/// When a value of the right kind is refused (an `int` that does not fit an `i8`), the reason,
/// to follow a type error's message; empty otherwise.
pub(crate) fn out_of_range_note<T>(
    expected: &str,
    got: &str,
    value: AnyView<'_>,
) -> std::string::String {
    if expected != got {
        return std::string::String::new();
    }
    format!(": the value {value:?} does not fit in `{}`", std::any::type_name::<T>())
}

/// A Rust type's name and type schema as signatures and metadata show them.
pub trait TypeName {
    /// The name in signatures and errors: `int`, `float`, `str`, `Tensor`, `Optional<int>`...
    fn type_name() -> std::string::String;
    /// The type schema, JSON as the reference's metadata gives it: `{"type":"int"}`.
    fn type_schema() -> std::string::String {
        format!("{{\"type\":\"{}\"}}", Self::type_name())
    }
}

/// Reads a Rust value out of a borrowed value, checking its type. `'a` is how long the source
/// lives: borrowed results such as `&'a str` and [`crate::TensorView`] live that long.
pub trait FromAny<'a>: TypeName + Sized {
    /// The value as `Self`, or `None` when it holds something `Self` cannot take.
    fn from_any(value: AnyView<'a>) -> Option<Self>;
}

/// Makes an owned value from a Rust value.
pub trait IntoAny {
    /// The value as an [`Any`].
    fn into_any(self) -> Any;
}
