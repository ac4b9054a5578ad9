//! Functions: closures as ABI functions, the global registry, errors and panics crossing calls.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use ffi::{Any, AnyView, Error, Function};

#[test]
fn a_typed_closure_checks_and_converts_its_arguments() {
    let add = Function::from_typed(|a: i64, b: f64| a as f64 + b);
    assert_eq!(add.invoke((2, 0.5)).unwrap().cast::<f64>().unwrap(), 2.5);
    assert_eq!(add.call(&[Any::from(1), Any::from(2)]).unwrap().cast::<f64>().unwrap(), 3.0);

    let error = add.invoke((1, "x")).unwrap_err();
    assert_eq!(error.kind(), "TypeError");
    assert_eq!(
        error.message(),
        "Mismatched type on argument #1 when calling: `<closure>(0: int, 1: float) -> float`. \
         Expected `float` but got `str`"
    );
    let error = add.invoke((1,)).unwrap_err();
    assert_eq!(error.kind(), "TypeError");
    assert!(error.message().contains("Expected 2 but got 1 arguments"), "{}", error.message());
}

#[test]
fn a_packed_closure_sees_every_argument() {
    let count = Function::from_packed(|args: &[AnyView<'_>]| {
        let names: Vec<String> = args.iter().map(|a| a.type_name()).collect();
        Ok(Any::from(names.join(",")))
    });
    let result = count.invoke((1, 2.0, "s", (), ffi::Device::cpu())).unwrap();
    assert_eq!(result.cast::<String>().unwrap(), "int,float,str,None,Device");
}

#[test]
fn errors_and_panics_become_raised_errors() {
    let fails = Function::from_typed(|n: i64| -> ffi::Result<i64> {
        ffi::ensure!(n >= 0, ValueError, "n must be non-negative, got {}", n);
        Ok(n)
    });
    assert_eq!(fails.invoke((3,)).unwrap().cast::<i64>().unwrap(), 3);
    let error = fails.invoke((-1,)).unwrap_err();
    assert_eq!(
        (error.kind().as_str(), error.message().as_str()),
        ("ValueError", "n must be non-negative, got -1")
    );
    assert!(!error.backtrace().is_empty());

    let panics = Function::from_typed(|message: String| -> i64 { panic!("{message}") });
    for _ in 0..3 {
        let error = panics.invoke(("it broke",)).unwrap_err();
        assert_eq!(error.kind(), "RuntimeError");
        assert_eq!(error.message(), "Rust panic: it broke");
    }
    // A Rust error type converts through `Into<ffi::Error>`.
    let io = Function::from_typed(|| -> Result<i64, std::io::Error> {
        Err(std::io::Error::new(std::io::ErrorKind::NotFound, "no such thing"))
    });
    assert_eq!(io.invoke(()).unwrap_err().kind(), "OSError");
}

#[test]
fn an_error_object_carries_kind_message_and_display() {
    let error = Error::new("KeyError", "missing `k`");
    assert_eq!(error.kind(), "KeyError");
    assert_eq!(error.message(), "missing `k`");
    assert_eq!(error.to_string(), "KeyError: missing `k`");
    assert!(error.cause().is_none());
    let boxed: Box<dyn std::error::Error + Send + Sync> = Box::new(error.clone());
    assert_eq!(Error::from(boxed).kind(), "KeyError", "an ffi::Error keeps its kind when boxed");
}

