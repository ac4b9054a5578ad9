"""No C++ exception may escape from the extension into CPython: one thrown inside a raw CPython
entry point (a type slot, a getter or setter, a METH_* function) or a C callback the runtime calls
(a Python callback's safe call) unwinds into C frames and ends in std::terminate. The headers throw
ffi::Error and std::bad_alloc; every entry point turns them into Python exceptions (MemoryError, or
the class registered for the error's kind).

Out-of-memory is what reaches most of them from Python: a child interpreter limits its address
space (RLIMIT_AS) just above what it uses, then hands the extension a str too large to copy, so
that the C++ copy (a String object, a std::string) throws std::bad_alloc. An ASCII str is its own
UTF-8, so reading its text copies nothing; only the extension's copy fails.

Each case runs in a child interpreter, so that a regression (std::terminate, "Fatal Python error:
Aborted") fails that test instead of killing pytest. The extension's module functions also carry
the text signatures inspect.signature reads, with the reference's parameter names."""

import inspect
import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ffi

_PRELUDE = textwrap.dedent(
    """
    import gc
    import json
    import resource
    import sys

    import ffi
    from ffi import _core

    BIG = 192 << 20  # the text too large to copy
    HEADROOM = 64 << 20  # what the child may still map once limited

    results = []

    def report(label, *outcome):
        results.append([label, *outcome])
        print(json.dumps(results[-1]), flush=True)

    def attempt(label, fn):
        try:
            value = fn()
            report(label, "ok", type(value).__name__)
        except BaseException as e:  # every outcome is reported to the parent
            report(label, "error", type(e).__name__, str(e)[:200])
            return e

    def limit_memory():
        \"\"\"Limits the address space to what is mapped now plus HEADROOM; false (reported as
        "unlimited") when the limit does not hold here.\"\"\"
        with open("/proc/self/statm") as f:
            mapped = int(f.read().split()[0]) * resource.getpagesize()
        resource.setrlimit(resource.RLIMIT_AS, (mapped + HEADROOM, resource.RLIM_INFINITY))
        try:
            probe = bytearray(BIG)
        except MemoryError:
            return True
        del probe
        report("limit", "unlimited")
        return False

    class DT:
        \"\"\"A value that converts to a DataType: only its DLPack (code, bits, lanes).\"\"\"

        def __init__(self, code, bits=8, lanes=1):
            self.t = (code, bits, lanes)

        def __dlpack_data_type__(self):
            return self.t
    """
)


