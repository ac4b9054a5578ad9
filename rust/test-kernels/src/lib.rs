//! Kernels the tests call from Rust, C++ and Python, on both runtimes (the Python side:
//! tests/python/rust, which builds this crate with cargo).
//!
//! Each kernel is small and checks one thing a host can observe: tensors written in place,
//! keyword names and optional parameters, errors and panics, values of every kind converted both
//! ways, objects kept and returned, Rust-owned buffers handed to the host (`make_tensor`, with
//! `live_buffers` counting the buffers not yet freed) and allocations through the host's
//! allocator (`alloc_tensor`).
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use ffi::{Any, AnyView, Array, DataType, Device, Function, Map, ObjectRef, Tensor, TensorView};

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

/// Returns `x * factor` (`factor` defaults to 2).
#[ffi::export]
fn scale(x: f64, factor: Option<f64>) -> f64 {
    x * factor.unwrap_or(2.0)
}

/// Concatenates two strings (exported under another name: `concat`).
#[ffi::export(name = "concat")]
fn concat_strings(a: String, b: String) -> String {
    a + &b
}

/// Fails with an error of `kind` (`"ValueError"`, ...) carrying `message`.
#[ffi::export]
fn fail(kind: String, message: String) -> ffi::Result<i64> {
    Err(ffi::Error::new(&kind, message))
}

/// Panics with `message`.
#[ffi::export]
fn panics(message: String) -> i64 {
    panic!("{}", message)
}

/// Panics with the integer `code` as the payload (not a string).
#[ffi::export]
fn panics_with_code(code: i64) -> i64 {
    std::panic::panic_any(code)
}

/// Counts the lines of `text`, which end at "\n" (a backslash and an `n` in this comment).
///
/// A second paragraph: ‘quotes’, "double quotes", a backslash \ and a tab\t escape, kept as
/// written.
#[ffi::export]
fn count_lines(text: String) -> i64 {
    text.lines().count() as i64
}

/// Calls `f(value)` and returns what it returns (its error is passed on unchanged).
#[ffi::export]
fn call_back(f: Function, value: Any) -> ffi::Result<Any> {
    f.call(&[value])
}

/// Calls `f()` and describes its error as `"kind: message"` (or `"ok"`): the error stops here.
#[ffi::export]
fn catch_error(f: Function) -> String {
    match f.call(&[]) {
        Ok(_) => "ok".into(),
        Err(e) => format!("{}: {}", e.kind(), e.message()),
    }
}

/// Closures `make_adder` made that are still alive.
static LIVE_CLOSURES: AtomicUsize = AtomicUsize::new(0);

/// Counts a closure alive from its making to its drop.
struct ClosureGuard;

impl ClosureGuard {
    fn new() -> ClosureGuard {
        LIVE_CLOSURES.fetch_add(1, Ordering::AcqRel);
        ClosureGuard
    }
}

