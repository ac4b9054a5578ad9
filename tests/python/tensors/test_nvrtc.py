"""``ffi.cpp.nvrtc.nvrtc_compile``: CUDA C++ to a cubin with the real NVRTC library (the
``nvidia-cuda-nvrtc`` wheel or a toolkit's), checked with the binutils (``cuobjdump`` when the
toolkit has it), then embedded into a library built by ``ffi.cpp.load_inline``. Compiling needs no
GPU; launching the kernel runs only where there is one."""

import ctypes
import os
import shutil
import subprocess
import sys

import pytest

import ffi.cpp
from ffi.cpp import nvrtc
from ffi.cpp.nvrtc import nvrtc_compile


def _nvrtc_found():
    try:
        return nvrtc._nvrtc() is not None
    except RuntimeError:
        return False


pytestmark = pytest.mark.skipif(
    not _nvrtc_found(), reason="NVRTC not found (pip install nvidia-cuda-nvrtc)"
)

ADD_ONE = r"""
extern "C" __global__ void KERNEL(const float* x, float* y, long long n) {
  long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + 1.0f;
}
"""


def _gpu():
    """Whether the CUDA driver sees a device (what arch=None needs)."""
    try:
        cuda, count = ctypes.CDLL("libcuda.so.1"), ctypes.c_int(0)
    except OSError:
        return False
    return cuda.cuInit(0) == 0 and cuda.cuDeviceGetCount(ctypes.byref(count)) == 0 and count.value


def _elf(cubin, tmp_path):
    """(readelf's symbol table, cuobjdump's list of ELF images or None) of a cubin."""
    assert cubin[:4] == b"\x7fELF" and int.from_bytes(cubin[18:20], "little") == 190  # EM_CUDA
    path = tmp_path / "k.cubin"
    path.write_bytes(cubin)
    symbols = subprocess.check_output(["readelf", "-Ws", "-S", str(path)], text=True)
    cuobjdump = shutil.which(
        "cuobjdump", path="/usr/local/cuda/bin" + os.pathsep + os.environ["PATH"]
    )
    images = cuobjdump and subprocess.check_output([cuobjdump, "--list-elf", str(path)], text=True)
    return symbols, images


def test_compiles_a_kernel_to_a_cubin_for_the_arch(tmp_path):
    cubin = nvrtc_compile(ADD_ONE.replace("KERNEL", "add_one"), name="add_one.cu", arch="sm_80")
    assert isinstance(cubin, bytes)
    symbols, images = _elf(cubin, tmp_path)
    assert " add_one\n" in symbols and "FUNC" in symbols
    assert images is None or "sm_80" in images
    flags = int.from_bytes(cubin[48:52], "little")  # e_flags: the SM, in bits 8-15 since CUDA 13
    assert 80 in (flags & 0xFF, (flags >> 8) & 0xFF)


def test_extra_opts_str_and_bytes_change_the_result(tmp_path):
    plain = nvrtc_compile(ADD_ONE, arch="sm_80", extra_opts=["-DKERNEL=scale_by"])
    symbols, _ = _elf(plain, tmp_path)
    assert " scale_by\n" in symbols and ".nv_debug_line_sass" not in symbols
    opts = (b"-DKERNEL=other", b"-lineinfo")  # bytes, and any sequence
    symbols, _ = _elf(nvrtc_compile(ADD_ONE, arch="sm_90", extra_opts=opts), tmp_path)
    assert " other\n" in symbols and " scale_by\n" not in symbols
    assert ".nv_debug_line_sass" in symbols  # -lineinfo: line tables
    assert nvrtc_compile(ADD_ONE, arch="sm_80", extra_opts=["-DKERNEL=scale_by"]) == plain


def test_a_compile_error_carries_nvrtc_s_log():
    bad = 'extern "C" __global__ void k(float* x) {\n  x[0] = ;\n}\n'
    with pytest.raises(RuntimeError) as info:
        nvrtc_compile(bad, name="broken.cu", arch="sm_80")
    message = str(info.value)
    assert "'broken.cu'" in message and "NVRTC_ERROR_COMPILATION" in message
    assert "broken.cu(2): error: expected an expression" in message
    with pytest.raises(RuntimeError, match="invalid value for --gpu-architecture"):
        nvrtc_compile(ADD_ONE, arch="sm_1")
    with pytest.raises(RuntimeError, match="no cubin for 'compute_80'"):
        nvrtc_compile(ADD_ONE, arch="compute_80")  # passed through: NVRTC makes PTX only


