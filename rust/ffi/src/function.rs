//! Functions: call any function of the ABI (a kernel, a global, a Python callback) and make
//! functions from Rust closures that any host can call.
//!
//! ```no_run
//! use ffi::{Any, Function};
//! let add = Function::from_typed(|a: i64, b: i64| a + b);
//! assert_eq!(add.call(&[Any::from(1), Any::from(2)])?.cast::<i64>()?, 3);
//! assert_eq!(add.invoke((1, 2))?.cast::<i64>()?, 3);
//! Function::set_global("demo.add", &add, true)?;
//! let found = Function::get_global("demo.add")?.expect("registered");
//! # Ok::<(), ffi::Error>(())
//! ```

use std::borrow::Cow;
use std::ffi::{c_int, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::any::{Any, AnyView, FromAny, IntoAny, TypeName};
use crate::error::{check, raise_c, Error, Result};
use crate::object::{object_wrapper, ObjectRef};
use crate::sys;

object_wrapper!(
    /// A callable of the ABI: a kernel exported by a library, a global function, a closure.
    Function,
    sys::kTVMFFIFunction,
    "Function",
    "ffi.Function"
);

impl Function {
    /// Calls the function with `args` (borrowed for the call).
    pub fn call(&self, args: &[Any]) -> Result<Any> {
        self.call_views(crate::any::views_of(args))
    }

    /// Calls the function with borrowed views as arguments.
    pub fn call_views(&self, args: &[AnyView<'_>]) -> Result<Any> {
        let num_args = i32::try_from(args.len())
            .map_err(|_| Error::new("ValueError", format!("too many arguments: {}", args.len())))?;
        let mut result = sys::TVMFFIAny::NONE;
        let code = unsafe {
            sys::TVMFFIFunctionCall(
                self.0.as_raw(),
                args.as_ptr() as *mut sys::TVMFFIAny,
                num_args,
                &mut result,
            )
        };
        check(code)?;
        Ok(unsafe { Any::from_raw(result) })
    }

    /// Calls the function with a tuple of Rust values: `f.invoke((&x, 2.0, "mode"))`. Owned
    /// values and references to objects are passed as values; [`crate::TensorView`]s and
    /// [`AnyView`]s are passed borrowed, for the call only.
    pub fn invoke<'a, A: IntoArgs<'a>>(&self, args: A) -> Result<Any> {
        self.call(Arg::values(&args.into_args()))
    }

    /// A function calling `f` with the arguments as borrowed views.
    ///
    /// An `Err` returned, or a panic, reaches the caller as a raised error (a panic never
    /// unwinds across the ABI: it becomes a `RuntimeError` carrying the panic's message).
    pub fn from_packed<F>(f: F) -> Function
    where
        F: Fn(&[AnyView<'_>]) -> Result<Any> + Send + Sync + 'static,
    {
        unsafe extern "C" fn call<F: Fn(&[AnyView<'_>]) -> Result<Any>>(
            handle: *mut c_void,
            args: *const sys::TVMFFIAny,
            num_args: i32,
            result: *mut sys::TVMFFIAny,
        ) -> c_int {
            let f = &*(handle as *const F);
            safe_call(result, || f(AnyView::slice_from_raw(args, num_args)))
        }
        unsafe extern "C" fn delete<F>(handle: *mut c_void) {
            // A panicking destructor must not unwind into the runtime.
            let _ = catch_unwind(AssertUnwindSafe(|| drop(Box::from_raw(handle as *mut F))));
        }
        let boxed = Box::into_raw(Box::new(f)) as *mut c_void;
        let mut out: sys::TVMFFIObjectHandle = std::ptr::null_mut();
        let code = unsafe {
            sys::TVMFFIFunctionCreate(boxed, Some(call::<F>), Some(delete::<F>), &mut out)
        };
        if code != 0 {
            unsafe { drop(Box::from_raw(boxed as *mut F)) };
            let error = Error::take_raised(code);
            panic!("TVMFFIFunctionCreate failed: {error}");
        }
        Function(
            unsafe { ObjectRef::from_raw(out) }.expect("TVMFFIFunctionCreate returns an object"),
        )
    }

    /// A function from a typed closure: its arguments are checked and converted, and its result
    /// (a value, or `Result<value>`) converted back. A wrong argument is a `TypeError` naming
    /// its position, like C++'s typed functions. Arguments are owned types (`i64`, `String`,
    /// `Tensor`, `Array`, ...); a closure reading borrowed views (`TensorView`) is a packed one.
    pub fn from_typed<F, Args>(f: F) -> Function
    where
        F: TypedFn<Args> + Send + Sync + 'static,
    {
        Function::from_packed(move |args| f.call_typed(args))
    }

    /// The global function registered as `name`, if any.
    pub fn get_global(name: &str) -> Result<Option<Function>> {
        let bytes = sys::TVMFFIByteArray::from_bytes(name.as_bytes());
        let mut out: sys::TVMFFIObjectHandle = std::ptr::null_mut();
        check(unsafe { sys::TVMFFIFunctionGetGlobal(&bytes, &mut out) })?;
        Ok(unsafe { ObjectRef::from_raw(out) }.map(Function))
    }

    /// The global function registered as `name`; a `KeyError` when there is none.
    pub fn global(name: &str) -> Result<Function> {
        Function::get_global(name)?.ok_or_else(|| {
            Error::new("KeyError", format!("global function `{name}` is not registered"))
        })
    }

    /// Registers `f` as global function `name` (an error when the name exists, unless
    /// `allow_override`).
    pub fn set_global(name: &str, f: &Function, allow_override: bool) -> Result<()> {
        let bytes = sys::TVMFFIByteArray::from_bytes(name.as_bytes());
        check(unsafe {
            sys::TVMFFIFunctionSetGlobal(&bytes, f.0.as_raw(), allow_override as c_int)
        })
    }

    /// Removes global function `name`; whether it existed.
    pub fn remove_global(name: &str) -> Result<bool> {
        global!("ffi.FunctionRemoveGlobal")?.invoke((name,))?.cast()
    }

    /// The names of all global functions.
    pub fn list_globals() -> Result<Vec<std::string::String>> {
        let functor = global!("ffi.FunctionListGlobalNamesFunctor")?.call(&[])?;
        let functor: Function = functor.cast()?;
        let count: i64 = functor.invoke((-1_i64,))?.cast()?;
        (0..count).map(|i| functor.invoke((i,))?.cast()).collect()
    }
}

/// The global function `name`, looked up once per process.
pub(crate) fn cached_global(
    slot: &'static std::sync::OnceLock<Function>,
    name: &str,
) -> Result<&'static Function> {
    if let Some(f) = slot.get() {
        return Ok(f);
    }
    let f = Function::global(name)?;
    Ok(slot.get_or_init(|| f))
}

/// `global!("name")`: the global function `name` as a `Result<&'static Function>`, looked
/// up on first use and kept for the process.
macro_rules! global {
    ($name:literal) => {{
        static SLOT: std::sync::OnceLock<$crate::Function> = std::sync::OnceLock::new();
        $crate::function::cached_global(&SLOT, $name)
    }};
}

pub(crate) use global;

impl std::fmt::Debug for Function {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Function({:p})", self.0.as_raw())
    }
}

/// Runs `body` as the inside of a safe call: its value goes to `*result` (0); its `Err` or a
/// panic is raised for the caller (-1). Nothing unwinds out of it.
///
/// # Safety
/// `result` must point to a value the caller initialised to None.
#[inline]
pub unsafe fn safe_call<F>(result: *mut sys::TVMFFIAny, body: F) -> c_int
where
    F: FnOnce() -> Result<Any>,
{
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(value)) => {
            *result = value.into_raw();
            0
        }
        Ok(Err(error)) => {
            error.set_raised();
            -1
        }
        Err(payload) => {
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<std::string::String>().cloned())
                .unwrap_or_else(|| "a panic with a non-string payload".into());
            // Dropping the payload could panic again: that one is caught too.
            let _ = catch_unwind(AssertUnwindSafe(move || drop(payload)));
            raise_c("RuntimeError", &format!("Rust panic: {message}"));
            -1
        }
    }
}

