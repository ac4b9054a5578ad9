"""Calling C++ functions from Python: values in and out, modules, globals, bad calls."""

import ctypes
import gc
import sys

import pytest

import ffi

# Run again against the AddressSanitizer build (tests/run_all.sh python-asan).
pytestmark = pytest.mark.sanitized


def test_plain_values_round_trip(mod):
    for value in [
        None,
        True,
        False,
        0,
        -5,
        2**62,
        1.5,
        "",
        "short",
        "a longer string here",
        b"",
        b"\x00bytes\xff with more",
    ]:
        out = mod.echo(value)
        assert out == value and type(out) is type(value)


def test_dtype_device_and_pointer_round_trip(mod):
    assert mod.echo(ffi.float32) == ffi.float32
    assert mod.echo(ffi.dtype("float32x4")) == "float32x4"
    assert mod.echo(ffi.Device("cuda:1")) == ffi.device("cuda", 1)
    p = mod.echo(ctypes.c_void_p(1234))
    assert isinstance(p, ctypes.c_void_p) and p.value == 1234
    # A null pointer passes as a null OpaquePtr and returns as one (as with the reference).
    null = mod.echo(ctypes.c_void_p(None))
    assert isinstance(null, ctypes.c_void_p) and null.value is None


def test_type_names_seen_by_cpp(mod):
    assert mod.type_of(1) == "int"
    assert mod.type_of(True) == "bool"
    assert mod.type_of(2.0) == "float"
    assert mod.type_of("x") == "str"
    assert mod.type_of(b"x") == "bytes"
    assert mod.type_of(None) == "None"
    assert mod.type_of(ffi.int8) == "DataType"
    assert mod.type_of(ffi.Device("cpu")) == "Device"
    assert mod.type_of(lambda: 0) == "Function"


def test_int_subclasses_and_overflow(mod):
    import enum

    class Color(enum.IntEnum):
        RED = 3

    assert mod.add_int(Color.RED, 1) == 4
    # Beyond 64 bits an int crosses as a BigInt, which an int64_t parameter refuses.
    with pytest.raises(TypeError, match=r"argument #0 .* Expected `int` but got `ffi.BigInt`"):
        mod.add_int(2**70, 1)


@pytest.mark.parametrize(
    "value",
    [0, 1, -1, 2**30 - 1, 2**30, -(2**30), -(2**30) - 1, 2**31, 2**62, -(2**63), 2**63 - 1],
)
def test_int_values_around_the_internal_digit_size(mod, value):
    # Ints of one internal digit (30 bits) are read inline, wider ones through the C API: both
    # arrive exactly, as arguments and as list elements.
    assert mod.add_int(value, 0) == value
    assert mod.echo([value, 1])[0] == value and mod.echo((value,))[0] == value


def test_function_objects_and_repr(mod):
    f = mod.add_int
    assert isinstance(f, ffi.Function)
    assert f.__name__ == "add_int"
    assert "add_int" in repr(f)
    assert mod.add_int is f  # cached on the module after the first lookup
    assert mod["add_int"](2, 3) == 5
    assert mod.get_function("nope", allow_missing=True) is None


def test_missing_function_is_attribute_error(mod):
    with pytest.raises(AttributeError, match="does_not_exist"):
        mod.does_not_exist  # noqa: B018
    with pytest.raises(AttributeError, match="has no function `does_not_exist`"):
        mod["does_not_exist"]


def test_module_functions_are_listed(mod):
    names = set(dir(mod))
    assert {"add_int", "scale_add", "echo", "make_output"} <= names
    assert not any(n.startswith("_metadata_") for n in names)


def test_wrong_argument_type_names_function_argument_and_types(mod):
    with pytest.raises(TypeError) as info:
        mod.add_int(1, "two")
    assert str(info.value) == (
        "Mismatched type on argument #1 when calling: `add_int(0: int, 1: int) -> int`. "
        "Expected `int` but got `str`"
    )


def test_wrong_argument_count(mod):
    with pytest.raises(TypeError, match=r"Expected 2 but got 3 arguments"):
        mod.add_int(1, 2, 3)


class BadDType:
    """A value whose conversion protocol fails (the method returns the wrong kind of value)."""

    def __dlpack_data_type__(self):
        return None


