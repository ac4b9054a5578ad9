//! The ABI's immutable strings and byte strings.
//!
//! A value of up to 7 bytes lives inside the 16-byte Any (a "small" string); a longer one is a
//! reference-counted object. [`String`] and [`Bytes`] hold either, so passing them on never
//! copies the text.

use std::fmt;

use crate::any::{Any, AnyView, FromAny, IntoAny, TypeName};
use crate::sys;

/// An immutable UTF-8 string of the ABI (`ffi.String`; Python `str`).
#[derive(Clone)]
pub struct String(Any);

/// An immutable byte string of the ABI (`ffi.Bytes`; Python `bytes`).
#[derive(Clone)]
pub struct Bytes(Any);

fn make(
    bytes: &[u8],
    from: unsafe extern "C" fn(*const sys::TVMFFIByteArray, *mut sys::TVMFFIAny) -> i32,
) -> Any {
    let input = sys::TVMFFIByteArray::from_bytes(bytes);
    let mut out = sys::TVMFFIAny::NONE;
    if unsafe { from(&input, &mut out) } != 0 {
        // Only allocation can fail here.
        std::alloc::handle_alloc_error(std::alloc::Layout::array::<u8>(bytes.len()).unwrap());
    }
    unsafe { Any::from_raw(out) }
}

impl String {
    /// A string holding a copy of `text`.
    pub fn new(text: &str) -> String {
        String(make(text.as_bytes(), sys::TVMFFIStringFromByteArray))
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        // Strings made by any runtime are UTF-8 when made from Python or Rust text; bytes that
        // are not (a C caller's) read as empty rather than as undefined behaviour.
        std::str::from_utf8(self.as_bytes()).unwrap_or("")
    }

    /// The text's bytes.
    pub fn as_bytes(&self) -> &[u8] {
        self.0.as_view().str_bytes().unwrap_or(&[])
    }

    /// The length in bytes.
    pub fn len(&self) -> usize {
        self.as_bytes().len()
    }

    /// Whether the string is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Bytes {
    /// A byte string holding a copy of `data`.
    pub fn new(data: &[u8]) -> Bytes {
        Bytes(make(data, sys::TVMFFIBytesFromByteArray))
    }

    /// The bytes.
    pub fn as_bytes(&self) -> &[u8] {
        self.0.as_view().bytes_content().unwrap_or(&[])
    }

    /// The length.
    pub fn len(&self) -> usize {
        self.as_bytes().len()
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl std::ops::Deref for String {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for String {
    fn eq(&self, other: &Self) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}
impl Eq for String {}

impl PartialEq<str> for String {
    fn eq(&self, other: &str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialEq<&str> for String {
    fn eq(&self, other: &&str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialEq for Bytes {
    fn eq(&self, other: &Self) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}
impl Eq for Bytes {}

impl fmt::Display for String {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for String {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Debug for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "b{:?}", self.as_bytes())
    }
}

impl From<&str> for String {
    fn from(text: &str) -> String {
        String::new(text)
    }
}

impl From<&[u8]> for Bytes {
    fn from(data: &[u8]) -> Bytes {
        Bytes::new(data)
    }
}

impl TypeName for String {
    fn type_name() -> std::string::String {
        "str".into()
    }
    fn type_schema() -> std::string::String {
        r#"{"type":"ffi.String"}"#.into()
    }
}

impl TypeName for Bytes {
    fn type_name() -> std::string::String {
        "bytes".into()
    }
    fn type_schema() -> std::string::String {
        r#"{"type":"ffi.Bytes"}"#.into()
    }
}

impl<'a> FromAny<'a> for String {
    /// Any string value; a borrowed C string is copied into a String of its own.
    fn from_any(value: AnyView<'a>) -> Option<Self> {
        match value.type_index() {
            sys::kTVMFFISmallStr | sys::kTVMFFIStr => value.to_owned().ok().map(String),
            sys::kTVMFFIRawStr => {
                value.str_bytes().map(|b| String(make(b, sys::TVMFFIStringFromByteArray)))
            }
            _ => None,
        }
    }
}

impl<'a> FromAny<'a> for Bytes {
    /// Any bytes value; a borrowed byte array is copied into Bytes of its own.
    fn from_any(value: AnyView<'a>) -> Option<Self> {
        match value.type_index() {
            sys::kTVMFFISmallBytes | sys::kTVMFFIBytes => value.to_owned().ok().map(Bytes),
            sys::kTVMFFIByteArrayPtr => {
                value.bytes_content().map(|b| Bytes(make(b, sys::TVMFFIBytesFromByteArray)))
            }
            _ => None,
        }
    }
}

impl IntoAny for String {
    fn into_any(self) -> Any {
        self.0
    }
}

impl IntoAny for &String {
    fn into_any(self) -> Any {
        self.0.clone()
    }
}

impl IntoAny for Bytes {
    fn into_any(self) -> Any {
        self.0
    }
}

impl IntoAny for &Bytes {
    fn into_any(self) -> Any {
        self.0.clone()
    }
}

impl IntoAny for &str {
    fn into_any(self) -> Any {
        String::new(self).0
    }
}

impl IntoAny for std::string::String {
    fn into_any(self) -> Any {
        String::new(&self).0
    }
}

impl IntoAny for &std::string::String {
    fn into_any(self) -> Any {
        String::new(self).0
    }
}

impl IntoAny for &[u8] {
    fn into_any(self) -> Any {
        Bytes::new(self).0
    }
}

impl TypeName for &str {
    fn type_name() -> std::string::String {
        "str".into()
    }
    fn type_schema() -> std::string::String {
        r#"{"type":"ffi.String"}"#.into()
    }
}

impl TypeName for std::string::String {
    fn type_name() -> std::string::String {
        "str".into()
    }
    fn type_schema() -> std::string::String {
        r#"{"type":"ffi.String"}"#.into()
    }
}

impl<'a> FromAny<'a> for std::string::String {
    /// Any string value, copied (invalid UTF-8 is refused).
    fn from_any(value: AnyView<'a>) -> Option<Self> {
        value.str_bytes().and_then(|b| std::str::from_utf8(b).ok()).map(str::to_owned)
    }
}
