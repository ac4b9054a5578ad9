//! Tensors: Rust buffers without copies, the environment allocator, DLPack in and out, views.

use std::sync::atomic::{AtomicUsize, Ordering};

use ffi::{Any, DataType, Device, ObjectType, Tensor, TensorView};

/// A buffer whose release the tests can count.
struct CountedBuffer {
    data: Vec<f32>,
    drops: &'static AtomicUsize,
}

impl AsMut<[f32]> for CountedBuffer {
    fn as_mut(&mut self) -> &mut [f32] {
        &mut self.data
    }
}

impl Drop for CountedBuffer {
    fn drop(&mut self) {
        self.drops.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn a_rust_buffer_becomes_a_tensor_without_a_copy_and_is_freed_once() {
    static DROPS: AtomicUsize = AtomicUsize::new(0);
    let data = vec![1.0_f32, 2.0, 3.0, 4.0];
    let address = data.as_ptr() as usize;
    let tensor = Tensor::from_buffer(CountedBuffer { data, drops: &DROPS }, &[2, 2]).unwrap();
    assert_eq!(tensor.data_ptr() as usize, address, "no copy");
    assert_eq!(tensor.shape(), &[2, 2]);
    assert_eq!(tensor.strides(), vec![2, 1]);
    assert_eq!(tensor.dtype(), DataType::F32);
    assert_eq!(tensor.device(), Device::cpu());
    assert!(tensor.is_contiguous());
    assert_eq!(tensor.numel(), 4);
    assert_eq!(tensor.size(-1), 2);
    assert_eq!(tensor.stride(0), 2);
    let copy = tensor.clone();
    let exported = tensor.to_dlpack_versioned().unwrap();
    drop(tensor);
    drop(copy);
    assert_eq!(DROPS.load(Ordering::SeqCst), 0, "the exported tensor still holds the buffer");
    unsafe { ((*exported).deleter.unwrap())(exported) };
    assert_eq!(DROPS.load(Ordering::SeqCst), 1, "freed once, with the last reference");
}

#[test]
fn a_refused_buffer_is_dropped_before_the_error_returns() {
    static DROPS: AtomicUsize = AtomicUsize::new(0);
    let buffer = CountedBuffer { data: vec![0.0; 5], drops: &DROPS };
    let error = Tensor::from_buffer(buffer, &[2, 3]).unwrap_err();
    assert_eq!(error.kind(), "ValueError");
    assert_eq!(DROPS.load(Ordering::SeqCst), 1);
}

#[test]
fn the_vec_is_dropped_with_the_last_reference_in_any_language() {
    // Element types own nothing, so observe the release through DLPack: export, drop ours, and
    // the buffer stays alive until the exported tensor's deleter runs.
    let tensor = Tensor::from_vec((0..1000).map(|i| i as f64).collect(), &[10, 100]).unwrap();
    let exported = tensor.to_dlpack_versioned().unwrap();
    assert_eq!(tensor.as_object().strong_count(), 2);
    drop(tensor);
    unsafe {
        let dl = &(*exported).dl_tensor;
        assert_eq!(std::slice::from_raw_parts(dl.shape, 2), &[10, 100]);
        assert_eq!(*(dl.data as *const f64).add(999), 999.0);
        ((*exported).deleter.unwrap())(exported);
    }
}

#[test]
fn dlpack_round_trips_keep_the_same_memory() {
    let tensor = Tensor::from_vec(vec![1_i32, 2, 3], &[3]).unwrap();
    let exported = tensor.to_dlpack().unwrap();
    let back = unsafe { Tensor::from_dlpack(exported) }.unwrap();
    assert_eq!(back.data_ptr(), tensor.data_ptr());
    assert_eq!(back.as_slice::<i32>().unwrap(), &[1, 2, 3]);
    drop(back);
    assert_eq!(tensor.as_object().strong_count(), 1, "the round trip released its reference");
    let versioned = tensor.to_dlpack_versioned().unwrap();
    let back = unsafe { Tensor::from_dlpack_versioned(versioned) }.unwrap();
    assert_eq!(back.as_slice::<i32>().unwrap(), &[1, 2, 3]);
}

#[test]
fn wrong_shapes_types_and_devices_are_errors() {
    let error = Tensor::from_vec(vec![1.0_f32; 5], &[2, 3]).unwrap_err();
    assert_eq!(error.kind(), "ValueError");
    assert!(error.message().contains("[2, 3]"), "{}", error.message());
    assert_eq!(Tensor::from_vec(vec![1.0_f32; 6], &[-2, -3]).unwrap_err().kind(), "ValueError");

    let tensor = Tensor::from_vec(vec![1.0_f32; 6], &[2, 3]).unwrap();
    let error = tensor.as_slice::<f64>().unwrap_err();
    assert_eq!(
        (error.kind().as_str(), error.message().as_str()),
        ("TypeError", "the tensor holds float32 elements, not float64")
    );

    let gpu = Tensor::alloc(&[4], DataType::F32, Device::cuda(0));
    if let Ok(gpu) = gpu {
        assert_eq!(gpu.as_slice::<f32>().unwrap_err().kind(), "ValueError");
    }
}

#[test]
fn alloc_gives_a_compact_aligned_tensor() {
    let mut tensor = Tensor::alloc(&[3, 4], DataType::I64, Device::cpu()).unwrap();
    assert_eq!(tensor.shape(), &[3, 4]);
    assert!(tensor.as_slice::<i64>().unwrap().iter().all(|&v| v == 0), "host memory comes zeroed");
    assert_eq!(tensor.data_ptr() as usize % 64, 0);
    tensor.as_mut_slice::<i64>().unwrap().iter_mut().enumerate().for_each(|(i, v)| *v = i as i64);
    assert_eq!(tensor.as_slice::<i64>().unwrap()[11], 11);
    let empty = Tensor::alloc(&[0, 5], DataType::F32, Device::cpu()).unwrap();
    assert_eq!(empty.as_slice::<f32>().unwrap(), &[] as &[f32]);
    let scalar = Tensor::alloc(&[], DataType::F64, Device::cpu()).unwrap();
    assert_eq!(scalar.ndim(), 0);
    assert_eq!(scalar.numel(), 1);
}

#[test]
fn views_read_from_anys_and_borrow() {
    let tensor = Tensor::from_vec(vec![5_u8, 6, 7], &[3]).unwrap();
    let any = Any::from(&tensor);
    let view: TensorView<'_> = any.cast().unwrap();
    assert_eq!(view.as_slice::<u8>().unwrap(), &[5, 6, 7]);
    assert_eq!(view.shape(), tensor.shape());
    assert_eq!(format!("{view:?}"), "TensorView(shape=[3], dtype=uint8, device=cpu:0)");
    assert_eq!(format!("{tensor:?}"), "Tensor(shape=[3], dtype=uint8, device=cpu:0)");
    assert!(Any::from(1).try_as::<TensorView<'_>>().is_none());
    let owned: Tensor = any.cast().unwrap();
    assert!(owned.as_object().same_as(tensor.as_object()));
}

#[test]
fn only_a_sole_owner_or_a_writable_view_writes() {
    let mut tensor = Tensor::from_vec(vec![1_i32, 2], &[2]).unwrap();
    tensor.as_mut_slice::<i32>().unwrap()[0] = 5;
    let copy = tensor.clone();
    let error = tensor.as_mut_slice::<i32>().unwrap_err();
    assert_eq!(error.message(), "the tensor is shared (2 references): only a sole owner writes it");
    assert!(tensor.view_mut().is_err());
    drop(copy);
    let mut view = tensor.view_mut().unwrap();
    assert!(view.is_writable());
    view.as_mut_slice::<i32>().unwrap()[1] = 6;
    assert_eq!(tensor.as_slice::<i32>().unwrap(), &[5, 6]);
    let mut read_only = tensor.view();
    assert!(!read_only.is_writable());
    assert_eq!(read_only.as_mut_slice::<i32>().unwrap_err().kind(), "ValueError");
}

#[test]
fn a_borrowed_dltensor_pointer_is_never_owned() {
    let tensor = Tensor::from_vec(vec![1.0_f32], &[1]).unwrap();
    let seen = ffi::Function::from_packed(|args: &[ffi::AnyView<'_>]| {
        let error = args[0].to_owned().unwrap_err();
        assert_eq!(error.kind(), "TypeError");
        Ok(Any::from(args[0].type_name()))
    });
    assert_eq!(seen.invoke((tensor.view(),)).unwrap().cast::<String>().unwrap(), "DLTensor*");
}

#[test]
#[should_panic(expected = "axis 2 out of range for a 2-d tensor")]
fn an_axis_out_of_range_panics() {
    Tensor::from_vec(vec![0.0_f32; 4], &[2, 2]).unwrap().size(2);
}

#[test]
fn a_tensor_without_elements_is_contiguous_whatever_its_strides() {
    let mut shape = [3_i64, 0];
    let mut strides = [1_i64, 1];
    let dl = ffi::sys::DLTensor {
        data: std::ptr::null_mut(),
        device: Device::cpu().0,
        ndim: 2,
        dtype: DataType::F32.0,
        shape: shape.as_mut_ptr(),
        strides: strides.as_mut_ptr(),
        byte_offset: 0,
    };
    let view = unsafe { TensorView::from_raw(&dl) };
    assert!(view.is_contiguous());
    assert_eq!(view.as_slice::<f32>().unwrap(), &[] as &[f32]);
    strides = [1, 3];
    shape = [3, 2];
    let dl = ffi::sys::DLTensor { shape: shape.as_mut_ptr(), strides: strides.as_mut_ptr(), ..dl };
    let view = unsafe { TensorView::from_raw(&dl) };
    assert!(!view.is_contiguous(), "a transposed layout");
    assert_eq!(view.as_slice::<f32>().unwrap_err().message(), "the tensor is not contiguous");
}
