"""Implementation of ffi.cpp: argument checks, cache keys, locking, compilation and installation.

A build's key is a digest of everything that can change the library (see `_key_parts`). The
library is installed as ``<dir>/<name>_<key>.so`` with its SHA-256 beside it in
``<name>_<key>.so.sha256``: a new key is a new file name, so ``dlopen`` (which hands back the
handle it already holds for a path it has loaded) never serves old code for new source, and a
library whose bytes no longer match the recorded checksum is rebuilt rather than loaded.
"""

from __future__ import annotations

import contextlib
import functools
import glob
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Union

from .. import libinfo
from .._version import __version__
from ..utils.lockfile import FileLock

if TYPE_CHECKING:
    from ..module import Module

_LOCK_TIMEOUT_S = float(os.environ.get("FFI_CPP_LOCK_TIMEOUT", "600"))
# Bump when the commands or the file layout change, so that older cache entries are not reused.
_KEY_SCHEMA = "ffi.cpp/2"
_BASE_FLAGS = ["-std=c++17", "-O2"]
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_MAX_NAME = 128  # `<name>_<key>.so.sha256` must stay within a file name's 255 bytes
_KEY_CHARS = 20
# Prefixed to inline CUDA sources: the check macro, device guard, current stream and allocator.
_CUDA_HELPERS = "".join(
    f"#include <ffi/extra/cuda/{h}.h>\n" for h in ("base", "device_guard", "stream", "allocator")
)

_Paths = Union[str, "os.PathLike[str]", Sequence[Union[str, "os.PathLike[str]"]], None]


class BuildError(RuntimeError):
    """A kernel library failed to compile or link; the message holds the compiler's output."""


def _check_identifier(value: object, what: str) -> str:
    """`value` if it is an ASCII C identifier of at most _MAX_NAME characters."""
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, got {type(value).__name__}")
    if not _IDENTIFIER.match(value) or len(value) > _MAX_NAME:
        raise ValueError(
            f"{what} must be a C identifier (ASCII letters, digits and '_', not starting with a "
            f"digit, 1 to {_MAX_NAME} characters), got {value!r}"
        )
    return value


def _strings(value: _Paths, what: str) -> list[str]:
    """One string or path, or a sequence of them, as a list of str without NUL or newlines."""
    if value is None:
        return []
    items = [value] if isinstance(value, (str, os.PathLike)) else list(value)
    out = []
    for item in items:
        if not isinstance(item, (str, os.PathLike)):
            raise TypeError(f"{what} must hold str or os.PathLike, got {type(item).__name__}")
        text = os.fspath(item)
        if not isinstance(text, str):
            raise TypeError(f"{what} must hold str paths, got {text!r}")
        # Neither can be passed to a compiler through argv or written into a ninja file.
        if "\0" in text or "\n" in text or "\r" in text:
            raise ValueError(f"{what} must not contain NUL or line breaks, got {text!r}")
        out.append(text)
    return out


