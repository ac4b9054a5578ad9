"""``ffi.utils.embed_cubin``: a CUDA image joined to an object file that uses
``TVM_FFI_EMBED_CUBIN``, then linked into a kernel library by the host compiler.

The real case compiles the cubin-launcher kernel library (tests/cpp/cubin) with our headers and
with the reference's, embeds an nvcc-built fatbin into each object and loads the result; the
launch itself needs a GPU, everything else runs anywhere nvcc does."""

import os
import shlex
import subprocess
import sys

import pytest
from support.build import reference_include_dir
from support.paths import TESTS_DIR

import ffi
import ffi.cpp
from ffi.utils.embed_cubin import embed_cubin, main

CUBIN_DIR = os.path.join(TESTS_DIR, "..", "cpp", "cubin")
SYMBOL = "__tvm_ffi__cubin_kernels"

# Reads the image TVM_FFI_EMBED_CUBIN(kernels) declares, without CUDA: the macro's two symbols.
READER = r"""
#include <ffi/ffi.h>
extern "C" const char __tvm_ffi__cubin_kernels[];
extern "C" const char __tvm_ffi__cubin_kernels_end[];
namespace {
ffi::Bytes image() {
  return ffi::Bytes(std::string(__tvm_ffi__cubin_kernels,
                                __tvm_ffi__cubin_kernels_end - __tvm_ffi__cubin_kernels));
}
}  // namespace
FFI_DLL_EXPORT_TYPED_FUNC(READ_NAME, image);
"""


def _cflags():
    out = subprocess.check_output([sys.executable, "-m", "ffi.config", "--cflags"], text=True)
    return shlex.split(out)


def _compile_object(src_text, obj, *flags):
    src = obj.with_suffix(".cc")
    src.write_text(src_text)
    cmd = ["g++", "-std=c++17", "-c", "-fPIC", "-fvisibility=hidden", *flags, str(src), "-o"]
    subprocess.run([*cmd, str(obj)], check=True, capture_output=True)


def _link(objs, lib, *flags):
    cmd = ["g++", "-shared", *map(str, objs), "-o", str(lib), *flags]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return str(lib)


def _symbols(obj):
    """{name: nm's type letter} of an object file (upper case: global, lower case: local)."""
    out = subprocess.check_output(["nm", str(obj)], text=True)
    return {parts[-1]: parts[-2] for parts in map(str.split, out.splitlines()) if len(parts) >= 2}


def test_two_objects_embed_images_under_one_name_in_one_library(tmp_path):
    """The image lies between the two symbols, byte for byte, and the symbols are local to the
    object: two objects embedding different images under one name link into one library, each
    reading its own."""
    images = {"a": bytes(range(256)) * 5 + b"tail", "b": b"\x7fELF" + bytes(4093)}
    objs = []
    for which, data in images.items():
        (tmp_path / f"{which}.bin").write_bytes(data)
        plain = tmp_path / f"{which}.o"
        _compile_object(READER.replace("READ_NAME", f"image_{which}"), plain, *_cflags())
        assert _symbols(plain)[SYMBOL] == "U"
        joined = tmp_path / f"{which}_joined.o"
        embed_cubin(tmp_path / f"{which}.bin", plain, joined, "kernels")
        symbols = _symbols(joined)
        assert symbols[SYMBOL] == "r" and symbols[SYMBOL + "_end"] == "r"
        objs.append(joined)
    mod = ffi.load_module(_link(objs, tmp_path / "both.so"))
    assert mod.image_a() == images["a"] and mod.image_b() == images["b"]


def test_output_may_replace_the_input_and_paths_may_be_str(tmp_path):
    (tmp_path / "img.bin").write_bytes(b"abc")
    obj = tmp_path / "k.o"
    _compile_object(READER.replace("READ_NAME", "image"), obj, *_cflags())
    embed_cubin(str(tmp_path / "img.bin"), str(obj), str(obj), "kernels")
    assert ffi.load_module(_link([obj], tmp_path / "k.so")).image() == b"abc"


