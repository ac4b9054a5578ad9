"""The installed package's layout: runtime loading, file locations and `python -m ffi.config`."""

import ctypes
import os
import shutil
import subprocess
import sys

import pytest
from support.paths import ROOT

import ffi
from ffi import libinfo


def _config(*flags):
    return subprocess.run(
        [sys.executable, "-m", "ffi.config", *flags], capture_output=True, text=True
    )


def test_version():
    assert ffi.__version__.count(".") == 2
    # The tuple form compares as versions do, as the reference's __version_tuple__.
    assert ffi.__version_tuple__ == tuple(int(p) for p in ffi.__version__.split("."))
    assert ffi.__version_tuple__ >= (0, 1, 0)


def test_runtime_loaded_globally():
    # Symbols of the runtime must be visible to libraries loaded later (RTLD_GLOBAL).
    assert os.path.samefile(ffi._LIB._name, libinfo.get_runtime_library_path())
    assert hasattr(ctypes.CDLL(None), "TVMFFIGetVersion")


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or shutil.which("nm") is None, reason="ELF and nm only"
)
def test_import_is_cheap():
    code = "import sys, ffi; print(sorted({'torch', 'numpy', 'subprocess'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_libinfo_paths():
    assert os.path.isfile(os.path.join(libinfo.get_include_dir(), "ffi", "c_api.h"))
    assert os.path.isfile(libinfo.get_runtime_library_path())
    assert os.path.dirname(libinfo.get_runtime_library_path()) == libinfo.get_lib_dir()
    assert os.path.isfile(os.path.join(libinfo.get_cmake_dir(), "ffiConfig.cmake"))


def test_config_flags_in_order():
    out = _config("--libs", "--cflags", "--ldflags", "--includedir", "--libdir", "--cmakedir")
    assert out.returncode == 0, out.stderr
    libdir = libinfo.get_lib_dir()
    assert out.stdout.splitlines() == [
        "-lffi_runtime",
        f"-I{libinfo.get_include_dir()}",
        f"-L{libdir} -Wl,-rpath,{libdir}",
        libinfo.get_include_dir(),
        libdir,
        libinfo.get_cmake_dir(),
    ]


def test_config_without_flags_is_usage_error():
    out = _config()
    assert out.returncode == 2
    assert "usage" in out.stderr


CIBUILDWHEEL = shutil.which("cibuildwheel")
PYPROJECT = os.path.join(ROOT, "pyproject.toml")


@pytest.mark.skipif(
    CIBUILDWHEEL is None or not os.path.isfile(PYPROJECT),
    reason="needs cibuildwheel and the source tree",
)
@pytest.mark.parametrize("platform", ["linux", "macos", "windows"])
def test_cibuildwheel_builds_every_supported_python(platform):
    # What [tool.cibuildwheel] selects, as far as a machine without Docker can run it.
    out = subprocess.run(
        [CIBUILDWHEEL, "--print-build-identifiers", "--platform", platform, ROOT],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    identifiers = out.stdout.split()
    pythons = {i.split("-")[0] for i in identifiers}
    assert pythons == {"cp39", "cp310", "cp311", "cp312", "cp313", "cp314", "cp314t"}
    assert not [i for i in identifiers if "musllinux" in i or "i686" in i or "win32" in i]
    archs = {"linux": ("x86_64", "aarch64"), "macos": ("x86_64", "arm64"), "windows": ("amd64",)}
    for arch in archs[platform]:
        assert sum(i.endswith(arch) for i in identifiers) == len(pythons), arch