impl Drop for ClosureGuard {
    fn drop(&mut self) {
        LIVE_CLOSURES.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A function made in Rust: adds `n` to its integer argument.
#[ffi::export]
fn make_adder(n: i64) -> Function {
    let guard = ClosureGuard::new();
    Function::from_typed(move |x: i64| {
        let _ = &guard;
        x + n
    })
}

/// How many functions `make_adder` made are still alive.
#[ffi::export]
fn live_closures() -> i64 {
    LIVE_CLOSURES.load(Ordering::Acquire) as i64
}

/// A function made in Rust that panics with `message` when called.
#[ffi::export]
fn make_panicker(message: String) -> Function {
    Function::from_typed(move || -> i64 { panic!("{}", message) })
}

/// Returns `value` unchanged (as the owned copy Rust made of it).
#[ffi::export]
fn echo(value: Any) -> Any {
    value
}

/// What `value` holds, by the name the crate gives it (`int`, `str`, `Tensor`, ...).
#[ffi::export]
fn type_name_of(value: AnyView) -> String {
    value.type_name()
}

/// Returns `text` through a Rust `String` (copied in and out).
#[ffi::export]
fn echo_string(text: String) -> String {
    text
}

/// Returns `text` as the ABI string it arrived as (no copy).
#[ffi::export]
fn echo_ffi_string(text: ffi::String) -> ffi::String {
    text
}

/// The length of `text` in bytes and in characters, as `[bytes, chars]`.
#[ffi::export]
fn string_lengths(text: ffi::String) -> Vec<i64> {
    vec![text.len() as i64, text.chars().count() as i64]
}

/// Returns `data` unchanged.
#[ffi::export]
fn echo_bytes(data: ffi::Bytes) -> ffi::Bytes {
    data
}

/// The values of `data`'s bytes.
#[ffi::export]
fn byte_values(data: ffi::Bytes) -> Vec<i64> {
    data.as_bytes().iter().map(|&b| b as i64).collect()
}

/// `a + b`; an `OverflowError` when the sum does not fit in 64 bits.
#[ffi::export]
fn add_i64(a: i64, b: i64) -> ffi::Result<i64> {
    a.checked_add(b).ok_or_else(|| ffi::Error::new("OverflowError", format!("{a} + {b} overflows")))
}

/// Returns an 8-bit integer (a `TypeError` for arguments out of its range).
#[ffi::export]
fn echo_i8(value: i8) -> i8 {
    value
}

/// `u64::MAX`, which does not fit in an `int` of the ABI.
#[ffi::export]
fn max_u64() -> u64 {
    u64::MAX
}

/// Half of `x`, computed in single precision.
#[ffi::export]
fn half_f32(x: f32) -> f32 {
    x / 2.0
}

/// Returns `x` as a double.
#[ffi::export]
fn echo_f64(x: f64) -> f64 {
    x
}

/// The negation of `flag`.
#[ffi::export]
fn negate(flag: bool) -> bool {
    !flag
}

/// Twice `value`, or None when it is None.
#[ffi::export]
fn maybe_double(value: Option<i64>) -> Option<i64> {
    value.map(|v| v * 2)
}

/// Returns `device` unchanged.
#[ffi::export]
fn echo_device(device: Device) -> Device {
    device
}

/// The device of DLPack kind `device_type` and ordinal `device_id`.
#[ffi::export]
fn make_device(device_type: i32, device_id: i32) -> Device {
    Device::new(device_type, device_id)
}

/// The device and the dtype of `x`, as `[device, dtype]`.
#[ffi::export]
fn device_and_dtype(x: TensorView) -> Vec<Any> {
    vec![Any::from(x.device()), Any::from(x.dtype())]
}

/// The name of `dtype` (which may arrive as a dtype or as a string naming one).
#[ffi::export]
fn dtype_name(dtype: DataType) -> String {
    dtype.to_string()
}

/// Returns `dtype` unchanged.
#[ffi::export]
fn echo_dtype(dtype: DataType) -> DataType {
    dtype
}

/// The sum of `values`; an `OverflowError` when it does not fit in 64 bits.
#[ffi::export]
fn sum_list(values: Vec<i64>) -> ffi::Result<i64> {
    values
        .iter()
        .try_fold(0_i64, |acc, &v| acc.checked_add(v))
        .ok_or_else(|| ffi::Error::new("OverflowError", "the sum overflows"))
}

/// `[0, 1, ..., n - 1]`.
#[ffi::export]
fn range_list(n: i64) -> Vec<i64> {
    (0..n).collect()
}

/// `parts` joined with `sep`.
#[ffi::export]
fn join_strings(parts: Vec<String>, sep: String) -> String {
    parts.join(&sep)
}

/// The number of elements of `values`.
#[ffi::export]
fn array_len(values: Array) -> i64 {
    values.len() as i64
}

/// Element `index` of `values` (negative counts from the end); an `IndexError` out of range.
#[ffi::export]
fn array_get(values: Array, index: i64) -> ffi::Result<Any> {
    let n = values.len() as i64;
    let i = if index < 0 { index + n } else { index };
    match values.get(usize::try_from(i).unwrap_or(usize::MAX)) {
        Some(v) => v.to_owned(),
        None => ffi::bail!(IndexError, "index {index} out of range for {n} elements"),
    }
}

/// The value under `key` in `m`, or None.
#[ffi::export]
fn map_get(m: Map, key: String) -> ffi::Result<Option<Any>> {
    m.get(key)
}

/// The value under `key` in `m`; a `KeyError` naming the key when there is none.
#[ffi::export]
fn map_lookup(m: Map, key: String) -> ffi::Result<Any> {
    m.get(&key)?.ok_or_else(|| ffi::Error::new("KeyError", key))
}

/// The entries of `m` as `[[key, value], ...]`, in the map's order.
#[ffi::export]
fn map_items(m: Map) -> ffi::Result<Vec<Vec<Any>>> {
    Ok(m.items()?.into_iter().map(|(k, v)| vec![k, v]).collect())
}

/// A map from `keys[i]` to `values[i]` (a `ValueError` when the lengths differ).
#[ffi::export]
fn make_map(keys: Vec<String>, values: Vec<Any>) -> ffi::Result<Map> {
    ffi::ensure!(
        keys.len() == values.len(),
        ValueError,
        "{} keys but {} values",
        keys.len(),
        values.len()
    );
    Map::new(keys.into_iter().zip(values))
}

/// Values kept by `stash` until `take_stash`.
static STASH: Mutex<Vec<Any>> = Mutex::new(Vec::new());

/// Keeps `value` (a reference to it) until `take_stash`; returns how many values are kept.
#[ffi::export]
fn stash(value: Any) -> i64 {
    let mut kept = STASH.lock().unwrap_or_else(|e| e.into_inner());
    kept.push(value);
    kept.len() as i64
}

/// Returns the values `stash` kept, in order, and forgets them.
#[ffi::export]
fn take_stash() -> Vec<Any> {
    std::mem::take(&mut *STASH.lock().unwrap_or_else(|e| e.into_inner()))
}

/// The address of the object `value` holds, or 0 for a value that is not an object.
#[ffi::export]
fn object_address(value: AnyView) -> u64 {
    value.as_object().map_or(0, |obj| obj.as_raw() as u64)
}

/// The strong reference count of `obj`, not counting the reference this call holds.
#[ffi::export]
fn strong_count(obj: ObjectRef) -> i64 {
    obj.strong_count() as i64 - 1
}

/// The extents, strides (in elements), number of elements and contiguity of `x`.
#[ffi::export]
fn tensor_layout(x: TensorView) -> Vec<Any> {
    vec![
        Any::from(x.shape().to_vec()),
        Any::from(x.strides()),
        Any::from(x.numel()),
        Any::from(x.is_contiguous()),
    ]
}

/// The sum of a float32 tensor's elements (CPU and contiguous, or an error saying why not).
#[ffi::export]
fn sum_f32(x: TensorView) -> ffi::Result<f64> {
    Ok(x.as_slice::<f32>()?.iter().map(|&v| v as f64).sum())
}

/// Buffers handed to hosts by `make_tensor` and `make_matrix` not yet dropped.
static LIVE: AtomicUsize = AtomicUsize::new(0);
/// Those dropped so far.
static FREED: AtomicUsize = AtomicUsize::new(0);

/// A Vec whose drop is counted (by the tensor's deleter, in whatever language held it last).
/// An empty Vec owns no allocation and is not counted.
struct CountedBuffer<T>(Vec<T>);

impl<T> CountedBuffer<T> {
    fn new(data: Vec<T>) -> Self {
        if data.capacity() > 0 {
            LIVE.fetch_add(1, Ordering::AcqRel);
        }
        CountedBuffer(data)
    }
}

impl<T> AsMut<[T]> for CountedBuffer<T> {
    fn as_mut(&mut self) -> &mut [T] {
        &mut self.0
    }
}

impl<T> Drop for CountedBuffer<T> {
    fn drop(&mut self) {
        if self.0.capacity() > 0 {
            LIVE.fetch_sub(1, Ordering::AcqRel);
            FREED.fetch_add(1, Ordering::AcqRel);
        }
    }
}

/// A float32 tensor `[0, 1, ..., n - 1]` over a Rust `Vec` (no copy), freed when the last holder
/// lets go. `like`, when given, only makes the call its framework's: the result comes back as
/// one of that framework's tensors.
#[ffi::export]
fn make_tensor(n: i64, like: Option<TensorView>) -> ffi::Result<Tensor> {
    let _ = like;
    let data: Vec<f32> = (0..n).map(|i| i as f32).collect();
    Tensor::from_buffer(CountedBuffer::new(data), &[n])
}

/// A float64 `rows` x `cols` tensor over a Rust `Vec` holding `10 * row + col`.
#[ffi::export]
fn make_matrix(rows: i64, cols: i64) -> ffi::Result<Tensor> {
    let data: Vec<f64> =
        (0..rows).flat_map(|r| (0..cols).map(move |c| (10 * r + c) as f64)).collect();
    Tensor::from_buffer(CountedBuffer::new(data), &[rows, cols])
}

/// How many buffers `make_tensor` and `make_matrix` handed out are still alive, and how many
/// were freed: `[live, freed]`.
#[ffi::export]
fn live_buffers() -> Vec<i64> {
    vec![LIVE.load(Ordering::Acquire) as i64, FREED.load(Ordering::Acquire) as i64]
}

/// A new float32 tensor of `shape` from the environment's allocator (the host's: PyTorch's in a
/// call that received a PyTorch tensor), on `like`'s device (CPU when `like` is None), holding
/// `0, 1, 2, ...`.
#[ffi::export]
fn alloc_tensor(shape: Vec<i64>, like: Option<TensorView>) -> ffi::Result<Tensor> {
    let device = like.map_or(Device::cpu(), |t| t.device());
    let mut t = Tensor::alloc(&shape, DataType::F32, device)?;
    for (i, v) in t.as_mut_slice::<f32>()?.iter_mut().enumerate() {
        *v = i as f32;
    }
    Ok(t)
}

/// The address of the environment's DLPack tensor allocator during this call (0 when none is
/// set): `like` makes the call a framework's, as in `alloc_tensor`.
#[ffi::export]
fn env_allocator(like: Option<TensorView>) -> u64 {
    let _ = like;
    unsafe { ffi::sys::TVMFFIEnvGetDLPackManagedTensorAllocator() }.map_or(0, |f| f as usize as u64)
}
