"""PyTorch without its DLPack exchange API (releases before 2.10), made here by hiding the
installed PyTorch's table: ffi builds a shim against it once, caches it, and calls keep the C-level
path (PyTorch tensors in and out, PyTorch's allocator); with no compiler, or the build turned off,
calls fall back to ``__dlpack__``, with a warning only where the user did not choose it. Each case
runs in a fresh interpreter, since the table is process-wide state."""

import json
import os
import textwrap

import pytest
import torch
from support.build import build_kernel
from support.paths import KERNELS_DIR
from support.subprocesses import run_python

import ffi
import ffi.torch_exchange


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("torch_exchange"))
    return build_kernel(os.path.join(KERNELS_DIR, "framework_kernels.cc"), out)


@pytest.fixture(scope="module")
def shim_cache(tmp_path_factory):
    """One cache for the module: the first test to need the shim builds it."""
    return str(tmp_path_factory.mktemp("torch_exchange_cache"))


def run_without_table(kernels: str, body: str, **env: str) -> dict:
    """Runs `body` in a fresh interpreter whose PyTorch has no exchange table (nor
    torch-c-dlpack-ext), with `m` the framework kernels; returns what `body` put in `out`, with
    the provider and the warnings raised."""
    proc = run_python(
        f"""
        import json, sys, warnings
        import torch
        del torch.Tensor.__dlpack_c_exchange_api__
        sys.modules["torch_c_dlpack_ext"] = None  # as if not installed
        import ffi, ffi.torch_exchange
        m = ffi.load_module({kernels!r})
        out = {{}}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
{_indent(body, 12)}
        out["provider"] = ffi.torch_exchange.provider()
        out["warnings"] = [f"{{w.category.__name__}}: {{w.message}}" for w in caught]
        print(json.dumps(out))
        """,
        timeout=600,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _indent(text: str, spaces: int) -> str:
    return textwrap.indent(textwrap.dedent(text), " " * spaces)


CALLS = """
x = torch.arange(4.0)
before = sys.getrefcount(x)
y = m.keep(x)
out["kept"] = type(y).__name__
out["shares_memory"] = isinstance(y, torch.Tensor) and y.data_ptr() == x.data_ptr()
del y
m.release_kept()
out["refcount_restored"] = sys.getrefcount(x) == before
z = m.keep_new(x)
out["new"] = [type(z).__name__, torch.from_dlpack(z).tolist()]
m.release_kept()
out["table_on_torch"] = type(getattr(torch.Tensor, "__dlpack_c_exchange_api__", None)).__name__
"""


def test_a_shim_is_built_once_and_calls_keep_the_c_path(kernels, shim_cache):
    got = run_without_table(kernels, CALLS, FFI_CACHE_DIR=shim_cache)
    assert got["provider"] == "built shim"
    assert got["warnings"] == []
    assert got["kept"] == "Tensor" and got["shares_memory"]
    assert got["refcount_restored"]
    # The kernel allocated through PyTorch's allocator (the shim's), and got a torch.Tensor back.
    assert got["new"] == ["Tensor", [0.0, 1.0, 2.0, 3.0]]
    assert got["table_on_torch"] == "PyCapsule"
    # A second process loads it from the cache, with no compiler to be found.
    again = run_without_table(kernels, CALLS, FFI_CACHE_DIR=shim_cache, CXX="/nonexistent/c++")
    assert again["provider"] == "cached shim"
    assert {k: v for k, v in again.items() if k != "provider"} == {
        k: v for k, v in got.items() if k != "provider"
    }


DTYPES = ["float16", "bfloat16", "bool", "int8", "complex64"]


def test_shim_tensors_round_trip_each_dtype(kernels, shim_cache):
    body = f"""
    for dtype in {DTYPES!r}:
        x = torch.ones(2, 3, dtype=getattr(torch, dtype)).t()
        y = m.keep(x)
        m.release_kept()
        out[dtype] = [str(y.dtype), list(y.shape), list(y.stride()), y.data_ptr() == x.data_ptr()]
    """
    got = run_without_table(kernels, body, FFI_CACHE_DIR=shim_cache)
    assert got["provider"] in ("built shim", "cached shim")
    for dtype in DTYPES:
        assert got[dtype] == [f"torch.{dtype}", [3, 2], [1, 3], True], dtype


def test_shim_errors_are_python_errors(kernels, shim_cache):
    body = """
    bad = {"meta": torch.empty(2, device="meta"), "sparse": torch.eye(2).to_sparse()}
    for name, t in bad.items():
        try:
            m.keep(t)
        except Exception as err:
            out[name] = type(err).__name__
    out["after"] = m.keep(torch.ones(1)).tolist()
    m.release_kept()
    """
    got = run_without_table(kernels, body, FFI_CACHE_DIR=shim_cache)
    assert got["meta"] == "RuntimeError" and got["sparse"] == "RuntimeError"
    assert got["after"] == [1.0]


def test_without_a_compiler_calls_fall_back_with_a_warning(kernels, tmp_path):
    got = run_without_table(kernels, CALLS, FFI_CACHE_DIR=str(tmp_path), CXX="/nonexistent/c++")
    assert got["provider"] == "none"
    assert len(got["warnings"]) == 1
    warning = got["warnings"][0]
    assert warning.startswith("TorchExchangeWarning: PyTorch ")
    assert "/nonexistent/c++" in warning and "torch-c-dlpack-ext" in warning
    # The __dlpack__ path: the same values, results as ffi.Tensor.
    assert got["kept"] == "Tensor" and not got["shares_memory"]
    assert got["refcount_restored"]
    assert got["table_on_torch"] == "NoneType"


def test_a_build_turned_off_falls_back_silently(kernels, tmp_path):
    got = run_without_table(
        kernels, CALLS, FFI_CACHE_DIR=str(tmp_path), FFI_TORCH_EXCHANGE_SHIM="0"
    )
    assert got["provider"] == "none"
    assert got["warnings"] == []
    assert got["new"][1] == [0.0, 1.0, 2.0, 3.0]
    assert not os.listdir(tmp_path)  # nothing built


def test_a_subclass_hiding_the_table_asks_nothing(fmod):
    # torch.Tensor has its table here: a subclass that hides it goes through __dlpack__, and
    # ffi neither builds nor sets anything.
    class Hidden(torch.Tensor):
        __dlpack_c_exchange_api__ = None

    y = fmod.keep(torch.arange(2.0).as_subclass(Hidden))
    fmod.release_kept()
    assert type(y) is ffi.Tensor
    assert ffi.torch_exchange.ensure_exchange_api() == "pytorch"


def test_ensure_needs_pytorch_imported():
    proc = run_python(
        """
        import ffi.torch_exchange
        try:
            ffi.torch_exchange.ensure_exchange_api()
        except RuntimeError as err:
            print(err)
        """
    )
    assert proc.returncode == 0, proc.stderr
    assert "PyTorch is not imported" in proc.stdout


def test_command_line_reports_the_provider():
    proc = run_python("from ffi.torch_exchange import main; raise SystemExit(main(['--no-build']))")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"torch {torch.__version__}: exchange API from pytorch")