def _cache_root() -> str:
    return os.environ.get("FFI_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "ffi")


def _verbose(flag: bool | None) -> bool:
    return (
        bool(flag) if flag is not None else os.environ.get("FFI_CPP_VERBOSE", "") not in ("", "0")
    )


def _compiler(kind: str) -> list[str]:
    """The compiler's argv prefix: $CXX / $NVCC (split like a shell word list), else the default.

    Resolved on every build, so a changed $CXX or PATH takes effect at once; a $CXX that names a
    missing program is an error, never a silent fallback to another compiler.
    """
    env = {"c++": "CXX", "nvcc": "NVCC"}[kind]
    chosen = os.environ.get(env, "").strip()
    if chosen:
        argv = shlex.split(chosen)
        path = shutil.which(argv[0])
        if path is None:
            raise BuildError(f"${env} is {chosen!r}, but `{argv[0]}` is not an executable")
        return [os.path.abspath(path), *argv[1:]]
    candidates = [kind] + (["/usr/local/cuda/bin/nvcc"] if kind == "nvcc" else [])
    for candidate in candidates:
        path = shutil.which(candidate)
        if path:
            return [os.path.abspath(path)]
    raise BuildError(f"cannot find the compiler `{kind}` (set ${env} to choose one)")


def _compiler_identity(argv: list[str]) -> str:
    """The compiler's argv and `--version` output: part of the key, so a new compiler rebuilds.

    The output is cached per process and per state of the executable (its resolved file's inode,
    size and mtime), so replacing the compiler, or switching what a symlink points at, is seen.
    """
    st = os.stat(argv[0])
    return _version_output(
        tuple(argv), os.path.realpath(argv[0]), st.st_ino, st.st_size, st.st_mtime_ns
    )


@functools.cache
def _version_output(argv: tuple[str, ...], *executable_state: object) -> str:
    try:
        proc = subprocess.run([*argv, "--version"], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.SubprocessError) as err:
        raise BuildError(f"cannot run `{shlex.join(argv)} --version`: {err}") from err
    return f"{shlex.join(argv)}\n{executable_state[0]}\n{proc.stdout}{proc.stderr}"


@functools.cache
def _headers_digest() -> str:
    """Digest of ffi's headers: a changed header rebuilds even within one version."""
    h = hashlib.sha256()
    root = os.path.join(libinfo.get_include_dir(), "ffi")
    for directory, subdirs, files in os.walk(root):
        subdirs.sort()
        for name in sorted(files):
            path = os.path.join(directory, name)
            with open(path, "rb") as f:
                h.update(os.path.relpath(path, root).encode() + b"\0" + f.read() + b"\0")
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


def _file_sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _read_source(path: str) -> str:
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        return f.read()


def _verified(lib: str) -> bool:
    """Whether `lib` exists and its bytes match the checksum recorded when it was installed."""
    try:
        with open(lib + ".sha256", encoding="ascii") as f:
            recorded = f.read().split()
        return bool(recorded) and _file_sha256(lib) == recorded[0]
    except (OSError, UnicodeDecodeError):
        return False


def _write_atomically(path: str, data: str | bytes) -> None:
    """Writes `data` (text as UTF-8) to a private file and renames it to `path`: readers never see
    a part."""
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp_")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.chmod(tmp, 0o644)  # mkstemp makes it private; a source file is not a secret
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


@contextlib.contextmanager
def _build_lock(path: str) -> Iterator[None]:
    """Holds the build lock `path`, waiting at most _LOCK_TIMEOUT_S seconds (never forever)."""
    lock = FileLock(path)
    try:
        lock.blocking_acquire(timeout=_LOCK_TIMEOUT_S, poll_interval=0.05)
    except TimeoutError:
        raise TimeoutError(
            f"waited {_LOCK_TIMEOUT_S:.0f} s for the build lock {path}; another build holds it "
            "(raise FFI_CPP_LOCK_TIMEOUT or end the other build)"
        ) from None
    try:
        yield
    finally:
        lock.release()


_Command = tuple[str, list[str]]  # (the file it makes, argv)


def _commands(
    spec: _Spec, sources: list[tuple[str, str]], work: str
) -> tuple[list[_Command], _Command]:
    """([(object, compile argv)], (library, link argv)); objects and library go into `work`."""
    include = [f"-I{libinfo.get_include_dir()}"] + [f"-I{p}" for p in spec.include_paths]
    compiles = []
    for i, (kind, src) in enumerate(sources):
        obj = os.path.join(work, f"{i}_{os.path.basename(src)}.o")
        if kind == "cuda":
            head, pic, flags = spec.nvcc, ["-Xcompiler", "-fPIC"], spec.cuda_cflags
        else:
            head, pic, flags = spec.cxx, ["-fPIC"], spec.cflags
        compiles.append((obj, [*head, *_BASE_FLAGS, *pic, *include, *flags, "-c", src, "-o", obj]))
    lib = os.path.join(work, "lib.so")
    link_extra = []
    if spec.cuda_lib:
        link_extra = [f"-L{spec.cuda_lib}", f"-Wl,-rpath,{spec.cuda_lib}", "-lcudart"]
    objects = [obj for obj, _ in compiles]
    return compiles, (lib, [*spec.cxx, "-shared", *objects, "-o", lib, *link_extra, *spec.ldflags])


def _run(cmd: list[str], verbose: bool) -> None:
    if verbose:
        print(shlex.join(cmd), file=sys.stderr, flush=True)
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise BuildError(
            f"command failed with exit code {proc.returncode}:\n  {shlex.join(cmd)}\n"
            f"{proc.stdout}{proc.stderr}"
        )
    if verbose and (proc.stdout or proc.stderr):
        print(proc.stdout + proc.stderr, file=sys.stderr, flush=True)


def _ninja() -> str | None:
    """The ninja executable, unless FFI_CPP_NINJA=0; from PATH or the `ninja` Python package."""
    if os.environ.get("FFI_CPP_NINJA", "") == "0":
        return None
    path = shutil.which("ninja")
    if path is None:
        try:
            import ninja  # type: ignore[import-not-found]

            candidate = os.path.join(ninja.BIN_DIR, "ninja")
            path = candidate if os.path.exists(candidate) else None
        except ImportError:
            path = None
    return path


def _ninja_value(text: str) -> str:
    return text.replace("$", "$$")


def _ninja_path(path: str) -> str:
    return path.replace("$", "$$").replace(" ", "$ ").replace(":", "$:")


def _run_all(compiles: list[_Command], link: _Command, work: str, verbose: bool) -> None:
    """Runs the compiles (in parallel through ninja when present), then the link.

    Both ways run the commands in the caller's working directory, so a relative path inside a
    flag means the same thing with ninja and without; ninja keeps its own files in `work`.
    """
    ninja = _ninja()
    if ninja is None:
        for _, cmd in compiles:
            _run(cmd, verbose)
        _run(link[1], verbose)
        return
    lines = [f"builddir = {_ninja_value(work)}", "rule run", "  command = $cmd", ""]
    for obj, cmd in compiles:
        lines += [f"build {_ninja_path(obj)}: run", f"  cmd = {_ninja_value(shlex.join(cmd))}"]
    lib, link_cmd = link
    objects = " ".join(_ninja_path(obj) for obj, _ in compiles)
    lines += [f"build {_ninja_path(lib)}: run {objects}"]
    lines += [f"  cmd = {_ninja_value(shlex.join(link_cmd))}", ""]
    ninja_file = os.path.join(work, "build.ninja")
    with open(ninja_file, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    _run([ninja, "-f", ninja_file] + (["-v"] if verbose else []), verbose)


class _Spec:
    """Everything one build depends on, checked and resolved: the inputs of the cache key."""

    def __init__(
        self,
        cflags: _Paths,
        cuda_cflags: _Paths,
        ldflags: _Paths,
        include_paths: _Paths,
        cuda: bool,
    ):
        self.cflags = _strings(cflags, "extra_cflags")
        self.cuda_cflags = _strings(cuda_cflags, "extra_cuda_cflags")
        self.ldflags = _strings(ldflags, "extra_ldflags")
        # Absolute now: the same relative directory seen from another cwd is another directory.
        self.include_paths = [
            os.path.abspath(p) for p in _strings(include_paths, "extra_include_paths")
        ]
        self.cxx = _compiler("c++")
        self.nvcc = _compiler("nvcc") if cuda else []
        self.cuda_lib = _cuda_lib_dir(self.nvcc[0]) if cuda else ""

    def key(self, sources: list[tuple[str, str, str]]) -> str:
        """The digest of the compilers, flags, directories, ffi and `sources` (kind, id, text)."""
        parts = [
            _KEY_SCHEMA,
            __version__,
            _headers_digest(),
            libinfo.get_include_dir(),
            repr(_BASE_FLAGS),
            _compiler_identity(self.cxx),
            _compiler_identity(self.nvcc) if self.nvcc else "",
            self.cuda_lib,
            repr(self.cflags),
            repr(self.cuda_cflags),
            repr(self.ldflags),
            repr(self.include_paths),
        ]
        for kind, ident, text in sources:
            parts += [kind, ident, text]
        h = hashlib.sha256()
        for part in parts:
            data = part.encode("utf-8", "surrogateescape")
            h.update(b"%d:" % len(data) + data)
        return h.hexdigest()[:_KEY_CHARS]


def _build(
    name: str,
    spec: _Spec,
    inline: dict[str, str],
    files: list[tuple[str, str]],
    build_directory: str | os.PathLike[str] | None,
    verbose: bool | None,
) -> str:
    """Builds `inline` texts (file suffix -> text) or `files` ((kind, path)), or finds them built.

    Returns the verified path of ``<dir>/<name>_<key>.so``.
    """
    keyed = [("cuda" if s == ".cu" else "c++", s, t) for s, t in inline.items()]
    keyed += [(kind, path, _read_source(path)) for kind, path in files]
    key = spec.key(keyed)
    out_dir = (
        os.path.abspath(os.fspath(build_directory))
        if build_directory is not None and os.fspath(build_directory) != ""
        else os.path.join(_cache_root(), name)
    )
    stem = os.path.join(out_dir, f"{name}_{key}")
    lib = stem + ".so"
    if _verified(lib):
        return lib
    os.makedirs(out_dir, exist_ok=True)
    with _build_lock(os.path.join(out_dir, f".{name}_{key}.lock")):
        if _verified(lib):  # another builder installed it while we waited
            return lib
        sources = []
        for suffix, text in inline.items():
            # Kept beside the library (named by the same key) so diagnostics point at a file.
            _write_atomically(stem + suffix, text)
            sources.append(("cuda" if suffix == ".cu" else "c++", stem + suffix))
        sources += files
        with tempfile.TemporaryDirectory(dir=out_dir, prefix=f".{name}_{key}.") as work:
            compiles, (built, link_cmd) = _commands(spec, sources, work)
            _run_all(compiles, (built, link_cmd), work, _verbose(verbose))
            # A file edited while it compiled may not be what the key says: install nothing.
            if any(_read_source(path) != text for _, path, text in keyed[len(inline) :]):
                raise BuildError(f"a source file of `{name}` changed during the build; build again")
            with open(os.path.join(work, "sum"), "w", encoding="ascii") as f:
                f.write(f"{_file_sha256(built)}  {os.path.basename(lib)}\n")
            # Old checksum out, library in, checksum in: until the last step the pair does not
            # verify, so a reader waits for this lock instead of loading a file being replaced.
            with contextlib.suppress(FileNotFoundError):
                os.unlink(lib + ".sha256")
            os.replace(built, lib)
            os.replace(os.path.join(work, "sum"), lib + ".sha256")
    if not _verified(lib):
        raise BuildError(f"{lib} changed while it was being installed; build again")
    return lib


def _cpp_string(text: str) -> str:
    """`text` as a C++ string literal (UTF-8 kept as is; control characters escaped in octal,
    which cannot run into the characters that follow)."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ord(ch) < 0x20 or ch == "\x7f":
            out.append(f"\\{ord(ch):03o}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _inline_sources(cpp_sources: object, cuda_sources: object, functions: object) -> dict[str, str]:
    """The generated files' texts by suffix: ffi's headers included (and the TVM_FFI_* spelling,
    <ffi/tvm_compat.h>, for sources that use it), `functions` exported with their docs."""
    cpp = _texts(cpp_sources, "cpp_sources")
    cuda = _texts(cuda_sources, "cuda_sources")
    if not cpp and not cuda:
        raise ValueError("load_inline needs cpp_sources or cuda_sources")
    if isinstance(functions, Mapping):
        docs = dict(functions)
        for n, doc in docs.items():
            if not isinstance(doc, str):
                raise TypeError(f"the doc of `{n}` must be a str, got {type(doc).__name__}")
    else:
        docs = dict.fromkeys(_texts(functions, "functions"), "")
    exports = ""
    for n, doc in docs.items():
        _check_identifier(n, "each function name")
        exports += f"\nFFI_DLL_EXPORT_TYPED_FUNC({n}, {n});"
        if doc:
            exports += f"\nFFI_DLL_EXPORT_TYPED_FUNC_DOC({n}, {_cpp_string(doc)});"
    exports += "\n"
    texts = {}
    for suffix, parts, helpers in ((".cc", cpp, ""), (".cu", cuda, _CUDA_HELPERS)):
        if not parts:
            continue
        header = "#include <ffi/ffi.h>\n"
        if any("TVM_FFI_" in part for part in parts):
            header += "#include <ffi/tvm_compat.h>\n"
        body = header + helpers + "\n" + "\n".join(parts) + "\n"
        texts[suffix] = body + exports if suffix == ".cc" or not cpp else body
    return texts


def _image_asm(name: str, path: str) -> str:
    """C++ source (top-level assembly) defining `__tvm_ffi__cubin_<name>` .. `_end` around the
    bytes of the file at `path`, 64-byte aligned and hidden: what TVM_FFI_EMBED_CUBIN(name) reads.
    `.incbin` reads the file when this source is compiled."""
    sym = f"__tvm_ffi__cubin_{name}"
    quoted = '"' + path.replace("\\", "\\\\").replace('"', '\\"') + '"'  # an assembler string
    lines = [f'.section .rodata.{sym},"a"', ".balign 64", f".globl {sym}", f".hidden {sym}",
             f"{sym}:", f".incbin {quoted}", f".globl {sym}_end", f".hidden {sym}_end",
             f"{sym}_end:", ".byte 0", ".previous"]  # fmt: skip
    body = "".join(f"    {_cpp_string(line + chr(10))}\n" for line in lines)
    return f"__asm__(\n{body});\n"


def _embedded_images(embed_cubin: object) -> str:
    """A C++ source defining `__tvm_ffi__cubin_<name>` .. `__tvm_ffi__cubin_<name>_end` around
    each image (what TVM_FFI_EMBED_CUBIN(name) reads), or "" for none. Each image is stored once,
    named by its digest, in the cache root and pulled in with `.incbin`, so the source (and with
    it the build key) names the exact bytes."""
    if embed_cubin is None:
        return ""
    if not isinstance(embed_cubin, Mapping):
        raise TypeError(f"embed_cubin must map names to bytes, got {type(embed_cubin).__name__}")
    parts = []
    for image_name, data in sorted(embed_cubin.items()):
        _check_identifier(image_name, "each embed_cubin name")
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"embed_cubin[{image_name!r}] must be bytes, got {type(data).__name__}")
        data = bytes(data)
        images = os.path.join(_cache_root(), "images")
        path = os.path.join(images, hashlib.sha256(data).hexdigest() + ".bin")
        if not os.path.exists(path):
            os.makedirs(images, exist_ok=True)
            _write_atomically(path, data)
        parts.append(_image_asm(image_name, path))
    return "// The CUDA images of embed_cubin, for TVM_FFI_EMBED_CUBIN(name).\n" + "".join(parts)


def _texts(value: object, what: str) -> list[str]:
    """Source texts or function names: one str or a sequence of str."""
    if value is None:
        return []
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, Iterable):
        raise TypeError(f"{what} must be a str or a sequence of str, got {type(value).__name__}")
    out = []
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"{what} must be a str or a sequence of str, got {type(item).__name__}")
        out.append(item)
    return out


def build_inline(
    name: str,
    cpp_sources: str | Sequence[str] | None = None,
    cuda_sources: str | Sequence[str] | None = None,
    functions: Sequence[str] | Mapping[str, str] | None = None,
    extra_cflags: Sequence[str] | None = None,
    extra_cuda_cflags: Sequence[str] | None = None,
    extra_ldflags: Sequence[str] | None = None,
    extra_include_paths: Sequence[str] | None = None,
    build_directory: str | os.PathLike[str] | None = None,
    verbose: bool | None = None,
    *,
    embed_cubin: Mapping[str, bytes] | None = None,
    backend: str | None = None,
) -> str:
    """Compile inline C++ (and CUDA) sources into a library and return its path.

    ``<ffi/ffi.h>`` is included for you (with ``<ffi/tvm_compat.h>``, the reference's
    ``TVM_FFI_*`` macros, when a source uses them, and the CUDA helpers of ``<ffi/extra/cuda/>``
    in CUDA sources); each name in `functions` (a name, a sequence of names, or a mapping of names
    to docstrings) is exported with ``FFI_DLL_EXPORT_TYPED_FUNC(name, name)``, and a non-empty
    docstring with ``FFI_DLL_EXPORT_TYPED_FUNC_DOC``. `embed_cubin` maps names to CUDA images
    (cubin or fatbin bytes) linked into the library, each read by ``TVM_FFI_EMBED_CUBIN(name)``
    in the sources. `backend` may only be ``"cuda"`` (or None): there is no HIP build.
    The result is ``<dir>/<name>_<key>.so``, where ``<dir>`` is `build_directory` (relative to the
    current directory) or ``$FFI_CACHE_DIR/<name>``, and ``<key>`` digests the sources, every flag
    and include directory, the compilers (path and ``--version``) and ffi's headers: new source
    gets a new file, so loading it in a process that loaded the old one runs the new code. The
    library's
    SHA-256 is checked against the one recorded at install; a mismatch rebuilds it. `name` must be
    a C identifier (``ValueError`` before anything is written). A compile error raises BuildError
    with the compiler's diagnostics.
    """
    _check_identifier(name, "name")
    _check_backend(backend)
    texts = _inline_sources(cpp_sources, cuda_sources, functions)
    images = _embedded_images(embed_cubin)
    if images:
        texts["_images.cc"] = images
    spec = _Spec(
        extra_cflags, extra_cuda_cflags, extra_ldflags, extra_include_paths, ".cu" in texts
    )
    return _build(name, spec, texts, [], build_directory, verbose)


def load_inline(
    name: str,
    cpp_sources: str | Sequence[str] | None = None,
    cuda_sources: str | Sequence[str] | None = None,
    functions: Sequence[str] | Mapping[str, str] | None = None,
    extra_cflags: Sequence[str] | None = None,
    extra_cuda_cflags: Sequence[str] | None = None,
    extra_ldflags: Sequence[str] | None = None,
    extra_include_paths: Sequence[str] | None = None,
    build_directory: str | os.PathLike[str] | None = None,
    verbose: bool | None = None,
    *,
    embed_cubin: Mapping[str, bytes] | None = None,
    keep_module_alive: bool = True,
    backend: str | None = None,
) -> Module:
    """build_inline, then load the library: an ffi.Module whose attributes are `functions`.

    Loaded libraries are never unloaded, so the module stays usable for the life of the process
    whatever `keep_module_alive` says (the reference's keyword, accepted for the same code).
    """
    from .. import load_module

    del keep_module_alive
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
            embed_cubin=embed_cubin,
            backend=backend,
        )
    )


def _check_backend(backend: object) -> None:
    if backend not in (None, "cuda"):
        raise ValueError(f"backend must be 'cuda' or None (there is no HIP build), not {backend!r}")


def build(
    name: str,
    cpp_files: Sequence[str | os.PathLike[str]] | None = None,
    cuda_files: Sequence[str | os.PathLike[str]] | None = None,
    extra_cflags: Sequence[str] | None = None,
    extra_cuda_cflags: Sequence[str] | None = None,
    extra_ldflags: Sequence[str] | None = None,
    extra_include_paths: Sequence[str] | None = None,
    build_directory: str | os.PathLike[str] | None = None,
    verbose: bool | None = None,
    *,
    sources: _Paths = None,
    output: str | os.PathLike[str] | None = None,
    backend: str | None = None,
) -> str:
    """Compile source files on disk into a library, cached like build_inline; return its path.

    The files export their functions themselves (FFI_DLL_EXPORT_TYPED_FUNC). `sources` are files
    of either kind, told apart by suffix (``.cu`` is CUDA, anything else C++), beside
    `cpp_files` and `cuda_files`. Relative paths are taken from the current directory; the key
    covers each file's absolute path and contents, but not the headers the files include (other
    than ffi's own). With `output`, the library is also copied there and that path returned (a
    shared library: object-file outputs are not built).
    """
    _check_identifier(name, "name")
    _check_backend(backend)
    files = [
        ("cuda" if p.lower().endswith(".cu") else "c++", os.path.abspath(p))
        for p in _strings(sources, "sources")
    ]
    files += [("c++", os.path.abspath(p)) for p in _strings(cpp_files, "cpp_files")]
    files += [("cuda", os.path.abspath(p)) for p in _strings(cuda_files, "cuda_files")]
    if not files:
        raise ValueError("build needs sources, cpp_files or cuda_files")
    if output is not None and os.fspath(output).lower().endswith((".o", ".obj")):
        raise ValueError(f"output {os.fspath(output)!r}: only shared libraries are built")
    spec = _Spec(
        extra_cflags,
        extra_cuda_cflags,
        extra_ldflags,
        extra_include_paths,
        any(kind == "cuda" for kind, _ in files),
    )
    lib = _build(name, spec, {}, files, build_directory, verbose)
    if output is None:
        return lib
    target = os.path.abspath(os.fspath(output))
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(lib, "rb") as f:
        _write_atomically(target, f.read())
    return target


def load(
    name: str,
    cpp_files: Sequence[str | os.PathLike[str]] | None = None,
    cuda_files: Sequence[str | os.PathLike[str]] | None = None,
    extra_cflags: Sequence[str] | None = None,
    extra_cuda_cflags: Sequence[str] | None = None,
    extra_ldflags: Sequence[str] | None = None,
    extra_include_paths: Sequence[str] | None = None,
    build_directory: str | os.PathLike[str] | None = None,
    verbose: bool | None = None,
    *,
    sources: _Paths = None,
    keep_module_alive: bool = True,
    backend: str | None = None,
) -> Module:
    """build, then load the library (see load_inline for `keep_module_alive`)."""
    from .. import load_module

    del keep_module_alive
    return load_module(
        build(
            name,
            cpp_files=cpp_files,
            cuda_files=cuda_files,
            extra_cflags=extra_cflags,
            extra_cuda_cflags=extra_cuda_cflags,
            extra_ldflags=extra_ldflags,
            extra_include_paths=extra_include_paths,
            build_directory=build_directory,
            verbose=verbose,
            sources=sources,
            backend=backend,
        )
    )
