"""Loading libraries through ``ffi.load_module``: what the loader refuses and how.

The libraries are the C++ tests' (``tests/cpp/loader/*.cc``), built here with ``g++`` and nothing
but ``python -m ffi.config --cflags``. Bad paths raise ValueError; files that are not loadable
libraries, and libraries that cannot be linked or initialised, raise RuntimeError naming the path
and the reason. The process lives on after every case.
"""

import os
import subprocess
import sys
import textwrap

import pytest
from support.build import build_kernel, build_with_reference_headers
from support.paths import TESTS_DIR

import ffi

LOADER_SOURCES = os.path.join(os.path.dirname(TESTS_DIR), "cpp", "loader")


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    """Builds tests/cpp/loader/<name>.cc once per module; returns the library's path."""
    out = str(tmp_path_factory.mktemp("loader"))
    built = {}

    def get(name):
        if name not in built:
            built[name] = build_kernel(os.path.join(LOADER_SOURCES, name + ".cc"), out)
        return built[name]

    return get


def test_data_symbols_are_refused_by_name(build):
    mod = ffi.load_module(build("data_symbol"))
    assert mod.ok(4) == 7
    # Only code is listed; the variables named like functions are not attributes.
    assert "x" not in dir(mod) and "tls" not in dir(mod)
    with pytest.raises(AttributeError, match=r"symbol `__tvm_ffi_x` is a data object"):
        mod["x"]
    with pytest.raises(AttributeError, match=r"`__tvm_ffi_tls` is a thread-local variable"):
        mod.get_function("tls", allow_missing=True)
    with pytest.raises(AttributeError, match="data_symbol.so"):
        mod.get_function("x")


def test_undefined_symbol_fails_the_load_naming_it(build):
    path = build("undefined_symbol")
    with pytest.raises(RuntimeError, match="ffi_loader_test_never_defined") as info:
        ffi.load_module(path)
    assert path in str(info.value)


def test_path_with_nul_is_value_error(build):
    path = build("data_symbol")
    with pytest.raises(ValueError, match="NUL"):
        ffi.load_module(path + "\0.txt")
    with pytest.raises(ValueError, match="empty"):
        ffi.load_module("")


def test_missing_file_directory_and_device_are_refused(tmp_path):
    missing = str(tmp_path / "no_such_library.so")
    with pytest.raises(RuntimeError, match="does not exist") as info:
        ffi.load_module(missing)
    assert missing in str(info.value)
    with pytest.raises(RuntimeError, match="is a directory") as info:
        ffi.load_module(tmp_path)
    assert str(tmp_path) in str(info.value)
    with pytest.raises(RuntimeError, match="not a regular file"):
        ffi.load_module("/dev/null")
    # A FIFO would block dlopen forever.
    fifo = str(tmp_path / "fifo.so")
    os.mkfifo(fifo)
    with pytest.raises(RuntimeError, match="not a regular file"):
        ffi.load_module(fifo)


