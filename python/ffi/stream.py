"""The current stream of a device as FFI calls see it (``TVMFFIEnvGetStream``): reading it, and
setting it for a ``with`` block (the reference's ``tvm_ffi.stream``)."""

from __future__ import annotations

import contextlib
import operator
from collections.abc import Iterator
from typing import Any

from . import _core
from ._core import Device


def _as_device(dev: Any) -> Device:
    return dev if isinstance(dev, Device) else Device(dev)


def get_raw_stream(device: Any) -> int:
    """This thread's current stream handle for `device` (0: the default stream)."""
    d = _as_device(device)
    return _core.env_get_stream(d.dlpack_device_type(), d.index)


class StreamContext:
    """Within a ``with`` block, FFI calls on this thread see `stream` (a handle: an int or a
    ``ctypes.c_void_p``) as the current stream of `device`; the previous stream comes back at the
    end of the block (also on an exception). Blocks nest, and one context can be entered again
    once it has been left::

        with ffi.StreamContext(ffi.device("cuda:0"), handle):
            mod.launch(x)   # the kernel reads `handle` through TVMFFIEnvGetStream
    """

    def __init__(self, device: Any, stream: Any) -> None:
        self.device = _as_device(device)
        self.stream = _stream_handle(stream)
        self._previous: list[int] = []

    def __enter__(self) -> StreamContext:
        d = self.device
        self._previous.append(_core.env_set_stream(d.dlpack_device_type(), d.index, self.stream))
        return self

    def __exit__(self, *exc_info: object) -> None:
        if not self._previous:
            raise RuntimeError("StreamContext.__exit__ without a matching __enter__")
        d = self.device
        _core.env_set_stream(d.dlpack_device_type(), d.index, self._previous.pop())


def _stream_handle(stream: Any) -> int:
    """A stream handle as an int: an int, a ``ctypes.c_void_p`` or anything with ``__index__``."""
    import ctypes

    if isinstance(stream, ctypes.c_void_p):
        return stream.value or 0
    if stream is None:
        return 0
    try:
        return operator.index(stream)
    except TypeError:
        raise TypeError(
            f"a stream handle is an int or a ctypes.c_void_p, not {type(stream).__name__}"
        ) from None


def use_raw_stream(device: Any, stream: Any) -> StreamContext:
    """Within the block, FFI calls on this thread see `stream` (an int or ``ctypes.c_void_p``
    handle) for `device`: ``with ffi.use_raw_stream("cuda:0", handle): ...``."""
    return StreamContext(device, stream)


@contextlib.contextmanager
def use_torch_stream(context: Any = None) -> Iterator[None]:
    """Within the block, FFI calls see PyTorch's current stream of the current CUDA device, after
    entering `context`: PyTorch's own stream or graph context (``torch.cuda.stream(s)``,
    ``torch.cuda.graph(g)``, as the reference takes) or a ``torch.cuda.Stream`` (made current for
    PyTorch too)."""
    import torch

    with contextlib.ExitStack() as stack:
        if isinstance(context, torch.cuda.Stream):
            stack.enter_context(torch.cuda.stream(context))
        elif context is not None:
            stack.enter_context(context)
        current = torch.cuda.current_stream()
        dev = Device("cuda", current.device.index)
        stack.enter_context(use_raw_stream(dev, current.cuda_stream))
        yield