def test_arch_none_detects_the_gpu_or_asks_for_arch(tmp_path):
    if _gpu():
        _elf(nvrtc_compile(ADD_ONE.replace("KERNEL", "k")), tmp_path)
        return
    with pytest.raises(RuntimeError, match=r"pass arch explicitly, e\.g\. arch='sm_80'"):
        nvrtc_compile(ADD_ONE.replace("KERNEL", "k"))


def test_bad_arguments():
    src = ADD_ONE.replace("KERNEL", "k")
    bad = [dict(arch=80), dict(name=b"k.cu"), dict(extra_opts="-DX"), dict(extra_opts=b"-DX")]
    for kwargs in [*bad, dict(extra_opts=[1]), dict(extra_opts={"-DX"})]:
        with pytest.raises(TypeError, match="nvrtc_compile: "):
            nvrtc_compile(src, **{"arch": "sm_80", **kwargs})
    with pytest.raises(TypeError):
        nvrtc_compile(src.encode(), arch="sm_80")
    with pytest.raises(TypeError):
        nvrtc_compile(src, "k.cu")  # keywords only
    with pytest.raises(ValueError, match="NUL"):
        nvrtc_compile(src, arch="sm_80", extra_opts=["-DX\0"])


def test_library_lookup():
    """The wheel is looked for first; a library found nowhere names the places and the wheel."""
    assert nvrtc._nvrtc() is nvrtc._nvrtc()  # loaded once
    assert nvrtc._candidates()[-3:] == ["libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12"]
    with pytest.raises(RuntimeError, match=r"tried /nowhere/libnvrtc\.so\.13.*pip install nvidia"):
        nvrtc._open(["/nowhere/libnvrtc.so.13"])


def test_importing_loads_no_library():
    code = (
        "import ffi.cpp.nvrtc\n"
        "maps = open('/proc/self/maps').read()\n"
        "assert 'libnvrtc' not in maps and 'libcuda' not in maps, maps"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


LAUNCHER = r"""
#include <ffi/extra/cuda/cubin_launcher.h>
TVM_FFI_EMBED_CUBIN(nvrtc_kernels);
int64_t image_size() { return __tvm_ffi__cubin_nvrtc_kernels_end - __tvm_ffi__cubin_nvrtc_kernels; }
void add_one(ffi::TensorView x, ffi::TensorView y) {
  static auto kernel = TVM_FFI_EMBED_CUBIN_GET_KERNEL(nvrtc_kernels, "add_one");
  void* x_data = x.data_ptr();
  void* y_data = y.data_ptr();
  long long n = x.numel();
  void* args[] = {&x_data, &y_data, &n};
  TVM_FFI_CHECK_CUBIN_LAUNCHER_CUDA_ERROR(kernel.Launch(
      args, ffi::dim3((n + 127) / 128), ffi::dim3(128), ffi::GetCurrentCUDAStream(x.device())));
}
"""


def test_the_cubin_embedded_by_load_inline(tmp_path):
    """The cubin linked into a library by load_inline(embed_cubin=...): its bytes are there, and
    the kernel runs on a GPU (compiled for it, arch=None); without one, the lookup is a clear
    error."""
    try:
        ffi.cpp._build._compiler("nvcc")
    except ffi.cpp.BuildError:
        pytest.skip("nvcc is not installed")
    gpu = _gpu()
    cubin = nvrtc_compile(ADD_ONE.replace("KERNEL", "add_one"), arch=None if gpu else "sm_80")
    mod = ffi.cpp.load_inline(
        "nvrtc_embed", cuda_sources=LAUNCHER, functions=["image_size", "add_one"],
        embed_cubin={"nvrtc_kernels": cubin}, build_directory=tmp_path,
    )  # fmt: skip
    assert mod.image_size() == len(cubin)
    torch = pytest.importorskip("torch")
    if not (gpu and torch.cuda.is_available()):
        x = torch.arange(4.0)
        with pytest.raises(RuntimeError, match=r"(?i)cuda|device|driver"):
            mod.add_one(x, x)
        return
    x = torch.arange(1000, dtype=torch.float32, device="cuda")
    y = torch.empty_like(x)
    mod.add_one(x, y)
    torch.cuda.synchronize()
    assert torch.equal(y, x + 1)