/// One argument of a call made by [`Function::invoke`]: an owned value, or a value borrowed for
/// `'a` (a [`crate::TensorView`], an [`AnyView`]). It cannot outlive what it borrows, and only
/// the call reads it.
#[repr(transparent)]
pub struct Arg<'a> {
    value: Any,
    _borrow: std::marker::PhantomData<&'a ()>,
}

impl<'a> Arg<'a> {
    /// An argument owning `value`.
    pub fn owned(value: Any) -> Arg<'a> {
        Arg { value, _borrow: std::marker::PhantomData }
    }

    /// An argument passing `raw` as it is, borrowed for `'a`.
    ///
    /// # Safety
    /// `raw` must hold no reference of its own (a POD value or a pointer valid for `'a`).
    pub(crate) unsafe fn borrowed(raw: sys::TVMFFIAny) -> Arg<'a> {
        Arg::owned(Any::from_raw(raw))
    }

    /// The arguments' values, in place (an `Arg` is its `Any`).
    fn values<'s>(args: &'s [Arg<'a>]) -> &'s [Any] {
        unsafe { std::slice::from_raw_parts(args.as_ptr() as *const Any, args.len()) }
    }
}

/// What [`Function::invoke`] takes as one argument: any [`IntoAny`] value, or a view borrowed
/// for `'a` ([`crate::TensorView`], [`AnyView`]).
pub trait IntoArg<'a> {
    /// The argument.
    fn into_arg(self) -> Arg<'a>;
}

