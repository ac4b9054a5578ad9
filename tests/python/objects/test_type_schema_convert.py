"""TypeSchema.from_annotation, check_value and convert: C++'s conversion rules applied to Python
values (an int takes a bool, a float an int, containers element by element), the value protocols
in the order a call applies them, CAny (the owned FFI value convert returns) and the errors that
say where a nested value does not fit."""

from __future__ import annotations

import ctypes
import typing
from typing import Any, Callable, Optional, Union

import numpy as np
import pytest
import torch

import ffi
import ffi.testing
from ffi.core import CAny, ObjectConvertible, TypeSchema, _to_py_class_value

A = TypeSchema.from_annotation


def value_of(schema: TypeSchema, value: Any) -> Any:
    out = schema.convert(value)
    assert isinstance(out, CAny)
    return _to_py_class_value(out)


# ---- from_annotation -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("annotation", "text"),
    [
        (int, "int"),
        (Optional[str], "str | None"),
        (Union[int, str], "int | str"),
        (list[int], "List[int]"),
        (tuple[int, ...], "Array[int]"),
        (tuple[int, str], "tuple[int, str]"),
        (tuple, "tuple"),
        (tuple[()], "tuple[()]"),
        (dict[str, float], "Dict[str, float]"),
        (ffi.Map[str, ffi.Array[int]], "Map[str, Array[int]]"),
        (Callable[[int, str], bool], "Callable[[int, str], bool]"),
        (Callable[..., int], "Callable[..., int]"),
        (ffi.Function, "Callable[..., Any]"),
        (ctypes.c_void_p, "ctypes.c_void_p"),
        (ffi.Device, "Device"),
        (ffi.dtype, "dtype"),
        (ffi.Tensor, "Tensor"),
        (ffi.Object, "Object"),
        (ffi.testing.TestIntPair, "testing.TestIntPair"),
        (Any, "Any"),
        (None, "None"),
    ],
)
def test_from_annotation_renders_the_annotation(annotation, text):
    assert A(annotation).repr() == text


def test_from_annotation_agrees_with_the_constructor_and_json():
    assert A(list[int]) == TypeSchema("List", (TypeSchema("int"),))
    assert A(ffi.List) == A(list) and A(ffi.Dict) == A(dict)
    assert A(Union[int, None]) == TypeSchema("Optional", (TypeSchema("int"),))
    assert A(tuple).args is None and A(tuple).to_json() == {"type": "tuple"}
    assert A(tuple[()]).to_json() == {"type": "tuple", "args": []}
    assert TypeSchema.from_json_obj({"type": "tuple"}) == A(tuple)
    assert TypeSchema.from_json_obj({"type": "int", "args": 42}).args == ()


@pytest.mark.parametrize(
    ("annotation", "message"),
    [
        (complex, "Cannot convert"),
        (list[int, int], "list takes at most 1"),  # type: ignore[misc]
        (dict[str], "dict requires 0 or 2"),  # type: ignore[misc]
    ],
)
def test_from_annotation_refuses_what_no_ffi_value_is(annotation, message):
    with pytest.raises(TypeError, match=message):
        A(annotation)


def test_arity_errors_are_value_errors():
    for origin, args, message in [
        ("Union", 1, "at least two"),
        ("Optional", 2, "exactly one"),
        ("Array", 2, "0 or 1"),
        ("Map", 1, "0 or 2"),
        ("dict", 3, "0 or 2"),
    ]:
        with pytest.raises(ValueError, match=message):
            TypeSchema(origin, tuple(TypeSchema("int") for _ in range(args)))


# ---- check_value and convert: scalars ------------------------------------------------------


def test_scalars_convert_as_cpp_casts_them():
    assert value_of(A(int), True) == 1 and type(value_of(A(int), True)) is int
    assert type(value_of(A(float), 3)) is float
    assert value_of(A(bool), 1) is True
    assert value_of(A(int), np.int64(7)) == 7
    assert value_of(A(bytes), bytearray(b"ab")) == b"ab"
    assert value_of(A(ffi.Device), "cuda:1") == ffi.Device("cuda", 1)
    assert value_of(A(ffi.dtype), torch.float16) == ffi.dtype("float16")
    assert value_of(A(ffi.dtype), np.dtype("int8")) == ffi.dtype("int8")
    assert value_of(A(Optional[float]), None) is None
    null = value_of(A(ctypes.c_void_p), None)
    assert isinstance(null, ctypes.c_void_p) and null.value is None


