"""A kernel library written in Rust (rust/test-kernels, exported with ``#[ffi::export]``) called
from Python on our runtime: loading, tensors written in place, signatures and keywords from the
exports' metadata, doc comments, errors and panics in both directions, Python callbacks, and
calls from many threads at once."""

import gc
import inspect
import os
import sys

import numpy as np
import pytest
from support.threads import run_in_threads

import ffi


class CallbackError(Exception):
    """An exception class of the test's own: nothing maps an error kind to it by name."""


# Loading and tensors.


def test_load_module_lists_the_exports(rust_mod, rust_kernels_path):
    """``ffi.load_module`` loads the cdylib: every export is a function, the renamed one only under
    its export name."""
    assert isinstance(rust_mod, ffi.Module)
    assert os.path.samefile(rust_mod.path, rust_kernels_path)
    for name in ("add_one", "scale", "concat", "fail", "panics", "call_back", "echo"):
        assert name in rust_mod and isinstance(rust_mod[name], ffi.Function), name
    assert "concat_strings" not in rust_mod
    with pytest.raises(AttributeError, match="has no function `missing`"):
        rust_mod.missing  # noqa: B018 - the lookup is what is tested


@pytest.mark.parametrize(
    "shape",
    [
        (5,),
        (2, 3),
        (2, 3, 4),
        (1, 7, 1, 2),
        (),
        (0,),  # NumPy gives empty arrays zero strides: contiguous all the same, as in C++
        (3, 0),
    ],
)
def test_add_one_writes_numpy_output_in_place(rust_mod, shape):
    """``add_one(x, y)`` reads x and writes y, a NumPy array the kernel borrows (no copy): the
    caller's own array holds the result, whatever the shape, scalar and empty ones included."""
    x = (np.arange(int(np.prod(shape)), dtype=np.float32) * 1.5).reshape(shape)
    y = np.full(shape, -1.0, dtype=np.float32)
    before = x.copy()
    address = y.ctypes.data
    assert rust_mod.add_one(x, y) is None
    np.testing.assert_array_equal(y, x + 1)
    np.testing.assert_array_equal(x, before)  # the input is only read
    assert y.ctypes.data == address


def test_add_one_into_a_view_writes_the_base_array(rust_mod):
    """A contiguous slice of a larger array is written in place: the base array sees it."""
    base = np.zeros((4, 3), dtype=np.float32)
    rust_mod.add_one(np.ones((2, 3), dtype=np.float32), base[1:3])
    np.testing.assert_array_equal(base, [[0, 0, 0], [2, 2, 2], [2, 2, 2], [0, 0, 0]])


def test_add_one_wrong_dtype_is_a_type_error(rust_mod):
    """An input of another dtype: the kernel's ``as_slice::<f32>()`` refuses it with a
    ``TypeError`` naming both dtypes; the output is left alone."""
    y = np.zeros(3, dtype=np.float32)
    with pytest.raises(TypeError, match="the tensor holds float64 elements, not float32"):
        rust_mod.add_one(np.zeros(3, dtype=np.float64), y)
    with pytest.raises(TypeError, match="the tensor holds int32 elements, not float32"):
        rust_mod.add_one(np.zeros(3, dtype=np.float32), np.zeros(3, dtype=np.int32))
    assert not y.any()


def test_add_one_wrong_shape_is_a_value_error(rust_mod):
    """Shapes that differ: the kernel's own check (``ffi::ensure!``) with both shapes."""
    with pytest.raises(ValueError, match=r"shapes differ: \[2, 3\] and \[3, 2\]"):
        rust_mod.add_one(np.zeros((2, 3), np.float32), np.zeros((3, 2), np.float32))


def test_add_one_non_contiguous_is_a_value_error(rust_mod):
    """A strided view reaches the kernel as such (no copy): ``as_slice`` refuses it."""
    x = np.zeros((4, 6), np.float32)[:, ::2]
    with pytest.raises(ValueError, match="the tensor is not contiguous"):
        rust_mod.add_one(x, np.zeros((4, 3), np.float32))


