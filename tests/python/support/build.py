"""Building the libraries tests load, each once per session for all pytest-xdist workers: with our
headers through ``ffi.cpp.build`` (build_kernel), and with the reference wheel's as its clients
build them, the compiler run directly (build_with_reference_headers, cached by compile_cached)."""

import fcntl
import hashlib
import importlib.metadata
import json
import os
import re
import shutil
import subprocess

import pytest

import ffi.cpp
from support.paths import ROOT

#: The reflection test library (tests/cpp/loader/reflection_lib.cc), the default source of build().
REFLECTION_LIB_SRC = os.path.join(ROOT, "tests", "cpp", "loader", "reflection_lib.cc")

# Where compile_cached keeps what it built: shared by the xdist workers of one session (set by
# conftest.py before any test, through set_compile_cache).
_compile_cache = None


def set_compile_cache(directory: str) -> None:
    """Makes `directory` (created if missing) the session's compile cache."""
    global _compile_cache
    os.makedirs(directory, exist_ok=True)
    _compile_cache = directory


def compile_cached(cmd: list, output: str) -> subprocess.CompletedProcess:
    """Runs the compiler command `cmd`, which writes `output`, or copies the file that the same
    command (the same arguments and sources) wrote earlier in this session in any worker: xdist
    spreads a module's tests over both workers, and each would build the module's libraries.
    Copied, not shared, so that each fixture loads a file of its own, as it would have built it.
    Returns the compiler's result (the first run's output on a copy)."""
    if _compile_cache is None:  # outside a pytest session
        return subprocess.run(cmd, capture_output=True, text=True)
    sources = [a for a in cmd if a.endswith((".c", ".cc", ".cu")) and os.path.isfile(a)]
    digest = hashlib.sha256(json.dumps([a if a != output else "<output>" for a in cmd]).encode())
    for src in sources:
        with open(src, "rb") as f:
            digest.update(f.read())
    entry = os.path.join(_compile_cache, digest.hexdigest()[:32])
    with open(entry + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one worker builds; the other waits and copies
        if os.path.exists(entry + ".json"):
            with open(entry + ".json") as f:
                result = json.load(f)
            shutil.copyfile(entry + ".out", output)
            return subprocess.CompletedProcess(cmd, 0, result["stdout"], result["stderr"])
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode == 0:
            shutil.copyfile(output, entry + ".out")
            with open(entry + ".json", "w") as f:
                json.dump({"stdout": proc.stdout, "stderr": proc.stderr}, f)
        return proc


def shared_build_dir(name: str) -> "str | None":
    """A build directory that every xdist worker of this session sees, for ``ffi.cpp.build`` (whose
    own cache and lock then build a library once for all workers); None outside a session."""
    return None if _compile_cache is None else os.path.join(_compile_cache, name)


#: The header sets a test library is built with: ours, or the reference wheel's.
OURS, REFERENCE = "ours", "reference"


def build_kernel(
    src: str, out_dir: str, *cflags: str, name: "str | None" = None, strict: bool = True
) -> str:
    """`src` built with our headers by ``ffi.cpp.build`` (the project's own build: its cache, in a
    directory shared by the session's workers, builds each library once), `cflags` added, and
    with `strict` (for the project's own sources) warnings as errors; copied to
    ``out_dir/<name>.so`` (`name`: the source's base name), a file of the fixture's own, whose
    path is returned."""
    name = name or os.path.splitext(os.path.basename(src))[0]
    lib = os.path.join(out_dir, name + ".so")
    warnings = ["-Wall", "-Wextra", "-Werror"] if strict else []
    ffi.cpp.build(
        re.sub(r"\W", "_", name),
        sources=[src],
        extra_cflags=["-O1", *warnings, *cflags],
        build_directory=shared_build_dir("kernels"),
        output=lib,
    )
    return lib


def reference_include_dir() -> "str | None":
    """The reference wheel's include dir, or None without the wheel. Found through its
    distribution: importing (or finding) tvm_ffi beside ffi is refused, and would load its
    runtime here."""
    try:
        dist = importlib.metadata.distribution("apache-tvm-ffi")
    except importlib.metadata.PackageNotFoundError:
        return None
    include = str(dist.locate_file(os.path.join("tvm_ffi", "include")))
    return include if os.path.isfile(os.path.join(include, "tvm", "ffi", "c_api.h")) else None


def build_with_reference_headers(src: str, lib: str, *flags: str) -> str:
    """`src` built into `lib` as a client of the reference builds it: the compiler run directly on
    the reference wheel's headers (``ffi.cpp`` builds with ours), with `flags`, once per session
    (compile_cached); skips the test without the wheel."""
    include = reference_include_dir()
    if include is None:
        pytest.skip("apache-tvm-ffi is not installed")
    cmd = ["g++", "-std=c++17", "-O1", "-shared", "-fPIC", "-isystem", include, *flags, src]
    proc = compile_cached([*cmd, "-o", lib], lib)
    assert proc.returncode == 0, proc.stderr
    return lib


#: Skips a test without the reference wheel's headers.
needs_reference_headers = pytest.mark.skipif(
    reference_include_dir() is None, reason="the reference package is not installed"
)


def build(prefix, headers, out_dir, src=REFLECTION_LIB_SRC, prefix_macro="REFL_LIB_PREFIX"):
    """`src` built with `headers` (OURS or REFERENCE) into ``out_dir/<source>_<prefix>.so``,
    `prefix_macro` naming the copy `prefix`."""
    name = f"{os.path.splitext(os.path.basename(src))[0]}_{prefix}"
    define = f'-D{prefix_macro}="{prefix}"'
    if headers == OURS:
        return build_kernel(src, out_dir, define, name=name)
    lib = os.path.join(out_dir, name + ".so")
    return build_with_reference_headers(src, lib, "-Wall", "-Wextra", define)


def build_with_both_headers(src, prefixes, prefix_macro, out_dir):
    """`src` built with our headers (as `prefixes[0]`) and, when the wheel is installed, with the
    reference's (as `prefixes[1]`): {prefix: library path}."""
    headers = {prefixes[0]: OURS}
    if reference_include_dir() is not None:
        headers[prefixes[1]] = REFERENCE
    return {
        prefix: build(prefix, kind, out_dir, src=src, prefix_macro=prefix_macro)
        for prefix, kind in headers.items()
    }


# Libraries built_copy made in this process: a module fixture set up again (xdist may interleave
# modules) must load the same file, since a second copy of a library would register its types
# again.
_built = {}


def built_copy(copy, copies, src, prefix_macro, tmp_path_factory):
    """The library `copy` (one of `copies`: [ours, reference]) of `src`, built with our headers
    or with the reference's (as build_with_both_headers does, one copy at a time, once per
    process), for a fixture parametrized by those names; the reference's copy skips the test
    without the wheel."""
    key = (src, copy, prefix_macro)
    if key in _built:
        return _built[key]
    headers = OURS if copy == copies[0] else REFERENCE
    if headers == REFERENCE and reference_include_dir() is None:
        pytest.skip("the reference package is not installed")
    out = str(tmp_path_factory.mktemp(copy))
    _built[key] = build(copy, headers, out, src=src, prefix_macro=prefix_macro)
    return _built[key]
