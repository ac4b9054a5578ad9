//! Kernels written in Rust: `#[ffi::export]` makes each one a function of this library that
//! Python (`ffi.load_module`, or the reference's `tvm_ffi.load_module`), C++ and C hosts call.

use ffi::{DataType, Tensor, TensorView};

/// Adds one to every element of `x`, writing into `y` (float32 tensors of one shape, CPU).
#[ffi::export]
fn add_one(x: TensorView, mut y: TensorView) -> ffi::Result<()> {
    ffi::ensure!(
        x.shape() == y.shape(),
        ValueError,
        "y's shape {:?} must equal x's shape {:?}",
        y.shape(),
        x.shape()
    );
    let input = x.as_slice::<f32>()?;
    for (out, value) in y.as_mut_slice::<f32>()?.iter_mut().zip(input) {
        *out = value + 1.0;
    }
    Ok(())
}

/// Returns a new tensor `x * alpha` (float32, CPU; alpha defaults to 2), allocated by the
/// caller's framework: PyTorch tensors in, a PyTorch tensor out.
#[ffi::export]
fn scale(x: TensorView, alpha: Option<f64>) -> ffi::Result<Tensor> {
    let alpha = alpha.unwrap_or(2.0) as f32;
    let mut out = Tensor::alloc(x.shape(), DataType::F32, x.device())?;
    for (o, v) in out
        .as_mut_slice::<f32>()?
        .iter_mut()
        .zip(x.as_slice::<f32>()?)
    {
        *o = v * alpha;
    }
    Ok(out)
}
