// Streams (stream_sync.cc): producer/consumer ordering for __dlpack__ (CUDA driver,
// dlopen'ed) and the thread's current stream per device.
#ifndef FFI_PYTHON_STREAM_SYNC_H_
#define FFI_PYTHON_STREAM_SYNC_H_

#include <Python.h>
#include <ffi/ffi.h>

#include "nb_module.h"

namespace tvm::ffi::python {

/*!
 * \brief Orders a DLPack consumer's work after the producer's, as `__dlpack__(stream=...)` asks:
 * the producer stream is this thread's FFI stream for `device` (the legacy default stream when
 * none is set); `stream` is the consumer's Python value. When the two differ on a CUDA device, an
 * event recorded on the producer stream is waited on by the consumer stream. False with a Python
 * error: ValueError/TypeError for a value the protocol forbids, BufferError when synchronizing
 * fails (no CUDA driver, ...).
 */
bool SyncForConsumer(DLDevice device, PyObject* stream);
/*! \brief Adds env_set_stream and env_get_stream. */
void BindStreamFunctions(nanobind::module_& m);

}  // namespace tvm::ffi::python

#endif  // FFI_PYTHON_STREAM_SYNC_H_
