//! Tensors over DLPack: [`Tensor`] owns one (a reference-counted object), [`TensorView`]
//! borrows one (what a kernel receives: PyTorch, NumPy, JAX and CuPy arrays arrive as views,
//! without a copy).
//!
//! An owning tensor converts to a view, never the reverse. Rust-owned buffers become tensors
//! without a copy ([`Tensor::from_vec`]); [`Tensor::alloc`] allocates through the host's
//! allocator (PyTorch's when called from PyTorch).

use std::ffi::c_void;
use std::marker::PhantomData;

use crate::any::{AnyView, FromAny, TypeName};
use crate::dtype::{DataType, Device};
use crate::error::{check, Error, Result};
use crate::object::{object_wrapper, ObjectRef};
use crate::sys;

object_wrapper!(
    /// An owned tensor: a reference-counted object holding a `DLTensor`.
    Tensor,
    sys::kTVMFFITensor,
    "Tensor",
    "ffi.Tensor"
);

/// A borrowed tensor, valid for `'a`: a `DLTensor` someone else owns.
///
/// A view reads its elements ([`TensorView::as_slice`]); it writes them
/// ([`TensorView::as_mut_slice`]) only when it was made writable: a `mut` parameter of an
/// exported function whose memory no other argument shares, or [`Tensor::view_mut`]. So Rust
/// never holds a mutable and a shared slice of the same memory.
pub struct TensorView<'a> {
    dl: *const sys::DLTensor,
    writable: bool,
    _borrow: PhantomData<&'a sys::DLTensor>,
}

// A view is a description plus, when writable, the only right to write within Rust; the data's
// synchronisation with other languages is the owner's, as in C++.
unsafe impl Send for TensorView<'_> {}
unsafe impl Sync for TensorView<'_> {}

/// A Rust element type with its DLPack dtype: what [`TensorView::as_slice`] reads as.
pub trait Element: Copy + 'static {
    /// The dtype whose elements are `Self`.
    const DTYPE: DataType;
}

macro_rules! element {
    ($($t:ty => $d:expr),*) => {$(
        impl Element for $t {
            const DTYPE: DataType = $d;
        }
    )*};
}
element!(f32 => DataType::F32, f64 => DataType::F64, i8 => DataType::I8, i16 => DataType::I16,
         i32 => DataType::I32, i64 => DataType::I64, u8 => DataType::U8, u16 => DataType::U16,
         u32 => DataType::U32, u64 => DataType::U64);
// Not `bool`: a byte of a foreign bool tensor may hold any value, which a Rust `bool` must not.

