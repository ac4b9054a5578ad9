//! Rust as a host: loading a C++ kernel library built with the project's headers.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use ffi::{Array, DataType, Device, Function, Module, ObjectType, Tensor};

fn module() -> Module {
    Module::load(common::cpp_kernels()).expect("the C++ kernel library loads")
}

#[test]
fn add_one_writes_into_a_rust_owned_tensor() {
    let m = module();
    let x = Tensor::from_vec(vec![1.0_f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
    let mut y = Tensor::from_vec(vec![0.0_f32; 6], &[2, 3]).unwrap();
    m.function("add_one").unwrap().invoke((&x, &y)).unwrap();
    assert_eq!(y.as_slice::<f32>().unwrap(), &[2.0, 3.0, 4.0, 5.0, 6.0, 7.0]);
    // Views pass as borrowed DLTensor pointers, as framework tensors do.
    m.function("add_one").unwrap().invoke((y.view(), x.view())).unwrap();
    assert_eq!(x.as_slice::<f32>().unwrap(), &[3.0, 4.0, 5.0, 6.0, 7.0, 8.0]);
    y.as_mut_slice::<f32>().unwrap()[0] = 100.0;
    assert_eq!(y.as_slice::<f32>().unwrap()[0], 100.0);
    assert_eq!(x.as_object().strong_count(), 1, "the call kept no reference");
}

#[test]
fn a_kernel_allocates_through_the_environment() {
    let m = module();
    let x = Tensor::from_vec(vec![1.0_f64, -2.0, 0.5], &[3]).unwrap();
    let out: Tensor = m.function("scaled").unwrap().invoke((&x, 4.0)).unwrap().cast().unwrap();
    assert_eq!(out.as_slice::<f64>().unwrap(), &[4.0, -8.0, 2.0]);
    assert_eq!(out.shape(), &[3]);
    assert_eq!(out.dtype(), DataType::F64);
    assert_eq!(out.device(), Device::cpu());
    assert_eq!(out.as_object().strong_count(), 1);
}

#[test]
fn cpp_errors_arrive_as_err_with_kind_message_and_backtrace() {
    let m = module();
    let raise = m.function("raise_error").unwrap();
    for kind in ["ValueError", "TypeError", "IndexError", "KeyError", "RuntimeError"] {
        let error = raise.invoke((kind, "from C++")).unwrap_err();
        assert_eq!(error.kind(), kind);
        assert_eq!(error.message(), "from C++");
    }
    let x = Tensor::from_vec(vec![1_i32, 2], &[2]).unwrap();
    let error = m.function("add_one").unwrap().invoke((&x, &x)).unwrap_err();
    assert_eq!(
        (error.kind().as_str(), error.message().as_str()),
        ("TypeError", "add_one takes float32 tensors")
    );
    let error = m.function("add_one").unwrap().invoke((1, &x)).unwrap_err();
    assert_eq!(error.kind(), "TypeError");
    assert!(
        error.message().contains(
            "Mismatched type on argument #0 when calling: `add_one(0: Tensor, 1: Tensor) -> void`"
        ),
        "{}",
        error.message()
    );
    let error = m.function("add_one").unwrap().invoke((&x,)).unwrap_err();
    assert_eq!(error.kind(), "TypeError");
    let missing = m.function("no_such_kernel").unwrap_err();
    assert_eq!(missing.kind(), "AttributeError");
    assert!(m.get_function("no_such_kernel").unwrap().is_none());
}

#[test]
fn cpp_calls_back_into_a_rust_closure() {
    let m = module();
    let sum = m.function("sum_callback").unwrap();
    let seen = Arc::new(AtomicUsize::new(0));
    let counter = seen.clone();
    let square = Function::from_typed(move |i: i64| {
        counter.fetch_add(1, Ordering::SeqCst);
        i * i
    });
    assert_eq!(sum.invoke((&square, 10)).unwrap().cast::<i64>().unwrap(), 285);
    assert_eq!(seen.load(Ordering::SeqCst), 10);

    // A Rust error inside the callback crosses C++ and comes back with its kind and message.
    let fails = Function::from_typed(|i: i64| -> ffi::Result<i64> {
        if i == 3 {
            ffi::bail!(IndexError, "three is out of range");
        }
        Ok(i)
    });
    let error = sum.invoke((&fails, 10)).unwrap_err();
    assert_eq!(
        (error.kind().as_str(), error.message().as_str()),
        ("IndexError", "three is out of range")
    );
    // So does a panic, as a RuntimeError.
    let panics = Function::from_typed(|_: i64| -> i64 { panic!("callback panicked") });
    let error = sum.invoke((&panics, 2)).unwrap_err();
    assert_eq!(error.message(), "Rust panic: callback panicked");
    assert_eq!(square.as_object().strong_count(), 1);
}

#[test]
fn objects_keep_identity_and_exact_counts_through_cpp() {
    let m = module();
    let array = Array::new(["ab", "a longer string"]).unwrap();
    let count: i64 = m.function("use_count").unwrap().invoke((&array,)).unwrap().cast().unwrap();
    assert_eq!(count, 3, "ours, the argument Any's, and the C++ parameter's");
    assert_eq!(array.as_object().strong_count(), 1);
    let back: Array = m.function("echo").unwrap().invoke((&array,)).unwrap().cast().unwrap();
    assert!(back.as_object().same_as(array.as_object()));
    assert_eq!(array.as_object().strong_count(), 2);
    drop(back);
    assert_eq!(array.as_object().strong_count(), 1);
    let total: i64 = m.function("total_length").unwrap().invoke((&array,)).unwrap().cast().unwrap();
    assert_eq!(total, 17);
    let echoed = m.function("echo").unwrap().invoke(("short",)).unwrap();
    assert_eq!(echoed.cast::<String>().unwrap(), "short");
    let error =
        m.function("total_length").unwrap().invoke((Array::new([1]).unwrap(),)).unwrap_err();
    assert_eq!(error.kind(), "TypeError");
}

#[test]
fn the_module_reports_its_exports_metadata() {
    let m = module();
    assert!(m.implements("add_one").unwrap());
    assert!(!m.implements("nope").unwrap());
    let metadata = m.function_metadata("add_one").unwrap().unwrap();
    assert!(
        metadata.contains("\"signature\": \"add_one(0: Tensor, 1: Tensor) -> void\""),
        "{metadata}"
    );
    assert_eq!(m.kind().unwrap(), "library");
}

#[test]
fn kernels_run_from_many_threads() {
    let m = module();
    let add_one = m.function("add_one").unwrap();
    let before = add_one.as_object().strong_count();
    std::thread::scope(|scope| {
        for t in 0..8 {
            let add_one = add_one.clone();
            scope.spawn(move || {
                for i in 0..200 {
                    let x = Tensor::from_vec(vec![t as f32, i as f32], &[2]).unwrap();
                    let y = Tensor::alloc(&[2], DataType::F32, Device::cpu()).unwrap();
                    add_one.invoke((&x, &y)).unwrap();
                    assert_eq!(y.as_slice::<f32>().unwrap(), &[t as f32 + 1.0, i as f32 + 1.0]);
                }
            });
        }
    });
    assert_eq!(add_one.as_object().strong_count(), before, "every thread's clone released");
}
