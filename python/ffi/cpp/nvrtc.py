"""Compile CUDA C++ to a cubin at run time with NVRTC (the reference's ``tvm_ffi.cpp.nvrtc``).

``nvrtc_compile(source, arch="sm_80")`` returns the cubin as ``bytes``, ready for
``ffi.cpp.load_inline(..., embed_cubin={"name": cubin})`` or ``ffi::CubinModule``. NVRTC's C API
is called through ctypes, so no CUDA Python package is needed, only the NVRTC library: the
``nvidia-cuda-nvrtc`` wheel (``pip install nvidia-cuda-nvrtc``), else ``$CUDA_HOME``,
``$CUDA_PATH`` or ``/usr/local/cuda`` (``lib64``), else the system loader. Nothing is loaded
until the first compile; the library is then kept for the life of the process.
"""

from __future__ import annotations

import ctypes
import functools
import glob
import importlib.util
import os
from collections.abc import Sequence

__all__ = ["nvrtc_compile"]

_SONAMES = ("libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12")
_P, _S, _I = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int
_SIGNATURES = {  # name: argument types (every function returns nvrtcResult, an int)
    "nvrtcVersion": [ctypes.POINTER(_I)] * 2,
    "nvrtcCreateProgram": [ctypes.POINTER(_P), ctypes.c_char_p, ctypes.c_char_p, _I, _P, _P],
    "nvrtcCompileProgram": [_P, _I, ctypes.POINTER(ctypes.c_char_p)],
    "nvrtcGetProgramLogSize": [_P, ctypes.POINTER(_S)],
    "nvrtcGetProgramLog": [_P, ctypes.c_char_p],
    "nvrtcGetCUBINSize": [_P, ctypes.POINTER(_S)],
    "nvrtcGetCUBIN": [_P, ctypes.c_char_p],
    "nvrtcDestroyProgram": [ctypes.POINTER(_P)],
}


def _candidates() -> list[str]:
    """Where NVRTC is looked for, in order: the pip wheel (``nvidia/<dir>/lib``, newest major
    first), the toolkit directories, then the bare names for the system loader."""
    spec = importlib.util.find_spec("nvidia")
    roots = (spec.submodule_search_locations or []) if spec else []
    wheel = [p for r in roots for p in glob.glob(os.path.join(r, "*", "lib", "libnvrtc.so.*"))]
    wheel.sort(key=lambda p: [int(x) for x in p.rsplit(".so.", 1)[1].split(".") if x.isdigit()])
    homes = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"]
    toolkit = [os.path.join(h, "lib64", n) for h in homes if h for n in _SONAMES]
    return wheel[::-1] + [p for p in toolkit if os.path.exists(p)] + list(_SONAMES)


def _open(candidates: Sequence[str]) -> ctypes.CDLL:
    """The first of `candidates` (paths or sonames) that loads, with NVRTC's signatures set."""
    for path in candidates:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for fn, argtypes in _SIGNATURES.items():
            getattr(lib, fn).argtypes, getattr(lib, fn).restype = argtypes, _I
        lib.nvrtcGetErrorString.argtypes, lib.nvrtcGetErrorString.restype = [_I], ctypes.c_char_p
        return lib
    raise RuntimeError(
        f"nvrtc_compile: NVRTC (libnvrtc) was not found; tried {', '.join(candidates)}. "
        "Install it with `pip install nvidia-cuda-nvrtc` (or set CUDA_HOME to a CUDA toolkit)"
    )


@functools.cache
def _nvrtc() -> ctypes.CDLL:
    return _open(_candidates())


def _check(lib: ctypes.CDLL, code: int, call: str) -> None:
    if code != 0:
        text = lib.nvrtcGetErrorString(code).decode(errors="replace")
        raise RuntimeError(f"nvrtc_compile: {call} failed: {text} ({code})")


def _version(lib: ctypes.CDLL) -> str:
    major, minor = _I(0), _I(0)
    lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor))
    return f"{major.value}.{minor.value}"


def _log(lib: ctypes.CDLL, prog: ctypes.c_void_p) -> str:
    size = _S(0)
    if lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size)) != 0 or size.value <= 1:
        return "(no log)"
    log = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetProgramLog(prog, log)
    return log.value.decode(errors="replace").rstrip()


