"""`python -m ffi.config` / `ffi-config` with the reference's flags, `ffi.libinfo` under the
reference's names, and the CMake helpers ffi_add_kernel_library / ffi_configure_target: each is
used for a real build whose result is loaded and called."""

import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import textwrap

import pytest
from support.paths import TESTS_DIR

import ffi
from ffi import libinfo

KERNEL = textwrap.dedent(
    """
    #include <ffi/ffi.h>
    #include <dlpack/dlpack.h>

    // Not exported: hidden by the helpers' visibility settings.
    int64_t kernel_internal_helper(int64_t a, int64_t b) { return a + b; }

    int64_t AddInt(int64_t a, int64_t b) { return kernel_internal_helper(a, b); }
    ffi::String SourceFile() { return __FILE__; }

    FFI_DLL_EXPORT_TYPED_FUNC(add_int, AddInt);
    FFI_DLL_EXPORT_TYPED_FUNC(source_file, SourceFile);
    """
)


def _config(*flags, cmd=(sys.executable, "-m", "ffi.config")):
    out = subprocess.run([*cmd, *flags], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout


def _run(cmd, **kwargs):
    out = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    assert out.returncode == 0, f"{cmd}\n{out.stdout}\n{out.stderr}"
    return out


def test_reference_flags():
    lines = _config(
        "--includedir",
        "--dlpack-includedir",
        "--libfiles",
        "--libdir",
        "--sourcedir",
        "--cmakedir",
        "--cxxflags",
        "--cflags",
    ).splitlines()
    include, dlpack, libfile, libdir, source, cmake, cxxflags, cflags = lines
    assert os.path.isfile(os.path.join(include, "ffi", "c_api.h"))
    assert os.path.isfile(os.path.join(dlpack, "dlpack", "dlpack.h"))
    assert libfile == libinfo.get_runtime_library_path() and os.path.dirname(libfile) == libdir
    with open(libfile, "rb") as f:
        assert f.read(4) == b"\x7fELF"
    assert os.path.isfile(os.path.join(cmake, "ffiConfig.cmake"))
    assert os.path.isfile(os.path.join(cmake, "ffiKernelLibrary.cmake"))
    # The sources of every runtime file, beside headers that compile them.
    runtime_sources = os.listdir(os.path.join(source, "src", "runtime"))
    assert {"object.cc", "function.cc", "module.cc", "tensor.cc"} <= set(runtime_sources)
    assert shlex.split(cxxflags) == [*shlex.split(cflags), "-std=c++17"]
    assert f"-I{include}" in shlex.split(cflags) and f"-I{dlpack}" in shlex.split(cflags)


def test_console_script_matches_module():
    script = shutil.which("ffi-config", path=sysconfig.get_path("scripts"))
    if script is None:
        pytest.skip("ffi-config is not installed beside this interpreter")
    flags = ("--cxxflags", "--libfiles", "--sourcedir", "--ldflags", "--libs")
    assert _config(*flags, cmd=(script,)) == _config(*flags)


def test_unknown_flag_is_usage_error():
    out = subprocess.run(
        [sys.executable, "-m", "ffi.config", "--no-such-flag"], capture_output=True, text=True
    )
    assert out.returncode == 2 and "unrecognized arguments: --no-such-flag" in out.stderr


def test_program_built_with_printed_flags(tmp_path):
    """A kernel compiled with --cxxflags and a host linked against --libfiles, run together."""
    kernel = tmp_path / "kern.so"
    (tmp_path / "kern.cc").write_text(KERNEL)
    cxxflags = shlex.split(_config("--cxxflags"))
    _run(["c++", "-shared", "-fPIC", *cxxflags, str(tmp_path / "kern.cc"), "-o", str(kernel)])
    host = tmp_path / "host"
    libfile, libdir = _config("--libfiles", "--libdir").splitlines()
    src = os.path.join(TESTS_DIR, "hosts", "cpp_host.cc")
    _run(["c++", *cxxflags, src, libfile, f"-Wl,-rpath,{libdir}", "-o", str(host)])
    assert _run([str(host), str(kernel), "add_int", "40", "2"]).stdout == "42\n"
    assert ffi.load_module(kernel).add_int(1, 2) == 3


def test_libinfo_reference_names():
    assert libinfo.find_include_path() == libinfo.get_include_dir()
    assert libinfo.find_libtvm_ffi() == libinfo.find_libffi_runtime()
    assert libinfo.find_libffi_runtime() == libinfo.get_runtime_library_path()
    assert libinfo.find_cmake_path() == libinfo.get_cmake_dir()
    assert libinfo.find_source_path() == libinfo.get_source_dir()
    assert libinfo.include_paths() == sorted(
        {libinfo.find_include_path(), libinfo.find_dlpack_include_path()}
    )
    # The compiled extension, the file the `ffi._core` module was loaded from.
    assert libinfo.find_cython_lib() == os.path.abspath(ffi._core.__file__)
    assert _config("--cython-lib-path").strip() == libinfo.find_cython_lib()
    if not sys.platform.startswith("win"):
        with pytest.raises(RuntimeError, match="only on Windows"):
            libinfo.find_windows_implib()


@pytest.fixture(scope="module")
def packaged_kernel(tmp_path_factory):
    """A real installed distribution `mykern-pkg` (a dist-info with RECORD) shipping a kernel."""
    site = tmp_path_factory.mktemp("site")
    pkg = site / "mykern_pkg"
    pkg.mkdir()
    (pkg / "kern.cc").write_text(KERNEL)
    cxxflags = shlex.split(_config("--cxxflags"))
    lib = pkg / "libmykern.so"
    _run(["c++", "-shared", "-fPIC", *cxxflags, str(pkg / "kern.cc"), "-o", str(lib)])
    info = site / "mykern_pkg-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mykern-pkg\nVersion: 1.0\n")
    (info / "RECORD").write_text(
        "mykern_pkg/libmykern.so,,\nmykern_pkg-1.0.dist-info/METADATA,,\n"
        "mykern_pkg-1.0.dist-info/RECORD,,\n"
    )
    return site, lib