@pytest.mark.parametrize("bad", [1, 2.5, "x", None, [1.0, 2.0]])
def test_add_one_non_tensor_argument_is_a_type_error(rust_mod, bad):
    """A non-tensor argument: the generated wrapper's ``TypeError`` names the function, the
    argument's position, the signature, and both types."""
    with pytest.raises(TypeError) as info:
        rust_mod.add_one(np.zeros(2, np.float32), bad)
    message = str(info.value)
    assert message.startswith(
        "Mismatched type on argument #1 when calling: `add_one(0: Tensor, 1: Tensor) -> void`."
    )
    assert "Expected `Tensor` but got `" in message


# Signatures, keywords and documentation.


def test_signature_names_the_rust_parameters(rust_mod):
    """The metadata the macro writes names the parameters: ``inspect.signature`` shows the Rust
    names and types, with None defaults for the trailing ``Option`` parameters."""
    sig = inspect.signature(rust_mod.add_one)
    assert list(sig.parameters) == ["x", "y"]
    assert [p.annotation for p in sig.parameters.values()] == ["Tensor", "Tensor"]
    assert sig.return_annotation == "void"
    scale = inspect.signature(rust_mod.scale)
    assert str(scale) == "(x: 'float', factor: 'Optional<float>' = None) -> 'float'"
    assert str(inspect.signature(rust_mod.concat)) == "(a: 'str', b: 'str') -> 'str'"
    meta = rust_mod.get_function_metadata("make_tensor")
    assert meta["arg_names"] == ["n", "like"] and meta["arg_defaults"] == {"like": None}


def test_keyword_calls_and_omitted_options(rust_mod):
    """Keywords by the Rust parameter names; trailing ``Option`` parameters may be left out and
    arrive as None (``scale``'s factor then defaults to 2 in Rust)."""
    assert rust_mod.scale(x=1.5) == 3.0
    assert rust_mod.scale(1.5) == 3.0
    assert rust_mod.scale(1.5, None) == 3.0
    assert rust_mod.scale(1.5, factor=3.0) == 4.5
    assert rust_mod.scale(factor=-1.0, x=2.0) == -2.0
    assert rust_mod.concat(b="world", a="hello ") == "hello world"
    x, y = np.ones(2, np.float32), np.zeros(2, np.float32)
    rust_mod.add_one(y=y, x=x)
    assert y.tolist() == [2.0, 2.0]


def test_keyword_mistakes_are_type_errors(rust_mod):
    """Unknown, repeated and missing arguments are refused before the call, as Python's own."""
    with pytest.raises(TypeError, match="unexpected keyword argument 'alpha'"):
        rust_mod.scale(1.0, alpha=2.0)
    with pytest.raises(TypeError, match="multiple values for argument 'x'"):
        rust_mod.scale(1.0, x=2.0)
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'y'"):
        rust_mod.add_one(x=np.zeros(1, np.float32))
    with pytest.raises(TypeError, match="from 1 to 2 positional arguments but 3 were given"):
        rust_mod.scale(1.0, 2.0, 3.0)


def test_rust_checks_the_argument_count_itself(rust_mod):
    """Called from Rust (no Python signature in between), the export's own check fills an
    omitted ``Option`` with None and refuses too few arguments with the C++-style message."""
    assert rust_mod.call_back(rust_mod.scale, 1.5) == 3.0
    assert rust_mod.catch_error(rust_mod.scale) == (
        "TypeError: Mismatched number of arguments when calling: "
        "`scale(0: float, 1: Optional<float>) -> float`. Expected 1 to 2 but got 0 arguments"
    )


def test_doc_comments_are_the_functions_docs(rust_mod):
    """``///`` comments become the export's documentation, verbatim."""
    assert (
        rust_mod.get_function_doc("add_one")
        == "Adds one to every element of `x`, writing into `y` (float32, CPU)."
    )
    assert rust_mod.get_function_doc("concat").startswith("Concatenates two strings")
    assert rust_mod.get_function_doc("missing") is None