def run_child(body: str) -> dict:
    """Runs the prelude and `body` in a fresh interpreter; the outcomes by label. An abort (or any
    non-zero exit) fails the test with the child's output."""
    script = _PRELUDE + textwrap.dedent(body) + "\ngc.collect()\nprint('DONE', flush=True)\n"
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0 and proc.stdout.rstrip().endswith("DONE"), (
        f"child exited with {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    )
    outcomes = {}
    for line in proc.stdout.splitlines():
        if line.startswith("["):
            label, *rest = json.loads(line)
            outcomes[label] = rest
    if outcomes.get("limit") == ["unlimited"]:
        pytest.skip("RLIMIT_AS does not limit allocations here")
    return outcomes


# (setup before the limit, the expression handed the big text) per entry point. `big` is the text.
OUT_OF_MEMORY = {
    # A function call's argument: FunctionVectorcall -> CallFunction packs a String.
    "call argument": ("f = ffi.get_global_func('ffi.ReprPrint')", "f(big)"),
    # A call with keywords: NamedFunctionVectorcall -> CallBound.
    "call keyword argument": (
        "f = ffi.convert(lambda x: x)\n_core._set_function_params(f, ('x',), ())",
        "f(x=big)",
    ),
    # A Python callback's result, converted inside the runtime's call of PythonCallback.
    "callback result": ("f = ffi.convert(lambda: big)", "f()"),
    "ffi.dtype": ("", "ffi.dtype(big)"),
    "ffi.dtype.is_dtype": ("", "ffi.dtype.is_dtype(big)"),
    "ffi.Device": ("", "ffi.Device(big)"),
    "ffi.convert": ("", "ffi.convert(big)"),
    "get_global_func": ("", "ffi.get_global_func(big)"),
    "remove_global_func": ("", "ffi.remove_global_func(big)"),
    "Array": ("", "ffi.Array([big])"),
    "List": ("", "ffi.List([big])"),
    "Map value": ("", "ffi.Map({'k': big})"),
    "Dict key": ("", "ffi.Dict({big: 1})"),
    "Map lookup": ("m = ffi.Map({'k': 1})", "m[big]"),
    "field assignment": ("p = Point()", "setattr(p, 'label', big)"),
    "field set()": ("p = Point()", "type(p).__dict__['label'].set(p, big)"),
    "__init_handle_by_constructor__": (
        "a = ffi.convert([1])\nf = ffi.get_global_func('ffi.ReprPrint')",
        "a.__init_handle_by_constructor__(f, big)",
    ),
}

_POINT = """
from ffi.dataclasses import py_class

@py_class("robustness_exceptions.Point")
class Point(ffi.Object):
    label: str = "p"
"""


@pytest.mark.parametrize("case", list(OUT_OF_MEMORY))
def test_out_of_memory_is_a_memory_error(case):
    setup, expr = OUT_OF_MEMORY[case]
    out = run_child(
        f"""
{_POINT}
big = "x" * BIG
{setup}
if limit_memory():
    attempt("case", lambda: {expr})
"""
    )
    assert out["case"][:2] == ["error", "MemoryError"], out["case"]


def test_callback_exception_too_large_to_copy_reaches_the_caller():
    # Making the FFI error copies the exception's message: the copy fails, and the caller still
    # gets the exception the callback raised (it rides along with the error).
    out = run_child(
        """
        big = "x" * BIG
        raised = []

        def fail():
            raised.append(ValueError(big))
            raise raised[-1]

        f = ffi.convert(fail)
        if limit_memory():
            e = attempt("case", f)
            report("same", e is raised[-1])
        """
    )
    assert out["case"][:2] == ["error", "ValueError"], out["case"]
    assert out["same"] == [True]


def test_process_goes_on_after_memory_errors():
    # After each refusal the extension is still usable: nothing was left half done.
    out = run_child(
        f"""
{_POINT}
big = "x" * BIG
f = ffi.get_global_func("ffi.ReprPrint")
cb = ffi.convert(lambda: big)
p = Point()
if limit_memory():
    for i in range(3):
        attempt("call", lambda: f(big))
        attempt("callback", cb)
        attempt("dtype", lambda: ffi.dtype(big))
        attempt("field", lambda: setattr(p, "label", big))
    attempt("after", lambda: f(ffi.Array([1, "two", 3.0])))
    attempt("after field", lambda: setattr(p, "label", "q"))
    report("label", p.label)
"""
    )
    for label in ("call", "callback", "dtype", "field"):
        assert out[label][:2] == ["error", "MemoryError"], (label, out[label])
    assert out["after"] == ["ok", "str"]
    assert out["after field"] == ["ok", "NoneType"]
    assert out["label"] == ["q"]


# An ffi::Error thrown while converting a value (a DataType whose code names no dtype) is the
# class registered for its kind, on every path that converts: a result, a container's element,
# a callback's argument.
UNKNOWN_DTYPE = {
    "convert": "ffi.convert(DT(18))",
    "Array element": "ffi.Array([DT(18)])[0]",
    "Array items": "list(ffi.Array([DT(18)]))",
    "Map value": "ffi.Map({'k': DT(18)})['k']",
    "callback argument": "ffi.convert(lambda d: d)(DT(18))",
    "call result": "ffi.convert(lambda: DT(18))()",
}


@pytest.mark.parametrize("case", list(UNKNOWN_DTYPE))
def test_unknown_dtype_while_converting_is_a_value_error(case):
    out = run_child(f'attempt("case", lambda: {UNKNOWN_DTYPE[case]})\n')
    assert out["case"] == ["error", "ValueError", "DLDataType contains unknown type_code=18"]


# ---- text signatures -------------------------------------------------------------------------

SIGNATURES = {
    "get_global_func": "(name, allow_missing=False)",
    "remove_global_func": "(name)",
    "convert": "(value)",
    "from_dlpack": "(ext_tensor, *, require_alignment=0, require_contiguous=False)",
    "dtype": "(content)",
}


@pytest.mark.parametrize("name", list(SIGNATURES))
def test_text_signature(name):
    assert str(inspect.signature(getattr(ffi, name))) == SIGNATURES[name]


@pytest.mark.parametrize("name", list(SIGNATURES))
def test_signature_names_the_references_parameters(name):
    tvm_ffi = pytest.importorskip("tvm_ffi")
    ours = inspect.signature(getattr(ffi, name)).parameters
    theirs = inspect.signature(getattr(tvm_ffi, name)).parameters
    assert [(p.name, p.kind, p.default) for p in ours.values()] == [
        (p.name, p.kind, p.default) for p in theirs.values()
    ]


def test_keywords_the_signatures_name_are_taken():
    f = ffi.get_global_func(name="ffi.ReprPrint", allow_missing=False)
    assert (
        f is not None and ffi.get_global_func(name="no.such.function", allow_missing=True) is None
    )
    ffi.register_global_func("robustness_exceptions.f", lambda: 1)
    assert ffi.remove_global_func(name="robustness_exceptions.f") is True
    assert ffi.convert(value=[1, 2]) == [1, 2]
    assert ffi.dtype(content="int8") == "int8"
    a = np.arange(3.0)
    assert ffi.from_dlpack(ext_tensor=a, require_alignment=8).data_ptr() == a.ctypes.data
    with pytest.raises(TypeError, match="unexpected keyword argument 'func_name'"):
        ffi.get_global_func(func_name="ffi.ReprPrint")
    with pytest.raises(TypeError, match="missing required argument 'value'"):
        ffi.convert()
    with pytest.raises(TypeError, match="at most 1 positional argument"):
        ffi.remove_global_func("a", "b")
    with pytest.raises(TypeError, match="argument 'name' must be str, not int"):
        ffi.get_global_func(3)
