"""Bad arguments to the package's entry points are refused with a TypeError or ValueError that names
what is wrong: from_dlpack's parameters (also by the reference's keyword name), stream handles out
of range, and protocol methods returning the wrong number of items."""

import numpy as np
import pytest

import ffi


def test_from_dlpack_takes_ext_tensor_by_keyword():
    # tvm_ffi.from_dlpack(ext_tensor, *, require_alignment=0, require_contiguous=False)
    a = np.arange(4.0)
    t = ffi.from_dlpack(ext_tensor=a)
    assert tuple(t.shape) == (4,) and t.data_ptr() == a.ctypes.data
    t = ffi.from_dlpack(ext_tensor=a, require_alignment=8, require_contiguous=True)
    assert t.data_ptr() == a.ctypes.data
    assert ffi.from_dlpack(a, 8, True).data_ptr() == a.ctypes.data  # positional still works
    with pytest.raises(TypeError, match="missing required argument 'ext_tensor'"):
        ffi.from_dlpack()
    with pytest.raises(TypeError, match="missing required argument 'ext_tensor'"):
        ffi.from_dlpack(require_alignment=8)
    with pytest.raises(TypeError, match="multiple values for argument 'ext_tensor'"):
        ffi.from_dlpack(a, ext_tensor=a)
    with pytest.raises(TypeError, match="multiple values for argument 'require_alignment'"):
        ffi.from_dlpack(a, 8, require_alignment=8)
    with pytest.raises(TypeError, match="unexpected keyword argument 'obj'"):
        ffi.from_dlpack(obj=a)


@pytest.mark.parametrize("stream", [-1, 2**64, -(2**70)])
def test_stream_handle_out_of_range(stream):
    device = ffi.device("cuda:0")
    before = ffi.get_raw_stream(device)
    with pytest.raises(ValueError, match=r"stream must be a handle in \[0, 2\*\*64\)"):
        with ffi.use_raw_stream(device, stream):
            pass
    assert ffi.get_raw_stream(device) == before  # nothing changed
    with ffi.use_raw_stream(device, 2**64 - 1):  # the largest handle is fine
        assert ffi.get_raw_stream(device) == 2**64 - 1
    assert ffi.get_raw_stream(device) == before


def test_protocols_need_exactly_their_items(mod):
    class Place:
        def __init__(self, value):
            self.value = value

        def __dlpack_device__(self):
            return self.value

    class DType:
        def __dlpack_data_type__(self):
            return (2, 32, 1, 0)

    assert mod.echo(Place((2, 3))) == ffi.device("cuda:3")
    for value in [(1, 0, 0), (1,)]:
        with pytest.raises(TypeError, match=r"a \(device_type, device_id\) pair, not \d items"):
            mod.echo(Place(value))
        with pytest.raises(TypeError, match=r"__dlpack_device__\(\) must return a tuple of 2"):
            ffi.convert(Place(value))
    with pytest.raises(TypeError, match=r"a \(type_code, bits, lanes\) triple, not 4 items"):
        mod.echo(DType())
