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
from collections.abc import Iterable, Iterator, Sequence
from typing import Union

from .. import libinfo
from .._version import __version__
from ..utils.lockfile import FileLock

_LOCK_TIMEOUT_S = float(os.environ.get("FFI_CPP_LOCK_TIMEOUT", "600"))
# Bump when the commands or the file layout change, so that older cache entries are not reused.
_KEY_SCHEMA = "ffi.cpp/3"
_BASE_FLAGS = ["-std=c++17", "-O2"]
_C_BASE_FLAGS = ["-O2"]
_OBJECT_SUFFIXES = (".o", ".obj")  # an `output` with one of these is an object file
_Paths = Union[str, "os.PathLike[str]", Sequence[Union[str, "os.PathLike[str]"]], None]
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_MAX_NAME = 128  # `<name>_<key>.so.sha256` must stay within a file name's 255 bytes
_KEY_CHARS = 20


# Prefixed to inline CUDA sources: the check macro, device guard, current stream and allocator.
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


# The build programs: the environment variable choosing each, and where to look otherwise.
_PROGRAMS = {
    "c++": ("CXX", ["c++"]),
    "cc": ("CC", ["cc"]),
    "nvcc": ("NVCC", ["nvcc", "/usr/local/cuda/bin/nvcc"]),
    "ld": ("LD", ["ld"]),
    "objcopy": ("OBJCOPY", ["objcopy"]),
    "nm": ("NM", ["nm"]),
}


def _find_cuda_home() -> str:
    """The CUDA toolkit's root directory: ``$CUDA_HOME`` or ``$CUDA_PATH``, else the directory
    above the ``bin`` of the ``nvcc`` on ``PATH``, else ``/usr/local/cuda``; RuntimeError when
    none of them exists (the reference's helper, which code written for it calls)."""
    home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH")
    if home:
        return home
    nvcc = shutil.which("nvcc")
    if nvcc is not None:
        return os.path.dirname(os.path.dirname(nvcc))
    if os.path.exists("/usr/local/cuda"):
        return "/usr/local/cuda"
    raise RuntimeError("cannot find the CUDA toolkit; set CUDA_HOME to its directory")


def _compiler(kind: str) -> list[str]:
    """The argv prefix of a build program (a compiler, `ld`, `objcopy`, `nm`): its variable
    ($CXX, $CC, $NVCC, $LD, $OBJCOPY, $NM; split like a shell word list), else the default.

    Resolved on every build, so a changed $CXX or PATH takes effect at once; a $CXX that names a
    missing program is an error, never a silent fallback to another compiler.
    """
    env, candidates = _PROGRAMS[kind]
    chosen = os.environ.get(env, "").strip()
    if chosen:
        argv = shlex.split(chosen)
        path = shutil.which(argv[0])
        if path is None:
            raise BuildError(f"${env} is {chosen!r}, but `{argv[0]}` is not an executable")
        return [os.path.abspath(path), *argv[1:]]
    for candidate in candidates:
        path = shutil.which(candidate)
        if path:
            return [os.path.abspath(path)]
    raise BuildError(f"cannot find `{kind}` (set ${env} to choose one)")


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


def _source_kind(path: str) -> str:
    """How a file in `sources` is built, by its suffix: "cuda" (.cu), "c" (.c), "object" (.o,
    .obj, .a: linked as they are), else "c++"."""
    suffix = os.path.splitext(path)[1].lower()
    if suffix in _OBJECT_SUFFIXES + (".a",):
        return "object"
    return {".cu": "cuda", ".c": "c"}.get(suffix, "c++")


def _read_source(kind: str, path: str) -> str:
    """What the key holds of a file: a source's text, an object's digest."""
    if kind == "object":
        return "sha256:" + _file_sha256(path)
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
    spec: _Spec, sources: list[tuple[str, str]], work: str, object_output: bool
) -> tuple[list[_Command], _Command | None, str]:
    """([(object, compile argv)], (output, link argv) or None, the file the build makes).

    Sources compile into objects in `work`; given objects ("object" kind) join them as they are.
    The objects link into a shared library, or with `object_output` into one relocatable object
    (``ld -r``; a single object is the output itself, with no link)."""
    include = [f"-I{libinfo.get_include_dir()}"] + [f"-I{p}" for p in spec.include_paths]
    compiles, objects = [], []
    for i, (kind, src) in enumerate(sources):
        if kind == "object":
            objects.append(src)
            continue
        obj = os.path.join(work, f"{i}_{os.path.basename(src)}.o")
        # Each compile also lists the headers it read (obj + ".d"), which key the build too.
        if kind == "cuda":
            head, base, flags = spec.nvcc, _BASE_FLAGS, spec.cuda_cflags
            pic = ["-Xcompiler", "-fPIC", "--generate-dependencies-with-compile"]
            pic += ["--dependency-output", obj + ".d"]
        elif kind == "c":
            head, base, flags = spec.cc, _C_BASE_FLAGS, spec.cflags
            pic = ["-fPIC", "-MMD", "-MF", obj + ".d"]
        else:
            head, base, flags = spec.cxx, _BASE_FLAGS, spec.cflags
            pic = ["-fPIC", "-MMD", "-MF", obj + ".d"]
        compiles.append((obj, [*head, *base, *pic, *include, *flags, "-c", src, "-o", obj]))
        objects.append(obj)
    if object_output:
        if len(objects) == 1:
            return compiles, None, objects[0]
        out = os.path.join(work, "out.o")
        return compiles, (out, [*_compiler("ld"), "-r", *objects, "-o", out]), out
    lib = os.path.join(work, "lib.so")
    link_extra = []
    if spec.cuda_lib:
        link_extra = [f"-L{spec.cuda_lib}", f"-Wl,-rpath,{spec.cuda_lib}", "-lcudart"]
    link = [*spec.cxx, "-shared", *objects, "-o", lib, *link_extra, *spec.ldflags]
    return compiles, (lib, link), lib


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


