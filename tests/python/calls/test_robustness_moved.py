"""An object whose ``_move()`` a call consumed holds no FFI object: every later use of it raises a
clear error (RuntimeError, or TypeError when it is passed to a call), and repr says what it is.
Each kind of object is checked in its own interpreter, so that a regression (a use that reads the
missing object) fails its test instead of killing the test run."""

import os
import subprocess
import sys
import textwrap

import pytest

# Run in a child interpreter: builds a `kind` object, hands it over with _move(), then tries
# every operation and prints one line per operation: "<op> <ExceptionType>" or "<op> OK <repr>".
CHILD = textwrap.dedent(
    """
    import copy, pickle, sys
    import numpy as np
    import ffi

    mod = ffi.load_module(sys.argv[1])
    kind = sys.argv[2]
    makers = {
        "Array": lambda: ffi.Array([1, 2]),
        "List": lambda: ffi.List([1, 2]),
        "Map": lambda: ffi.Map({1: 2}),
        "Dict": lambda: ffi.Dict({1: 2}),
        "Function": lambda: ffi.convert(lambda x: x),
        "Tensor": lambda: ffi.from_dlpack(np.zeros(3)),
    }
    sequence = {
        "len": len, "iter": list, "getitem": lambda o: o[0], "contains": lambda o: 1 in o,
        "bool": bool, "hash": hash,
    }
    common = {
        "repr": repr, "str": str, "pickle": pickle.dumps, "copy": copy.copy,
        "deepcopy": copy.deepcopy, "type_key": lambda o: o.type_key,
        "pass": lambda o: mod.echo(o), "pass_in_list": lambda o: mod.echo([o]),
        "move_again": lambda o: o._move(), "use_count": lambda o: o._use_count(),
        "structural_hash": ffi.structural_hash,
    }
    try:
        import tvm_ffi  # the reference package: our objects convert to its objects

        common["tvm_ffi_object"] = lambda o: o.__tvm_ffi_object__()
    except ImportError:
        pass
    special = {
        "Array": {**sequence, "slice": lambda o: o[:], "eq_list": lambda o: o == [1, 2]},
        "List": {**sequence, "append": lambda o: o.append(3),
                 "setitem": lambda o: o.__setitem__(0, 3), "pop": lambda o: o.pop(),
                 "clear": lambda o: o.clear()},
        "Map": {**sequence, "keys": lambda o: list(o.keys()), "get": lambda o: o.get(1),
                "items": lambda o: list(o.items()), "values": lambda o: list(o.values())},
        "Dict": {**sequence, "keys": lambda o: list(o.keys()), "get": lambda o: o.get(1),
                 "setitem": lambda o: o.__setitem__(1, 3), "pop": lambda o: o.pop(1)},
        "Function": {"call": lambda o: o(1), "call_kw": lambda o: o(x=1)},
        "Tensor": {
            "shape": lambda o: o.shape, "dtype": lambda o: o.dtype, "ndim": lambda o: o.ndim,
            "strides": lambda o: o.strides, "device": lambda o: o.device,
            "byte_offset": lambda o: o.byte_offset, "numel": lambda o: o.numel(),
            "data_ptr": lambda o: o.data_ptr(), "size": lambda o: o.size(0),
            "is_contiguous": lambda o: o.is_contiguous(), "dlpack": lambda o: o.__dlpack__(),
            "dlpack_device": lambda o: o.__dlpack_device__(), "numpy": np.from_dlpack,
            "from_dlpack": ffi.from_dlpack,
            "from_dlpack_aligned": lambda o: ffi.from_dlpack(o, require_alignment=8),
        },
    }
    obj = makers[kind]()
    ref = obj._move()
    assert mod.echo(ref) is not None  # the call takes the object
    print("rvalue_repr OK", repr(ref))
    for name, op in {**common, **special[kind]}.items():
        try:
            print(name, "OK", repr(op(obj))[:60])
        except Exception as e:
            print(name, type(e).__name__, str(e).replace(chr(10), " ")[:400])
    # Everything else still works.
    print("after", mod.echo(41) + 1, len(ffi.Array([1, 2, 3])))
    """
)


def run_child(kernels_path, kind):
    proc = subprocess.run(
        [sys.executable, "-X", "faulthandler", "-c", CHILD, kernels_path, kind],
        capture_output=True,
        text=True,
        timeout=120,
        env=os.environ.copy(),
    )
    assert proc.returncode == 0, (
        f"child crashed (rc={proc.returncode}):\n{proc.stdout}{proc.stderr}"
    )
    return dict(line.split(" ", 1) for line in proc.stdout.splitlines())


@pytest.mark.parametrize("kind", ["Array", "List", "Map", "Dict", "Function", "Tensor"])
def test_every_use_of_a_moved_object_fails_cleanly(kernels_path, kind):
    results = run_child(kernels_path, kind)
    assert results.pop("after") == "42 3"  # the process is intact
    rvalue = results.pop("rvalue_repr")
    assert rvalue.startswith("OK <ffi.ObjectRValueRef of <") and "(no FFI object)>>" in rvalue
    for name, outcome in results.items():
        if outcome.startswith("OK"):
            # Only repr (where the extension makes it: it says what the object is) may succeed.
            assert name in ("repr", "str") and "(no FFI object)" in outcome, (name, outcome)
            continue
        error = outcome.split(" ", 1)[0]
        if name == "numpy":  # NumPy reports the error __dlpack__ raised, maybe its own way
            assert error != "SystemError", (name, outcome)
            continue
        # RuntimeError when used, TypeError when handed to a call (a conversion failure).
        assert error in ("RuntimeError", "TypeError"), (name, outcome)
        assert "holds no FFI object" in outcome and "_move()" in outcome, (name, outcome)


MESSAGES = textwrap.dedent(
    r"""
    import sys
    import pytest
    import ffi

    mod = ffi.load_module(sys.argv[1])
    a = ffi.Array([1, 2])
    mod.echo(a._move())
    with pytest.raises(RuntimeError, match=r"this Array holds no FFI object: .*_move\(\)"):
        len(a)
    with pytest.raises(TypeError, match=r"argument #0 .*holds no FFI object"):
        mod.echo(a)
    assert repr(a) == "<ffi.Array (no FFI object)>"  # as for every FFI class
    other = ffi.Array([1])
    assert not a.same_as(other) and a.same_as(a) and not other.same_as(a)
    assert mod.echo(other)[0] == 1

    f = ffi.convert(lambda x: x + 1)
    mod.echo(f._move())
    with pytest.raises(RuntimeError, match=r"this ffi.Function holds no FFI object"):
        f(1)
    assert repr(f) == "<ffi.Function (no FFI object)>"
    """
)


def test_moved_object_messages_and_identity(kernels_path):
    proc = subprocess.run(
        [sys.executable, "-X", "faulthandler", "-c", MESSAGES, kernels_path],
        capture_output=True,
        text=True,
        timeout=120,
        env=os.environ.copy(),
    )
    assert proc.returncode == 0, f"child failed (rc={proc.returncode}):\n{proc.stdout}{proc.stderr}"