def test_unconvertible_argument_names_function_and_python_type(mod):
    with pytest.raises(TypeError, match=r"argument #1 of type `BadDType` when calling `add_int`"):
        mod.add_int(1, BadDType())


def test_other_python_objects_pass_opaquely(mod):
    # As in the reference: any other Python object travels as an OpaquePyObject, comes back as
    # itself, and a typed parameter refuses it by that name.
    token = object()
    assert mod.echo(token) is token
    assert mod.echo([token, {token}])[0] is token
    with pytest.raises(TypeError, match=r"Expected `int` but got `ffi.OpaquePyObject`"):
        mod.add_int(1, object())


def test_convert_shows_the_opaque_object_a_python_object_becomes(mod):
    """ffi.convert of an object with no FFI form is its ffi.core.OpaquePyObject, which holds one
    reference to it; calls taking the wrapper hand the object itself back."""
    token = object()
    base = sys.getrefcount(token)
    held = ffi.convert(token)
    assert type(held) is ffi.core.OpaquePyObject and isinstance(held, ffi.Object)
    assert held.type_key == "ffi.OpaquePyObject" and held.pyobject() is token
    assert sys.getrefcount(token) == base + 1 and held._use_count() == 1
    assert mod.echo(held) is token and mod.type_of(held) == "OpaquePyObject"
    del held
    assert sys.getrefcount(token) == base
    assert ffi.convert(token).__ctypes_handle__().value != 0
    wrapped = ffi.core._convert_to_opaque_object(3)  # any value, even one with an FFI form
    assert wrapped.pyobject() == 3 and mod.echo(wrapped) == 3
    with pytest.raises(TypeError, match="needs an ffi.core.OpaquePyObject"):
        ffi.core.OpaquePyObject.pyobject(ffi.convert(lambda: 0))


def test_keyword_arguments_are_refused(mod):
    with pytest.raises(TypeError, match="positional arguments only"):
        mod.add_int(a=1, b=2)


def test_load_module_errors(tmp_path):
    with pytest.raises(RuntimeError, match="does not exist"):
        ffi.load_module(tmp_path / "missing.so")
    bad = tmp_path / "bad.so"
    bad.write_text("not a library")
    with pytest.raises(RuntimeError, match="Cannot load module"):
        ffi.load_module(bad)


def test_module_path_and_repr(mod, kernels_path):
    assert mod.path == kernels_path
    assert kernels_path in repr(mod)
    assert mod.type_key == "ffi.Module"


def test_module_methods_of_the_reference(mod):
    assert mod.kind == "library"
    assert mod.imports == []
    assert mod.implements_function("add_int") and not mod.implements_function("nope")
    assert mod.get_function("add_int", True)(1, 2) == 3  # query_imports, positionally
    with pytest.raises(AttributeError, match="nope"):
        mod.get_function("nope", query_imports=True)
    meta = mod.get_function_metadata("add_int")
    assert isinstance(meta, dict) and "type_schema" in meta
    assert mod.get_function_metadata("nope") is None
    assert mod.get_function_doc("add_int") is None
    # Binary serializable as the reference's library modules claim, though saving raises.
    assert mod.is_runnable() and mod.is_binary_serializable()
    assert not mod.is_compilation_exportable()
    assert (
        mod.get_property_mask()
        == ffi.ModulePropertyMask.RUNNABLE | ffi.ModulePropertyMask.BINARY_SERIALIZABLE
    )
    with pytest.raises(RuntimeError, match=r"Module\[library\] does not support SaveToBytes"):
        ffi.get_global_func("ffi.ModuleSaveToBytes")(mod)
    assert mod.get_write_formats() == [] and mod.inspect_source() == ""
    mod.clear_imports()
    with pytest.raises(RuntimeError, match="Cyclic dependency"):
        mod.import_module(mod)
    with pytest.raises(RuntimeError, match=r"Module\[library\] does not support WriteToFile"):
        mod.write_to_file("/tmp/never.so")
    with pytest.raises(AttributeError, match="main"):
        mod()  # no `main` function


