"""Errors in both directions and Python callbacks crossing C++."""

import gc
import traceback
import weakref

import pytest

import ffi

# Run again against the AddressSanitizer build (tests/run_all.sh python-asan).
pytestmark = pytest.mark.sanitized


@pytest.mark.parametrize(
    "kind, exc",
    [
        ("ValueError", ValueError),
        ("TypeError", TypeError),
        ("KeyError", KeyError),
        ("IndexError", IndexError),
        ("AttributeError", AttributeError),
        ("RuntimeError", RuntimeError),
        ("NotImplementedError", NotImplementedError),
        ("InternalError", RuntimeError),
        ("SomethingUnknown", RuntimeError),
    ],
)
def test_cpp_error_kinds_map_to_python_exceptions(mod, kind, exc):
    with pytest.raises(exc) as info:
        mod.fail(kind, "the message")
    message = info.value.args[0]
    assert message == "the message"


def test_cpp_frames_are_shown(mod):
    with pytest.raises(ValueError) as info:
        mod.fail("ValueError", "boom")
    notes = "".join(getattr(info.value, "__notes__", []))
    assert notes.startswith("C++ traceback (most recent call last):")
    assert "py_kernels.cc" in notes
    text = "".join(traceback.format_exception(info.type, info.value, info.tb))
    assert "ValueError: boom" in text


def test_exception_holds_its_ffi_error(mod):
    # As in the reference, e.__tvm_ffi_error__ is the ffi.Error the exception was made from.
    with pytest.raises(ValueError) as info:
        mod.fail("ValueError", "boom")
    err = info.value.__tvm_ffi_error__
    assert isinstance(err, ffi.Error)
    assert (err.kind, err.message) == ("ValueError", "boom") and "Fail" in err.backtrace


def _raise_in_python():
    raise KeyError("from python")


def test_converted_exception_keeps_python_frames(mod):
    # An exception raised in Python becomes an Error whose backtrace names its Python frames,
    # innermost first.
    try:
        _raise_in_python()
    except KeyError as e:
        err = ffi.convert(e)
    lines = err.backtrace.splitlines()
    assert err.kind == "KeyError" and "_raise_in_python" in lines[0]
    assert "test_converted_exception_keeps_python_frames" in lines[1]

    # One made from a C++ error keeps the C++ frames, then adds the Python frames it passed.
    def call_cpp():
        mod.fail("ValueError", "boom")

    try:
        call_cpp()
    except ValueError as e:
        assert "call_cpp" not in e.__tvm_ffi_error__.backtrace
        for again in (ffi.convert(e), mod.echo(e)):
            bt = again.backtrace
            assert "Fail" in bt and "call_cpp" in bt and bt.index("Fail") < bt.index("call_cpp")


def test_registered_error_kind():
    @ffi.register_error
    class MyKernelError(Exception):
        pass

    f = ffi.get_global_func("ffi.Module.load_from_file.so")  # any function raising through the ABI
    assert f is not None

    class Other(Exception):
        pass

    ffi.register_error("OtherKind", Other)


def test_registered_error_kind_arrives(mod):
    class MyError(Exception):
        pass

    ffi.register_error("MyError", MyError)
    with pytest.raises(MyError, match="custom"):
        mod.fail("MyError", "custom")


def test_python_callback_called_from_cpp(mod):
    assert mod.call_with(lambda x: x * 3, 5) == 15
    assert mod.call_with(lambda s: s.upper(), "abc") == "ABC"


def test_python_exception_crosses_cpp_unchanged(mod):
    class Special(Exception):
        pass

    err = Special("from python")

    def raiser(_):
        raise err

    with pytest.raises(Special) as info:
        mod.call_with(raiser, 1)
    assert info.value is err


def test_python_exception_in_global_callback_called_by_cpp(mod):
    def bad(x):
        return 1 / x

    with pytest.raises(ZeroDivisionError):
        mod.call_with(bad, 0)


def test_callback_returning_unconvertible_value(mod):
    class BadPointer:
        def __tvm_ffi_opaque_ptr__(self):
            return "not an int"

    with pytest.raises(TypeError, match=r"__tvm_ffi_opaque_ptr__\(\) must return an int"):
        mod.call_with(lambda _: BadPointer(), 1)
    token = object()  # other objects come back through C++ as themselves
    assert mod.call_with(lambda _: token, 1) is token


def test_functions_returned_to_python_are_callable(mod):
    f = ffi.convert(lambda a: a + 1)
    g = mod.echo(f)
    assert isinstance(g, ffi.Function)
    assert g(1) == 2


def test_exception_converted_to_a_value_in_its_own_handler_is_collected():
    # `r` sits in the frame the exception's traceback holds: were the exception kept inside the
    # error value, that cycle would run through C++ and never be collected.
    class Tracked(Exception):
        pass

    refs = []

    def handler():
        try:
            raise Tracked("kept?")
        except Tracked as e:
            refs.append(weakref.ref(e))
            r = ffi.convert(e)
            assert r.kind == "Tracked" and r.message == "kept?"

    handler()
    gc.collect()
    assert refs[0]() is None
