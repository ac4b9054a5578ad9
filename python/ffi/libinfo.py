"""Locations of the files this package ships: headers, runtime library and CMake package.

Two layouts are understood:

* installed (wheel): ``ffi/include/ffi/*.h``, ``ffi/lib/libffi_runtime.so`` and
  ``ffi/lib/cmake/ffi/ffiConfig.cmake`` inside the package directory;
* source tree (development): ``<repo>/include`` for the headers and a CMake build directory
  ``<repo>/build`` for the library and the CMake package files.

The environment variable ``FFI_LIBRARY_PATH`` (the runtime library itself, or a directory holding
it) overrides where the runtime library is looked for. This module has no side effects on import.

The ``find_*``, ``include_paths`` and ``load_lib_*`` functions carry the reference package's names
(``tvm_ffi.libinfo``), so code written against it keeps working; ``find_libtvm_ffi`` finds this
package's runtime library, which implements the same C ABI.
"""

from __future__ import annotations

import ctypes
import os
import sys
from typing import TYPE_CHECKING, Callable, Union

# The runtime loader finds the runtime library before anything else of the package loads, so
# that part lives beside it; it is this module's too.
from ._runtime import (
    _PACKAGE_DIR,
    _SOURCE_ROOT,
    _first_existing,
    _is_source_tree,
    get_runtime_library_path,
)
from .module import Module, load_module

if TYPE_CHECKING:
    from pathlib import Path

_PathLike = Union[str, "os.PathLike[str]"]


def get_include_dir() -> str:
    """Return the directory to pass as ``-I`` (it contains ``ffi/c_api.h``)."""
    candidates = [os.path.join(_PACKAGE_DIR, "include")]
    if _is_source_tree():
        candidates.append(os.path.join(_SOURCE_ROOT, "include"))
    header = _first_existing(
        [os.path.join(d, "ffi", "c_api.h") for d in candidates], "the ffi headers (ffi/c_api.h)"
    )
    return os.path.dirname(os.path.dirname(header))


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


def get_source_dir() -> str:
    """Return the directory holding ``src/runtime/*.cc`` (the runtime's sources) and ``include``.

    That is the repository root in a source checkout, and the package directory of an installed
    wheel, which ships the runtime's sources.
    """
    candidates = [_PACKAGE_DIR]
    if _is_source_tree():
        candidates.append(_SOURCE_ROOT)
    marker = _first_existing(
        [os.path.join(d, "src", "runtime", "object.cc") for d in candidates],
        "the runtime's sources (src/runtime)",
    )
    return os.path.dirname(os.path.dirname(os.path.dirname(marker)))


# ---- The reference's names ----------------------------------------------------------------------


def find_include_path() -> str:
    """The reference's name for :func:`get_include_dir`."""
    return get_include_dir()


def find_dlpack_include_path() -> str:
    """Return the directory to pass as ``-I`` for ``<dlpack/dlpack.h>``."""
    include = get_include_dir()
    return os.path.dirname(
        os.path.dirname(
            _first_existing(
                [os.path.join(include, "dlpack", "dlpack.h")], "the DLPack header (dlpack.h)"
            )
        )
    )


def include_paths() -> list[str]:
    """Return every include directory a kernel library needs, sorted, without duplicates."""
    return sorted({find_include_path(), find_dlpack_include_path()})


def find_libffi_runtime() -> str:
    """Return the full path of the runtime library (as :func:`get_runtime_library_path`)."""
    return get_runtime_library_path()


def find_libtvm_ffi() -> str:
    """The reference's name for :func:`find_libffi_runtime`: the library implementing the C ABI."""
    return get_runtime_library_path()


def find_cmake_path() -> str:
    """The reference's name for :func:`get_cmake_dir`."""
    return get_cmake_dir()


def find_source_path() -> str:
    """The reference's name for :func:`get_source_dir`."""
    return get_source_dir()


def find_cython_lib() -> str:
    """Return the full path of this package's compiled Python extension (``ffi/_core*.so``).

    The reference's name: its extension is built with Cython, ours with nanobind.
    """
    import importlib.util

    spec = importlib.util.find_spec("ffi._core")
    origin = spec.origin if spec is not None else None
    if origin is None or not os.path.isfile(origin):
        raise RuntimeError("ffi: cannot find the compiled extension ffi._core")
    return os.path.abspath(origin)


def find_windows_implib() -> str:
    """Return the import library (``ffi_runtime.lib``) to link against on Windows.

    Only Windows has import libraries: elsewhere this is a ``RuntimeError``, as a missing file is.
    """
    if not sys.platform.startswith("win"):
        raise RuntimeError("ffi: import libraries (.lib) exist only on Windows")
    lib = os.path.splitext(get_runtime_library_path())[0] + ".lib"
    return _first_existing([lib], "the import library ffi_runtime.lib")


def _library_file_names(target_name: str) -> tuple[str, ...]:
    if sys.platform.startswith("win"):
        return (f"{target_name}.dll",)
    if sys.platform == "darwin":
        return (f"lib{target_name}.dylib", f"lib{target_name}.so")
    return (f"lib{target_name}.so",)


