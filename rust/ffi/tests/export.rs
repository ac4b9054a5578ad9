//! `#[ffi::export]` within this test binary: the generated safe calls are wrapped as Functions
//! through the C ABI (`TVMFFIFunctionCreate`), as a module loader would find them by symbol.

use ffi::{Any, Function, ObjectRef, Tensor, TensorView};

// The crate under another name, as a dependency renamed in Cargo.toml would be.
extern crate ffi as renamed_ffi;

/// Greets `name`, `times` times.
#[ffi::export]
fn greet(name: &str, times: Option<i64>) -> String {
    format!("hello {name}").repeat(times.unwrap_or(1) as usize)
}

#[ffi::export(name = "sum_all")]
pub fn sum_values(values: Vec<i64>, _unused: Option<bool>) -> i64 {
    values.iter().sum()
}

#[ffi::export]
fn first_element(x: TensorView) -> ffi::Result<f32> {
    x.as_slice::<f32>()?.first().copied().ok_or_else(|| ffi::Error::new("IndexError", "empty"))
}

#[ffi::export]
fn no_result(mut out: TensorView, value: f64) -> ffi::Result<()> {
    out.as_mut_slice::<f64>()?.fill(value);
    Ok(())
}

/// Copies `x` into `out`, which must not share `x`'s memory.
#[ffi::export]
fn copy_into(x: TensorView, mut out: TensorView) -> ffi::Result<()> {
    out.as_mut_slice::<f32>()?.copy_from_slice(x.as_slice::<f32>()?);
    Ok(())
}

#[ffi::export]
fn write_without_mut(out: TensorView) -> ffi::Result<()> {
    let mut out = out;
    out.as_mut_slice::<f32>()?.fill(1.0);
    Ok(())
}

#[ffi::export]
fn r#match(#[allow(unused_variables)] r#type: &'_ str, _: i64) -> bool {
    true
}

/// A constant name.
#[ffi::export]
const fn constant_name() -> &'static str {
    "constant"
}

#[ffi::export]
#[cfg(any())] // never compiled: neither are its exports (which would not compile without it)
fn compiled_out() -> i64 {
    0
}

/// Says hello to `name`, or to the world.
#[ffi::export(crate = "renamed_ffi", name = "hello")]
fn hello_who(name: Option<&str>) -> String {
    format!("hello {}", name.unwrap_or("world"))
}

#[ffi::export]
fn boom() -> i64 {
    panic!("exported panic")
}

type SafeCall = unsafe extern "C" fn(
    *mut std::ffi::c_void,
    *const ffi::sys::TVMFFIAny,
    i32,
    *mut ffi::sys::TVMFFIAny,
) -> i32;

/// A Function calling the exported C symbol `f`.
fn wrap(f: SafeCall) -> Function {
    let mut out = std::ptr::null_mut();
    let code =
        unsafe { ffi::sys::TVMFFIFunctionCreate(std::ptr::null_mut(), Some(f), None, &mut out) };
    assert_eq!(code, 0);
    let obj = unsafe { ObjectRef::from_raw(out) }.unwrap();
    Any::from(obj).cast().unwrap()
}

fn metadata(f: SafeCall) -> String {
    wrap(f).invoke(()).unwrap().cast().unwrap()
}

#[test]
fn exports_convert_arguments_and_results() {
    let greet = wrap(__tvm_ffi_greet);
    assert_eq!(
        greet.invoke(("rust", 2)).unwrap().cast::<String>().unwrap(),
        "hello rusthello rust"
    );
    assert_eq!(
        greet.invoke(("you",)).unwrap().cast::<String>().unwrap(),
        "hello you",
        "trailing Option omitted"
    );
    let sum = wrap(__tvm_ffi_sum_all);
    assert_eq!(sum.invoke((vec![1_i64, 2, 3],)).unwrap().cast::<i64>().unwrap(), 6);
    let x = Tensor::from_vec(vec![2.5_f32, 1.0], &[2]).unwrap();
    assert_eq!(wrap(__tvm_ffi_first_element).invoke((&x,)).unwrap().cast::<f64>().unwrap(), 2.5);
    let out = Tensor::from_vec(vec![0.0_f64; 3], &[3]).unwrap();
    assert!(wrap(__tvm_ffi_no_result).invoke((out.view(), 7.0)).unwrap().is_none());
    assert_eq!(out.as_slice::<f64>().unwrap(), &[7.0; 3]);
}

#[test]
fn export_errors_name_the_export_and_its_signature() {
    let greet = wrap(__tvm_ffi_greet);
    let error = greet.invoke((1,)).unwrap_err();
    assert_eq!(error.kind(), "TypeError");
    assert_eq!(
        error.message(),
        "Mismatched type on argument #0 when calling: `greet(0: str, 1: Optional<int>) -> str`. \
         Expected `str` but got `int`"
    );
    let error = greet.invoke(()).unwrap_err();
    assert_eq!(
        error.message(),
        "Mismatched number of arguments when calling: `greet(0: str, 1: Optional<int>) -> str`. \
         Expected 1 to 2 but got 0 arguments"
    );
    let error = wrap(__tvm_ffi_first_element)
        .invoke((Tensor::from_vec(Vec::<f32>::new(), &[0]).unwrap(),))
        .unwrap_err();
    assert_eq!((error.kind().as_str(), error.message().as_str()), ("IndexError", "empty"));
    let error = wrap(__tvm_ffi_boom).invoke(()).unwrap_err();
    assert_eq!(
        (error.kind().as_str(), error.message().as_str()),
        ("RuntimeError", "Rust panic: exported panic")
    );
    let error = wrap(__tvm_ffi_sum_all).invoke((vec![1_i64], true, 3)).unwrap_err();
    assert!(error.message().contains("Expected 1 to 2 but got 3 arguments"), "{}", error.message());
}

