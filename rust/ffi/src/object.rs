//! Reference-counted object handles.
//!
//! Every heap value of the ABI (strings, errors, functions, tensors, containers, modules, user
//! types) starts with the 24-byte `TVMFFIObject` header. [`ObjectRef`] owns one strong reference:
//! `Clone` adds one, `Drop` releases one, through the runtime, so counts stay exact across
//! languages. Typed wrappers ([`crate::Function`], [`crate::Tensor`], ...) are `ObjectRef`s whose
//! type was checked once, when they were made.

use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::sys;

/// One strong reference to an object of any type.
#[repr(transparent)]
pub struct ObjectRef {
    ptr: NonNull<sys::TVMFFIObject>,
}

// The reference count is atomic and objects handed across the ABI are immutable or synchronised
// by their owners, as in C++ and Python.
unsafe impl Send for ObjectRef {}
unsafe impl Sync for ObjectRef {}

impl ObjectRef {
    /// Takes over a reference the caller owns (e.g. one an ABI function returned).
    ///
    /// # Safety
    /// `handle` must be a live object and the caller must own one strong reference to it, which
    /// passes to the result. Null gives `None`.
    #[inline]
    pub unsafe fn from_raw(handle: sys::TVMFFIObjectHandle) -> Option<ObjectRef> {
        NonNull::new(handle as *mut sys::TVMFFIObject).map(|ptr| ObjectRef { ptr })
    }

    /// A new reference to a borrowed object.
    ///
    /// # Safety
    /// `handle` must be a live object (or null, giving `None`).
    #[inline]
    pub unsafe fn from_borrowed(handle: sys::TVMFFIObjectHandle) -> Option<ObjectRef> {
        if !handle.is_null() {
            sys::TVMFFIObjectIncRef(handle);
        }
        Self::from_raw(handle)
    }

    /// The handle, still owned by `self`.
    #[inline]
    pub fn as_raw(&self) -> sys::TVMFFIObjectHandle {
        self.ptr.as_ptr() as sys::TVMFFIObjectHandle
    }

    /// Gives up ownership: the caller now owns the strong reference.
    #[inline]
    pub fn into_raw(self) -> sys::TVMFFIObjectHandle {
        let handle = self.as_raw();
        std::mem::forget(self);
        handle
    }

    /// The object's type index.
    #[inline]
    pub fn type_index(&self) -> i32 {
        unsafe { (*self.ptr.as_ptr()).type_index }
    }

    /// The object's type key, e.g. `"ffi.Tensor"`.
    pub fn type_key(&self) -> std::string::String {
        type_key_of(self.type_index())
    }

    /// The strong reference count now (a snapshot: other threads may change it).
    pub fn strong_count(&self) -> u32 {
        // The header's first word is updated atomically by every runtime.
        let word = unsafe { &*(self.ptr.as_ptr() as *const AtomicU64) };
        word.load(Ordering::Acquire) as u32
    }

    /// Whether both refer to the same object.
    pub fn same_as(&self, other: &ObjectRef) -> bool {
        self.ptr == other.ptr
    }

    /// Whether the object's type is `type_index` or derives from it.
    #[inline]
    pub fn is_instance_of(&self, type_index: i32) -> bool {
        is_instance(self.type_index(), type_index)
    }

    /// The cell after the header, as `T`.
    ///
    /// # Safety
    /// The object's cell must have type `T`.
    #[inline]
    pub(crate) unsafe fn cell<T>(&self) -> *mut T {
        sys::object_cell::<T>(self.as_raw())
    }
}

impl Clone for ObjectRef {
    #[inline]
    fn clone(&self) -> Self {
        unsafe { sys::TVMFFIObjectIncRef(self.as_raw()) };
        ObjectRef { ptr: self.ptr }
    }
}

impl Drop for ObjectRef {
    #[inline]
    fn drop(&mut self) {
        unsafe { sys::TVMFFIObjectDecRef(self.as_raw()) };
    }
}

impl std::fmt::Debug for ObjectRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ObjectRef({} at {:p})", self.type_key(), self.ptr)
    }
}

/// The type key registered for `type_index` (`"<unknown N>"` when there is none).
pub fn type_key_of(type_index: i32) -> std::string::String {
    let info = unsafe { sys::TVMFFIGetTypeInfo(type_index) };
    if info.is_null() {
        return format!("<unknown {type_index}>");
    }
    unsafe { bytes_to_string((*info).type_key) }
}