def test_doc_comments_keep_backslashes_and_paragraphs(rust_mod):
    """A multi-line doc comment keeps its paragraphs, quotes, non-ASCII text and backslash
    sequences exactly as written in the source."""
    assert rust_mod.get_function_doc("count_lines") == (
        'Counts the lines of `text`, which end at "\\n" (a backslash and an `n` in this comment).'
        "\n\n"
        'A second paragraph: \u2018quotes\u2019, "double quotes", a backslash \\ and a tab\\t '
        "escape, kept as\nwritten."
    )


# Errors and panics.


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
        ("OverflowError", OverflowError),
        ("SomethingUnknown", RuntimeError),
    ],
)
def test_rust_error_kinds_raise_python_exceptions(rust_mod, kind, exc):
    """``Err(ffi::Error::new(kind, message))`` raises the exception of that kind (RuntimeError
    for a kind Python does not know) with the message as its only argument."""
    with pytest.raises(exc) as info:
        rust_mod.fail(kind, "the message from Rust")
    assert type(info.value) is exc
    assert info.value.args == ("the message from Rust",)
    err = info.value.__tvm_ffi_error__
    assert (err.kind, err.message) == (kind, "the message from Rust")
    assert "__tvm_ffi_fail" in err.backtrace  # the Rust frames: the export's symbol at least


def test_registered_error_kind_raises_its_class(rust_mod):
    """A kind registered with ``ffi.register_error`` raises the registered class."""

    class RustKernelTestError(Exception):
        pass

    ffi.register_error("RustKernelTestError", RustKernelTestError)
    with pytest.raises(RustKernelTestError, match="custom kind"):
        rust_mod.fail("RustKernelTestError", "custom kind")


def test_question_mark_and_checked_errors(rust_mod):
    """Errors a kernel makes with ``?`` and ``ok_or_else`` arrive with their kinds."""
    with pytest.raises(OverflowError, match=r"9223372036854775807 \+ 1 overflows"):
        rust_mod.add_i64(2**63 - 1, 1)
    with pytest.raises(ValueError, match="1 keys but 2 values"):
        rust_mod.make_map(["a"], [1, 2])


def test_panic_is_a_runtime_error_and_the_process_survives(rust_mod):
    """A panic never unwinds into the caller: each becomes a RuntimeError carrying the panic's
    message, and the library keeps working after many."""
    for i in range(25):
        with pytest.raises(RuntimeError) as info:
            rust_mod.panics(f"panic number {i} \u2603")
        assert str(info.value) == f"Rust panic: panic number {i} \u2603"
        assert rust_mod.scale(float(i)) == 2.0 * i


def test_panic_with_a_non_string_payload(rust_mod):
    """``panic_any(42)``: there is no message to carry, the error says so."""
    with pytest.raises(RuntimeError, match="Rust panic: a panic with a non-string payload"):
        rust_mod.panics_with_code(42)


def test_panic_in_a_rust_closure(rust_mod):
    """A closure ``Function::from_typed`` made panics: the caller gets a RuntimeError too."""
    f = rust_mod.make_panicker("from the closure")
    for _ in range(3):
        with pytest.raises(RuntimeError, match="Rust panic: from the closure"):
            f()


def test_closures_made_in_rust(rust_mod):
    """A function made in Rust is called from Python, checks its arguments like an export, and is
    dropped (its closure with it) exactly when Python lets it go."""
    base = rust_mod.live_closures()
    add = rust_mod.make_adder(10)
    assert isinstance(add, ffi.Function)
    assert rust_mod.live_closures() == base + 1
    assert add(5) == 15 and add(-10) == 0
    assert rust_mod.call_back(add, 1) == 11  # and from Rust, through the ABI
    with pytest.raises(TypeError, match=r"argument #0 .*Expected `int` but got `str`"):
        add("x")
    with pytest.raises(TypeError, match="Expected 1 but got 0 arguments"):
        add()
    del add
    gc.collect()
    assert rust_mod.live_closures() == base


# Python callbacks called by Rust.


def test_callback_result_and_arguments(rust_mod):
    """Rust calls a Python function with a value and returns what it returned."""
    seen = []

    def record(value):
        seen.append(value)
        return [value, "from python"]

    marker = object()
    result = rust_mod.call_back(record, marker)
    assert seen == [marker] and seen[0] is marker
    assert result[0] is marker and result[1] == "from python"
    assert rust_mod.call_back(lambda v: v * 2, 21) == 42
    assert rust_mod.call_back(lambda v: None, 1) is None


