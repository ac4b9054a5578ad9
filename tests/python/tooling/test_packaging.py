"""The installed package's layout: runtime loading, file locations and `python -m ffi.config`."""

import ctypes
import os
import shutil
import subprocess
import sys

import pytest

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
