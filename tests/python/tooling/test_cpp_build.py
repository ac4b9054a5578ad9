"""ffi.cpp: inline and file builds, argument checks, errors, ninja and the direct fallback, CUDA.

The cache itself (content-named libraries, checksums, keys, concurrent builders) is tested in
test_cpp_build_cache.py.
"""

import os
import re
import subprocess

import pytest
import torch
from support.markers import needs_nvcc

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
    # The library is named by its key, in a directory named after `name`, checksum beside it.
    assert re.fullmatch(
        re.escape(str(cache_dir / "add_one")) + r"/add_one_[0-9a-f]{20}\.so", mod.path
    )
    assert os.path.exists(mod.path + ".sha256")


def test_compile_error_carries_diagnostics_and_keeps_the_source(cache_dir):
    with pytest.raises(ffi.cpp.BuildError) as info:
        ffi.cpp.build_inline(name="broken", cpp_sources="int f() { return undefined_name; }")
    message = str(info.value)
    assert "undefined_name" in message and "error" in message
    # The diagnostics name a source file that still exists, and nothing was installed.
    sources = list((cache_dir / "broken").glob("broken_*.cc"))
    assert len(sources) == 1 and str(sources[0]) in message
    assert not list((cache_dir / "broken").glob("*.so*"))


BAD_NAMES = [
    "",
    "a/b",
    "..",
    "../escape",
    "a\0b",
    "a b",
    "1abc",
    "a-b",
    "a.b",
    "caf\u00e9",
    "x" * 129,
]


@pytest.mark.parametrize("bad", BAD_NAMES)
def test_bad_names_are_refused_before_anything_is_written(bad, cache_dir, tmp_path):
    out = tmp_path / "out"
    src = tmp_path / "k.cc"
    src.write_text("int x;\n")
    with pytest.raises(ValueError, match="name must be a C identifier"):
        ffi.cpp.build_inline(name=bad, cpp_sources=ADD_ONE, functions=["add_one"])
    with pytest.raises(ValueError, match="name must be a C identifier"):
        ffi.cpp.load_inline(name=bad, cpp_sources=ADD_ONE, build_directory=out)
    with pytest.raises(ValueError, match="name must be a C identifier"):
        ffi.cpp.build(bad, cpp_files=[src], build_directory=out)
    assert not cache_dir.exists() and not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.cc"]


def test_other_bad_arguments_are_typed_errors(cache_dir):
    with pytest.raises(TypeError, match="name must be a str"):
        ffi.cpp.build_inline(name=b"bytes", cpp_sources=ADD_ONE)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="each function name must be a C identifier"):
        ffi.cpp.build_inline(name="ok", cpp_sources=ADD_ONE, functions=["add-one"])
    with pytest.raises(ValueError, match="needs cpp_sources or cuda_sources"):
        ffi.cpp.build_inline(name="ok")
    with pytest.raises(ValueError, match="build needs sources, cpp_files or cuda_files"):
        ffi.cpp.build("ok")
    for flag in ["-DX=1\n", "-DX\0"]:
        with pytest.raises(ValueError, match="extra_cflags must not contain NUL or line breaks"):
            ffi.cpp.build_inline(name="ok", cpp_sources=ADD_ONE, extra_cflags=[flag])
    with pytest.raises(TypeError, match="extra_ldflags must hold str"):
        ffi.cpp.build_inline(name="ok", cpp_sources=ADD_ONE, extra_ldflags=[3])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="cpp_sources must be a str"):
        ffi.cpp.build_inline(name="ok", cpp_sources=[b"int x;"])  # type: ignore[list-item]
    assert not cache_dir.exists()


def test_a_missing_compiler_named_by_cxx_is_an_error(monkeypatch, tmp_path):
    monkeypatch.setenv("CXX", str(tmp_path / "no-such-compiler"))
    with pytest.raises(ffi.cpp.BuildError, match=r"\$CXX is .*no-such-compiler"):
        ffi.cpp.build_inline(name="nocxx", cpp_sources=ADD_ONE)


def test_verbose_prints_commands(capfd):
    ffi.cpp.build_inline(name="loud", cpp_sources=ADD_ONE, functions=["add_one"], verbose=True)
    err = capfd.readouterr().err
    assert "-std=c++17" in err and "-shared" in err


