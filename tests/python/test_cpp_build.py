"""ffi.cpp: inline and file builds, the build cache, concurrent builders, errors, CUDA."""

import fcntl
import os
import subprocess
import sys
import textwrap

import pytest
import torch

import ffi
import ffi.cpp
from ffi.cpp import _build

ADD_ONE = r"""
void add_one(ffi::TensorView x, ffi::TensorView y) {
  const float* px = static_cast<const float*>(x.data_ptr());
  float* py = static_cast<float*>(y.data_ptr());
  for (int64_t i = 0; i < x.numel(); ++i) py[i] = px[i] + 1.0f;
}
"""


@pytest.fixture(autouse=True)
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("FFI_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_load_inline_builds_exports_and_calls(cache_dir):
    mod = ffi.cpp.load_inline(name="add_one", cpp_sources=ADD_ONE, functions=["add_one"])
    x = torch.arange(4.0)
    y = torch.empty(4)
    mod.add_one(x, y)
    assert y.tolist() == [1.0, 2.0, 3.0, 4.0]
    assert repr(mod.add_one) == "<ffi.Function add_one(0: Tensor, 1: Tensor) -> void>"
    assert mod.path.startswith(str(cache_dir))


def test_cache_hit_and_rebuilds(cache_dir):
    first = ffi.cpp.build_inline(name="cached", cpp_sources=ADD_ONE, functions=["add_one"])
    mtime = os.stat(first).st_mtime_ns
    again = ffi.cpp.build_inline(name="cached", cpp_sources=ADD_ONE, functions=["add_one"])
    assert again == first and os.stat(again).st_mtime_ns == mtime  # nothing rebuilt
    changed_source = ffi.cpp.build_inline(
        name="cached", cpp_sources=ADD_ONE + "\n// edit\n", functions=["add_one"]
    )
    changed_flags = ffi.cpp.build_inline(
        name="cached", cpp_sources=ADD_ONE, functions=["add_one"], extra_cflags=["-O3"]
    )
    assert len({first, changed_source, changed_flags}) == 3


def test_version_is_part_of_the_key(monkeypatch):
    first = ffi.cpp.build_inline(name="versioned", cpp_sources=ADD_ONE, functions=["add_one"])
    monkeypatch.setattr(_build, "__version__", "999.0.0")
    second = ffi.cpp.build_inline(name="versioned", cpp_sources=ADD_ONE, functions=["add_one"])
    assert first != second


def test_compile_error_carries_diagnostics():
    with pytest.raises(ffi.cpp.BuildError) as info:
        ffi.cpp.build_inline(name="broken", cpp_sources="int f() { return undefined_name; }")
    assert "undefined_name" in str(info.value)
    assert "error" in str(info.value)


def test_bad_names_are_value_errors():
    with pytest.raises(ValueError, match="identifier"):
        ffi.cpp.build_inline(name="not a name", cpp_sources=ADD_ONE)
    with pytest.raises(ValueError, match="C identifiers"):
        ffi.cpp.build_inline(name="ok", cpp_sources=ADD_ONE, functions=["add-one"])
    with pytest.raises(ValueError, match="needs cpp_sources or cuda_sources"):
        ffi.cpp.build_inline(name="ok")


def test_verbose_prints_commands(capfd):
    ffi.cpp.build_inline(name="loud", cpp_sources=ADD_ONE, functions=["add_one"], verbose=True)
    err = capfd.readouterr().err
    assert "-std=c++17" in err and "-shared" in err


def test_build_from_files(tmp_path):
    src = tmp_path / "kernel.cc"
    src.write_text(
        "#include <ffi/ffi.h>\n" + ADD_ONE + "FFI_DLL_EXPORT_TYPED_FUNC(add_one, add_one);\n"
    )
    lib = ffi.cpp.build("from_file", cpp_files=[src], build_directory=tmp_path / "out")
    assert lib == str(tmp_path / "out" / "from_file.so")
    x = torch.zeros(2)
    y = torch.empty(2)
    ffi.load_module(lib).add_one(x, y)
    assert y.tolist() == [1.0, 1.0]


def test_concurrent_builders_share_one_build(cache_dir):
    code = textwrap.dedent(
        f"""
        import ffi.cpp, torch
        mod = ffi.cpp.load_inline(name="racy", cpp_sources={ADD_ONE!r}, functions=["add_one"])
        y = torch.empty(3)
        mod.add_one(torch.zeros(3), y)
        assert y.tolist() == [1.0, 1.0, 1.0]
        print(mod.path)
        """
    )
    env = dict(os.environ, FFI_CACHE_DIR=str(cache_dir))
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(4)
    ]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0, 0], [o[1] for o in outs]
    assert len({o[0].strip() for o in outs}) == 1


def test_lock_wait_is_bounded(monkeypatch, cache_dir):
    lib = ffi.cpp.build_inline(name="locked", cpp_sources=ADD_ONE, functions=["add_one"])
    lock_path = os.path.join(os.path.dirname(lib), ".lock")
    monkeypatch.setattr(_build, "_LOCK_TIMEOUT_S", 0.3)
    with open(lock_path, "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        with pytest.raises(TimeoutError, match="build lock"):
            ffi.cpp.build_inline(
                name="locked",
                cpp_sources=ADD_ONE,
                functions=["add_one"],
                build_directory=os.path.dirname(lib),
                extra_cflags=["-DFORCE_REBUILD"],
            )


CUDA_SRC = r"""
__global__ void AddOneKernel(const float* x, float* y, int64_t n) {
  int64_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + 1;
}
void add_one_cuda(ffi::TensorView x, ffi::TensorView y) {
  int64_t n = x.numel();
  auto stream = static_cast<cudaStream_t>(
      TVMFFIEnvGetStream(x.device().device_type, x.device().device_id));
  AddOneKernel<<<(n + 255) / 256, 256, 0, stream>>>(
      static_cast<const float*>(x.data_ptr()), static_cast<float*>(y.data_ptr()), n);
  FFI_CUDA_CHECK(cudaGetLastError());
}
int64_t device_count() {
  int n = 0;
  FFI_CUDA_CHECK(cudaGetDeviceCount(&n));
  return n;
}
"""


def test_cuda_sources_compile_with_nvcc():
    try:
        _build._tool("nvcc")
    except ffi.cpp.BuildError:
        pytest.skip("nvcc is not installed")
    mod = ffi.cpp.load_inline(
        name="add_one_cuda", cuda_sources=CUDA_SRC, functions=["add_one_cuda", "device_count"]
    )
    if torch.cuda.is_available():
        x = torch.arange(4.0, device="cuda")
        y = torch.empty(4, device="cuda")
        mod.add_one_cuda(x, y)
        assert y.tolist() == [1.0, 2.0, 3.0, 4.0]
    else:
        with pytest.raises(RuntimeError, match=r"CUDA call `cudaGetDeviceCount\(&n\)` failed"):
            mod.device_count()


def test_ninja_when_present_and_the_compiler_directly_otherwise(capfd, monkeypatch):
    if _build._ninja() is not None:
        ffi.cpp.build_inline(
            name="with_ninja", cpp_sources=ADD_ONE, functions=["add_one"], verbose=True
        )
        err = capfd.readouterr().err
        assert "ninja -C" in err and "-std=c++17" in err
    monkeypatch.setattr(_build, "_ninja", lambda: None)
    ffi.cpp.build_inline(
        name="without_ninja", cpp_sources=ADD_ONE, functions=["add_one"], verbose=True
    )
    err = capfd.readouterr().err
    assert "ninja -C" not in err and "-std=c++17" in err
