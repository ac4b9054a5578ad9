//! What the host provides to a kernel during a call: the current stream of a device, and a way
//! to notice an interrupt (Ctrl-C in Python) in long loops.

use crate::dtype::Device;
use crate::error::{Error, Result, ENV_ERROR_ALREADY_SET};
use crate::sys;

/// This thread's current stream for `device` (a `cudaStream_t` for CUDA), as the host set it
/// for the call: PyTorch's current stream when PyTorch tensors were passed. Null means the
/// device's default stream.
pub fn current_stream(device: Device) -> sys::TVMFFIStreamHandle {
    unsafe { sys::TVMFFIEnvGetStream(device.device_type(), device.device_id()) }
}

/// Makes `stream` this thread's current stream for `device` until the guard goes, then restores
/// the previous one: how a Rust host sets the stream for the kernels it calls.
pub struct StreamGuard {
    device: Device,
    previous: sys::TVMFFIStreamHandle,
}

impl StreamGuard {
    /// Sets `stream` for `device` on this thread.
    // The runtime stores the handle for kernels to read; nothing here dereferences it.
    #[allow(clippy::not_unsafe_ptr_arg_deref)]
    pub fn new(device: Device, stream: sys::TVMFFIStreamHandle) -> Result<StreamGuard> {
        let mut previous = std::ptr::null_mut();
        let code = unsafe {
            sys::TVMFFIEnvSetStream(device.device_type(), device.device_id(), stream, &mut previous)
        };
        crate::error::check(code)?;
        Ok(StreamGuard { device, previous })
    }
}

impl Drop for StreamGuard {
    fn drop(&mut self) {
        let (device_type, device_id) = (self.device.device_type(), self.device.device_id());
        let code = unsafe {
            sys::TVMFFIEnvSetStream(device_type, device_id, self.previous, std::ptr::null_mut())
        };
        if code != 0 {
            // Restoring a stream the runtime accepted before cannot fail; drop what it raised.
            drop(Error::take_raised(code));
        }
    }
}

/// Lets the host handle pending signals: `Err` (kind [`ENV_ERROR_ALREADY_SET`]) when the call
/// should stop, e.g. after Ctrl-C in Python. Return that error as it is and the host raises its
/// own exception (`KeyboardInterrupt`). Call it now and then in long loops.
pub fn check_signals() -> Result<()> {
    if unsafe { sys::TVMFFIEnvCheckSignals() } == 0 {
        return Ok(());
    }
    let mut handle = std::ptr::null_mut();
    unsafe { sys::TVMFFIErrorMoveFromRaised(&mut handle) };
    match unsafe { crate::ObjectRef::from_raw(handle) } {
        Some(obj) => Err(<Error as crate::ObjectType>::from_object(obj)
            .unwrap_or_else(|| Error::new(ENV_ERROR_ALREADY_SET, ""))),
        None => Err(Error::new(ENV_ERROR_ALREADY_SET, "")),
    }
}