def test_build_from_files(tmp_path, cache_dir):
    src = tmp_path / "kernel.cc"
    src.write_text(
        "#include <ffi/ffi.h>\n" + ADD_ONE + "FFI_DLL_EXPORT_TYPED_FUNC(add_one, add_one);\n"
    )
    lib = ffi.cpp.build("from_file", cpp_files=[src], build_directory=tmp_path / "out")
    assert re.fullmatch(re.escape(str(tmp_path / "out")) + r"/from_file_[0-9a-f]{20}\.so", lib)
    x = torch.zeros(2)
    y = torch.empty(2)
    ffi.load_module(lib).add_one(x, y)
    assert y.tolist() == [1.0, 1.0]
    # Where the reference puts its result, and where code written for it looks: <dir>/<name>.so,
    # the same library (kept so when the sources change).
    named = tmp_path / "out" / "from_file.so"
    assert named.read_bytes() == open(lib, "rb").read()
    src.write_text(src.read_text() + "int64_t unused_extra() { return 7; }\n")
    rebuilt = ffi.cpp.build("from_file", cpp_files=[src], build_directory=tmp_path / "out")
    assert rebuilt != lib and named.read_bytes() == open(rebuilt, "rb").read()
    # Without a build directory (the cache) there is no such copy.
    cached = ffi.cpp.build("from_file", cpp_files=[src])
    assert not os.path.exists(os.path.join(os.path.dirname(cached), "from_file.so"))


def test_reference_spellings_of_the_build_functions(tmp_path):
    """The reference's keywords: `sources` (C++ and CUDA told apart by suffix), `output`,
    ffi.cpp.load, `functions` as one name or with docs, TVM_FFI_* macros in inline sources,
    `keep_module_alive` and `backend`."""
    src = tmp_path / "kernel.cc"
    src.write_text(
        "#include <tvm/ffi/function.h>\n"
        'int64_t twice(int64_t x) { TVM_FFI_ICHECK(x >= 0) << "negative"; return 2 * x; }\n'
        "TVM_FFI_DLL_EXPORT_TYPED_FUNC(twice, twice);\n"
        'TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC(twice, "Doubles x.");\n'
    )
    out = tmp_path / "lib" / "twice.so"
    lib = ffi.cpp.build("twice", sources=[src], build_directory=tmp_path / "b", output=out)
    assert lib == str(out) and os.path.exists(out)
    mod = ffi.load_module(lib)
    assert mod.twice(4) == 8 and mod.get_function_doc("twice") == "Doubles x."
    loaded = ffi.cpp.load("twice", sources=str(src), build_directory=tmp_path / "b")
    assert loaded.twice(5) == 10
    # A bare file name goes into the directory of the build, as the reference places it.
    named = ffi.cpp.build("twice", sources=[src], build_directory=tmp_path / "b", output="t.so")
    assert named == str(tmp_path / "b" / "t.so") and ffi.load_module(named).twice(3) == 6

    # Inline: the TVM_FFI_* spelling, one function named by a str, docs from a mapping (quotes,
    # backslashes and newlines kept).
    body = 'int64_t inc(int64_t x) { TVM_FFI_ICHECK(x < 100) << "too big"; return x + 1; }'
    one = ffi.cpp.load_inline(
        "inc", cpp_sources=body, functions="inc", build_directory=tmp_path / "i", backend="cuda"
    )
    assert one.inc(1) == 2
    with pytest.raises(RuntimeError, match="too big"):  # TVM_FFI_ICHECK's InternalError
        one.inc(100)
    doc = 'Adds one.\n  Says "hi" \\ and\ttabs.'
    documented = ffi.cpp.load_inline(
        "inc_doc",
        cpp_sources=body,
        functions={"inc": doc},
        build_directory=tmp_path / "d",
        keep_module_alive=False,
    )
    assert documented.get_function_doc("inc") == doc
    with pytest.raises(TypeError, match="the doc of `inc` must be a str"):
        ffi.cpp.build_inline("bad_doc", cpp_sources=body, functions={"inc": 3})
    with pytest.raises(ValueError, match="no HIP build"):
        ffi.cpp.build_inline("hip", cpp_sources=body, functions="inc", backend="hip")


IMAGE_READER = r"""
extern "C" const char __tvm_ffi__cubin_first[];
extern "C" const char __tvm_ffi__cubin_first_end[];
extern "C" const char __tvm_ffi__cubin_second[];
extern "C" const char __tvm_ffi__cubin_second_end[];
int64_t image_size(int64_t which) {
  return which == 0 ? __tvm_ffi__cubin_first_end - __tvm_ffi__cubin_first
                    : __tvm_ffi__cubin_second_end - __tvm_ffi__cubin_second;
}
int64_t image_byte(int64_t which, int64_t i) {
  const char* image = which == 0 ? __tvm_ffi__cubin_first : __tvm_ffi__cubin_second;
  return static_cast<unsigned char>(image[i]);
}
bool aligned() { return reinterpret_cast<uintptr_t>(__tvm_ffi__cubin_second) % 64 == 0; }
"""