def _detect_arch() -> str:
    """``sm_<major><minor>`` of the current CUDA device (device 0 without a current context)."""
    dev, major, minor = _I(0), _I(0), _I(0)
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
        code = cuda.cuInit(0)
        if code == 0 and cuda.cuCtxGetDevice(ctypes.byref(dev)) != 0:
            dev.value = 0
        for value, attribute in ((major, 75), (minor, 76)):  # COMPUTE_CAPABILITY_MAJOR, _MINOR
            code = code or cuda.cuDeviceGetAttribute(ctypes.byref(value), attribute, dev)
        if code != 0:
            text = ctypes.c_char_p()
            cuda.cuGetErrorName(code, ctypes.byref(text))
            raise OSError(f"the CUDA driver says {(text.value or b'error').decode()} ({code})")
    except OSError as err:
        raise RuntimeError(
            f"nvrtc_compile: cannot detect the GPU's architecture: {err}; "
            "pass arch explicitly, e.g. arch='sm_80'"
        ) from None
    return f"sm_{major.value}{minor.value}"


def _c_bytes(value: object, what: str, kinds: tuple[type, ...] = (str,)) -> bytes:
    """`value` (one of `kinds`) as a C string; a wrong type is a TypeError, a NUL a ValueError."""
    data = value.encode() if isinstance(value, str) else value if isinstance(value, bytes) else None
    if data is None or not isinstance(value, kinds):
        expected = " or ".join(kind.__name__ for kind in kinds)
        raise TypeError(f"nvrtc_compile: {what} must be {expected}, got {type(value).__name__}")
    if b"\0" in data:
        raise ValueError(f"nvrtc_compile: {what} must not contain NUL characters")
    return data


def nvrtc_compile(
    source: str,
    *,
    name: str = "kernel.cu",
    arch: str | None = None,
    extra_opts: Sequence[str] | None = None,
) -> bytes:
    """Compile CUDA C++ source to a cubin with NVRTC.

    Parameters
    ----------
    source : str
        The CUDA C++ translation unit. Kernels to be looked up by name are usually ``extern "C"``;
        other functions are device functions by default (``-default-device``). Headers beyond
        NVRTC's own need an ``-I`` option in `extra_opts` (e.g. the toolkit's ``include``).
    name : str
        The file name NVRTC gives the source in diagnostics. Default ``"kernel.cu"``.
    arch : str or None
        The target, passed to NVRTC as ``--gpu-architecture=<arch>`` (e.g. ``"sm_80"``,
        ``"sm_90a"``). None detects the current GPU's compute capability through the CUDA driver.
    extra_opts : sequence of str or bytes, optional
        More NVRTC options, after the two above (e.g. ``["-DN=4", "-I/path", "-lineinfo"]``).

    Returns
    -------
    bytes
        The cubin (an ELF image for `arch`).

    Raises
    ------
    TypeError
        An argument of the wrong type (`extra_opts` must be a sequence, not one string).
    ValueError
        A string holding a NUL character.
    RuntimeError
        NVRTC cannot be found, `arch` is None and no GPU can be queried, or the compile fails
        (the message holds NVRTC's log).

    Examples
    --------
    >>> src = 'extern "C" __global__ void add_one(float* x) { x[threadIdx.x] += 1; }'
    >>> cubin = nvrtc_compile(src, arch="sm_80")  # doctest: +SKIP
    """
    src, fname = _c_bytes(source, "source"), _c_bytes(name, "name")
    if arch is not None:
        _c_bytes(arch, "arch (or None)")
    if isinstance(extra_opts, (str, bytes)) or not isinstance(extra_opts, (Sequence, type(None))):
        raise TypeError("nvrtc_compile: extra_opts must be a sequence of str or bytes")
    extra = [_c_bytes(opt, "each of extra_opts", (str, bytes)) for opt in extra_opts or ()]
    lib = _nvrtc()
    arch = _detect_arch() if arch is None else arch
    opts = [b"--gpu-architecture=" + _c_bytes(arch, "arch"), b"-default-device", *extra]
    prog = _P()
    code = lib.nvrtcCreateProgram(ctypes.byref(prog), src, fname, 0, None, None)
    _check(lib, code, "nvrtcCreateProgram")
    try:
        code = lib.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts))
        if code != 0:
            raise RuntimeError(
                f"nvrtc_compile: NVRTC {_version(lib)} failed to compile {name!r} for {arch} "
                f"({lib.nvrtcGetErrorString(code).decode()}):\n{_log(lib, prog)}"
            )
        _check(lib, lib.nvrtcGetCUBINSize(prog, ctypes.byref(size := _S(0))), "nvrtcGetCUBINSize")
        if size.value == 0:
            raise RuntimeError(
                f"nvrtc_compile: NVRTC made no cubin for {arch!r} (use a real sm_XY arch)"
            )
        cubin = ctypes.create_string_buffer(size.value)
        _check(lib, lib.nvrtcGetCUBIN(prog, cubin), "nvrtcGetCUBIN")
        return cubin.raw
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(prog))
