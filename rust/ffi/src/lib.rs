//! Call and write kernel libraries from Rust over the ffi C ABI (binary compatible with
//! TVM-FFI): the same kernels C++, C and Python use, with zero-copy tensors, on either runtime.
//!
//! * **Values**: [`Any`] / [`AnyView`] with [`IntoAny`] and [`FromAny`] conversions for Rust
//!   integers, floats, `bool`, strings, `Option`, [`Device`], [`DataType`] and objects.
//! * **Objects**: [`ObjectRef`] and typed wrappers ([`Function`], [`Module`], [`Tensor`],
//!   [`Array`], [`Map`], [`Shape`], [`String`], [`Bytes`], [`Error`]); `Clone` adds a strong
//!   reference, `Drop` releases one.
//! * **Functions**: call any function ([`Function::call`], [`Function::invoke`]); make one from a
//!   closure ([`Function::from_typed`], [`Function::from_packed`]); the global registry
//!   ([`Function::get_global`], [`Function::set_global`]).
//! * **Modules**: [`Module::load`] a kernel library and [`Module::function`] to get its exports.
//! * **Tensors**: [`TensorView`] borrows a `DLTensor` (what kernels receive), [`Tensor`] owns one;
//!   [`Tensor::from_vec`] wraps a Rust buffer, [`Tensor::alloc`] uses the host's allocator.
//! * **Errors**: a raised error arrives as `Err(`[`Error`]`)` with kind, message and backtrace;
//!   an `Err` or a panic inside a function called through the ABI is raised for the caller.
//!   Panics never unwind across the C ABI.
//! * **Environment** ([`env`](mod@env)): the host's current stream for a device, a stream guard for Rust
//!   hosts, and signal checks for long loops.
//! * **Exports**: [`export`] (`#[ffi::export]`) turns a Rust function into `__tvm_ffi_<name>`
//!   with its metadata, so a `cdylib` crate is a kernel library Python, C++ and C load.
//!
//! ```no_run
//! use ffi::{Module, Tensor};
//! let module = Module::load("libadd_one.so")?;
//! let x = Tensor::from_vec(vec![1.0_f32, 2.0, 3.0], &[3])?;
//! let y = Tensor::alloc(&[3], ffi::DataType::F32, ffi::Device::cpu())?;
//! module.function("add_one")?.invoke((&x, &y))?;
//! assert_eq!(y.as_slice::<f32>()?, &[2.0, 3.0, 4.0]);
//! # Ok::<(), ffi::Error>(())
//! ```
//!
//! Linking: `ffi-sys` links the runtime library found through `FFI_LIBDIR` or `python3 -m
//! ffi.config --libdir`. Programs run by `cargo run` and `cargo test` find it with nothing more;
//! a program started directly needs an rpath, which its build script adds from
//! `DEP_FFI_LIBDIR` (see `docs/rust.md`).

#![warn(missing_docs)]

pub use ffi_sys as sys;

mod any;
mod container;
mod convert;
mod dtype;
pub mod env;
mod error;
#[doc(hidden)]
pub mod export;
mod function;
mod module;
mod object;
mod string;
mod tensor;

pub use any::{Any, AnyView, FromAny, IntoAny, TypeName};
pub use container::{Array, Map, Shape};
pub use dtype::{DataType, Device};
pub use error::{Error, Result, ENV_ERROR_ALREADY_SET};
pub use function::{safe_call, Arg, Function, IntoArg, IntoArgs, IntoCallResult, TypedFn};
pub use module::Module;
pub use object::{is_instance, type_key_of, ObjectRef, ObjectType};
pub use string::{Bytes, String};
pub use tensor::{Element, Tensor, TensorView};

/// Exports a Rust function from a `cdylib` as a kernel-library function.
///
/// ```ignore
/// /// Adds one to every element of `x`, into `y`.
/// #[ffi::export]
/// fn add_one(x: ffi::TensorView, mut y: ffi::TensorView) -> ffi::Result<()> {
///     let out = y.as_mut_slice::<f32>()?;
///     for (o, i) in out.iter_mut().zip(x.as_slice::<f32>()?) {
///         *o = i + 1.0;
///     }
///     Ok(())
/// }
/// ```
///
/// The function stays as written; the macro adds the C symbols `__tvm_ffi_add_one` (the safe
/// call: arguments checked and converted, a mismatch a `TypeError` naming the argument, an `Err`
/// or panic raised for the caller), `__tvm_ffi__metadata_add_one` (signature, types and
/// parameter names, so Python shows `add_one(x: Tensor, y: Tensor) -> void` and takes keywords)
/// and, when the function has doc comments, `__tvm_ffi__doc_add_one`.
/// `#[ffi::export(name = "other")]` exports under another name; `#[ffi::export(crate =
/// "my_ffi")]` names this crate where a dependency renamed it.
///
/// What one C symbol cannot express is refused at compile time, with the reason:
///
/// ```compile_fail
/// #[ffi::export]
/// fn generic<T: ffi::IntoAny>(x: T) -> T { x } // generic functions cannot be exported
/// ```
///
/// ```compile_fail
/// #[ffi::export]
/// async fn later() -> i64 { 1 } // `async` functions cannot be exported
/// ```
///
/// ```compile_fail
/// #[ffi::export(name = "not a name")] // export name "not a name" must be letters, digits and `_`
/// fn renamed() {}
/// ```
///
/// ```compile_fail
/// // An argument cannot be kept past the call: its lifetime is the call's.
/// static KEEP: std::sync::Mutex<Option<ffi::TensorView<'static>>> = std::sync::Mutex::new(None);
/// #[ffi::export]
/// fn keep(x: ffi::TensorView<'static>) { *KEEP.lock().unwrap() = Some(x); }
/// ```
///
/// ```compile_fail
/// struct Unknown;
/// #[ffi::export]
/// fn takes(x: Unknown) {} // `Unknown` is not a `FromAny` type
/// ```
///
/// A `mut` [`TensorView`] parameter is writable ([`TensorView::as_mut_slice`]) once the call
/// checked that no other tensor argument shares its memory (a `ValueError` otherwise); other
/// views are read-only. Rust never holds a mutable and a shared slice of the same memory.
///
/// Parameters take any [`FromAny`] type (`i64`, `f64`, `bool`, `&str`, `Option<&str>`,
/// `std::string::String`,
/// [`TensorView`], [`Tensor`], [`Function`], `Option<T>`, `Vec<T>`, [`Any`], ...); the result
/// is any [`IntoAny`] type or `Result` of one (`()` returns None). Trailing `Option<T>`
/// parameters may be omitted by callers (they receive `None`). A panic becomes a
/// `RuntimeError` for the caller; a crate built with `panic = "abort"` aborts instead.
pub use ffi_macros::export;

/// The ABI version of the runtime serving this process (which may be the reference's).
pub fn runtime_version() -> (u32, u32, u32) {
    let mut v = sys::TVMFFIVersion::default();
    unsafe { sys::TVMFFIGetVersion(&mut v) };
    (v.major, v.minor, v.patch)
}