def test_reference_aliases_on_objects_functions_and_tensors(mod):
    a, b = ffi.Array([1]), ffi.Array([1])
    assert a.is_(a) and not a.is_(b) and not a.is_(1)
    assert a.id_ == a.__chandle__() == a._handle != b.id_
    f = mod.add_int
    assert f.release_gil is True and f.keep_gil is False
    f.release_gil = False
    assert f.keep_gil is True and f(1, 1) == 2
    f.release_gil = True
    assert f.keep_gil is False
    np = pytest.importorskip("numpy")
    t = ffi.from_dlpack(np.zeros((2, 3), dtype="float32"))
    assert (t.size(0), t.size(1), t.size(-1)) == (2, 3, 3)
    with pytest.raises(IndexError, match="out of range"):
        t.size(2)
    with pytest.raises(TypeError):
        t.size("0")


def test_global_functions_register_get_list_remove():
    @ffi.register_global_func("testing.py.mul")
    def mul(a, b):
        return a * b

    f = ffi.get_global_func("testing.py.mul")
    assert f(6, 7) == 42
    # As in the reference, the decorated name holds the registered ffi.Function.
    assert isinstance(mul, ffi.Function) and f.same_as(mul) and mul(2, 3) == 6
    assert "testing.py.mul" in ffi.list_global_func_names()
    with pytest.raises(RuntimeError, match="already registered"):
        ffi.register_global_func("testing.py.mul", mul)
    added = ffi.register_global_func("testing.py.mul", lambda a, b: a + b, override=True)
    assert ffi.get_global_func("testing.py.mul")(6, 7) == 13
    assert added.same_as(ffi.get_global_func("testing.py.mul"))

    @ffi.register_global_func  # bare: the function's own name
    def testing_py_bare(x):
        return -x

    assert ffi.get_global_func("testing_py_bare")(3) == -3
    assert ffi.remove_global_func("testing_py_bare")
    with pytest.raises(TypeError, match="needs a str name"):
        ffi.register_global_func(3, lambda: 0)
    assert ffi.remove_global_func("testing.py.mul") is True
    assert ffi.remove_global_func("testing.py.mul") is False
    assert ffi.get_global_func("testing.py.mul", allow_missing=True) is None
    with pytest.raises(ValueError, match="not registered"):
        ffi.get_global_func("testing.py.mul")


def test_convert_makes_functions_from_callables():
    f = ffi.convert(lambda x: x + 1)
    assert isinstance(f, ffi.Function)
    assert f(1) == 2
    assert ffi.convert(3) == 3
    assert ffi.convert("s") == "s"


def test_objects_cannot_be_constructed_directly():
    with pytest.raises(TypeError, match="made by FFI calls"):
        ffi.Function()


def test_typed_exports_show_their_signature(mod):
    import inspect

    f = mod.scale_add
    assert repr(f) == (
        "<ffi.Function scale_add(0: Tensor, 1: Optional<Tensor>, 2: Tensor, 3: Tensor) -> void>"
    )
    sig = inspect.signature(f)
    assert [p.annotation for p in sig.parameters.values()] == [
        "Tensor",
        "Optional<Tensor>",
        "Tensor",
        "Tensor",
    ]
    assert sig.return_annotation == "void"
    assert "scale_add(0: Tensor" in f.__doc__
    # Functions from Python callables have no metadata.
    g = ffi.convert(lambda: None)
    assert "ffi.Function" in repr(g)
    try:
        inspect.signature(g)
    except ValueError:
        pass


def test_relative_library_path_is_a_file(kernels_path, tmp_path, monkeypatch):
    import shutil

    shutil.copy(kernels_path, tmp_path / "local_kernels.so")
    monkeypatch.chdir(tmp_path)
    assert ffi.load_module("local_kernels.so").add_int(1, 2) == 3


def test_convert_none_shapes_and_number_protocols(mod):
    import numpy as np

    assert ffi.convert(None) is None
    shape = ffi.Shape((2, 3))
    back = mod.echo(shape)
    assert back == (2, 3) and isinstance(back, ffi.Shape)
    assert mod.add_int(np.int32(4), np.int64(5)) == 9
    assert mod.echo(np.float32(0.5)) == 0.5
    assert ffi.dtype(np.float32) == "float32"
    # NumPy bools (what np.any() returns) are bools, not the floats their __float__ gives.
    assert mod.echo(np.zeros(2).any()) is False and mod.echo(np.bool_(True)) is True
    assert mod.type_of(np.True_) == "bool" and ffi.Array([np.False_])[0] is False


