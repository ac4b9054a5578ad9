//! The exports of benchmarks/kernels.cc, in Rust, with the same signatures.

use ffi::TensorView;

/// Does nothing.
#[ffi::export]
fn nop() {}

/// The sum of three ints.
#[ffi::export]
fn add3(a: i64, b: i64, c: i64) -> i64 {
    a + b + c
}

/// Takes three tensors and does nothing with them.
#[ffi::export]
fn tensors3(_a: TensorView, _b: TensorView, _c: TensorView) {}

/// The sum of a list of ints.
#[ffi::export]
fn sum_ints(values: ffi::Array) -> ffi::Result<i64> {
    values.iter().map(|v| v.cast::<i64>()).sum()
}