/// The methods a `DLTensor` answers, shared by [`Tensor`] and [`TensorView`].
macro_rules! tensor_methods {
    () => {
        /// Number of dimensions.
        pub fn ndim(&self) -> usize {
            self.dl().ndim.max(0) as usize
        }

        /// The extents.
        pub fn shape(&self) -> &[i64] {
            let dl = self.dl();
            if dl.ndim <= 0 || dl.shape.is_null() {
                &[]
            } else {
                unsafe { std::slice::from_raw_parts(dl.shape, dl.ndim as usize) }
            }
        }

        /// The strides in elements; compact row-major strides when the producer left them null.
        pub fn strides(&self) -> Vec<i64> {
            let dl = self.dl();
            if !dl.strides.is_null() && dl.ndim > 0 {
                return unsafe { std::slice::from_raw_parts(dl.strides, dl.ndim as usize) }
                    .to_vec();
            }
            let shape = self.shape();
            let mut strides = vec![1_i64; shape.len()];
            for i in (0..shape.len().saturating_sub(1)).rev() {
                strides[i] = strides[i + 1] * shape[i + 1];
            }
            strides
        }

        /// Extent of dimension `i`; negative `i` counts from the end. Panics when out of range.
        pub fn size(&self, i: i64) -> i64 {
            self.shape()[self.axis(i)]
        }

        /// Stride of dimension `i`; negative `i` counts from the end. Panics when out of range.
        pub fn stride(&self, i: i64) -> i64 {
            self.strides()[self.axis(i)]
        }

        fn axis(&self, i: i64) -> usize {
            let n = self.ndim() as i64;
            let axis = if i < 0 { i + n } else { i };
            assert!(axis >= 0 && axis < n, "axis {i} out of range for a {n}-d tensor");
            axis as usize
        }

        /// Number of elements.
        pub fn numel(&self) -> i64 {
            self.shape().iter().product()
        }

        /// The element type.
        pub fn dtype(&self) -> DataType {
            DataType(self.dl().dtype)
        }

        /// Where the data lives.
        pub fn device(&self) -> Device {
            Device(self.dl().device)
        }

        /// Bytes from the allocation's start to the first element.
        pub fn byte_offset(&self) -> u64 {
            self.dl().byte_offset
        }

        /// Address of the first element (the allocation plus the byte offset).
        pub fn data_ptr(&self) -> *mut c_void {
            let dl = self.dl();
            (dl.data as *mut u8).wrapping_add(dl.byte_offset as usize) as *mut c_void
        }

        /// Whether the elements are laid out compactly in row-major order. Dimensions of extent 1
        /// may have any stride, and a tensor with no elements is contiguous whatever its strides
        /// (as C++'s `IsContiguous` says).
        pub fn is_contiguous(&self) -> bool {
            let shape = self.shape();
            let Some(strides) = self.raw_strides() else { return true };
            if shape.contains(&0) {
                return true;
            }
            let mut expected = 1_i64;
            for (&extent, &stride) in shape.iter().zip(strides).rev() {
                if extent != 1 && stride != expected {
                    return false;
                }
                expected = expected.saturating_mul(extent);
            }
            true
        }

        /// The producer's strides, or `None` for a compact layout left implicit.
        fn raw_strides(&self) -> Option<&[i64]> {
            let dl = self.dl();
            if dl.strides.is_null() || dl.ndim <= 0 {
                None
            } else {
                Some(unsafe { std::slice::from_raw_parts(dl.strides, dl.ndim as usize) })
            }
        }

        /// The elements as a slice: the tensor must be on the CPU, contiguous and of `T`'s dtype
        /// (a `TypeError` or `ValueError` says which failed).
        pub fn as_slice<T: Element>(&self) -> Result<&[T]> {
            self.check_slice::<T>()?;
            let n = self.numel() as usize;
            if n == 0 {
                return Ok(&[]);
            }
            Ok(unsafe { std::slice::from_raw_parts(self.data_ptr() as *const T, n) })
        }

        /// The raw `DLTensor`.
        pub fn as_dltensor(&self) -> &sys::DLTensor {
            self.dl()
        }

        fn check_slice<T: Element>(&self) -> Result<()> {
            if self.dtype() != T::DTYPE {
                return Err(Error::new(
                    "TypeError",
                    format!("the tensor holds {} elements, not {}", self.dtype(), T::DTYPE),
                ));
            }
            let device = self.device().device_type();
            if device != sys::kDLCPU && device != sys::kDLCUDAHost && device != sys::kDLROCMHost {
                return Err(Error::new(
                    "ValueError",
                    format!("the tensor's data is on {}, not in host memory", self.device()),
                ));
            }
            if !self.is_contiguous() {
                return Err(Error::new("ValueError", "the tensor is not contiguous"));
            }
            if self.numel() > 0 && (self.data_ptr() as usize) % std::mem::align_of::<T>() != 0 {
                return Err(Error::new(
                    "ValueError",
                    "the tensor's data is not aligned for its type",
                ));
            }
            Ok(())
        }
    };
}

