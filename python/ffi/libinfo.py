"""Locations of the files this package ships: headers, runtime library and CMake package.

Two layouts are understood:

* installed (wheel): ``ffi/include/ffi/*.h``, ``ffi/lib/libffi_runtime.so`` and
  ``ffi/lib/cmake/ffi/ffiConfig.cmake`` inside the package directory;
* source tree (development): ``<repo>/include`` for the headers and a CMake build directory
  ``<repo>/build`` for the library and the CMake package files.

The environment variable ``FFI_LIBRARY_PATH`` (the runtime library itself, or a directory holding
it) overrides where the runtime library is looked for. This module has no side effects on import.
"""

from __future__ import annotations

import os
import sys

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_SOURCE_ROOT = os.path.dirname(os.path.dirname(_PACKAGE_DIR))


def _runtime_library_name() -> str:
    if sys.platform.startswith("win"):
        return "ffi_runtime.dll"
    if sys.platform == "darwin":
        return "libffi_runtime.dylib"
    return "libffi_runtime.so"


def _is_source_tree() -> bool:
    return os.path.isfile(os.path.join(_SOURCE_ROOT, "CMakeLists.txt")) and os.path.isfile(
        os.path.join(_SOURCE_ROOT, "include", "ffi", "c_api.h")
    )


def _first_existing(candidates: list[str], what: str, hint: str = "") -> str:
    for path in candidates:
        if os.path.exists(path):
            return path
    searched = "\n  ".join(candidates) or "(nowhere)"
    msg = f"ffi: cannot find {what}; searched:\n  {searched}"
    if hint:
        msg += f"\n{hint}"
    raise RuntimeError(msg)


def get_include_dir() -> str:
    """Return the directory to pass as ``-I`` (it contains ``ffi/c_api.h``)."""
    candidates = [os.path.join(_PACKAGE_DIR, "include")]
    if _is_source_tree():
        candidates.append(os.path.join(_SOURCE_ROOT, "include"))
    header = _first_existing(
        [os.path.join(d, "ffi", "c_api.h") for d in candidates], "the ffi headers (ffi/c_api.h)"
    )
    return os.path.dirname(os.path.dirname(header))


def get_runtime_library_path() -> str:
    """Return the full path of the runtime shared library (``libffi_runtime.so``)."""
    name = _runtime_library_name()
    override = os.environ.get("FFI_LIBRARY_PATH")
    if override:
        path = os.path.join(override, name) if os.path.isdir(override) else override
        return _first_existing(
            [os.path.abspath(path)], "the runtime library", "(set by FFI_LIBRARY_PATH)"
        )
    candidates = [os.path.join(_PACKAGE_DIR, "lib", name)]
    if _is_source_tree():
        candidates.append(os.path.join(_SOURCE_ROOT, "build", name))
    return _first_existing(
        candidates,
        f"the runtime library {name}",
        "Install the package (pip install .) or set FFI_LIBRARY_PATH to a built library.",
    )


def get_lib_dir() -> str:
    """Return the directory holding the runtime library (to pass as ``-L`` and rpath)."""
    return os.path.dirname(get_runtime_library_path())


def get_cmake_dir() -> str:
    """Return the directory holding ``ffiConfig.cmake`` (to pass as ``-Dffi_DIR=``)."""
    candidates = [os.path.join(_PACKAGE_DIR, "lib", "cmake", "ffi")]
    try:
        candidates.append(get_lib_dir())  # a CMake build directory also holds the package files
    except RuntimeError:
        pass
    config = _first_existing(
        [os.path.join(d, "ffiConfig.cmake") for d in candidates],
        "the CMake package (ffiConfig.cmake)",
    )
    return os.path.dirname(config)