#[test]
fn metadata_carries_signature_types_names_and_defaults() {
    let text = metadata(__tvm_ffi__metadata_greet);
    assert_eq!(
        text,
        concat!(
            r#"{"signature": "greet(0: str, 1: Optional<int>) -> str", "arg_types": ["str", "Optional<int>"], "#,
            r#""return_type": "str", "type_schema": "{\"type\":\"ffi.Function\",\"named_args\":{\"return\":[{\"type\":\"ffi.String\"}],"#,
            r#"\"params\":[{\"type\":\"ffi.String\"},{\"type\":\"Optional\",\"args\":[{\"type\":\"int\"}]}]}}", "#,
            r#""arg_names": ["name", "times"], "arg_defaults": {"times": null}}"#
        )
    );
    let text = metadata(__tvm_ffi__metadata_sum_all);
    assert!(
        text.contains(r#""signature": "sum_all(0: Array<int>, 1: Optional<bool>) -> int""#),
        "{text}"
    );
    assert!(text.contains(r#""arg_names": ["values", "_unused"]"#), "{text}");
    let text = metadata(__tvm_ffi__metadata_no_result);
    assert!(text.contains(r#""return_type": "void""#), "{text}");
    assert!(text.contains(r#"\"return\":[{\"type\":\"None\"}]"#), "{text}");
}

#[test]
fn a_mut_view_is_written_only_when_no_other_argument_shares_its_memory() {
    let copy = wrap(__tvm_ffi_copy_into);
    let x = Tensor::from_vec(vec![1.0_f32, 2.0, 3.0, 4.0], &[4]).unwrap();
    let out = Tensor::from_vec(vec![0.0_f32; 4], &[4]).unwrap();
    copy.invoke((&x, &out)).unwrap();
    assert_eq!(out.as_slice::<f32>().unwrap(), &[1.0, 2.0, 3.0, 4.0]);
    let error = copy.invoke((&x, &x)).unwrap_err();
    assert_eq!(error.kind(), "ValueError");
    assert!(
        error.message().starts_with("argument #1 is written and shares memory with argument #0"),
        "{}",
        error.message()
    );
    // Overlapping, not equal: a view of x's last two elements.
    let mut tail_shape = [2_i64];
    let tail = ffi::sys::DLTensor {
        data: x.data_ptr(),
        byte_offset: 8,
        shape: tail_shape.as_mut_ptr(),
        ndim: 1,
        ..*x.as_dltensor()
    };
    let tail = unsafe { TensorView::from_raw(&tail) };
    let error = copy.invoke((tail, x.view())).unwrap_err();
    assert!(error.message().contains("shares memory with argument #0"), "{}", error.message());
    let error = wrap(__tvm_ffi_write_without_mut).invoke((&out,)).unwrap_err();
    assert_eq!(
        (error.kind().as_str(), error.message().as_str()),
        ("ValueError", "the tensor view is read-only: declare the parameter `mut` to write it")
    );
}

#[test]
fn raw_identifiers_attributes_and_str_parameters_export() {
    let f = wrap(__tvm_ffi_match);
    assert!(f.invoke(("t", 1)).unwrap().cast::<bool>().unwrap());
    let text = metadata(__tvm_ffi__metadata_match);
    assert!(text.contains(r#""arg_names": ["type", "arg1"]"#), "{text}");
}

#[test]
fn const_functions_and_static_strings_export() {
    let f = wrap(__tvm_ffi_constant_name);
    assert_eq!(f.invoke(()).unwrap().cast::<String>().unwrap(), "constant");
    assert!(metadata(__tvm_ffi__metadata_constant_name).contains(r#""return_type": "str""#));
}

#[test]
fn optional_str_parameters_and_a_renamed_crate() {
    let hello = wrap(__tvm_ffi_hello);
    assert_eq!(hello.invoke(("rust",)).unwrap().cast::<String>().unwrap(), "hello rust");
    assert_eq!(hello.invoke(()).unwrap().cast::<String>().unwrap(), "hello world");
    assert_eq!(hello.invoke((None::<i64>,)).unwrap().cast::<String>().unwrap(), "hello world");
    let text = metadata(__tvm_ffi__metadata_hello);
    assert!(text.contains(r#""signature": "hello(0: Optional<str>) -> str""#), "{text}");
}

#[test]
fn doc_comments_become_the_export_doc() {
    assert_eq!(metadata(__tvm_ffi__doc_greet), "Greets `name`, `times` times.");
}
