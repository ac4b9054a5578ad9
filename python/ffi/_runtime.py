"""Which runtime library serves the process, and how the reference package is made to share it.

One process has one TVM-FFI runtime (docs/coexistence.md). Every runtime carries the SONAME
``libtvm_ffi.so`` (ours does too, under its own file name), and every library linked against one
records that name, so the dynamic loader hands each of them whichever runtime was loaded first:

* a runtime already in the process (the reference package imported first, or a host that loaded
  one) is used as it is, and ours is never loaded;
* otherwise ours is loaded with ``RTLD_GLOBAL``, and a later ``import tvm_ffi`` is steered onto
  it: the reference's loader asks for its own library by path, which would map a second copy
  beside ours, so :class:`_ShareRuntime` makes that loader return the runtime already loaded.

Some reference releases expect what the runtime has to adapt to (before 0.1.14, ``ffi.Enum``'s
fields under their old names ``_value`` and ``_name``): when the package is steered onto ours, the
runtime is shown the package's directory (``ffi.EnumAdaptToReferencePackage``, which reads its
release) before the package defines its classes.
"""

from __future__ import annotations

import ctypes
import importlib.machinery
import os
import sys
from typing import Any, Callable

#: The SONAME every TVM-FFI runtime library carries (ours included).
RUNTIME_SONAME = "libtvm_ffi.so"
#: The ABI this package is built for: (major, minor) of the C ABI's version (c_api.h). Runtimes
#: whose major and minor agree are interchangeable. Written here, unlike the ABI's other numbers
#: (``ffi._abi``): a runtime is checked before the extension, which links it, can be loaded;
#: tests/python/tooling/test_import_layers.py checks that it is the extension's.
ABI_VERSION = (0, 1)


# ---- where this package's runtime library is (ffi.libinfo shows these under its names) ---------
# Here rather than in ffi.libinfo: the loader needs them before the runtime, and with it anything
# of the package that touches the extension, is loaded.

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


# ---- which runtime serves the process ----------------------------------------------------------


class _Version(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32), ("patch", ctypes.c_uint32)]


class _DlInfo(ctypes.Structure):
    _fields_ = [
        ("dli_fname", ctypes.c_char_p),
        ("dli_fbase", ctypes.c_void_p),
        ("dli_sname", ctypes.c_char_p),
        ("dli_saddr", ctypes.c_void_p),
    ]


def _already_loaded() -> ctypes.CDLL | None:
    """The runtime already in the process (found by its SONAME, loading nothing), or None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(RUNTIME_SONAME, mode=ctypes.RTLD_GLOBAL | os.RTLD_NOLOAD)
    except OSError:
        return None


def _version_of(lib: ctypes.CDLL) -> tuple[int, int, int]:
    version = _Version()
    lib.TVMFFIGetVersion(ctypes.byref(version))
    return (version.major, version.minor, version.patch)


def _path_of(lib: ctypes.CDLL) -> str:
    """The file the runtime's entry points live in (what the loader really mapped)."""
    if sys.platform.startswith("win"):
        return str(lib._name)
    info = _DlInfo()
    dladdr = ctypes.CDLL(None).dladdr
    dladdr.argtypes = [ctypes.c_void_p, ctypes.POINTER(_DlInfo)]
    address = ctypes.cast(lib.TVMFFIGetVersion, ctypes.c_void_p).value
    if not dladdr(address, ctypes.byref(info)) or not info.dli_fname:
        return str(lib._name)
    return os.path.realpath(info.dli_fname.decode())


def load() -> ctypes.CDLL:
    """The runtime serving this process: the one already loaded, else ours (``RTLD_GLOBAL``).

    A runtime whose ABI (major, minor) differs from :data:`ABI_VERSION` is refused with an
    ``ImportError`` here rather than failing later.
    """
    lib = _already_loaded()
    if lib is None:
        try:
            path = get_runtime_library_path()
        except RuntimeError as err:
            raise ImportError(str(err)) from None
        try:
            lib = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
        except OSError as err:
            raise ImportError(f"ffi: failed to load the runtime library {path}: {err}") from err
    version = _version_of(lib)
    if version[:2] != ABI_VERSION:
        raise ImportError(
            f"ffi: the TVM-FFI runtime already loaded in this process ({_path_of(lib)}) has ABI "
            f"version {'.'.join(map(str, version))}; this package needs "
            f"{'.'.join(map(str, ABI_VERSION))}.x. Import ffi in a process without it, or use a "
            "matching tvm_ffi."
        )
    return lib


def share_with_reference_package(lib: ctypes.CDLL, adapt: Callable[[str], Any]) -> None:
    """Makes a later ``import tvm_ffi`` use the runtime `lib` (see the module docstring); `adapt`
    is called with the reference package's directory before the package loads its runtime."""
    sys.meta_path.insert(0, _ShareRuntime(lib, adapt))


def info(lib: ctypes.CDLL) -> dict[str, Any]:
    """What :func:`ffi.runtime_info` reports about the runtime `lib`."""
    path = _path_of(lib)
    try:
        ours = os.path.samefile(path, get_runtime_library_path())
    except (OSError, RuntimeError):
        ours = False
    return {
        "path": path,
        "implementation": "ffi" if ours else "reference",
        "abi_version": ".".join(map(str, _version_of(lib))),
    }


class _ShareRuntime:
    """Import hook: the reference package's ``tvm_ffi.libinfo`` loads the runtime already in the
    process instead of mapping a second copy of its own file. (A meta path finder by protocol, not
    by deriving from ``importlib.abc``, whose import costs ``import ffi`` several milliseconds.)"""

    def __init__(self, lib: ctypes.CDLL, adapt: Callable[[str], Any]) -> None:
        self._lib = lib
        self._adapt = adapt

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name != "tvm_ffi.libinfo":
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        if spec is None or spec.loader is None:
            return None
        spec.loader = _SharedRuntimeLoader(spec.loader, self._lib, self._adapt)
        return spec


class _SharedRuntimeLoader:
    """Runs the reference's ``libinfo`` unchanged, then makes its runtime loader return ours."""

    def __init__(self, loader: Any, lib: ctypes.CDLL, adapt: Callable[[str], Any]) -> None:
        self._loader = loader
        self._lib = lib
        self._adapt = adapt

    def create_module(self, spec: Any) -> Any:
        return self._loader.create_module(spec)

    def exec_module(self, module: Any) -> None:
        if module.__spec__.origin:  # None: not loaded from a file, no _version.py to read
            self._adapt(os.path.dirname(module.__spec__.origin))
        self._loader.exec_module(module)
        original = module.load_lib_ctypes
        lib = self._lib

        def load_lib_ctypes(package: str, target_name: str, mode: str, *args: Any, **kw: Any):
            if target_name == "tvm_ffi":
                return lib  # the runtime serving the process (see the module docstring)
            return original(package, target_name, mode, *args, **kw)

        load_lib_ctypes.__doc__ = original.__doc__
        module.load_lib_ctypes = load_lib_ctypes