def _run_all(compiles: list[_Command], link: _Command | None, work: str, verbose: bool) -> None:
    """Runs the compiles (in parallel through ninja when present), then the link (if any).

    Both ways run the commands in the caller's working directory, so a relative path inside a
    flag means the same thing with ninja and without; ninja keeps its own files in `work`.
    """
    ninja = _ninja()
    if ninja is None:
        for _, cmd in compiles:
            _run(cmd, verbose)
        if link is not None:
            _run(link[1], verbose)
        return
    if not compiles and link is None:
        return
    lines = [f"builddir = {_ninja_value(work)}", "rule run", "  command = $cmd", ""]
    for obj, cmd in compiles:
        lines += [f"build {_ninja_path(obj)}: run", f"  cmd = {_ninja_value(shlex.join(cmd))}"]
    if link is not None:
        out, link_cmd = link
        objects = " ".join(_ninja_path(obj) for obj, _ in compiles)
        lines += [f"build {_ninja_path(out)}: run {objects}"]
        lines += [f"  cmd = {_ninja_value(shlex.join(link_cmd))}", ""]
    ninja_file = os.path.join(work, "build.ninja")
    with open(ninja_file, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    _run([ninja, "-f", ninja_file] + (["-v"] if verbose else []), verbose)


class _Spec:
    """Everything one build depends on, checked and resolved: the inputs of the cache key."""

    def __init__(
        self,
        cflags: _Paths,
        cuda_cflags: _Paths,
        ldflags: _Paths,
        include_paths: _Paths,
        kinds: Iterable[str],
    ):
        self.cflags = _strings(cflags, "extra_cflags")
        self.cuda_cflags = _strings(cuda_cflags, "extra_cuda_cflags")
        self.ldflags = _strings(ldflags, "extra_ldflags")
        # Absolute now: the same relative directory seen from another cwd is another directory.
        self.include_paths = [
            os.path.abspath(p) for p in _strings(include_paths, "extra_include_paths")
        ]
        kinds = set(kinds)  # of the sources: "c++", "cuda", "c", "object"
        self.cxx = _compiler("c++")
        self.cc = _compiler("cc") if "c" in kinds else []
        self.nvcc = _compiler("nvcc") if "cuda" in kinds else []
        self.cuda_lib = _cuda_lib_dir(self.nvcc[0]) if self.nvcc else ""

    def key(self, sources: list[tuple[str, str, str]]) -> str:
        """The digest of the compilers, flags, directories, ffi and `sources` (kind, id, text)."""
        parts = [
            _KEY_SCHEMA,
            __version__,
            _headers_digest(),
            libinfo.get_include_dir(),
            repr(_BASE_FLAGS),
            repr(_C_BASE_FLAGS),
            _compiler_identity(self.cxx),
            _compiler_identity(self.cc) if self.cc else "",
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


def _read_depfile(path: str) -> list[str]:
    """The prerequisites a compiler's make-style dependency file lists (`obj: a.cc b.h ...`)."""
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            text = f.read().replace("\\\n", " ")
    except OSError:
        return []
    deps = []
    for rule in text.splitlines():
        _, sep, rest = rule.partition(": ")
        if not sep:
            continue
        # Spaces inside a name are escaped with a backslash.
        for word in re.split(r"(?<!\\) +", rest.strip()):
            if word:
                deps.append(word.replace("\\ ", " "))
    return deps


def _headers_of(work: str, sources: list[tuple[str, str]], spec: _Spec) -> list[str]:
    """The headers the compiles in `work` read, besides the sources and ffi's own headers (both
    in the key already) and system and CUDA toolkit headers (the compilers' identities in the key
    stand for them; the host compiler leaves them out, nvcc lists them): absolute paths, sorted."""
    skip = {os.path.abspath(path) for _, path in sources}
    roots = [libinfo.get_include_dir(), "/usr/include", "/usr/lib", "/usr/local/include"]
    if spec.nvcc:
        roots.append(os.path.dirname(os.path.dirname(os.path.realpath(spec.nvcc[0]))))
    prefixes = tuple(os.path.join(os.path.abspath(r), "") for r in roots)
    found = set()
    for depfile in glob.glob(os.path.join(glob.escape(work), "*.d")):
        for dep in _read_depfile(depfile):
            dep = os.path.abspath(dep)
            if dep not in skip and not dep.startswith(prefixes):
                if not os.path.realpath(dep).startswith(prefixes):
                    found.add(dep)
    return sorted(found)


def _headers_key(key: str, headers: list[str]) -> str:
    """`key` with the contents of `headers` folded in (a missing header counts as such), or
    `key` itself when there are none."""
    if not headers:
        return key
    h = hashlib.sha256(key.encode("ascii"))
    for path in headers:
        try:
            digest = _file_sha256(path)
        except OSError:
            digest = "missing"
        h.update(f"{len(path)}:{path}{digest}".encode("utf-8", "surrogateescape"))
    return h.hexdigest()[:_KEY_CHARS]


def _read_manifest(path: str) -> list[str] | None:
    """The headers a build of this key read last time (its manifest), or None."""
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            return [line for line in f.read().split("\n") if line]
    except OSError:
        return None


def _build(
    name: str,
    spec: _Spec,
    inline: dict[str, str],
    files: list[tuple[str, str]],
    build_directory: str | os.PathLike[str] | None,
    verbose: bool | None,
    object_output: bool = False,
) -> str:
    """Builds `inline` texts (file suffix -> text) or `files` ((kind, path)), or finds them built.

    Returns the verified path of ``<dir>/<name>_<key>.so``, or with `object_output` of the
    relocatable object ``<dir>/<name>_<key>.o``.
    """
    keyed = [("cuda" if s == ".cu" else "c++", s, t) for s, t in inline.items()]
    keyed += [(kind, path, _read_source(kind, path)) for kind, path in files]
    key = spec.key(keyed)
    out_dir = (
        os.path.abspath(os.fspath(build_directory))
        if build_directory is not None and os.fspath(build_directory) != ""
        else os.path.join(_cache_root(), name)
    )
    stem = os.path.join(out_dir, f"{name}_{key}")
    kind_suffix = ".o" if object_output else ".so"
    # The headers the sources include are known once they have compiled: a manifest beside the
    # build lists them, and their contents are folded into the library's name. An edited header
    # is then a new name (so a process that loaded the old library still gets the new code).
    manifest = os.path.join(out_dir, f".{name}_{key}{kind_suffix}.headers")

    def installed() -> str | None:
        headers = _read_manifest(manifest)
        if headers is None:
            return None
        lib = os.path.join(out_dir, f"{name}_{_headers_key(key, headers)}{kind_suffix}")
        return lib if _verified(lib) else None

    found = installed()
    if found is not None:
        return found
    os.makedirs(out_dir, exist_ok=True)
    with _build_lock(os.path.join(out_dir, f".{name}_{key}.lock")):
        found = installed()
        if found is not None:  # another builder installed it while we waited
            return found
        sources = []
        for suffix, text in inline.items():
            # Kept beside the library (named by the same key) so diagnostics point at a file.
            _write_atomically(stem + suffix, text)
            sources.append(("cuda" if suffix == ".cu" else "c++", stem + suffix))
        sources += files
        with tempfile.TemporaryDirectory(dir=out_dir, prefix=f".{name}_{key}.") as work:
            compiles, link, built = _commands(spec, sources, work, object_output)
            _run_all(compiles, link, work, _verbose(verbose))
            # A file edited while it compiled may not be what the key says: install nothing.
            if any(_read_source(k, path) != text for k, path, text in keyed[len(inline) :]):
                raise BuildError(f"a source file of `{name}` changed during the build; build again")
            headers = _headers_of(work, sources, spec)
            lib = os.path.join(out_dir, f"{name}_{_headers_key(key, headers)}{kind_suffix}")
            if os.path.dirname(built) != work:  # a given object is the output: install a copy
                built = shutil.copyfile(built, os.path.join(work, "out.o"))
            with open(os.path.join(work, "sum"), "w", encoding="ascii") as f:
                f.write(f"{_file_sha256(built)}  {os.path.basename(lib)}\n")
            # Old checksum out, library in, checksum in: until the last step the pair does not
            # verify, so a reader waits for this lock instead of loading a file being replaced.
            with contextlib.suppress(FileNotFoundError):
                os.unlink(lib + ".sha256")
            os.replace(built, lib)
            os.replace(os.path.join(work, "sum"), lib + ".sha256")
            _write_atomically(manifest, "".join(h + "\n" for h in headers))
    if not _verified(lib):
        raise BuildError(f"{lib} changed while it was being installed; build again")
    return lib
