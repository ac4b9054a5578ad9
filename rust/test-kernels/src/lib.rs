//! Kernels the tests call from Rust, C++ and Python, on both runtimes.
use ffi::{Any, Function, TensorView};

/// Adds one to every element of `x`, writing into `y` (float32, CPU).
#[ffi::export]
fn add_one(x: TensorView, mut y: TensorView) -> ffi::Result<()> {
    ffi::ensure!(
        x.shape() == y.shape(),
        ValueError,
        "shapes differ: {:?} and {:?}",
        x.shape(),
        y.shape()
    );
    let input = x.as_slice::<f32>()?;
    for (o, i) in y.as_mut_slice::<f32>()?.iter_mut().zip(input) {
        *o = i + 1.0;
    }
    Ok(())
}

#[ffi::export]
fn scale(x: f64, factor: Option<f64>) -> f64 {
    x * factor.unwrap_or(2.0)
}

#[ffi::export(name = "concat")]
fn concat_strings(a: String, b: String) -> String {
    a + &b
}

#[ffi::export]
fn fail(kind: String, message: String) -> ffi::Result<i64> {
    Err(ffi::Error::new(&kind, message))
}

#[ffi::export]
fn panics(message: String) -> i64 {
    panic!("{}", message)
}

#[ffi::export]
fn call_back(f: Function, value: Any) -> ffi::Result<Any> {
    f.call(&[value])
}