def test_embed_cubin_links_images_under_the_symbols_tvm_ffi_embed_cubin_reads(tmp_path):
    """embed_cubin={name: bytes}: the image lies between __tvm_ffi__cubin_<name> and
    __tvm_ffi__cubin_<name>_end (what TVM_FFI_EMBED_CUBIN(name) reads), 64-byte aligned; other
    bytes are another build."""
    fns = ["image_size", "image_byte", "aligned"]
    first, second = bytes(range(256)) * 3, b"\x00\x7fELF" + b"\xff" * 1000
    images = {"first": first, "second": bytearray(second)}
    mod = ffi.cpp.load_inline(
        "images", cpp_sources=IMAGE_READER, functions=fns, embed_cubin=images,
        build_directory=tmp_path,
    )  # fmt: skip
    assert (mod.image_size(0), mod.image_size(1)) == (len(first), len(second))
    assert [mod.image_byte(0, i) for i in (0, 255, 767)] == [0, 255, 255]
    assert mod.image_byte(1, 1) == 0x7F and mod.aligned()
    changed = ffi.cpp.build_inline(
        "images", cpp_sources=IMAGE_READER, functions=fns,
        embed_cubin={"first": first[:-1], "second": second}, build_directory=tmp_path,
    )  # fmt: skip
    assert changed != mod.path and ffi.load_module(changed).image_size(0) == len(first) - 1
    with pytest.raises(TypeError, match="must be bytes"):
        ffi.cpp.build_inline("bad", cpp_sources="", embed_cubin={"x": "text"})
    with pytest.raises(ValueError, match="each embed_cubin name must be a C identifier"):
        ffi.cpp.build_inline("bad", cpp_sources="", embed_cubin={"a-b": b""})


# A directory name that needs every kind of escaping a ninja file has ($, space, colon), and a
# flag holding `$` and a space, which the shell must not expand and ninja must not eat.
ODD_DIR = "we$ird dir:1"
GREETING_SRC = r"""
#include <ffi/ffi.h>
#include "value.h"
ffi::String greeting() { return ffi::String(GREETING); }
int64_t value() { return VALUE + EXTRA; }
FFI_DLL_EXPORT_TYPED_FUNC(greeting, greeting);
FFI_DLL_EXPORT_TYPED_FUNC(value, value);
"""


@pytest.mark.parametrize("ninja", ["1", "0"])
def test_escaping_and_relative_paths_with_and_without_ninja(ninja, tmp_path, monkeypatch, capfd):
    if ninja == "1" and _build._ninja() is None:
        pytest.skip("ninja is not installed")
    monkeypatch.setenv("FFI_CPP_NINJA", ninja)
    root = tmp_path / ODD_DIR
    (root / "src").mkdir(parents=True)
    (root / "inc").mkdir()
    (root / "inc2").mkdir()
    (root / "src" / "k.cc").write_text(GREETING_SRC)
    (root / "inc" / "value.h").write_text("#define VALUE 41\n")
    (root / "inc2" / "extra.h").write_text("#define EXTRA 1\n")
    monkeypatch.chdir(root)
    greeting = '-DGREETING="a$HOME b"'
    # Relative: the build directory, the source, an include directory and a path inside a flag.
    lib = ffi.cpp.build(
        "odd",
        cpp_files=["src/k.cc"],
        extra_include_paths=["inc"],
        extra_cflags=[greeting, "-include", "inc2/extra.h"],
        build_directory="out dir",
        verbose=True,
    )
    err = capfd.readouterr().err
    assert ("ninja" in err) == (ninja == "1")
    assert lib.startswith(str(root / "out dir") + "/")
    mod = ffi.load_module(lib)
    assert mod.greeting() == "a$HOME b"
    assert mod.value() == 42
    # Nothing but the build directory appeared in the working directory (no .ninja_log).
    assert sorted(os.listdir(root)) == ["inc", "inc2", "out dir", "src"]
    # A relative build directory is relative to the current directory, whichever that is.
    monkeypatch.chdir(root / "src")
    again = ffi.cpp.build(
        "odd",
        cpp_files=["k.cc"],
        extra_include_paths=["../inc"],
        extra_cflags=[greeting, "-include", "../inc2/extra.h"],
        build_directory="out dir",
    )
    assert again.startswith(str(root / "src" / "out dir") + "/")
    assert ffi.load_module(again).greeting() == "a$HOME b"


def test_ninja_and_the_direct_fallback_build_the_same_library(monkeypatch, tmp_path):
    if _build._ninja() is None:
        pytest.skip("ninja is not installed")
    paths = {}
    for ninja in ["1", "0"]:
        monkeypatch.setenv("FFI_CPP_NINJA", ninja)
        paths[ninja] = ffi.cpp.build_inline(
            "same", cpp_sources=ADD_ONE, functions=["add_one"], build_directory=tmp_path / ninja
        )
    # How the commands run is not part of the key: the same inputs give the same file name.
    assert os.path.basename(paths["1"]) == os.path.basename(paths["0"])
    with open(paths["1"], "rb") as a, open(paths["0"], "rb") as b:
        assert a.read() == b.read()


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