impl<'a> TensorView<'a> {
    /// A view of a `DLTensor` that outlives `'a`.
    ///
    /// # Safety
    /// `dl` must point to a valid `DLTensor` whose shape, strides and data stay valid for `'a`.
    pub unsafe fn from_raw(dl: *const sys::DLTensor) -> TensorView<'a> {
        TensorView { dl, writable: false, _borrow: PhantomData }
    }

    /// A writable view of a `DLTensor` that outlives `'a`.
    ///
    /// # Safety
    /// As [`TensorView::from_raw`], and nothing else may read or write the tensor's elements
    /// while the view is used to write them.
    pub unsafe fn from_raw_mut(dl: *const sys::DLTensor) -> TensorView<'a> {
        TensorView { dl, writable: true, _borrow: PhantomData }
    }

    /// Marks the view writable (an exported function's `mut` parameter, once checked).
    pub(crate) fn set_writable(&mut self) {
        self.writable = true;
    }

    /// Whether [`TensorView::as_mut_slice`] may write through this view.
    pub fn is_writable(&self) -> bool {
        self.writable
    }

    /// The bytes `[first, last)` the elements span (empty for a tensor without elements).
    pub(crate) fn byte_span(&self) -> (usize, usize) {
        let shape = self.shape();
        if shape.contains(&0) {
            return (0, 0);
        }
        let (mut low, mut high) = (0_i64, 0_i64);
        let mut compact = 1_i64; // the stride of dimension i when the layout is implicit
        for (i, &extent) in shape.iter().enumerate().rev() {
            let stride = self.raw_strides().map_or(compact, |s| s[i]);
            compact = compact.saturating_mul(extent);
            let reach = (extent - 1).saturating_mul(stride);
            if reach < 0 {
                low = low.saturating_add(reach);
            } else {
                high = high.saturating_add(reach);
            }
        }
        let elem = self.dtype().bytes_per_element() as i64;
        let base = self.data_ptr() as i64;
        let first = base.saturating_add(low.saturating_mul(elem)) as usize;
        let last = base.saturating_add(high.saturating_add(1).saturating_mul(elem)) as usize;
        (first, last)
    }

    fn dl(&self) -> &sys::DLTensor {
        unsafe { &*self.dl }
    }

    tensor_methods!();

    /// The elements as a mutable slice (CPU, contiguous, `T`'s dtype): how a kernel writes its
    /// output argument. A `ValueError` for a read-only view: declare the exported function's
    /// parameter `mut` (`mut y: TensorView`), or take the view with [`Tensor::view_mut`].
    pub fn as_mut_slice<T: Element>(&mut self) -> Result<&mut [T]> {
        if !self.writable {
            return Err(Error::new(
                "ValueError",
                "the tensor view is read-only: declare the parameter `mut` to write it",
            ));
        }
        self.check_slice::<T>()?;
        let n = self.numel() as usize;
        if n == 0 {
            return Ok(&mut []);
        }
        Ok(unsafe { std::slice::from_raw_parts_mut(self.data_ptr() as *mut T, n) })
    }
}

impl Tensor {
    fn dl(&self) -> &sys::DLTensor {
        unsafe { &*self.0.cell::<sys::DLTensor>() }
    }

    tensor_methods!();