/// Whether type `derived` is `base` or one of its descendants (by the runtime's type table).
#[inline]
pub fn is_instance(derived: i32, base: i32) -> bool {
    if derived == base {
        return true;
    }
    if base == sys::kTVMFFIObject {
        return derived >= sys::kTVMFFIStaticObjectBegin;
    }
    let info = unsafe { sys::TVMFFIGetTypeInfo(derived) };
    if info.is_null() {
        return false;
    }
    let info = unsafe { &*info };
    (0..info.type_depth as usize)
        .any(|i| unsafe { (**info.type_ancestors.add(i)).type_index == base })
}

/// Copies a byte array the runtime lent into a Rust string (invalid UTF-8 replaced).
///
/// # Safety
/// `bytes` must describe readable memory.
pub(crate) unsafe fn bytes_to_string(bytes: sys::TVMFFIByteArray) -> std::string::String {
    std::string::String::from_utf8_lossy(byte_slice(&bytes)).into_owned()
}

/// The bytes a byte array describes.
///
/// # Safety
/// `bytes` must describe readable memory that outlives the result.
pub(crate) unsafe fn byte_slice<'a>(bytes: &sys::TVMFFIByteArray) -> &'a [u8] {
    if bytes.size == 0 {
        &[]
    } else {
        std::slice::from_raw_parts(bytes.data as *const u8, bytes.size)
    }
}

/// A typed object reference: an [`ObjectRef`] whose type was checked.
///
/// Implemented by the crate's object wrappers; [`crate::Any::cast`] and function arguments use it
/// to check and convert.
pub trait ObjectType: Sized {
    /// The type index every instance has or derives from.
    const TYPE_INDEX: i32;
    /// The name shown in signatures and errors, e.g. `"Tensor"`.
    const TYPE_NAME: &'static str;
    /// The registered type key, e.g. `"ffi.Tensor"` (what type schemas name).
    const TYPE_KEY: &'static str;
    /// Wraps a reference whose type was checked against `TYPE_INDEX`.
    fn from_object_unchecked(obj: ObjectRef) -> Self;
    /// The underlying reference.
    fn as_object(&self) -> &ObjectRef;

    /// Wraps `obj` when its type is `TYPE_INDEX` or derives from it.
    #[inline]
    fn from_object(obj: ObjectRef) -> Option<Self> {
        if obj.is_instance_of(Self::TYPE_INDEX) {
            Some(Self::from_object_unchecked(obj))
        } else {
            None
        }
    }
}

impl ObjectType for ObjectRef {
    const TYPE_INDEX: i32 = sys::kTVMFFIObject;
    const TYPE_NAME: &'static str = "Object";
    const TYPE_KEY: &'static str = "ffi.Object";
    fn from_object_unchecked(obj: ObjectRef) -> Self {
        obj
    }
    fn as_object(&self) -> &ObjectRef {
        self
    }
}

/// Defines a typed wrapper over [`ObjectRef`] for a built-in object type.
macro_rules! object_wrapper {
    ($(#[$doc:meta])* $name:ident, $index:expr, $type_name:expr, $type_key:expr) => {
        $(#[$doc])*
        #[derive(Clone)]
        #[repr(transparent)]
        pub struct $name(pub(crate) $crate::object::ObjectRef);

        impl $crate::object::ObjectType for $name {
            const TYPE_INDEX: i32 = $index;
            const TYPE_NAME: &'static str = $type_name;
            const TYPE_KEY: &'static str = $type_key;
            #[inline]
            fn from_object_unchecked(obj: $crate::object::ObjectRef) -> Self {
                $name(obj)
            }
            fn as_object(&self) -> &$crate::object::ObjectRef {
                &self.0
            }
        }

        impl $crate::any::IntoAny for &$name {
            fn into_any(self) -> $crate::any::Any {
                $crate::convert::object_into_any(self.0.clone())
            }
        }

        impl From<$name> for $crate::any::Any {
            fn from(value: $name) -> $crate::any::Any {
                $crate::convert::object_into_any(value.0)
            }
        }

        impl From<&$name> for $crate::any::Any {
            fn from(value: &$name) -> $crate::any::Any {
                $crate::convert::object_into_any(value.0.clone())
            }
        }

        impl From<$name> for $crate::object::ObjectRef {
            fn from(value: $name) -> Self {
                value.0
            }
        }
    };
}
pub(crate) use object_wrapper;