def find_library(
    package: str, target_name: str, extra_lib_paths: list[_PathLike] | None = None
) -> str:
    """Return the full path of the shared library built from the CMake target `target_name`.

    `package` is the distribution that installed it (as pip names it, e.g. ``"my-kernels"``):
    its installed files are searched first. Then the directories in `extra_lib_paths`, then
    those on ``LD_LIBRARY_PATH`` (``DYLD_LIBRARY_PATH`` on macOS) and ``PATH``. A missing library
    is a ``RuntimeError`` listing every directory searched.
    """
    return _find_library(package, target_name, extra_lib_paths, use_env_path=True)


def _find_library_by_basename(
    package: str,
    target_name: str,
    extra_lib_paths: list[Path] | None = None,
    *,
    use_fallback_build_path: bool = True,
    use_env_path: bool = True,
) -> Path:
    """:func:`find_library` under the reference's private name (TVM finds its runtime with it),
    returning a resolved ``pathlib.Path``. `use_env_path=False` leaves out the environment's
    directories; `use_fallback_build_path` is accepted (this package has no build-tree fallback
    for other libraries)."""
    from pathlib import Path  # not at import: nothing else in ffi's import needs pathlib

    del use_fallback_build_path
    for i, path in enumerate(extra_lib_paths or ()):
        if not isinstance(path, Path):
            raise TypeError(
                f"extra_lib_paths[{i}] must be a pathlib.Path, not {type(path).__name__}"
            )
    return Path(_find_library(package, target_name, extra_lib_paths, use_env_path)).resolve()


def _resolve_and_validate(paths: list[Path], cond: Callable[[Path], bool | Path]) -> str | None:
    """The first of `paths`, resolved, that `cond` accepts (True), or the path `cond` returns
    instead, as a string; None when none is. A path whose resolution or check raises OSError or
    AssertionError is skipped (the reference's private helper, which TVM calls)."""
    from pathlib import Path

    for path in paths:
        try:
            resolved = path.resolve()
            verdict = cond(resolved)
        except (OSError, AssertionError):
            continue
        if isinstance(verdict, Path):
            return str(verdict)
        if verdict is True:
            return str(resolved)
    return None


def _find_library(
    package: str,
    target_name: str,
    extra_lib_paths: list[_PathLike] | list[Path] | None,
    use_env_path: bool,
) -> str:
    import importlib.metadata

    if not isinstance(package, str) or not isinstance(target_name, str):
        raise TypeError("find_library: package and target_name must be str")
    dirs: list[str] = []
    for i, entry in enumerate(extra_lib_paths or []):
        if not isinstance(entry, (str, os.PathLike)):
            raise TypeError(
                f"extra_lib_paths[{i}] must be a path (str or os.PathLike), "
                f"got {type(entry).__name__}"
            )
        dirs.append(os.fspath(entry))
    names = _library_file_names(target_name)
    try:
        dist = importlib.metadata.distribution(package)
    except importlib.metadata.PackageNotFoundError:
        dist = None
    if dist is not None:
        for file in dist.files or []:
            if file.name in names:
                path = os.path.abspath(str(dist.locate_file(file)))
                if os.path.isfile(path):
                    return path
    if sys.platform.startswith("win"):
        env_vars: tuple[str, ...] = ("PATH",)
    elif sys.platform == "darwin":
        env_vars = ("DYLD_LIBRARY_PATH", "PATH")
    else:
        env_vars = ("LD_LIBRARY_PATH", "PATH")
    for var in env_vars if use_env_path else ():
        dirs.extend(d for d in os.environ.get(var, "").split(os.pathsep) if d)
    for d in dirs:
        for name in names:
            path = os.path.join(d, name)
            if os.path.isfile(path):
                return os.path.abspath(path)
    where = f"the files of distribution {package!r}" if dist else f"no distribution {package!r}"
    searched = "\n  ".join([where, *dirs])
    raise RuntimeError(f"Cannot find library {', '.join(names)}; searched:\n  {searched}")


def load_lib_ctypes(
    package: str, target_name: str, mode: str, extra_lib_paths: list[_PathLike] | None = None
) -> ctypes.CDLL:
    """Find a library as :func:`find_library` does and load it with ctypes.

    `mode` is ``"RTLD_LOCAL"`` or ``"RTLD_GLOBAL"``; anything else is a ``ValueError``.
    """
    if mode not in ("RTLD_LOCAL", "RTLD_GLOBAL"):
        raise ValueError(f"mode must be 'RTLD_LOCAL' or 'RTLD_GLOBAL', got {mode!r}")
    return ctypes.CDLL(find_library(package, target_name, extra_lib_paths), getattr(ctypes, mode))


def load_lib_module(
    package: str,
    target_name: str,
    keep_module_alive: bool = True,
    extra_lib_paths: list[_PathLike] | None = None,
) -> Module:
    """Find a kernel library as :func:`find_library` does and load it with ``ffi.load_module``.

    `keep_module_alive` is accepted for the reference's sake: a loaded library always stays
    loaded here.
    """
    return load_module(find_library(package, target_name, extra_lib_paths))
