"""ffi.utils.kwargs_wrapper: keyword arguments in front of positional-only callables, with the
reference package's names and behaviour (tvm_ffi.utils.kwargs_wrapper)."""

import dataclasses
import inspect

import pytest

from ffi.utils.kwargs_wrapper import make_kwargs_wrapper, make_kwargs_wrapper_from_signature
from ffi.utils.unpack_dataclass import unpack_dataclass_to_tuple


def target(*args):
    return args


def test_binds_positional_keyword_and_defaults():
    w = make_kwargs_wrapper(target, ["a", "b", "c"], (10, None))
    assert w(1) == (1, 10, None)
    assert w(1, 2) == (1, 2, None)
    assert w(1, c=3) == (1, 10, 3)
    assert w(c=3, b=2, a=1) == (1, 2, 3)
    assert str(inspect.signature(w)) == "(a, b=10, c=None)"


def test_python_errors_for_bad_calls():
    w = make_kwargs_wrapper(target, ["a", "b"], (5,))
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'a'"):
        w()
    with pytest.raises(TypeError, match="takes from 1 to 2 positional arguments but 3"):
        w(1, 2, 3)
    with pytest.raises(TypeError, match="unexpected keyword argument 'd'"):
        w(1, d=2)
    with pytest.raises(TypeError, match="multiple values for argument 'a'"):
        w(1, a=2)


def test_keyword_only_parameters():
    w = make_kwargs_wrapper(target, ["a"], (), ["k", "m"], {"m": 5})
    assert w(1, k=2) == (1, 2, 5)
    assert w(1, m=0, k=2) == (1, 2, 0)
    with pytest.raises(TypeError, match="missing 1 required keyword-only argument: 'k'"):
        w(1)
    with pytest.raises(TypeError):
        w(1, 2)
    assert str(inspect.signature(w)) == "(a, *, k, m=5)"


def test_defaults_are_the_given_objects():
    marker = object()
    shared = [1]
    w = make_kwargs_wrapper(target, ["a", "b"], (marker, shared))
    assert w()[0] is marker and w()[1] is shared
    assert make_kwargs_wrapper(target, [])() == ()


@pytest.mark.parametrize(
    "kwargs, error, text",
    [
        (dict(arg_names=["a", "a"]), ValueError, "Duplicate argument names"),
        (dict(arg_names=[1]), TypeError, "Argument name must be a string, got int"),
        (dict(arg_names=["class"]), ValueError, "is a Python keyword"),
        (dict(arg_names=["1a"]), ValueError, "is not a valid Python identifier"),
        (dict(arg_names=["a"], arg_defaults=[1]), TypeError, "arg_defaults must be a tuple"),
        (dict(arg_names=["a"], arg_defaults=(1, 2)), ValueError, "has 2 values but only 1"),
        (dict(arg_names=["a"], kwonly_names=["a"]), ValueError, "both positional and keyword"),
        (
            dict(arg_names=["a"], kwonly_names=["b"], kwonly_defaults={"c": 1}),
            ValueError,
            "Default provided for 'c'",
        ),
        (dict(arg_names=["__i_target_func"]), ValueError, "conflict with internal names"),
        (dict(arg_names=["a"], kwonly_names=["b", "b"]), ValueError, "Duplicate keyword-only"),
    ],
)
def test_invalid_specifications(kwargs, error, text):
    with pytest.raises(error, match=text):
        make_kwargs_wrapper(target, **kwargs)


def test_prototype_metadata():
    def proto(x, y=2, *, z=3):
        """Docs."""

    w = make_kwargs_wrapper_from_signature(target, inspect.signature(proto), prototype=proto)
    assert w(1) == (1, 2, 3)
    assert w(1, z=0) == (1, 2, 0)
    assert (w.__name__, w.__doc__, w.__wrapped__) == ("proto", "Docs.", proto)
    with pytest.raises(TypeError, match=r"proto\(\) missing 1 required positional argument"):
        w()


def test_from_signature_excludes_and_refuses():
    def proto(self, x, y=2, *, z=3):
        pass

    w = make_kwargs_wrapper_from_signature(
        target, inspect.signature(proto), exclude_arg_names=["self", "y", "nonexistent"]
    )
    assert str(inspect.signature(w)) == "(x, *, z=3)"
    assert w(1, z=4) == (1, 4)

    def star(*a):
        pass

    def starstar(**k):
        pass

    with pytest.raises(ValueError, match=r"\*args not supported"):
        make_kwargs_wrapper_from_signature(target, inspect.signature(star))
    with pytest.raises(ValueError, match=r"\*\*kwargs not supported"):
        make_kwargs_wrapper_from_signature(target, inspect.signature(starstar))
    bad = inspect.Signature(
        [
            inspect.Parameter("a", inspect.Parameter.POSITIONAL_ONLY, default=1),
            inspect.Parameter("b", inspect.Parameter.POSITIONAL_ONLY),
        ],
        __validate_parameters__=False,
    )
    with pytest.raises(ValueError, match="Required positional parameter 'b' cannot follow"):
        make_kwargs_wrapper_from_signature(target, bad)


@dataclasses.dataclass
class Inner:
    x: int
    y: list


@dataclasses.dataclass
class Outer:
    inner: Inner
    name: str


def test_map_dataclass_to_tuple():
    w = make_kwargs_wrapper(target, ["a", "b"], map_dataclass_to_tuple=["a"])
    got = w(Outer(Inner(1, [2, Inner(3, [])]), "s"), Inner(1, []))
    assert got == (((1, [2, (3, [])]), "s"), Inner(1, []))
    assert w([Inner(1, [])], 2) == ([(1, [])], 2)
    assert w({"k": Inner(1, [])}, 2) == ({"k": (1, [])}, 2)
    assert w(5, 2) == (5, 2)
    leaf = object()
    assert unpack_dataclass_to_tuple(Inner(leaf, []))[0] is leaf
