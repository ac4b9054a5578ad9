"""Every example runs and prints what it promises."""

import os
import re
import subprocess
import sys

import pytest
from support.markers import needs_cargo, needs_nvcc
from support.paths import ROOT

# Tools, headers and examples: not run again on other interpreters (run_all.sh interpreters).
pytestmark = pytest.mark.tooling


def _werror_env(env=None):
    """The environment with -Werror added to CFLAGS and CXXFLAGS: the examples turn on -Wall
    -Wextra themselves, and their compilers (CMake, scikit-build-core, cc) read these variables."""
    env = dict(os.environ if env is None else env)
    for var in ("CFLAGS", "CXXFLAGS"):
        env[var] = f"{env.get(var, '')} -Werror".strip()
    return env


def test_quickstart(tmp_path):
    script = os.path.join(ROOT, "examples", "quickstart", "run.py")
    cache = tmp_path / "ffi_cache"  # load_inline builds afresh here, not in ~/.cache/ffi
    build = tmp_path / "build"
    out = _run_example(
        [sys.executable, script, str(build)], env=dict(os.environ, FFI_CACHE_DIR=str(cache))
    )
    assert out[0] == "<ffi.Function add_one(0: Tensor, 1: Tensor) -> void>"
    assert out[1] == "torch: [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]"
    assert out[2].startswith("numpy: [1.0, 1.33")
    assert out[3] == "error: x must be float32, got float64"
    assert out[4:] == [
        "load_inline torch: [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]",
        "C++ host: 1 2 3 4 5 6",
        "C++ host error: TypeError: x must be float32, got float64",
        "C host: 1 2 3 4 5 6",
        "C host error: TypeError: x must be float32, got float64",
    ]
    for built in ("add_one.so", "host", "host_c"):  # the CMake project's three targets
        assert (build / built).exists(), built
    assert list(cache.glob("add_one_inline/add_one_inline_*.so")), list(cache.rglob("*"))


def test_stable_c_abi(tmp_path):
    script = os.path.join(ROOT, "examples", "stable_c_abi", "run.sh")
    out = _run_example(["bash", script, str(tmp_path)])
    assert " ".join(out).split() == ["2", "3", "4", "5", "6"]


@needs_cargo
def test_rust(tmp_path):
    script = os.path.join(ROOT, "examples", "rust", "run.py")
    out = _run_example([sys.executable, script, str(tmp_path / "target")])
    assert out == [
        "signature: scale(x: 'Tensor', alpha: 'Optional<float>' = None) -> 'Tensor'",
        "torch: [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]",
        "scale returned torch.Tensor: [[0.0, 0.5, 1.0], [1.5, 2.0, 2.5]]",
        "numpy: [2.0, 2.0, 2.0, 2.0]",
        "error: y's shape [4] must equal x's shape [2, 3]",
        "host add_one: [2.0, 3.0, 4.0, 5.0]",
        "host error: ValueError: y's shape [3] must equal x's shape [2, 2]",
        "C++ host: 1 2 3 4 5 6",
        "C++ host error: TypeError: the tensor holds float64 elements, not float32",
    ]
    assert (tmp_path / "target" / "debug" / "librust_kernels.so").exists()


def _run_example(args, env=None):
    """Runs an example with warnings as errors and returns its stdout lines; on failure the
    assertion shows its output."""
    proc = subprocess.run(args, capture_output=True, text=True, timeout=300, env=_werror_env(env))
    assert proc.returncode == 0, f"{args} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout.splitlines()


def test_kernel_library(tmp_path):
    script = os.path.join(ROOT, "examples", "kernel_library", "run.py")
    out = _run_example([sys.executable, script, str(tmp_path)])
    assert out == [
        "<ffi.Function scale_add(0: Tensor, 1: Optional<Tensor>, 2: Tensor, 3: Tensor) -> void>",
        "torch, no bias: [0.0, 2.0, 4.0, 6.0]",
        "torch, bias: [0.5, 2.5, 4.5, 6.5]",
        "numpy: [[3.0, 3.0, 3.0], [3.0, 3.0, 3.0]]",
        "TypeError: input must be float32, got float64",
        "ValueError: output shape [3] must equal input shape [4]",
        "returned to torch: Tensor [0.0, 2.0, 4.0, 6.0]",
        "returned to numpy: float32 (2, 3) [[2.0, 2.0, 2.0], [2.0, 2.0, 2.0]]",
        "host scale_add: 2 4 6 8",
        "host scale_add with bias: 2.5 4.5 6.5 8.5",
        "host scale_add_alloc shape [2, 2], values: 2.5 4.5 6.5 8.5",
        "host error: ValueError: output shape [3] must equal input shape [2, 2]",
    ]
    assert os.path.exists(tmp_path / "kernels.so") and os.path.exists(tmp_path / "host")