@pytest.mark.parametrize(
    ("annotation", "value", "message"),
    [
        (int, "x", "type check failed for int: expected int, got str"),
        (int, 3.5, "expected int, got float"),
        (int, 2**63, "int64 range"),
        (str, 1, "expected str, got int"),
        (type(None), 0, "expected None, got int"),
        (ffi.Device, "llvm", "not a device name"),
        (ffi.dtype, "no_such_dtype", "not a dtype"),
        (ctypes.c_void_p, 5, "expected ctypes.c_void_p, got int"),
        (Callable, 5, "expected Callable, got int"),
        (ffi.Object, 5, "expected Object, got int"),
        (Union[int, str], 1.5, "type check failed for int | str: expected int | str, got float"),
        (ffi.testing.TestIntPair, ffi.Array([1]), "expected testing.TestIntPair, got ffi.Array"),
    ],
)
def test_mismatches_name_the_type_and_the_value(annotation, value, message):
    with pytest.raises(TypeError, match=message.replace("|", r"\|").replace("[", r"\[")):
        A(annotation).check_value(value)
    with pytest.raises(TypeError, match="type conversion failed for"):
        A(annotation).convert(value)


def test_unknown_origin_fails_on_use_not_on_construction():
    schema = TypeSchema("no.such.Type")
    with pytest.raises(TypeError, match="unknown TypeSchema origin"):
        schema.check_value(1)


# ---- containers ------------------------------------------------------------------------------


def test_containers_convert_element_by_element():
    out = value_of(A(tuple[int, ...]), [True, 2])
    assert isinstance(out, ffi.Array) and list(out) == [1, 2] and type(out[0]) is int
    out = value_of(A(list[float]), ffi.Array([1, True]))
    assert isinstance(out, ffi.List) and list(out) == [1.0, 1.0]
    out = value_of(A(ffi.Map[str, float]), {"a": 1})
    assert isinstance(out, ffi.Map) and type(out["a"]) is float
    out = value_of(A(dict[str, tuple[int, ...]]), {"k": [False]})
    assert isinstance(out, ffi.Dict) and list(out["k"]) == [0]
    out = value_of(A(tuple[int, str]), [True, "s"])
    assert isinstance(out, ffi.Array) and list(out) == [1, "s"]


def test_a_container_needing_no_change_is_kept():
    arr, lst, m = ffi.Array([1, 2]), ffi.List([1]), ffi.Map({"a": 1})
    assert value_of(A(tuple[int, ...]), arr).same_as(arr)
    assert value_of(A(list[int]), lst).same_as(lst)
    assert value_of(A(ffi.Map[str, int]), m).same_as(m)
    assert not value_of(A(tuple[float, ...]), arr).same_as(arr)  # elements changed: a new one


@pytest.mark.parametrize(
    ("annotation", "value", "where"),
    [
        (tuple[int, ...], [1, "x"], r"element \[1\]: expected int, got str"),
        (ffi.Map[str, int], {"a": "x"}, r"value for key 'a': expected int, got str"),
        (ffi.Map[str, int], {1: 1}, r"key 1: expected str, got int"),
        (tuple[int, str], (1,), "expected tuple of length 2, got tuple of length 1"),
        (
            ffi.Map[str, tuple[Optional[int], ...]],
            {"k": [1, None, "x"]},
            r"value for key 'k': element \[2\]: expected int, got str",
        ),
        (tuple[int, ...], "abc", "expected Array, got str"),
        (ffi.Map[str, int], [("a", 1)], "expected Map, got list"),
    ],
)
def test_nested_mismatches_say_where(annotation, value, where):
    with pytest.raises(TypeError, match=where):
        A(annotation).check_value(value)


# ---- objects -------------------------------------------------------------------------------


def test_object_types_follow_the_type_hierarchy():
    t = ffi.testing
    derived = t.TestObjectDerived(v_map={"a": 1}, v_array=[1], v_i64=0, v_f64=0.0, v_str="")
    A(t.TestObjectBase).check_value(derived)
    A(ffi.Object).check_value(derived)
    with pytest.raises(TypeError, match="expected testing.TestObjectDerived, got testing"):
        A(t.TestObjectDerived).check_value(t.TestObjectBase(v_i64=1, v_f64=1.0, v_str="a"))
    assert A(t.TestObjectDerived).is_subtype_of(t.TestObjectBase)
    assert A(t.TestObjectDerived).is_subtype_of(ffi.Object)
    assert not A(t.TestObjectBase).is_subtype_of(t.TestObjectDerived)
    assert not A(int).is_subtype_of(ffi.Object)
    pair = t.TestIntPair(1, 2)
    assert value_of(A(t.TestIntPair), pair).same_as(pair)