def _python(code, site):
    # `site` first; the caller's path after it, where ffi may be (an install with --target).
    path = os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH", "")) if p)
    env = dict(os.environ, PYTHONPATH=path, LD_LIBRARY_PATH="", PATH=os.environ["PATH"])
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)


def test_load_lib_module_finds_a_distributions_library(packaged_kernel):
    site, lib = packaged_kernel
    code = textwrap.dedent(
        """
        import ctypes, ffi
        mod = ffi.libinfo.load_lib_module("mykern-pkg", "mykern")
        print(mod.add_int(40, 2), mod.path)
        print(ffi.libinfo.find_library("mykern-pkg", "mykern"))
        lib = ffi.libinfo.load_lib_ctypes("mykern-pkg", "mykern", "RTLD_LOCAL")
        print(isinstance(lib, ctypes.CDLL))
        """
    )
    out = _python(code, site)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["42", str(lib), str(lib), "True"]


def test_find_library_extra_paths_and_errors(packaged_kernel, tmp_path):
    _, lib = packaged_kernel
    assert libinfo.find_library("no-such-dist", "mykern", [lib.parent]) == str(lib)
    with pytest.raises(RuntimeError, match="Cannot find library libmykern.so") as err:
        libinfo.find_library("no-such-dist", "mykern", [str(tmp_path)])
    assert str(tmp_path) in str(err.value)
    with pytest.raises(TypeError, match=r"extra_lib_paths\[0\] must be a path"):
        libinfo.find_library("no-such-dist", "mykern", [42])
    with pytest.raises(ValueError, match="mode must be"):
        libinfo.load_lib_ctypes("no-such-dist", "mykern", "RTLD_NOW", [lib.parent])


CMAKELISTS = textwrap.dedent(
    """
    cmake_minimum_required(VERSION 3.18)
    project(kernels LANGUAGES CXX)
    find_package(ffi CONFIG REQUIRED)
    ffi_add_kernel_library(my_kernels SOURCES kern.cc OUTPUT_NAME my_kernels OUTPUT_DIRECTORY out)
    add_executable(host "{host}")
    ffi_configure_target(host LINK_RUNTIME ON)
    """
)


def _cmake(tmp_path, cmakelists, package="ffi"):
    if shutil.which("cmake") is None or shutil.which("ninja") is None:
        pytest.skip("cmake and ninja are needed")
    src, build = tmp_path / "src", tmp_path / "build"
    src.mkdir()
    (src / "kern.cc").write_text(KERNEL)
    (src / "CMakeLists.txt").write_text(cmakelists)
    cmakedir = _config("--cmakedir").strip()
    cmd = ["cmake", "-S", str(src), "-B", str(build), "-G", "Ninja", f"-D{package}_DIR={cmakedir}"]
    return subprocess.run(cmd, capture_output=True, text=True), build