def test_errors_name_what_is_wrong_and_leave_the_output_alone(tmp_path):
    (tmp_path / "img.bin").write_bytes(b"abc")
    obj = tmp_path / "k.o"
    _compile_object(READER.replace("READ_NAME", "image"), obj, *_cflags())
    out = tmp_path / "out.o"
    with pytest.raises(FileNotFoundError, match="no CUDA image file"):
        embed_cubin(tmp_path / "missing.cubin", obj, out, "kernels")
    with pytest.raises(FileNotFoundError, match="no input object file"):
        embed_cubin(tmp_path / "img.bin", tmp_path / "missing.o", out, "kernels")
    with pytest.raises(ValueError, match="must be a C identifier"):
        embed_cubin(tmp_path / "img.bin", obj, out, "my-kernels")
    # An image the object never reads (a misspelt name), and a second image under one name.
    with pytest.raises(RuntimeError, match=r"does not use TVM_FFI_EMBED_CUBIN\(kernel\)"):
        embed_cubin(tmp_path / "img.bin", obj, out, "kernel")
    assert not out.exists()
    embed_cubin(tmp_path / "img.bin", obj, out, "kernels")
    before = out.read_bytes()
    with pytest.raises(RuntimeError, match="already holds an image named 'kernels'"):
        embed_cubin(tmp_path / "img.bin", out, out, "kernels")
    assert out.read_bytes() == before


def test_missing_tool_is_a_clear_error(tmp_path, monkeypatch):
    (tmp_path / "img.bin").write_bytes(b"abc")
    obj = tmp_path / "k.o"
    _compile_object(READER.replace("READ_NAME", "image"), obj, *_cflags())
    monkeypatch.setenv("OBJCOPY", "no-such-objcopy")
    with pytest.raises(RuntimeError, match=r"\$OBJCOPY is 'no-such-objcopy'"):
        embed_cubin(tmp_path / "img.bin", obj, tmp_path / "out.o", "kernels")
    assert not (tmp_path / "out.o").exists()


def test_command_line(tmp_path, capfd):
    (tmp_path / "img.bin").write_bytes(b"xyz")
    obj = tmp_path / "k.o"
    _compile_object(READER.replace("READ_NAME", "image"), obj, *_cflags())
    out = tmp_path / "cli.o"
    args = ["--cubin", str(tmp_path / "img.bin"), "--input-obj", str(obj)]
    assert main([*args, "--output-obj", str(out), "--name", "kernels", "-v"]) == 0
    assert "objcopy" in capfd.readouterr().out  # -v prints each command
    assert ffi.load_module(_link([out], tmp_path / "cli.so")).image() == b"xyz"
    assert main([*args, "--output-obj", str(out), "--name", "1x"]) == 1
    assert "must be a C identifier" in capfd.readouterr().err
    proc = subprocess.run(
        [sys.executable, "-m", "ffi.utils.embed_cubin", "--help"], capture_output=True, text=True
    )
    assert proc.returncode == 0 and "--input-obj" in proc.stdout
    assert "RuntimeWarning" not in proc.stderr  # the package does not import the module first


def _nvcc():
    try:
        return ffi.cpp._build._compiler("nvcc")
    except ffi.cpp.BuildError:
        return None


@pytest.mark.skipif(_nvcc() is None, reason="nvcc is not installed")
@pytest.mark.parametrize("headers", ["ours", "reference"])
def test_fatbin_in_the_cubin_launcher_library(headers, tmp_path):
    """The cubin-launcher library (TVM_FFI_EMBED_CUBIN(add_one_fatbin)), compiled by the host
    compiler, gets an nvcc fatbin embedded by the utility: the library holds its bytes, and the
    kernel launches on a GPU; without one, looking it up is a clear error."""
    if headers == "reference" and reference_include_dir() is None:
        pytest.skip("the reference package is not installed")
    nvcc = _nvcc()
    fatbin = tmp_path / "add_one.fatbin"
    arch = "-gencode=arch=compute_80,code=[sm_80,compute_80]"
    kernel_src = os.path.join(CUBIN_DIR, "add_one_kernel.cu")
    subprocess.run([*nvcc, "-fatbin", arch, "-o", str(fatbin), kernel_src], check=True)
    cuda_lib = ffi.cpp._build._cuda_lib_dir(nvcc[0])
    cuda_include = os.path.join(os.path.dirname(cuda_lib), "include")
    flags = _cflags() if headers == "ours" else ["-isystem", reference_include_dir()]
    obj = tmp_path / "cubin_ops.o"
    src = open(os.path.join(CUBIN_DIR, "cubin_ops.cc")).read()
    _compile_object(src, obj, *flags, "-isystem", cuda_include)
    embed_cubin(fatbin, obj, obj, "add_one_fatbin")
    lib = _link([obj], tmp_path / "cubin_ops.so", f"-L{cuda_lib}", "-lcudart")
    mod = ffi.load_module(lib)
    assert mod.embedded_image() == fatbin.read_bytes()
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        with pytest.raises(Exception, match=r"(?i)cuda|device|driver"):
            mod.get_embedded_kernel("add_one")
        return
    x = torch.arange(1000, dtype=torch.float32, device="cuda")
    y = torch.empty_like(x)
    mod.add_one_embedded(x, y)
    torch.cuda.synchronize()
    assert torch.equal(y, x + 1)