def test_shape_checks_its_extents_when_made(mod):
    import numpy as np

    assert ffi.Shape([np.int64(4), 5, -1]) == (4, 5, -1) and ffi.Shape() == ()
    assert type(ffi.Shape(range(3))) is ffi.Shape
    with pytest.raises(TypeError, match="a Shape extent must be an int, not `float`"):
        ffi.Shape((2, 1.5))
    with pytest.raises(OverflowError, match="a Shape extent must be in"):
        ffi.Shape((2**64,))
    with pytest.raises(OverflowError):
        ffi.Shape((-(2**63) - 1,))
    assert mod.echo(ffi.Shape((2**63 - 1,))) == (2**63 - 1,)


def test_tensor_arguments_are_never_none(mod):
    with pytest.raises(TypeError, match="Expected `Tensor` but got `None`"):
        mod.shape_of(None)


def test_functions_from_c_symbol_addresses(tmp_path):
    """Function.__from_extern_c__ / __from_mlir_packed_safe_call__: C code a DSL or JIT compiler
    emitted, called through its address (here from ctypes), keeping an object alive."""
    import ctypes

    lib = ffi.cpp.build_inline(
        "c_symbols",
        cpp_sources=r"""
        extern "C" int add_one_safe(void*, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
          if (n != 1 || args[0].type_index != kTVMFFIInt) {
            TVMFFIErrorSetRaisedFromCStr("TypeError", "add_one takes one int");
            return -1;
          }
          r->type_index = kTVMFFIInt;
          r->zero_padding = 0;
          r->v_int64 = args[0].v_int64 + 1;
          return 0;
        }
        extern "C" void add_one_mlir(void** packed) {  // self, args, num_args, result, rc
          *static_cast<int32_t*>(packed[4]) = add_one_safe(
              *static_cast<void**>(packed[0]), *static_cast<const TVMFFIAny**>(packed[1]),
              *static_cast<int32_t*>(packed[2]), *static_cast<TVMFFIAny**>(packed[3]));
        }
        """,
        build_directory=tmp_path,
    )
    cdll = ctypes.CDLL(lib)
    safe = ctypes.cast(cdll.add_one_safe, ctypes.c_void_p).value
    mlir = ctypes.cast(cdll.add_one_mlir, ctypes.c_void_p).value
    for make, address in (
        (ffi.Function.__from_extern_c__, safe),
        (ffi.Function.__from_mlir_packed_safe_call__, mlir),
    ):
        f = make(address)
        assert isinstance(f, ffi.Function) and f(1) == 2 and f(41) == 42
        with pytest.raises(TypeError, match="add_one takes one int"):
            f(None)
        engine = object()
        base = sys.getrefcount(engine)
        f = make(address, keep_alive_object=engine)
        assert f(2) == 3 and sys.getrefcount(engine) == base + 1
        del f
        gc.collect()
        assert sys.getrefcount(engine) == base
    with pytest.raises(TypeError, match="address must be an int"):
        ffi.Function.__from_extern_c__("0x10")
    with pytest.raises(ValueError, match="null"):
        ffi.Function.__from_extern_c__(0)


def test_function_subclasses_take_over_a_function(mod):
    """A Python subclass of ffi.Function (a JIT's function class with its own state) starts
    empty and takes a function over with __move_handle_from__, as in the reference."""

    class Compiled:
        def __init__(self, metadata):
            self.metadata = metadata

    class JitFunction(ffi.Function, Compiled):
        def __init__(self, metadata):
            Compiled.__init__(self, metadata)

    f = ffi.convert(lambda x: x * 2)
    jit = JitFunction({"arch": "sm_90"})
    with pytest.raises(RuntimeError, match="holds no function"):
        jit(1)
    with pytest.raises(TypeError):
        mod.echo(jit)  # an empty function cannot be passed
    jit.__move_handle_from__(f)
    assert jit(4) == 8 and jit.metadata == {"arch": "sm_90"} and isinstance(jit, Compiled)
    with pytest.raises(RuntimeError, match="holds no function"):
        f(1)  # moved from: empty
    back = mod.echo(jit)
    assert type(back) is ffi.Function and back.__chandle__() == jit.__chandle__()
    assert back(5) == 10
    with pytest.raises(TypeError, match="moves an ffi.Function into an ffi.Function"):
        jit.__move_handle_from__(ffi.Array([1]))
    with pytest.raises(TypeError, match="made by FFI calls"):
        ffi.Function()  # ffi.Function itself is still made by calls only
