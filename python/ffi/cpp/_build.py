"""Implementation of ffi.cpp: source generation, cache keys, locking and compilation."""

from __future__ import annotations

import errno
import fcntl
import functools
import glob
import hashlib
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from .. import libinfo
from .._version import __version__

if TYPE_CHECKING:
    from ..api import Module

_LOCK_TIMEOUT_S = float(os.environ.get("FFI_CPP_LOCK_TIMEOUT", "600"))


class BuildError(RuntimeError):
    """A kernel library failed to compile or link; the message holds the compiler's output."""


def _as_list(value: str | Sequence[str] | None) -> list[str]:
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


def _cache_root() -> str:
    return os.environ.get("FFI_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "ffi")


def _verbose(flag: bool | None) -> bool:
    return (
        bool(flag) if flag is not None else os.environ.get("FFI_CPP_VERBOSE", "") not in ("", "0")
    )


@functools.cache
def _tool(name: str) -> str:
    """Path of a compiler (respecting CXX / NVCC), or BuildError when it is missing."""
    env = {"c++": "CXX", "nvcc": "NVCC"}.get(name)
    candidates = [os.environ[env]] if env and os.environ.get(env) else []
    candidates.append(name)
    if name == "nvcc":
        candidates.append("/usr/local/cuda/bin/nvcc")
    for c in candidates:
        path = shutil.which(c)
        if path:
            return path
    raise BuildError(f"cannot find the compiler `{name}` (set ${env} to choose one)")


@functools.cache
def _tool_identity(path: str) -> str:
    """The compiler's --version output: part of the cache key, so a new compiler rebuilds."""
    try:
        return subprocess.run([path, "--version"], capture_output=True, text=True).stdout
    except OSError:
        return path


@functools.cache
def _headers_digest() -> str:
    """Digest of ffi's headers: a changed header rebuilds even within one version."""
    h = hashlib.sha256()
    root = os.path.join(libinfo.get_include_dir(), "ffi")
    for name in sorted(os.listdir(root)):
        with open(os.path.join(root, name), "rb") as f:
            h.update(name.encode() + b"\0" + f.read())
    return h.hexdigest()


@functools.cache
def _cuda_lib_dir(nvcc: str) -> str:
    """The directory holding libcudart.so: $CUDA_HOME, next to nvcc, or a standard location."""
    roots = [
        os.environ.get("CUDA_HOME", ""),
        os.environ.get("CUDA_PATH", ""),
        os.path.dirname(os.path.dirname(os.path.realpath(nvcc))),
        "/usr/local/cuda",
        *sorted(glob.glob("/usr/local/cuda-*"), reverse=True),
    ]
    for root in filter(None, roots):
        for sub in ("lib64", "lib", "targets/x86_64-linux/lib"):
            if os.path.exists(os.path.join(root, sub, "libcudart.so")):
                return os.path.join(root, sub)
    raise BuildError("cannot find libcudart.so; set CUDA_HOME to the CUDA toolkit")


def _commands(name, cpp_files, cuda_files, cflags, cuda_cflags, ldflags, include_paths, out_dir):
    """([(object path, compile command)], (library path, link command)) for the library."""
    include = [f"-I{libinfo.get_include_dir()}"] + [f"-I{p}" for p in include_paths]
    cxx = _tool("c++")
    # (compiler, position-independent-code flags, the user's flags, sources)
    toolchains = [(cxx, ["-fPIC"], cflags, cpp_files)]
    link_extra = []
    if cuda_files:
        nvcc = _tool("nvcc")
        toolchains.append((nvcc, ["-Xcompiler", "-fPIC"], cuda_cflags, cuda_files))
        cuda_lib = _cuda_lib_dir(nvcc)
        link_extra = [f"-L{cuda_lib}", f"-Wl,-rpath,{cuda_lib}", "-lcudart"]
    compiles = []
    for compiler, pic, flags, files in toolchains:
        for i, src in enumerate(files):
            obj = os.path.join(out_dir, f"{i}_{os.path.basename(src)}.o")
            cmd = [compiler, "-std=c++17", "-O2", *pic, *include, *flags, "-c", src, "-o", obj]
            compiles.append((obj, cmd))
    lib = os.path.join(out_dir, f"{name}.so")
    objects = [obj for obj, _ in compiles]
    return compiles, (lib, [cxx, "-shared", *objects, "-o", lib, *link_extra, *ldflags])


def _run(cmd: list[str], verbose: bool) -> None:
    if verbose:
        print(" ".join(cmd), file=sys.stderr, flush=True)
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise BuildError(
            f"command failed with exit code {proc.returncode}:\n  {' '.join(cmd)}\n"
            f"{proc.stdout}{proc.stderr}"
        )
    if verbose and (proc.stdout or proc.stderr):
        print(proc.stdout + proc.stderr, file=sys.stderr, flush=True)


def _ninja() -> str | None:
    """The ninja executable, when one is installed (PATH or the `ninja` Python package)."""
    path = shutil.which("ninja")
    if path is None:
        try:
            import ninja  # type: ignore[import-not-found]

            candidate = os.path.join(ninja.BIN_DIR, "ninja")
            path = candidate if os.path.exists(candidate) else None
        except ImportError:
            path = None
    return path


def _run_all(
    compiles: list[tuple[str, list[str]]], link: tuple[str, list[str]], work: str, verbose: bool
) -> None:
    """Runs the compiles (in parallel through ninja when present) and then the link."""
    ninja = _ninja()
    if ninja is None:
        for _, cmd in compiles:
            _run(cmd, verbose)
        _run(link[1], verbose)
        return
    lines = ["rule run", "  command = $cmd", ""]
    for obj, cmd in compiles:
        lines += [f"build {_ninja_path(obj)}: run", f"  cmd = {shlex.join(cmd)}", ""]
    lib, link_cmd = link
    objects = " ".join(_ninja_path(obj) for obj, _ in compiles)
    lines += [f"build {_ninja_path(lib)}: run {objects}", f"  cmd = {shlex.join(link_cmd)}", ""]
    with open(os.path.join(work, "build.ninja"), "w") as f:
        f.write("\n".join(lines))
    _run([ninja, "-C", work] + (["-v"] if verbose else []), verbose)


def _ninja_path(path: str) -> str:
    return path.replace("$", "$$").replace(" ", "$ ").replace(":", "$:")


class _FileLock:
    """An exclusive lock on a file, waiting at most `timeout` seconds (never forever)."""

    def __init__(self, path: str, timeout: float):
        self.path, self.timeout, self.fd = path, timeout, -1

    def __enter__(self):
        self.fd = os.open(self.path, os.O_CREAT | os.O_RDWR, 0o644)
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return self
            except OSError as err:
                if err.errno not in (errno.EAGAIN, errno.EACCES):
                    raise
            if time.monotonic() >= deadline:
                os.close(self.fd)
                raise TimeoutError(
                    f"waited {self.timeout:.0f} s for the build lock {self.path}; another build "
                    "holds it (raise FFI_CPP_LOCK_TIMEOUT or remove a stale build directory)"
                )
            time.sleep(0.05)

    def __exit__(self, *exc):
        fcntl.flock(self.fd, fcntl.LOCK_UN)
        os.close(self.fd)


def _build_files(
    name,
    sources,
    cpp_files,
    cuda_files,
    extra_cflags,
    extra_cuda_cflags,
    extra_ldflags,
    extra_include_paths,
    build_directory,
    verbose,
) -> str:
    """Builds (or finds in the cache) the library; `sources` are the texts the key covers."""
    if not name.isidentifier():
        raise ValueError(f"name must be an identifier, got {name!r}")
    cflags = _as_list(extra_cflags)
    cuda_cflags = _as_list(extra_cuda_cflags)
    ldflags = _as_list(extra_ldflags)
    include_paths = [os.fspath(p) for p in _as_list(extra_include_paths)]
    key = hashlib.sha256()
    for part in [
        __version__,
        _headers_digest(),
        _tool_identity(_tool("c++")),
        _tool_identity(_tool("nvcc")) if cuda_files else "",
        *sources,
        repr(cflags),
        repr(cuda_cflags),
        repr(ldflags),
        repr(include_paths),
    ]:
        key.update(part.encode() + b"\0")
    digest = key.hexdigest()[:16]
    out_dir = (
        os.fspath(build_directory)
        if build_directory
        else os.path.join(_cache_root(), f"{name}_{digest}")
    )
    lib = os.path.join(out_dir, f"{name}.so")
    stamp = os.path.join(out_dir, f"{name}.key")

    def up_to_date() -> bool:
        try:
            with open(stamp) as f:
                return f.read() == digest and os.path.exists(lib)
        except OSError:
            return False

    if up_to_date():
        return lib
    os.makedirs(out_dir, exist_ok=True)
    with _FileLock(os.path.join(out_dir, ".lock"), _LOCK_TIMEOUT_S):
        if up_to_date():  # another process built it while we waited
            return lib
        verbose = _verbose(verbose)
        with tempfile.TemporaryDirectory(dir=out_dir, prefix=".build_") as work:
            compiles, link = _commands(
                name, cpp_files, cuda_files, cflags, cuda_cflags, ldflags, include_paths, work
            )
            _run_all(compiles, link, work, verbose)
            os.replace(link[0], lib)  # atomic: loaders see the old file or the new one
        with open(stamp + ".tmp", "w") as f:
            f.write(digest)
        os.replace(stamp + ".tmp", stamp)
    return lib


def _inline_sources(cpp_sources, cuda_sources, functions):
    """The generated files' texts: ffi's headers included, `functions` exported."""
    cpp = _as_list(cpp_sources)
    cuda = _as_list(cuda_sources)
    if not cpp and not cuda:
        raise ValueError("load_inline needs cpp_sources or cuda_sources")
    names = list(functions.keys()) if isinstance(functions, Mapping) else _as_list(functions)
    for n in names:
        if not n.isidentifier():
            raise ValueError(f"function names must be C identifiers, got {n!r}")
    exports = "".join(f"\nFFI_DLL_EXPORT_TYPED_FUNC({n}, {n});" for n in names) + "\n"
    texts = {}
    if cpp:
        texts["main.cc"] = "#include <ffi/ffi.h>\n\n" + "\n".join(cpp) + "\n" + exports
    if cuda:
        body = "#include <ffi/ffi.h>\n#include <ffi/cuda.h>\n\n" + "\n".join(cuda) + "\n"
        texts["cuda.cu"] = body if cpp else body + exports
    return texts


def build_inline(
    name: str,
    cpp_sources: str | Sequence[str] | None = None,
    cuda_sources: str | Sequence[str] | None = None,
    functions: Sequence[str] | Mapping[str, str] | None = None,
    extra_cflags: Sequence[str] | None = None,
    extra_cuda_cflags: Sequence[str] | None = None,
    extra_ldflags: Sequence[str] | None = None,
    extra_include_paths: Sequence[str] | None = None,
    build_directory: str | os.PathLike | None = None,
    verbose: bool | None = None,
) -> str:
    """Compile inline C++ (and CUDA) sources into a library and return its path.

    ``<ffi/ffi.h>`` is included for you (and ``<ffi/cuda.h>`` in CUDA sources); each name in
    `functions` is exported with ``FFI_DLL_EXPORT_TYPED_FUNC(name, name)``. A compile error raises
    BuildError with the compiler's diagnostics.
    """
    texts = _inline_sources(cpp_sources, cuda_sources, functions)
    src_dir = os.path.join(_cache_root(), "sources", name)
    os.makedirs(src_dir, exist_ok=True)
    digest = hashlib.sha256("\0".join(texts.values()).encode()).hexdigest()[:16]
    paths = {}
    for fname, text in texts.items():
        path = os.path.join(src_dir, f"{digest}_{fname}")
        if not os.path.exists(path):
            with tempfile.NamedTemporaryFile("w", dir=src_dir, delete=False, suffix=".tmp") as f:
                f.write(text)
            os.replace(f.name, path)
        paths[fname] = path
    cpp_files = [paths["main.cc"]] if "main.cc" in paths else []
    cuda_files = [paths["cuda.cu"]] if "cuda.cu" in paths else []
    return _build_files(
        name,
        list(texts.values()),
        cpp_files,
        cuda_files,
        extra_cflags,
        extra_cuda_cflags,
        extra_ldflags,
        extra_include_paths,
        build_directory,
        verbose,
    )


def load_inline(
    name: str,
    cpp_sources: str | Sequence[str] | None = None,
    cuda_sources: str | Sequence[str] | None = None,
    functions: Sequence[str] | Mapping[str, str] | None = None,
    extra_cflags: Sequence[str] | None = None,
    extra_cuda_cflags: Sequence[str] | None = None,
    extra_ldflags: Sequence[str] | None = None,
    extra_include_paths: Sequence[str] | None = None,
    build_directory: str | os.PathLike | None = None,
    verbose: bool | None = None,
) -> Module:
    """build_inline, then load the library: an ffi.Module whose attributes are `functions`."""
    from .. import load_module

    return load_module(
        build_inline(
            name,
            cpp_sources=cpp_sources,
            cuda_sources=cuda_sources,
            functions=functions,
            extra_cflags=extra_cflags,
            extra_cuda_cflags=extra_cuda_cflags,
            extra_ldflags=extra_ldflags,
            extra_include_paths=extra_include_paths,
            build_directory=build_directory,
            verbose=verbose,
        )
    )


def build(
    name: str,
    cpp_files: Sequence[str | os.PathLike] | None = None,
    cuda_files: Sequence[str | os.PathLike] | None = None,
    extra_cflags: Sequence[str] | None = None,
    extra_cuda_cflags: Sequence[str] | None = None,
    extra_ldflags: Sequence[str] | None = None,
    extra_include_paths: Sequence[str] | None = None,
    build_directory: str | os.PathLike | None = None,
    verbose: bool | None = None,
) -> str:
    """Compile source files on disk into a library (cached like build_inline); return its path.
    The files export their functions themselves (FFI_DLL_EXPORT_TYPED_FUNC)."""
    cpp = [os.path.abspath(os.fspath(p)) for p in (cpp_files or [])]
    cuda = [os.path.abspath(os.fspath(p)) for p in (cuda_files or [])]
    if not cpp and not cuda:
        raise ValueError("build needs cpp_files or cuda_files")
    texts = []
    for path in cpp + cuda:
        with open(path, encoding="utf-8") as f:
            texts.append(path + "\0" + f.read())
    return _build_files(
        name,
        texts,
        cpp,
        cuda,
        extra_cflags,
        extra_cuda_cflags,
        extra_ldflags,
        extra_include_paths,
        build_directory,
        verbose,
    )