impl<'a, T: IntoAny> IntoArg<'a> for T {
    fn into_arg(self) -> Arg<'a> {
        Arg::owned(self.into_any())
    }
}

impl<'a> IntoArg<'a> for AnyView<'a> {
    /// The same value: an object gains a reference for the call; anything else is passed as
    /// the view holds it, borrowed.
    fn into_arg(self) -> Arg<'a> {
        match self.as_object() {
            Some(obj) => Arg::owned(crate::convert::object_into_any(obj)),
            None => unsafe { Arg::borrowed(*self.as_raw()) },
        }
    }
}

/// A tuple of arguments for [`Function::invoke`].
pub trait IntoArgs<'a> {
    /// The arguments.
    fn into_args(self) -> Vec<Arg<'a>>;
}

/// A closure callable through [`Function::from_typed`]: `Fn(A, B, ...) -> R` where each
/// argument implements [`FromAny`] for any lifetime and `R` is a value or `Result` of one.
pub trait TypedFn<Args> {
    /// Checks, converts and calls.
    fn call_typed(&self, args: &[AnyView<'_>]) -> Result<Any>;
}

/// What a typed function may return: a value, or a `Result` of one.
pub trait IntoCallResult {
    /// The value the caller receives, or the error raised for it.
    fn into_call_result(self) -> Result<Any>;
    /// The returned value's type name in signatures (`void` for `()`).
    fn return_type_name() -> std::string::String;
    /// The returned value's type schema (JSON).
    fn return_type_schema() -> std::string::String;
}

impl<T: IntoAny + TypeName> IntoCallResult for T {
    #[inline]
    fn into_call_result(self) -> Result<Any> {
        Ok(self.into_any())
    }
    fn return_type_name() -> std::string::String {
        T::type_name()
    }
    fn return_type_schema() -> std::string::String {
        T::type_schema()
    }
}

impl<T: IntoAny + TypeName, E: Into<Error>> IntoCallResult for std::result::Result<T, E> {
    #[inline]
    fn into_call_result(self) -> Result<Any> {
        self.map(IntoAny::into_any).map_err(Into::into)
    }
    fn return_type_name() -> std::string::String {
        T::type_name()
    }
    fn return_type_schema() -> std::string::String {
        T::type_schema()
    }
}

/// Converts argument `index` of a call to `T`, with the C++-style message on a mismatch:
/// ``Mismatched type on argument #1 when calling: `name(0: int, 1: Tensor) -> void`. Expected
/// `Tensor` but got `int` ``.
#[inline]
pub fn convert_arg<'a, T: FromAny<'a>>(
    args: &[AnyView<'a>],
    index: usize,
    name: &str,
    signature: &dyn Fn() -> std::string::String,
) -> Result<T> {
    let value = args[index];
    match T::from_any(value) {
        Some(converted) => Ok(converted),
        None => Err(argument_mismatch::<T>(value, index, name, signature)),
    }
}

/// The error [`convert_arg`] returns, out of the calls' way.
#[cold]
#[inline(never)]
fn argument_mismatch<'a, T: FromAny<'a>>(
    value: AnyView<'_>,
    index: usize,
    name: &str,
    signature: &dyn Fn() -> std::string::String,
) -> Error {
    let (expected, got) = (T::type_name(), value.type_name());
    Error::new(
        "TypeError",
        format!(
            "Mismatched type on argument #{index} when calling: `{name}{}`. Expected `{expected}` but got `{got}`{}",
            signature(),
            crate::any::out_of_range_note::<T>(&expected, &got, value)
        ),
    )
}

/// The arguments with omitted trailing optional ones filled in as None: between `required` and
/// `total` arguments are accepted (a `TypeError` naming the function otherwise).
#[inline]
pub fn fill_optional<'a>(
    args: &'a [AnyView<'a>],
    required: usize,
    total: usize,
    name: &str,
    signature: &dyn Fn() -> std::string::String,
) -> Result<Cow<'a, [AnyView<'a>]>> {
    if args.len() == total {
        Ok(Cow::Borrowed(args))
    } else {
        fill_or_refuse(args, required, total, name, signature)
    }
}