@needs_nvcc
def test_cuda_example(tmp_path):
    script = os.path.join(ROOT, "examples", "cuda", "run.py")
    out = _run_example([sys.executable, script, str(tmp_path)])
    assert out[0] == "<ffi.Function add_one(0: Tensor, 1: Tensor) -> void>"
    assert out[1] == "ValueError: x and y must be on the same CUDA device, got cpu and cpu"
    libs = list(tmp_path.glob("add_one_cuda_*.so"))  # ffi.cpp names libraries by their key
    assert len(libs) == 1, libs
    lib = libs[0]
    if out[2].startswith("cuda:"):  # a GPU and a CUDA build of PyTorch
        assert out[2] == "cuda: [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]"
        assert re.fullmatch(r"devices: [1-9][0-9]*", out[3]), out
    elif out[2].startswith("no GPU:"):
        assert out[2].startswith(
            f"no GPU: built {lib}; calling raises: RuntimeError: "
            "CUDA call `cudaGetDeviceCount(&count)` failed: cudaError"
        ), out[2]
    else:  # a GPU, but PyTorch without CUDA
        pattern = r"[1-9][0-9]* GPU\(s\) but PyTorch has no CUDA: built " + re.escape(str(lib))
        assert re.match(pattern + "; ", out[2]), out[2]


def _cmake_at_least(major, minor):
    try:
        out = subprocess.run(["cmake", "--version"], capture_output=True, text=True).stdout
    except OSError:
        return False
    m = re.search(r"cmake version (\d+)\.(\d+)", out)
    return bool(m) and (int(m.group(1)), int(m.group(2))) >= (major, minor)


@needs_nvcc
@pytest.mark.skipif(not _cmake_at_least(3, 27), reason="needs CMake 3.27 (CUDA_FATBIN_COMPILATION)")
def test_cubin_example(tmp_path):
    """The fatbin embedded with ffi_embed_cubin builds into a host-compiled library everywhere;
    without a GPU loading it raises a clear RuntimeError (the GPU case: test_cubin_example_gpu)."""
    import torch

    script = os.path.join(ROOT, "examples", "cuda", "cubin", "run.py")
    out = _run_example([sys.executable, script, str(tmp_path)])
    assert out[0] == "<ffi.Function add_one(0: Tensor, 1: Tensor) -> void>"
    assert out[1] == "ValueError: x and y must be on the same CUDA device, got cpu and cpu"
    if torch.cuda.is_available():
        assert out[2] == "cuda: [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]"
    elif out[2].startswith("no GPU:"):
        assert out[2].startswith(
            "no GPU: RuntimeError: CubinModule: loading the image failed: "
            "CUDA call `cudaLibraryLoadData` failed: cudaError"
        ), out[2]
    else:
        assert out[2].startswith("GPU present but PyTorch has no CUDA"), out[2]


@pytest.mark.gpu
@needs_nvcc
@pytest.mark.skipif(not _cmake_at_least(3, 27), reason="needs CMake 3.27 (CUDA_FATBIN_COMPILATION)")
def test_cubin_example_gpu(tmp_path):
    """On a GPU the embedded kernel runs on PyTorch's current stream and adds one."""
    import torch

    if not torch.cuda.is_available():
        pytest.skip("needs an NVIDIA GPU and a CUDA build of PyTorch")
    script = os.path.join(ROOT, "examples", "cuda", "cubin", "run.py")
    out = _run_example([sys.executable, script, str(tmp_path)])
    assert out[2] == "cuda: [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]"


def test_packaging_example(tmp_path):
    script = os.path.join(ROOT, "examples", "packaging", "run.sh")
    out = _run_example(["bash", script, str(tmp_path)], env=dict(os.environ, PYTHON=sys.executable))
    assert re.fullmatch(r"wheel: my_kernels-0\.1\.0-py3-none-[A-Za-z0-9_.]+\.whl", out[0]), out
    assert out[1:] == [
        "contents: my_kernels/__init__.py my_kernels/libmy_kernels.so",
        "links libpython: no",
        "installed in the venv: True",
        "axpy numpy: [1.0, 3.0, 5.0]",
        "norm torch: 5.0",
        "ValueError: x and y must have the same shape, got [2] and [3]",
    ]
