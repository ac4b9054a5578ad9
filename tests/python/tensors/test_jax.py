"""JAX arrays (on the CPU) as kernel arguments and as DLPack producers and consumers, zero-copy
both ways where JAX allows it. JAX has no C exchange API: its arrays go through `__dlpack__`, and
tensors a kernel returns when called with them arrive as ffi.Tensor."""

import gc
import sys

import numpy as np
import pytest

import ffi

# Tools, headers and examples: not run again on other interpreters (run_all.sh interpreters).
pytestmark = pytest.mark.tooling

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")


@pytest.fixture(autouse=True)
def _arrays_on_the_cpu():
    """These tests are about JAX's CPU arrays, also where JAX's default device is a GPU."""
    with jax.default_device(jax.devices("cpu")[0]):
        yield


def data_pointer(x):
    return x.unsafe_buffer_pointer()


def test_jax_array_is_a_kernel_argument(mod):
    x = jnp.arange(6, dtype=jnp.float32)
    out = np.zeros(6, np.float32)
    ws = np.zeros(6, np.float32)
    mod.scale_add(x, None, out, ws)
    np.testing.assert_array_equal(out, 2 * np.arange(6, dtype=np.float32))
    assert mod.sum_any(jnp.ones((2, 3), dtype=jnp.float32)) == 6.0
    assert mod.describe(x) == "float32 cpu [6] strides [1] contiguous 1"


def test_jax_argument_is_seen_in_place_not_copied(mod):
    x = jnp.arange(4, dtype=jnp.float32)
    t = ffi.from_dlpack(x)
    assert t.data_ptr() == data_pointer(x)
    assert t.shape == (4,)
    assert t.dtype == ffi.float32


def test_kernel_type_checks_apply_to_jax_arrays(mod):
    with pytest.raises(TypeError, match="x must be float32"):
        mod.scale_add(jnp.arange(3, dtype=jnp.int32), None, np.zeros(3, np.float32), np.zeros(3))


def test_tensor_returned_for_jax_arguments_is_an_ffi_tensor(mod):
    x = jnp.ones(5, dtype=jnp.float32)
    y = mod.alloc_like(x)
    assert isinstance(y, ffi.Tensor)
    assert y.shape == (5,)
    assert y.dtype == ffi.float32


def test_ffi_tensor_into_jax(mod):
    t = mod.make_output(8)
    x = jnp.from_dlpack(t)
    np.testing.assert_array_equal(np.asarray(x), np.arange(8, dtype=np.float32))
    # JAX keeps its own reference: the values outlive our handle.
    del t
    gc.collect()
    np.testing.assert_array_equal(np.asarray(x * 2), 2 * np.arange(8, dtype=np.float32))


def test_jax_memory_stays_alive_while_ffi_tensor_holds_it():
    x = jnp.arange(1000, dtype=jnp.float32) * 3
    t = ffi.from_dlpack(x)
    del x
    gc.collect()
    np.testing.assert_array_equal(np.from_dlpack(t)[:3], np.array([0, 3, 6], np.float32))


def test_tensor_view_of_jax_array_released_after_calls(mod):
    x = jnp.arange(16, dtype=jnp.float32)
    before = sys.getrefcount(x)
    for _ in range(100):
        mod.describe(x)
        ffi.from_dlpack(x)
    gc.collect()
    assert sys.getrefcount(x) == before


def test_jax_round_trip_through_echo(mod):
    x = jnp.arange(3, dtype=jnp.int64 if jax.config.jax_enable_x64 else jnp.int32)
    back = mod.echo(x)
    assert isinstance(back, ffi.Tensor)
    np.testing.assert_array_equal(np.from_dlpack(back), np.asarray(x))
