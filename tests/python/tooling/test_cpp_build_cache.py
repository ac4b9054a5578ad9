"""ffi.cpp's cache: content-named libraries, checksums, what the key covers, concurrent builders.

Every library here returns a constant, so a test can tell which source's code a loaded module
runs; several sources share one `name` to catch a loader handing back an older library.
"""

import fcntl
import os
import shutil
import stat
import subprocess
import sys
import textwrap
import threading

import pytest

import ffi
import ffi.cpp
from ffi.cpp import _build


def source(value: int) -> str:
    return f"int64_t value() {{ return {value}; }}\n"


def load(value: int, **kw) -> ffi.Module:
    kw.setdefault("name", "kernel")
    return ffi.cpp.load_inline(cpp_sources=source(value), functions=["value"], **kw)


def build(value: int, **kw) -> str:
    kw.setdefault("name", "kernel")
    return ffi.cpp.build_inline(cpp_sources=source(value), functions=["value"], **kw)


@pytest.fixture(autouse=True)
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("FFI_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_a_hit_returns_the_same_file_without_building(cache_dir):
    first = build(1)
    mtime = os.stat(first).st_mtime_ns
    assert build(1) == first and os.stat(first).st_mtime_ns == mtime
    assert os.path.dirname(first) == str(cache_dir / "kernel")


@pytest.mark.parametrize("where", ["cache", "build_directory"])
def test_new_source_runs_new_code_under_one_name(where, tmp_path):
    kw = {"build_directory": tmp_path / "out"} if where == "build_directory" else {}
    a = load(1, **kw)
    assert a.value() == 1
    b = load(2, **kw)
    assert b.value() == 2 and b.path != a.path
    assert load(1, **kw).value() == 1  # and back: A's library is found and is still A's
    assert load(2, **kw).value() == 2
    assert a.value() == 1  # the first module still runs its own code


def test_new_source_in_another_build_directory(tmp_path):
    assert load(1, build_directory=tmp_path / "one").value() == 1
    assert load(2, build_directory=tmp_path / "two").value() == 2
    assert load(3).value() == 3  # and in the default cache


def _corrupt_truncate(path):
    os.truncate(path, os.path.getsize(path) // 2)


def _corrupt_flip(path):
    with open(path, "r+b") as f:
        f.seek(os.path.getsize(path) // 2)
        byte = f.read(1)
        f.seek(-1, os.SEEK_CUR)
        f.write(bytes([byte[0] ^ 0xFF]))


def _corrupt_empty(path):
    open(path, "wb").close()


def _lose_checksum(path):
    os.unlink(path + ".sha256")


def _garble_checksum(path):
    with open(path + ".sha256", "w") as f:
        f.write("not a checksum\n")


@pytest.mark.parametrize(
    "corrupt", [_corrupt_truncate, _corrupt_flip, _corrupt_empty, _lose_checksum, _garble_checksum]
)
def test_a_damaged_library_is_rebuilt_not_loaded(corrupt):
    lib = build(7)  # built, never loaded in this process
    with open(lib, "rb") as f:
        good = f.read()
    corrupt(lib)
    mod = load(7)
    assert mod.path == lib and mod.value() == 7
    with open(lib, "rb") as f:
        assert f.read() == good  # the compiler is deterministic: the same bytes again
    assert _build._verified(lib)


def test_another_valid_library_in_its_place_is_refused():
    """A well-formed library whose bytes are not the recorded ones is not loaded either."""
    victim = build(8)
    other = build(9)
    os.replace(other, victim)  # every byte a valid library, but another one
    assert load(8).value() == 8


def test_a_library_dir_that_cannot_be_installed_is_an_error(tmp_path):
    out = tmp_path / "out"
    lib = build(5, build_directory=out)
    os.unlink(lib)
    os.mkdir(lib)  # a directory where the library belongs: no rename can replace it
    with pytest.raises(OSError):
        build(5, build_directory=out)
    assert load(6, build_directory=out).value() == 6  # the directory still works for others


def _fake_compiler(path, version):
    """A script that claims `version` and runs the real compiler (c++ on PATH)."""
    real = shutil.which("c++")
    path.write_text(
        f'#!/bin/sh\nif [ "$1" = --version ]; then echo "{version}"; exit 0; fi\n'
        f'exec "{real}" "$@"\n'
    )
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def test_the_key_covers_the_compiler_path_and_version(monkeypatch, tmp_path):
    default = build(1)  # with the caller's $CXX, if any
    first, second = tmp_path / "cxx1", tmp_path / "cxx2"
    _fake_compiler(first, "fake 1.0")
    _fake_compiler(second, "fake 1.0")
    with monkeypatch.context() as env:
        env.setenv("CXX", str(first))
        with_first = build(1)
        env.setenv("CXX", str(second))
        with_second = build(1)  # same version text, another path
        _fake_compiler(second, "fake 2.0-with-a-longer-name")
        upgraded = build(1)  # same path, another version (seen although --version is cached)
        assert len({default, with_first, with_second, upgraded}) == 4
        env.setenv("CXX", f"{first} -DTHROUGH_CXX=1")  # $CXX may carry arguments
        with_args = build(1)
        assert with_args not in {default, with_first} and load(1).value() == 1
    assert build(1) == default


def test_the_key_covers_every_flag_include_directory_and_source(monkeypatch, tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    base = build(1)
    variants = [
        build(2),
        build(1, extra_cflags=["-DFFI_TEST_A=1"]),
        build(1, extra_cflags=["-DFFI_TEST_A=2"]),
        build(1, extra_cflags=["-DFFI_TEST_A=1", "-DFFI_TEST_B"]),
        build(1, extra_cuda_cflags=["-DFFI_TEST_A=1"]),
        build(1, extra_ldflags=["-Wl,-z,now"]),
        build(1, extra_include_paths=[str(tmp_path / "a")]),
        build(1, extra_include_paths=[str(tmp_path / "b")]),
        build(1, extra_include_paths=[str(tmp_path / "a"), str(tmp_path / "b")]),
    ]
    with monkeypatch.context() as patch:
        patch.setattr(_build, "__version__", "999.0.0")
        variants.append(build(1))
    assert len({base, *variants}) == len(variants) + 1
    # A relative include directory is keyed by the directory it names, not its spelling.
    monkeypatch.chdir(tmp_path)
    assert build(1, extra_include_paths=["a"]) == variants[6]


def test_the_key_covers_the_files_given_to_build(tmp_path):
    src = tmp_path / "k.cc"
    text = "#include <ffi/ffi.h>\n{}FFI_DLL_EXPORT_TYPED_FUNC(value, value);\n"
    src.write_text(text.format(source(1)))
    first = ffi.cpp.build("files", cpp_files=[src])
    assert ffi.load_module(first).value() == 1
    src.write_text(text.format(source(2)))
    second = ffi.cpp.build("files", cpp_files=[src])
    assert second != first and ffi.load_module(second).value() == 2


@pytest.mark.parametrize("how", ["build", "inline"])
def test_the_key_covers_the_headers_the_sources_include(how, tmp_path):
    """Headers a source includes (found by the compiler's dependency output) name the library
    too: an edited header is a new library, running the new code in this very process; the old
    header again finds the old library without a build."""
    inc = tmp_path / "inc"
    inc.mkdir()
    header = inc / "value.h"
    src = tmp_path / "k.cc"
    body = '#include "value.h"\nint64_t value() { return VALUE; }\n'
    src.write_text("#include <ffi/ffi.h>\n" + body + "FFI_DLL_EXPORT_TYPED_FUNC(value, value);\n")

    def built() -> str:
        if how == "build":
            return ffi.cpp.build("hdr", cpp_files=[src], extra_include_paths=[str(inc)])
        return ffi.cpp.build_inline(
            "hdr_inline", cpp_sources=body, functions="value", extra_include_paths=[str(inc)]
        )

    header.write_text("#define VALUE 1\n")
    first = built()
    assert ffi.load_module(first).value() == 1
    mtime = os.stat(first).st_mtime_ns
    assert built() == first and os.stat(first).st_mtime_ns == mtime  # a hit: nothing built
    header.write_text("#define VALUE 2\n")
    second = built()
    assert second != first and ffi.load_module(second).value() == 2
    header.write_text("#define VALUE 1\n")
    assert built() == first and os.stat(first).st_mtime_ns == mtime


def test_a_file_edited_during_its_build_is_not_installed(monkeypatch, tmp_path):
    src = tmp_path / "k.cc"
    text = "#include <ffi/ffi.h>\n{}FFI_DLL_EXPORT_TYPED_FUNC(value, value);\n"
    src.write_text(text.format(source(1)))
    # A compiler that, the first time it compiles, finds the file edited under it.
    editing = tmp_path / "cxx"
    editing.write_text(
        f'#!/bin/sh\nif [ ! -e "{tmp_path}/edited" ] && [ "$1" != --version ]; then\n'
        f'  touch "{tmp_path}/edited"; echo "// edit" >> "{src}"\nfi\n'
        f'exec "{shutil.which("c++")}" "$@"\n'
    )
    editing.chmod(0o755)
    monkeypatch.setenv("CXX", str(editing))
    out = tmp_path / "out"
    with pytest.raises(ffi.cpp.BuildError, match="changed during the build"):
        ffi.cpp.build("edited", cpp_files=[src], build_directory=out)
    assert not list(out.glob("*.so*"))
    assert (
        ffi.load_module(ffi.cpp.build("edited", cpp_files=[src], build_directory=out)).value() == 1
    )


def test_threads_building_different_sources_under_one_name(tmp_path):
    count = 4
    results: dict[int, object] = {}
    barrier = threading.Barrier(count)

    def worker(i):
        try:
            barrier.wait()
            mod = load(100 + i, build_directory=tmp_path / "shared")
            results[i] = (mod.value(), mod.path)
        except BaseException as err:  # reported below, with the thread's index
            results[i] = err

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [results[i][0] for i in range(count)] == [100 + i for i in range(count)], results
    assert len({results[i][1] for i in range(count)}) == count


def test_threads_building_one_source_share_one_library(tmp_path):
    paths = []
    barrier = threading.Barrier(3)

    def worker():
        barrier.wait()
        paths.append(build(55, build_directory=tmp_path / "shared"))

    threads = [threading.Thread(target=worker) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(paths) == 3 and len(set(paths)) == 1
    assert ffi.load_module(paths[0]).value() == 55


PROCESS_CODE = textwrap.dedent(
    """
    import sys, ffi.cpp
    value, directory = int(sys.argv[1]), sys.argv[2] or None
    mod = ffi.cpp.load_inline(
        name="kernel",
        cpp_sources=f"int64_t value() {{ return {value}; }}\\n",
        functions=["value"],
        build_directory=directory,
    )
    print(mod.value(), mod.path)
    """
)


def _run_processes(values, directory, cache_dir):
    env = dict(os.environ, FFI_CACHE_DIR=str(cache_dir))
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", PROCESS_CODE, str(v), directory],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for v in values
    ]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0] * len(values), [err for _, err in outs]
    return [out.split() for out, _ in outs]


def test_processes_building_different_sources_under_one_name(tmp_path, cache_dir):
    values = [201, 202, 203, 204]
    results = _run_processes(values, str(tmp_path / "shared"), cache_dir)
    assert [int(value) for value, _ in results] == values
    assert len({path for _, path in results}) == len(values)


def test_processes_building_one_source_share_one_library(cache_dir):
    results = _run_processes([300] * 4, "", cache_dir)
    assert {value for value, _ in results} == {"300"}
    assert len({path for _, path in results}) == 1


def test_lock_wait_is_bounded(monkeypatch):
    lib = build(11)
    os.unlink(lib + ".sha256")  # so the next build must take the lock
    lock_path = os.path.join(os.path.dirname(lib), "." + os.path.basename(lib)[:-3] + ".lock")
    assert os.path.exists(lock_path)
    monkeypatch.setattr(_build, "_LOCK_TIMEOUT_S", 0.3)
    with open(lock_path, "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        with pytest.raises(TimeoutError, match="build lock"):
            build(11)
        # Another key is another lock: a different source builds while this one is held.
        assert load(12).value() == 12
    assert load(11).value() == 11  # once released, the build goes ahead