    /// A read-only view borrowing this tensor.
    pub fn view(&self) -> TensorView<'_> {
        unsafe { TensorView::from_raw(self.0.cell::<sys::DLTensor>()) }
    }

    /// A writable view, for a tensor no other Rust reference shares (a `ValueError` otherwise).
    pub fn view_mut(&mut self) -> Result<TensorView<'_>> {
        self.check_unique()?;
        Ok(unsafe { TensorView::from_raw_mut(self.0.cell::<sys::DLTensor>()) })
    }

    fn check_unique(&self) -> Result<()> {
        match self.0.strong_count() {
            1 => Ok(()),
            n => Err(Error::new(
                "ValueError",
                format!("the tensor is shared ({n} references): only a sole owner writes it"),
            )),
        }
    }

    /// The elements as a mutable slice (CPU, contiguous, `T`'s dtype), for a tensor no other
    /// reference shares (a clone, an export to DLPack): a `ValueError` otherwise.
    pub fn as_mut_slice<T: Element>(&mut self) -> Result<&mut [T]> {
        self.check_unique()?;
        self.check_slice::<T>()?;
        let n = self.numel() as usize;
        if n == 0 {
            return Ok(&mut []);
        }
        Ok(unsafe { std::slice::from_raw_parts_mut(self.data_ptr() as *mut T, n) })
    }

    /// A new compact tensor allocated through the environment's allocator: the host's (PyTorch's
    /// inside a call from PyTorch). With none installed, this project's runtime makes an aligned
    /// CPU allocation; the reference's runtime has no default and returns an error. Host memory
    /// comes zeroed.
    pub fn alloc(shape: &[i64], dtype: DataType, device: Device) -> Result<Tensor> {
        let mut shape_buf = shape.to_vec();
        let mut prototype = sys::DLTensor {
            data: std::ptr::null_mut(),
            device: device.0,
            ndim: i32::try_from(shape.len())?,
            dtype: dtype.0,
            shape: shape_buf.as_mut_ptr(),
            strides: std::ptr::null_mut(),
            byte_offset: 0,
        };
        let mut out: sys::TVMFFIObjectHandle = std::ptr::null_mut();
        check(unsafe { sys::TVMFFIEnvTensorAlloc(&mut prototype, &mut out) })?;
        let tensor = Tensor(
            unsafe { ObjectRef::from_raw(out) }.expect("TVMFFIEnvTensorAlloc returns a tensor"),
        );
        // Allocators hand out uninitialised memory, which Rust must not read: host memory is
        // zeroed here (device memory is never read as a slice).
        if matches!(device.device_type(), sys::kDLCPU | sys::kDLCUDAHost | sys::kDLROCMHost) {
            let (first, last) = tensor.view().byte_span();
            if last > first {
                unsafe { std::ptr::write_bytes(first as *mut u8, 0, last - first) };
            }
        }
        Ok(tensor)
    }

    /// A CPU tensor over `data` without a copy: the Vec is dropped when the last reference
    /// (in any language) goes. `shape`'s product must equal `data.len()` (a `ValueError`).
    pub fn from_vec<T: Element + Send>(data: Vec<T>, shape: &[i64]) -> Result<Tensor> {
        Tensor::from_buffer(data, shape)
    }

    /// A CPU tensor over the elements of any owned buffer (a `Vec`, a `Box<[T]>`, a memory map
    /// wrapper...), without a copy. The buffer is dropped exactly once, when the last reference
    /// (in any language) goes; on error it is dropped before returning.
    pub fn from_buffer<T, B>(buffer: B, shape: &[i64]) -> Result<Tensor>
    where
        T: Element,
        B: AsMut<[T]> + Send + 'static,
    {
        struct Owner<B> {
            buffer: B,
            shape: Vec<i64>,
            managed: sys::DLManagedTensorVersioned,
        }
        unsafe extern "C" fn delete<B>(managed: *mut sys::DLManagedTensorVersioned) {
            let owner = (*managed).manager_ctx as *mut Owner<B>;
            // A panicking Drop must not unwind into the runtime.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                drop(Box::from_raw(owner));
            }));
        }
        let mut owner = Box::new(Owner {
            buffer,
            shape: shape.to_vec(),
            managed: sys::DLManagedTensorVersioned {
                version: sys::DLPackVersion {
                    major: sys::DLPACK_MAJOR_VERSION,
                    minor: sys::DLPACK_MINOR_VERSION,
                },
                manager_ctx: std::ptr::null_mut(),
                deleter: Some(delete::<B>),
                flags: 0,
                dl_tensor: sys::DLTensor {
                    data: std::ptr::null_mut(),
                    device: Device::cpu().0,
                    ndim: i32::try_from(shape.len())?,
                    dtype: T::DTYPE.0,
                    shape: std::ptr::null_mut(),
                    strides: std::ptr::null_mut(),
                    byte_offset: 0,
                },
            },
        });
        let elements = owner.buffer.as_mut();
        let (data, len) = (elements.as_mut_ptr(), elements.len());
        let count =
            shape.iter().try_fold(1_i64, |n, &d| if d < 0 { None } else { n.checked_mul(d) });
        if count != Some(len as i64) {
            return Err(Error::new(
                "ValueError",
                format!("shape {shape:?} does not hold {len} elements"),
            ));
        }
        owner.managed.dl_tensor.data = data as *mut c_void;
        owner.managed.dl_tensor.shape = owner.shape.as_mut_ptr();
        let owner = Box::into_raw(owner);
        unsafe {
            (*owner).managed.manager_ctx = owner as *mut c_void;
            let managed = std::ptr::addr_of_mut!((*owner).managed);
            Tensor::from_dlpack_versioned(managed).inspect_err(|_| {
                // Nothing was taken on failure: the buffer is still ours.
                drop(Box::from_raw(owner));
            })
        }
    }

    /// Takes a versioned DLPack tensor (its deleter runs when the last reference goes). On
    /// failure nothing is taken: the caller still owns `managed`.
    ///
    /// # Safety
    /// `managed` must be a valid DLPack tensor not owned by anyone else.
    pub unsafe fn from_dlpack_versioned(
        managed: *mut sys::DLManagedTensorVersioned,
    ) -> Result<Tensor> {
        let mut out: sys::TVMFFIObjectHandle = std::ptr::null_mut();
        check(sys::TVMFFITensorFromDLPackVersioned(managed, 0, 0, &mut out))?;
        Ok(Tensor(ObjectRef::from_raw(out).expect("a tensor")))
    }

    /// Takes a legacy DLPack tensor, as [`Tensor::from_dlpack_versioned`].
    ///
    /// # Safety
    /// `managed` must be a valid DLPack tensor not owned by anyone else.
    pub unsafe fn from_dlpack(managed: *mut sys::DLManagedTensor) -> Result<Tensor> {
        let mut out: sys::TVMFFIObjectHandle = std::ptr::null_mut();
        check(sys::TVMFFITensorFromDLPack(managed, 0, 0, &mut out))?;
        Ok(Tensor(ObjectRef::from_raw(out).expect("a tensor")))
    }

    /// Exports as a versioned DLPack tensor holding a reference to this one: hand it to
    /// another framework, which calls its deleter when done.
    pub fn to_dlpack_versioned(&self) -> Result<*mut sys::DLManagedTensorVersioned> {
        let mut out = std::ptr::null_mut();
        check(unsafe { sys::TVMFFITensorToDLPackVersioned(self.0.as_raw(), &mut out) })?;
        Ok(out)
    }

    /// Exports as a legacy DLPack tensor holding a reference to this one.
    pub fn to_dlpack(&self) -> Result<*mut sys::DLManagedTensor> {
        let mut out = std::ptr::null_mut();
        check(unsafe { sys::TVMFFITensorToDLPack(self.0.as_raw(), &mut out) })?;
        Ok(out)
    }
}

