"""Building the libraries tests load: with our headers, with the reference wheel's, and once per
session for all pytest-xdist workers (compile_cached)."""

import fcntl
import hashlib
import importlib.metadata
import json
import os
import shlex
import shutil
import subprocess
import sys

import pytest

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


def build_kernel(src: str, out_dir: str) -> str:
    """`src` built with our headers alone (``python -m ffi.config --cflags``), warnings as errors,
    into `out_dir`; the library's path."""
    lib = os.path.join(out_dir, os.path.splitext(os.path.basename(src))[0] + ".so")
    cflags = shlex.split(
        subprocess.check_output([sys.executable, "-m", "ffi.config", "--cflags"], text=True)
    )
    warnings = ["-Wall", "-Wextra", "-Werror"]
    cmd = ["g++", "-std=c++17", "-O1", "-shared", "-fPIC", *warnings, *cflags, src, "-o", lib]
    proc = compile_cached(cmd, lib)
    assert proc.returncode == 0, proc.stderr
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
    """`src` built with the reference wheel's headers (and `flags`) into `lib`; skips the test
    without the wheel."""
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


def build(prefix, include_flags, out_dir, src=REFLECTION_LIB_SRC, prefix_macro="REFL_LIB_PREFIX"):
    """Builds `src` with `include_flags`, `prefix_macro` naming the copy `prefix`."""
    name = os.path.splitext(os.path.basename(src))[0]
    lib = os.path.join(out_dir, f"{name}_{prefix}.so")
    cmd = ["g++", "-std=c++17", "-O1", "-shared", "-fPIC", "-Wall", "-Wextra", *include_flags,
           f'-D{prefix_macro}="{prefix}"', src, "-o", lib]  # fmt: skip
    proc = compile_cached(cmd, lib)
    assert proc.returncode == 0, proc.stderr
    return lib


def build_with_both_headers(src, prefixes, prefix_macro, out_dir):
    """`src` built with our headers (as `prefixes[0]`, warnings as errors) and, when the wheel is
    installed, with the reference's (as `prefixes[1]`): {prefix: library path}."""
    import ffi.libinfo

    includes = {prefixes[0]: ["-I", ffi.libinfo.get_include_dir(), "-Werror"]}
    if reference_include_dir() is not None:
        includes[prefixes[1]] = ["-isystem", reference_include_dir()]
    return {
        prefix: build(prefix, flags, out_dir, src=src, prefix_macro=prefix_macro)
        for prefix, flags in includes.items()
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
    import ffi.libinfo

    key = (src, copy, prefix_macro)
    if key in _built:
        return _built[key]
    if copy == copies[0]:
        flags = ["-I", ffi.libinfo.get_include_dir(), "-Werror"]
    elif reference_include_dir() is None:
        pytest.skip("the reference package is not installed")
    else:
        flags = ["-isystem", reference_include_dir()]
    out = str(tmp_path_factory.mktemp(copy))
    _built[key] = build(copy, flags, out, src=src, prefix_macro=prefix_macro)
    return _built[key]