def test_callback_exception_arrives_unchanged(rust_mod):
    """A Python exception raised in a callback crosses Rust (``f.call(..)?``) unchanged: the same
    object, of the same class, with its Python traceback."""
    error = CallbackError("raised in Python")

    def callback(value):
        raise error

    with pytest.raises(CallbackError) as info:
        rust_mod.call_back(callback, 1)
    assert info.value is error
    assert info.value.__traceback__ is not None
    with pytest.raises(KeyError) as info:
        rust_mod.call_back({}.__getitem__, "absent")
    assert info.value.args == ("absent",)


def test_callback_into_a_panicking_kernel(rust_mod):
    """Rust calls Python, which calls a panicking Rust kernel: the panic's RuntimeError crosses
    both languages back to the outer caller."""
    with pytest.raises(RuntimeError, match="Rust panic: nested"):
        rust_mod.call_back(rust_mod.panics, "nested")
    with pytest.raises(RuntimeError, match="Rust panic: nested twice"):
        rust_mod.call_back(lambda v: rust_mod.panics(v), "nested twice")


def test_rust_sees_the_callbacks_error_and_can_handle_it(rust_mod):
    """Rust receives a Python exception as an ``Err`` with the exception's kind and message, and
    may handle it: the call then returns normally, with no exception left pending."""

    def fails():
        raise ValueError("bad input")

    assert rust_mod.catch_error(fails) == "ValueError: bad input"
    assert sys.exc_info() == (None, None, None)
    assert rust_mod.catch_error(lambda: 1) == "ok"
    assert rust_mod.catch_error(lambda: rust_mod.fail("IndexError", "deep")) == "IndexError: deep"


# Threads.


def test_many_threads_call_rust_kernels(rust_mod):
    """Threads call kernels at once, among them ones that fail, panic and call back into Python:
    each gets its own results and errors."""
    base_live = rust_mod.live_buffers()[0]

    def work(t):
        for k in range(12):
            x = np.full((3, t + 1), k, np.float32)
            y = np.empty_like(x)
            rust_mod.add_one(x, y)
            assert (y == k + 1).all()
            assert rust_mod.concat(f"thread {t}", f" step {k}") == f"thread {t} step {k}"
            assert rust_mod.sum_list(list(range(t + k))) == sum(range(t + k))
            assert rust_mod.call_back(lambda v: v + t, k) == k + t
            assert np.from_dlpack(rust_mod.make_tensor(k)).tolist() == list(range(k))
            with pytest.raises(ValueError) as info:
                rust_mod.fail("ValueError", f"thread {t} step {k}")
            assert info.value.args == (f"thread {t} step {k}",)
            if k % 5 == 0:
                with pytest.raises(RuntimeError) as info:
                    rust_mod.panics(f"thread {t} step {k}")
                assert str(info.value) == f"Rust panic: thread {t} step {k}"

    run_in_threads(work, 8)
    gc.collect()
    assert rust_mod.live_buffers()[0] == base_live


def test_an_output_sharing_an_inputs_memory_is_refused(rust_mod):
    """A Rust kernel writes its ``mut`` tensor only when no other argument shares its memory:
    ``add_one(x, x)`` and overlapping slices raise ValueError, and nothing is written."""
    x = np.arange(6, dtype=np.float32)
    with pytest.raises(
        ValueError, match="argument #1 is written and shares memory with argument #0"
    ):
        rust_mod.add_one(x, x)
    with pytest.raises(ValueError, match="shares memory"):
        rust_mod.add_one(x[:4], x[2:])
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    y = np.zeros(3, dtype=np.float32)
    rust_mod.add_one(x[:3], y)  # disjoint views of different arrays are fine
    rust_mod.add_one(x[:3], x[3:])  # and so are disjoint parts of one array
    assert x.tolist() == [0.0, 1.0, 2.0, 1.0, 2.0, 3.0]