impl std::fmt::Debug for Tensor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Tensor(shape={:?}, dtype={}, device={})",
            self.shape(),
            self.dtype(),
            self.device()
        )
    }
}

impl std::fmt::Debug for TensorView<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "TensorView(shape={:?}, dtype={}, device={})",
            self.shape(),
            self.dtype(),
            self.device()
        )
    }
}

impl TypeName for TensorView<'_> {
    fn type_name() -> std::string::String {
        "Tensor".into()
    }
    fn type_schema() -> std::string::String {
        r#"{"type":"Tensor"}"#.into()
    }
}

impl<'a> FromAny<'a> for TensorView<'a> {
    /// A borrowed `DLTensor*` (what hosts pass for framework tensors) or a Tensor object.
    fn from_any(value: AnyView<'a>) -> Option<Self> {
        let raw = value.as_raw();
        unsafe {
            match raw.type_index {
                sys::kTVMFFIDLTensorPtr if !raw.payload.v_ptr.is_null() => {
                    Some(TensorView::from_raw(raw.payload.v_ptr as *const sys::DLTensor))
                }
                sys::kTVMFFITensor => Some(TensorView::from_raw(
                    sys::object_cell::<sys::DLTensor>(raw.payload.v_obj as sys::TVMFFIObjectHandle),
                )),
                _ => None,
            }
        }
    }
}

impl<'a> crate::function::IntoArg<'a> for TensorView<'a> {
    /// A borrowed `DLTensor*`, as hosts pass framework tensors: no reference is taken.
    fn into_arg(self) -> crate::function::Arg<'a> {
        let raw = sys::TVMFFIAny {
            type_index: sys::kTVMFFIDLTensorPtr,
            small_str_len: 0,
            payload: sys::TVMFFIAnyPayload { v_ptr: self.dl as *mut c_void },
        };
        unsafe { crate::function::Arg::borrowed(raw) }
    }
}
