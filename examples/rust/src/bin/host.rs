//! A Rust host: loads a kernel library (the Rust one beside it, or any built with the C++
//! headers), makes tensors from Rust buffers and calls the kernels.
//!
//! Usage: host <path to the kernel library>

use ffi::{Module, Tensor};

fn main() -> ffi::Result<()> {
    let path = std::env::args()
        .nth(1)
        .expect("usage: host <kernel library>");
    let module = Module::load(&path)?;
    let add_one = module.function("add_one")?;

    let x = Tensor::from_vec(vec![1.0_f32, 2.0, 3.0, 4.0], &[2, 2])?;
    let y = Tensor::from_vec(vec![0.0_f32; 4], &[2, 2])?;
    add_one.invoke((&x, &y))?;
    println!("host add_one: {:?}", y.as_slice::<f32>()?);

    let wrong = Tensor::from_vec(vec![0.0_f32; 3], &[3])?;
    match add_one.invoke((&x, &wrong)) {
        Ok(_) => println!("host error: none"),
        Err(error) => println!("host error: {error}"),
    }
    Ok(())
}