def test_cmake_kernel_library_in_one_call(tmp_path):
    host_src = os.path.join(TESTS_DIR, "hosts", "cpp_host.cc")
    configure, build = _cmake(tmp_path, CMAKELISTS.format(host=host_src))
    assert configure.returncode == 0, configure.stdout + configure.stderr
    _run(["cmake", "--build", str(build), "-j2"])
    lib = build / "out" / "my_kernels.so"
    mod = ffi.load_module(lib)
    assert mod.add_int(40, 2) == 42
    # -ffile-prefix-map: paths are relative to the project's source directory.
    assert mod.source_file() == "kern.cc"
    # Only the exports are visible; internal functions are hidden.
    symbols = _run(["nm", "-D", "--defined-only", str(lib)]).stdout
    assert "__tvm_ffi_add_int" in symbols and "kernel_internal_helper" not in symbols
    # The executable configured with LINK_RUNTIME runs against the runtime without more flags.
    out = _run([str(build / "host"), str(lib), "add_int", "1", "2"])
    assert out.stdout == "3\n"


def test_cmake_reference_package_name(tmp_path):
    # CMake written for the reference: find_package(tvm_ffi), its targets and functions.
    cmakelists = textwrap.dedent(
        """
        cmake_minimum_required(VERSION 3.18)
        project(kernels LANGUAGES CXX)
        find_package(tvm_ffi CONFIG REQUIRED)
        add_library(ref_style SHARED kern.cc)
        tvm_ffi_configure_target(ref_style LINK_SHARED OFF DEBUG_SYMBOL ON MSVC_FLAGS ON)
        tvm_ffi_install(ref_style)
        add_library(linked SHARED kern.cc)
        target_link_libraries(linked PRIVATE tvm_ffi::header tvm_ffi::shared)
        """
    )
    configure, build = _cmake(tmp_path, cmakelists, package="tvm_ffi")
    assert configure.returncode == 0, configure.stdout + configure.stderr
    _run(["cmake", "--build", str(build), "-j2"])
    assert ffi.load_module(build / "libref_style.so").add_int(40, 2) == 42
    needed = _run(["readelf", "-d", str(build / "liblinked.so")]).stdout
    assert "[libtvm_ffi.so]" in needed  # tvm_ffi::shared links the runtime, by its SONAME
    assert "[libtvm_ffi.so]" not in _run(["readelf", "-d", str(build / "libref_style.so")]).stdout
    assert ffi.load_module(build / "liblinked.so").add_int(1, 2) == 3


def test_cmake_kernel_library_without_sources_fails_clearly(tmp_path):
    configure, _ = _cmake(
        tmp_path,
        "cmake_minimum_required(VERSION 3.18)\nproject(k LANGUAGES CXX)\n"
        "find_package(ffi CONFIG REQUIRED)\nffi_add_kernel_library(empty)\n"
        "ffi_configure_target(nope)\n",
    )
    assert configure.returncode != 0
    assert "ffi_add_kernel_library(empty): no SOURCES given" in configure.stderr


def test_reference_private_library_helpers(tmp_path, monkeypatch):
    # TVM finds its runtime library with these two names of the reference's libinfo.
    from pathlib import Path

    (tmp_path / "libfoo.so").write_bytes(b"")
    found = ffi.libinfo._find_library_by_basename("no-such-dist", "foo", extra_lib_paths=[tmp_path])
    assert isinstance(found, Path) and found == (tmp_path / "libfoo.so").resolve()
    monkeypatch.setenv("LD_LIBRARY_PATH", str(tmp_path))
    assert ffi.libinfo._find_library_by_basename("no-such-dist", "foo") == found
    with pytest.raises(RuntimeError, match="libfoo.so"):
        ffi.libinfo._find_library_by_basename("no-such-dist", "foo", use_env_path=False)
    with pytest.raises(TypeError, match=r"extra_lib_paths\[1\] must be a pathlib\.Path, not str"):
        ffi.libinfo._find_library_by_basename("x", "foo", extra_lib_paths=[tmp_path, str(tmp_path)])
    check = ffi.libinfo._resolve_and_validate
    assert check([tmp_path / "missing.so", found], cond=lambda p: p.is_file()) == str(found)
    assert check([found], cond=lambda p: tmp_path) == str(tmp_path)
    assert check([tmp_path / "missing.so"], cond=lambda p: p.is_file()) is None

    def refuses(p):
        raise AssertionError("not this one")

    assert check([found], cond=refuses) is None