def test_object_schema_takes_what_a_call_makes_an_object():
    for value in ([1], {"a": 1}, len, RuntimeError("x"), object()):
        A(ffi.Object).check_value(value)
    for value in (None, 1, 2.0, True):
        with pytest.raises(TypeError):
            A(ffi.Object).check_value(value)


def test_shape_converts_from_sequences():
    out = value_of(TypeSchema("ffi.Shape"), [1, 2, 3])
    assert isinstance(out, ffi.Shape) and tuple(out) == (1, 2, 3)
    with pytest.raises(TypeError, match="expected ffi.Shape, got list"):
        TypeSchema("ffi.Shape").convert([1, "x"])


# ---- protocols -----------------------------------------------------------------------------


def test_value_protocols_apply_in_call_order():
    pair = ffi.testing.TestIntPair(1, 2)

    class Both(ObjectConvertible):  # __tvm_ffi_object__ first, then __tvm_ffi_value__
        def __tvm_ffi_object__(self):
            return pair

        def __tvm_ffi_value__(self):
            return 1

        def asobject(self):
            return ffi.Array([])

    assert value_of(A(ffi.Object), Both()).same_as(pair)

    class Chain:
        def __init__(self, n):
            self.n = n

        def __tvm_ffi_value__(self):
            return Chain(self.n - 1) if self.n else 42

    assert value_of(A(int), Chain(5)) == 42
    calls = []

    class Counted:
        def __tvm_ffi_value__(self):
            calls.append(1)
            return 7

    A(Union[str, int]).check_value(Counted())
    assert len(calls) == 1  # a union normalizes once, not once per alternative

    class Convertible(ObjectConvertible):
        def asobject(self):
            return pair

    assert value_of(A(ffi.testing.TestIntPair), Convertible()).same_as(pair)

    class Broken(ObjectConvertible):
        def asobject(self):
            raise RuntimeError("broken")

    with pytest.raises(TypeError, match=r"asobject\(\) failed: broken"):
        A(Any).check_value(Broken())


def test_value_protocol_cycles_are_errors_not_hangs():
    class Loop:
        other: Any = None

        def __tvm_ffi_value__(self):
            return self.other

    a, b = Loop(), Loop()
    a.other, b.other = b, a
    with pytest.raises(TypeError, match="cycle"):
        A(int).check_value(a)

    class Itself:
        def __tvm_ffi_value__(self):
            return self

    with pytest.raises(TypeError, match="expected int, got .*Itself"):
        A(int).check_value(Itself())
    with pytest.raises(TypeError, match="failed to convert Any from .*Itself"):
        A(Any).convert(Itself())


def test_scalar_and_tensor_protocols():
    class IntLike:
        def __tvm_ffi_int__(self):
            return 3

    class Dev:
        def __dlpack_device__(self):
            return (2, 1)

    class Stream:
        def __cuda_stream__(self):
            return (0, 1234)

    assert value_of(A(int), IntLike()) == 3
    assert value_of(A(ffi.Device), Dev()) == ffi.Device("cuda", 1)
    assert value_of(A(ctypes.c_void_p), Stream()).value == 1234
    t = value_of(A(ffi.Tensor), np.arange(4, dtype="int32"))
    assert isinstance(t, ffi.Tensor) and t.shape == (4,)
    assert isinstance(value_of(A(ffi.Tensor), torch.ones(2)), ffi.Tensor)


# ---- CAny ----------------------------------------------------------------------------------


def test_cany_holds_the_ffi_value():
    assert A(str).convert("short").type_index == 11  # a small string
    assert A(str).convert("a longer string").type_index == 65  # a String object
    assert A(bytes).convert(b"\x00" * 8).type_index == 66
    assert A(int).convert(True).type_index == 1
    assert repr(A(int).convert(5)) == "CAny(int=5)"
    assert repr(A(type(None)).convert(None)) == "CAny(None)"
    assert repr(A(tuple[int, ...]).convert([1])) == "CAny(object, type_index=71)"
    cany = A(tuple[int, ...]).convert([1, 2])
    first, second = _to_py_class_value(cany), _to_py_class_value(cany)
    del cany
    assert first.same_as(second) and list(first) == [1, 2]
    assert A(typing.Any).check_value(1) is None
    with pytest.raises(TypeError, match="takes a CAny"):
        _to_py_class_value(5)
