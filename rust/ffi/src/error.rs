//! Errors: the ABI's Error object as a Rust error.
//!
//! A failing ABI call raises an Error object for its thread and returns non-zero; the crate moves
//! it out into `Err(Error)` at once, so nothing stays pending. In the other direction an exported
//! function's or a closure's `Err(Error)` is raised for the caller, who sees the same kind,
//! message and backtrace (Python raises the matching exception type: `ValueError`, ...).

use std::ffi::{c_int, CString};
use std::fmt;

use crate::object::{bytes_to_string, object_wrapper, ObjectRef};
use crate::sys;

object_wrapper!(
    /// An error: a kind (`"ValueError"`, `"TypeError"`, ... which hosts map to their exception
    /// types), a message and a backtrace, most recent call first.
    Error,
    sys::kTVMFFIError,
    "Error",
    "ffi.Error"
);

/// `Result` with [`Error`] as the error.
pub type Result<T> = std::result::Result<T, Error>;

/// The kind of error pending in the host language (e.g. a Python exception raised in a callback):
/// pass it back unchanged and the host sees its own exception.
pub const ENV_ERROR_ALREADY_SET: &str = "EnvErrorAlreadySet";

impl Error {
    /// A new error of `kind` (e.g. `"ValueError"`) with `message`; the backtrace is this
    /// thread's stack now.
    pub fn new(kind: &str, message: impl AsRef<str>) -> Error {
        let backtrace = unsafe { sys::TVMFFIBacktrace(std::ptr::null(), 0, std::ptr::null(), 0) };
        let empty = sys::TVMFFIByteArray { data: std::ptr::null(), size: 0 };
        let backtrace = if backtrace.is_null() { empty } else { unsafe { *backtrace } };
        Self::with_backtrace(kind, message.as_ref(), backtrace)
    }

    fn with_backtrace(kind: &str, message: &str, backtrace: sys::TVMFFIByteArray) -> Error {
        let kind_bytes = sys::TVMFFIByteArray::from_bytes(kind.as_bytes());
        let message_bytes = sys::TVMFFIByteArray::from_bytes(message.as_bytes());
        let mut out: sys::TVMFFIObjectHandle = std::ptr::null_mut();
        let rc =
            unsafe { sys::TVMFFIErrorCreate(&kind_bytes, &message_bytes, &backtrace, &mut out) };
        match unsafe { ObjectRef::from_raw(out) } {
            Some(obj) if rc == 0 => Error(obj),
            // Only allocation fails here; there is nothing better to report than that.
            _ => std::alloc::handle_alloc_error(std::alloc::Layout::new::<sys::TVMFFIErrorCell>()),
        }
    }

    /// The kind, e.g. `"ValueError"`.
    pub fn kind(&self) -> std::string::String {
        unsafe { bytes_to_string((*self.cell()).kind) }
    }

    /// The message.
    pub fn message(&self) -> std::string::String {
        unsafe { bytes_to_string((*self.cell()).message) }
    }

    /// The backtrace, one frame per line, most recent call first.
    pub fn backtrace(&self) -> std::string::String {
        unsafe { bytes_to_string((*self.cell()).backtrace) }
    }

    /// The error that caused this one, if any.
    pub fn cause(&self) -> Option<Error> {
        unsafe { ObjectRef::from_borrowed((*self.cell()).cause_chain) }.map(Error)
    }

    /// Whether this marks an error pending in the host language ([`ENV_ERROR_ALREADY_SET`]).
    pub fn is_env_error_already_set(&self) -> bool {
        self.kind() == ENV_ERROR_ALREADY_SET
    }

    fn cell(&self) -> *mut sys::TVMFFIErrorCell {
        unsafe { self.0.cell::<sys::TVMFFIErrorCell>() }
    }

    /// Takes the error the thread's last failing ABI call raised (which returned `code`).
    pub(crate) fn take_raised(code: c_int) -> Error {
        let mut handle: sys::TVMFFIObjectHandle = std::ptr::null_mut();
        unsafe { sys::TVMFFIErrorMoveFromRaised(&mut handle) };
        match unsafe { ObjectRef::from_raw(handle) } {
            Some(obj) => Error(obj),
            None if code == -2 => Error::new(ENV_ERROR_ALREADY_SET, ""),
            None => Error::new(
                "InternalError",
                format!("an ABI call failed with code {code} but raised no error"),
            ),
        }
    }

    /// Raises this error for the thread, as a failing safe call does before returning -1.
    pub(crate) fn set_raised(&self) {
        unsafe { sys::TVMFFIErrorSetRaised(self.0.as_raw()) };
    }
}

/// Turns an ABI return code into a `Result`, taking the raised error on failure.
pub(crate) fn check(code: c_int) -> Result<()> {
    if code == 0 {
        Ok(())
    } else {
        Err(Error::take_raised(code))
    }
}

/// Raises `kind: message` for the thread without allocating through Rust (used where a panic
/// payload or an out-of-memory error is reported).
pub(crate) fn raise_c(kind: &str, message: &str) {
    let kind = CString::new(kind.replace('\0', "")).unwrap_or_default();
    let message = CString::new(message.replace('\0', "\\0")).unwrap_or_default();
    unsafe { sys::TVMFFIErrorSetRaisedFromCStr(kind.as_ptr(), message.as_ptr()) };
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind(), self.message())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("kind", &self.kind())
            .field("message", &self.message())
            .finish()
    }
}

impl std::error::Error for Error {}

impl From<&str> for Error {
    /// A `RuntimeError` with this message.
    fn from(message: &str) -> Self {
        Error::new("RuntimeError", message)
    }
}

impl From<std::string::String> for Error {
    /// A `RuntimeError` with this message.
    fn from(message: std::string::String) -> Self {
        Error::new("RuntimeError", message)
    }
}

impl From<std::io::Error> for Error {
    /// An `OSError` with the I/O error's text.
    fn from(e: std::io::Error) -> Self {
        Error::new("OSError", e.to_string())
    }
}

impl From<std::num::TryFromIntError> for Error {
    /// A `ValueError`: an integer out of range.
    fn from(e: std::num::TryFromIntError) -> Self {
        Error::new("ValueError", e.to_string())
    }
}

impl From<std::str::Utf8Error> for Error {
    /// A `ValueError`: bytes that are not UTF-8.
    fn from(e: std::str::Utf8Error) -> Self {
        Error::new("ValueError", e.to_string())
    }
}

impl From<Box<dyn std::error::Error + Send + Sync>> for Error {
    /// A `RuntimeError` with the error's text (an ffi [`Error`] inside keeps its kind).
    fn from(e: Box<dyn std::error::Error + Send + Sync>) -> Self {
        match e.downcast::<Error>() {
            Ok(error) => *error,
            Err(other) => Error::new("RuntimeError", other.to_string()),
        }
    }
}

/// Returns `Err(Error::new(kind, format!(...)))` from the enclosing function:
/// `ffi::bail!(ValueError, "expected {} dims, got {}", 2, n)`.
#[macro_export]
macro_rules! bail {
    ($kind:ident, $($fmt:tt)+) => {
        return ::std::result::Result::Err($crate::Error::new(stringify!($kind), format!($($fmt)+)).into())
    };
}

/// `ffi::ensure!(cond, ValueError, "...", args)`: [`bail!`] unless `cond` holds.
#[macro_export]
macro_rules! ensure {
    ($cond:expr, $kind:ident, $($fmt:tt)+) => {
        if !$cond {
            $crate::bail!($kind, $($fmt)+);
        }
    };
}