#[test]
fn the_closure_is_dropped_exactly_once_with_its_last_reference() {
    struct Tracked(Arc<AtomicUsize>);
    impl Drop for Tracked {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
    let drops = Arc::new(AtomicUsize::new(0));
    let tracked = Tracked(drops.clone());
    let f = Function::from_typed(move || tracked.0.load(Ordering::SeqCst) as i64);
    let g = f.clone();
    assert_eq!(f.as_object_ref_count(), 2);
    drop(f);
    assert_eq!(drops.load(Ordering::SeqCst), 0);
    assert_eq!(g.invoke(()).unwrap().cast::<i64>().unwrap(), 0);
    drop(g);
    assert_eq!(drops.load(Ordering::SeqCst), 1);
}

trait RefCount {
    fn as_object_ref_count(&self) -> u32;
}
impl<T: ffi::ObjectType> RefCount for T {
    fn as_object_ref_count(&self) -> u32 {
        self.as_object().strong_count()
    }
}

#[test]
fn global_functions_register_find_list_and_remove() {
    let name = "rust_tests.double";
    let double = Function::from_typed(|x: i64| x * 2);
    Function::set_global(name, &double, false).unwrap();
    let error = Function::set_global(name, &double, false).unwrap_err();
    assert!(error.message().contains(name), "{error}");
    Function::set_global(name, &double, true).unwrap();
    let found = Function::global(name).unwrap();
    assert_eq!(found.invoke((21,)).unwrap().cast::<i64>().unwrap(), 42);
    assert!(Function::list_globals().unwrap().iter().any(|n| n == name));
    assert!(Function::remove_global(name).unwrap());
    assert!(Function::get_global(name).unwrap().is_none());
    let error = Function::global(name).unwrap_err();
    assert_eq!(error.kind(), "KeyError");
}

#[test]
fn runtime_functions_are_callable() {
    let hash = Function::global("ffi.StructuralHash").unwrap();
    let a = hash
        .invoke((ffi::Array::new([1, 2]).unwrap(), false, false))
        .unwrap()
        .cast::<i64>()
        .unwrap();
    let b = hash
        .invoke((ffi::Array::new([1, 2]).unwrap(), false, false))
        .unwrap()
        .cast::<i64>()
        .unwrap();
    assert_eq!(a, b);
}

#[test]
fn closures_run_from_many_threads() {
    let calls = Arc::new(AtomicUsize::new(0));
    let counter = calls.clone();
    let f = Function::from_typed(move |x: i64| -> ffi::Result<i64> {
        counter.fetch_add(1, Ordering::SeqCst);
        if x % 7 == 0 {
            ffi::bail!(ValueError, "multiple of seven: {}", x);
        }
        Ok(x + 1)
    });
    std::thread::scope(|scope| {
        for t in 0..8 {
            let f = f.clone();
            scope.spawn(move || {
                for i in 0..500_i64 {
                    let x = t * 1000 + i;
                    match f.invoke((x,)) {
                        Ok(v) => assert_eq!(v.cast::<i64>().unwrap(), x + 1),
                        Err(e) => {
                            assert_eq!(x % 7, 0);
                            assert_eq!(e.message(), format!("multiple of seven: {x}"));
                        }
                    }
                }
            });
        }
    });
    assert_eq!(calls.load(Ordering::SeqCst), 8 * 500);
    assert_eq!(f.as_object_ref_count(), 1);
}

#[test]
fn views_pass_borrowed_and_leave_counts_as_they_were() {
    let array = ffi::Array::new([1_i64, 2]).unwrap();
    let held = Any::from(&array);
    let len = Function::from_typed(|a: ffi::Array| a.len() as i64);
    assert_eq!(len.invoke((held.view(),)).unwrap().cast::<i64>().unwrap(), 2);
    assert_eq!(array.as_object_ref_count(), 2, "ours and `held`'s");
    let tensor = ffi::Tensor::from_vec(vec![1.0_f32; 3], &[3]).unwrap();
    // Typed closures take owned values; a packed one reads views, tensors included.
    let numel = Function::from_packed(|args: &[AnyView<'_>]| {
        Ok(Any::from(args[0].cast::<ffi::TensorView<'_>>()?.numel()))
    });
    // A TensorView crosses as a borrowed DLTensor pointer (the closure sees no object).
    let kind = Function::from_packed(|args: &[AnyView<'_>]| Ok(Any::from(args[0].type_name())));
    assert_eq!(kind.invoke((tensor.view(),)).unwrap().cast::<String>().unwrap(), "DLTensor*");
    assert_eq!(numel.invoke((tensor.view(),)).unwrap().cast::<i64>().unwrap(), 3);
    assert_eq!(tensor.as_object_ref_count(), 1);
}

#[test]
fn a_stream_guard_sets_and_restores_the_current_stream() {
    let device = ffi::Device::cuda(1);
    assert!(ffi::env::current_stream(device).is_null());
    let stream = 0x1234 as ffi::sys::TVMFFIStreamHandle;
    {
        let _guard = ffi::env::StreamGuard::new(device, stream).unwrap();
        assert_eq!(ffi::env::current_stream(device), stream);
        // A kernel called now sees it: a closure stands in for one.
        let seen = Function::from_typed(move || ffi::env::current_stream(device) as usize as i64);
        assert_eq!(seen.invoke(()).unwrap().cast::<i64>().unwrap(), 0x1234);
        assert!(ffi::env::current_stream(ffi::Device::cuda(0)).is_null(), "per device");
    }
    assert!(ffi::env::current_stream(device).is_null(), "restored");
    // Each thread has its own.
    let _guard = ffi::env::StreamGuard::new(device, stream).unwrap();
    std::thread::spawn(move || assert!(ffi::env::current_stream(device).is_null())).join().unwrap();
}

#[test]
fn check_signals_passes_without_a_pending_signal() {
    ffi::env::check_signals().unwrap();
}