def test_non_elf_and_truncated_files_are_refused(build, tmp_path):
    text = tmp_path / "text.so"
    text.write_text("this is not a shared library\n")
    with pytest.raises(RuntimeError, match="not an ELF file") as info:
        ffi.load_module(text)
    assert str(text) in str(info.value)

    data = open(build("data_symbol"), "rb").read()
    # glibc maps a truncated library's missing pages: without the loader's check the process dies
    # of SIGBUS inside dlopen.
    for n in [0, 5, 63, 64, 500, 4096, len(data) // 3, len(data) // 2]:
        cut = tmp_path / f"cut_{n}.so"
        cut.write_bytes(data[:n])
        with pytest.raises(RuntimeError, match="Cannot load module") as info:
            ffi.load_module(cut)
        assert str(cut) in str(info.value)


def test_duplicate_registration_in_static_init_fails_the_load(build):
    ffi.register_global_func("ffi_loader_test.dup", lambda: 100)
    try:
        path = build("duplicate_global")
        with pytest.raises(RuntimeError, match=r"`ffi_loader_test\.dup` is already registered"):
            ffi.load_module(path)
        # The process lives, the host's function stays, and a second load fails alike.
        assert ffi.get_global_func("ffi_loader_test.dup")() == 100
        with pytest.raises(RuntimeError, match=r"`ffi_loader_test\.dup` is already registered"):
            ffi.load_module(path)
    finally:
        ffi.remove_global_func("ffi_loader_test.dup")


def test_duplicate_registration_by_a_reference_built_library(tmp_path):
    # The reference's headers throw from the static initializer when registration fails, which
    # would terminate the process; through our loader it is a load error.
    src = os.path.join(LOADER_SOURCES, "duplicate_global_reference.cc")
    lib = build_with_reference_headers(src, str(tmp_path / "duplicate_global_reference.so"))
    ffi.register_global_func("ffi_loader_test.reference_dup", lambda: 100)
    try:
        with pytest.raises(RuntimeError, match=r"`ffi_loader_test\.reference_dup` is already"):
            ffi.load_module(lib)
        assert ffi.get_global_func("ffi_loader_test.reference_dup")() == 100
    finally:
        ffi.remove_global_func("ffi_loader_test.reference_dup")


def _run_python(code):
    """Runs `code` in a fresh interpreter; returns the completed process."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120
    )


def test_interpreter_exit_with_errors_left_behind(build):
    # An error left in the main thread's raised-error slot and in a finished thread's, and a
    # library's static holding an error and a Python callback: the interpreter exits cleanly.
    proc = _run_python(
        f"""
        import ctypes, threading
        import ffi
        runtime = ctypes.CDLL(None)
        raise_c = runtime.TVMFFIErrorSetRaisedFromCStr
        raise_c.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
        t = threading.Thread(target=lambda: raise_c(b"ValueError", b"left by a thread"))
        t.start(); t.join()
        raise_c(b"ValueError", b"left in the main thread")
        mod = ffi.load_module({build("exit_kernels")!r})
        mod.keep(lambda x: x)
        print("done")
        """
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "done\n"


def test_interpreter_exit_with_a_python_exception_kept_by_a_library(build):
    # The kept error carries the Python exception the callback raised; the library's static and
    # the main thread's slot release it only as the process exits, after the interpreter is gone.
    proc = _run_python(
        f"""
        import ffi
        mod = ffi.load_module({build("exit_kernels")!r})
        def fail():
            raise KeyError("from Python")
        mod.keep_callback_error(fail)
        print("done")
        """
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "done\n"


def test_exports_named_like_module_members(tmp_path):
    """Module members win over exports of the same name, as in the reference; the exports stay
    reachable by item and get_function (a library exporting `get_function` failed to load).
    Members the reference's Module lacks (`path`, `type_key`, `type_index`) give way to the
    export, so that `mod.path(...)` calls the library's function as there."""
    path = build_kernel(
        os.path.join(TESTS_DIR, "kernels", "member_names_kernels.cc"), str(tmp_path)
    )
    mod = ffi.load_module(path, keep_module_alive=False)
    assert mod.twice(21) == 42
    assert mod.same_as(mod) and not mod.same_as(ffi.system_lib())
    assert mod.path(1) == 2 and mod.type_key(1) == 2 and mod.type_index(1) == 3
    assert repr(mod) == f"<ffi.Module {path!r}>" and mod.entry_name == "main"
    plain = ffi.load_module(
        build_kernel(os.path.join(TESTS_DIR, "kernels", "py_kernels.cc"), str(tmp_path))
    )
    assert plain.path.endswith("py_kernels.so") and plain.type_key == "ffi.Module"
    assert plain.type_index >= 64  # an object type's index
    with pytest.raises(AttributeError, match="has no function `nothing`"):
        _ = mod.nothing
    assert mod.implements_function("twice") and not mod.implements_function("nothing")
    assert mod.get_function("get_function")(1) == 5
    assert mod["get_function"](1) == 5 and mod["path"](1) == 2 and mod["same_as"](1) == 4
    assert mod["implements_function"](1) == 3
    assert "twice" in mod and "path" in mod and "nothing" not in mod and 1 not in mod
    with pytest.raises(TypeError, match="a function name is a str, not `int`"):
        mod.get_function(1)
    with pytest.raises(TypeError, match="a function name is a str"):
        mod[1]