/// [`fill_optional`] when arguments are missing or too many, out of the calls' way.
#[cold]
#[inline(never)]
fn fill_or_refuse<'a>(
    args: &'a [AnyView<'a>],
    required: usize,
    total: usize,
    name: &str,
    signature: &dyn Fn() -> std::string::String,
) -> Result<Cow<'a, [AnyView<'a>]>> {
    if args.len() < required || args.len() > total {
        let expected =
            if required == total { format!("{total}") } else { format!("{required} to {total}") };
        return Err(Error::new(
            "TypeError",
            format!(
                "Mismatched number of arguments when calling: `{name}{}`. Expected {expected} but got {} arguments",
                signature(),
                args.len()
            ),
        ));
    }
    let mut filled = args.to_vec();
    filled.resize(total, AnyView::none());
    Ok(Cow::Owned(filled))
}

/// `(0: int, 1: Tensor) -> void` from the parameters' type names and the return type's.
pub(crate) fn signature_of<'n>(
    type_names: impl Iterator<Item = &'n str>,
    return_type: &str,
) -> std::string::String {
    let parts: Vec<std::string::String> =
        type_names.enumerate().map(|(i, name)| format!("{i}: {name}")).collect();
    format!("({}) -> {}", parts.join(", "), return_type)
}

macro_rules! tuples {
    ($(($($a:ident $i:tt),*))*) => {$(
        impl<'a, $($a: IntoArg<'a>),*> IntoArgs<'a> for ($($a,)*) {
            #[allow(non_snake_case)]
            fn into_args(self) -> Vec<Arg<'a>> {
                vec![$(self.$i.into_arg()),*]
            }
        }

        impl<Func, Ret, $($a),*> TypedFn<($($a,)*)> for Func
        where
            Func: Fn($($a),*) -> Ret,
            Ret: IntoCallResult,
            $($a: for<'x> FromAny<'x>,)*
        {
            #[allow(unused_variables)]
            fn call_typed(&self, args: &[AnyView<'_>]) -> Result<Any> {
                let signature = || {
                    let names: Vec<std::string::String> = vec![$(<$a as TypeName>::type_name()),*];
                    signature_of(names.iter().map(std::string::String::as_str), &Ret::return_type_name())
                };
                const COUNT: usize = 0 $(+ { let _ = $i; 1 })*;
                fill_optional(args, COUNT, COUNT, "<closure>", &signature)?;
                (self)($(convert_arg::<$a>(args, $i, "<closure>", &signature)?),*).into_call_result()
            }
        }
    )*};
}

tuples! {
    ()
    (A0 0)
    (A0 0, A1 1)
    (A0 0, A1 1, A2 2)
    (A0 0, A1 1, A2 2, A3 3)
    (A0 0, A1 1, A2 2, A3 3, A4 4)
    (A0 0, A1 1, A2 2, A3 3, A4 4, A5 5)
    (A0 0, A1 1, A2 2, A3 3, A4 4, A5 5, A6 6)
    (A0 0, A1 1, A2 2, A3 3, A4 4, A5 5, A6 6, A7 7)
}