@needs_nvcc
def test_cuda_sources_compile_with_nvcc():
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


@needs_nvcc
def test_cuda_flags_are_part_of_the_key(tmp_path):
    kw = dict(cuda_sources=CUDA_SRC, functions=["device_count"], build_directory=tmp_path)
    plain = ffi.cpp.build_inline("cuda_key", **kw)
    flagged = ffi.cpp.build_inline("cuda_key", extra_cuda_cflags=["-DCUDA_FLAG=1"], **kw)
    assert plain != flagged
    assert ffi.cpp.build_inline("cuda_key", **kw) == plain


C_ADD = r"""
#include <tvm/ffi/c_api.h>
/* A safe-call function written in C: exported as `c_add` by its symbol name alone. */
TVM_FFI_DLL_EXPORT int __tvm_ffi_c_add(void* self, const TVMFFIAny* args, int32_t num_args,
                                       TVMFFIAny* result) {
  (void)self;
  (void)num_args;
  result->type_index = kTVMFFIInt;
  result->zero_padding = 0;
  result->v_int64 = args[0].v_int64 + args[1].v_int64;
  return 0;
}
"""


def test_c_sources_objects_and_object_outputs(tmp_path, monkeypatch):
    """As the reference: `.c` sources compile as C ($CC), `.o`/`.obj` sources link as they are,
    and an `output` ending `.o` builds a relocatable object (several objects joined by ld -r)
    that a later build links."""
    c_file = tmp_path / "add.c"
    c_file.write_text(C_ADD)
    obj = ffi.cpp.build("c_add", sources=[c_file], build_directory=tmp_path, output="c_add.o")
    assert obj == str(tmp_path / "c_add.o")
    assert "__tvm_ffi_c_add" in subprocess.check_output(["nm", obj], text=True)  # C: unmangled
    lib = ffi.cpp.build("c_add_lib", sources=[obj], build_directory=tmp_path)
    assert ffi.load_module(lib).c_add(10, 20) == 30

    # Inline C++ and a CUDA image into one object: the inline source and the image's assembly
    # are two objects joined into one.
    inline_obj = ffi.cpp.build_inline(
        "inc_obj",
        cpp_sources=IMAGE_READER + "int64_t inc(int64_t x) { return x + 1; }",
        functions=["inc", "image_size"],
        embed_cubin={"first": b"12345", "second": b"6"},
        build_directory=tmp_path,
        output=tmp_path / "out" / "inc.o",
    )
    assert inline_obj == str(tmp_path / "out" / "inc.o")
    both = ffi.load_module(
        ffi.cpp.build("both", sources=[inline_obj, obj], build_directory=tmp_path)
    )
    assert (both.inc(1), both.image_size(0), both.c_add(1, 2)) == (2, 5, 3)

    # $CC chooses the C compiler: a missing one is an error, not another compiler. (Set for this
    # check only: the rebuild below must use the compiler the first build used, the caller's $CC.)
    with monkeypatch.context() as env:
        env.setenv("CC", "no-such-cc")
        with pytest.raises(ffi.cpp.BuildError, match=r"\$CC is 'no-such-cc'"):
            ffi.cpp.build("c_add2", sources=[c_file], build_directory=tmp_path)
    with pytest.raises(TypeError, match="output must be a str"):
        ffi.cpp.build("c_add", sources=[c_file], output=3)
    # A changed object is a new build: the key holds its digest.
    again = ffi.cpp.build("c_add", sources=[c_file], build_directory=tmp_path, output="x.o")
    assert open(again, "rb").read() == open(obj, "rb").read()


def test_the_reference_module_name_and_its_cuda_lookup(monkeypatch, tmp_path):
    import ffi.cpp.extension as extension

    assert extension.load_inline is ffi.cpp.load_inline and extension.build is ffi.cpp.build
    monkeypatch.setenv("CUDA_HOME", str(tmp_path))
    assert extension._find_cuda_home() == str(tmp_path)
    monkeypatch.delenv("CUDA_HOME")
    monkeypatch.setenv("CUDA_PATH", "/opt/cuda-x")
    assert extension._find_cuda_home() == "/opt/cuda-x"
    monkeypatch.delenv("CUDA_PATH")
    fake = tmp_path / "toolkit" / "bin"
    fake.mkdir(parents=True)
    (fake / "nvcc").write_text("#!/bin/sh\n")
    (fake / "nvcc").chmod(0o755)
    monkeypatch.setenv("PATH", str(fake))
    assert extension._find_cuda_home() == str(tmp_path / "toolkit")
