"""Keyword arguments for positional-only callables (an ``ffi.Function`` without parameter names).

``make_kwargs_wrapper(f, ["x", "alpha"], (2.0,))`` returns a plain Python function
``wrapper(x, alpha=2.0)`` that calls ``f(x, alpha)``. The wrapper is generated source compiled
once, with the defaults held in its ``__defaults__``/``__kwdefaults__`` as Python's own functions
hold them: binding the arguments is CPython's work, so a call costs one Python-level frame, and
Python raises the usual TypeError for a missing, unexpected or repeated argument. Only validated
identifiers enter the generated source; no value is ever printed into it.

Libraries that declare their parameter names in their exports need none of this: their functions
take keywords natively (see docs/kwargs.md).
"""

from __future__ import annotations

import functools
import inspect
import keyword
from collections.abc import Iterable
from typing import Any, Callable

from .unpack_dataclass import unpack_dataclass_to_tuple

# Names the generated source uses for itself; user parameters may not take them.
_TARGET = "__i_target_func"
_UNPACK = "__i_unpack"
_RESERVED = frozenset({_TARGET, _UNPACK})


def _check_names(names: Any, what: str) -> list[str]:
    names = list(names)
    if len(set(names)) != len(names):
        raise ValueError(f"Duplicate {what.lower()} names found in: {names}")
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"{what} name must be a string, got {type(name).__name__}: {name!r}")
        if keyword.iskeyword(name):
            raise ValueError(
                f"Invalid {what.lower()} name: {name!r} is a Python keyword and cannot be used as "
                "a parameter name"
            )
        if not name.isidentifier():
            raise ValueError(
                f"Invalid {what.lower()} name: {name!r} is not a valid Python identifier"
            )
    return names


def make_kwargs_wrapper(
    target_func: Callable,
    arg_names: list[str],
    arg_defaults: tuple = (),
    kwonly_names: list[str] | None = None,
    kwonly_defaults: dict[str, Any] | None = None,
    prototype: Callable | None = None,
    map_dataclass_to_tuple: list[str] | None = None,
) -> Callable:
    """A function ``wrapper(*arg_names, *, *kwonly_names)`` calling ``target_func`` positionally.

    `arg_defaults` are the defaults of the last ``len(arg_defaults)`` positional parameters
    (Python's ``__defaults__``); `kwonly_defaults` maps keyword-only names to their defaults, the
    others being required. Keyword-only values are passed after the positional ones, in
    `kwonly_names` order. Values of the parameters named in `map_dataclass_to_tuple` go through
    :func:`ffi.utils.unpack_dataclass.unpack_dataclass_to_tuple` first. With a `prototype`, the
    wrapper takes its name, qualified name, module, doc and annotations (and ``__wrapped__``).

    Raises TypeError for a name that is not a string or `arg_defaults` that is not a tuple, and
    ValueError for invalid, duplicate, keyword, overlapping or reserved (``__i_``) names, more
    defaults than positional parameters, or a keyword-only default for an unknown name.
    """
    positional = _check_names(arg_names, "Argument")
    if not isinstance(arg_defaults, tuple):
        raise TypeError(f"arg_defaults must be a tuple, got {type(arg_defaults).__name__}")
    if len(arg_defaults) > len(positional):
        raise ValueError(
            f"arg_defaults has {len(arg_defaults)} values but only {len(positional)} positional "
            "arguments"
        )
    kwonly = _check_names(kwonly_names or [], "Keyword-only argument")
    kwdefaults = dict(kwonly_defaults or {})
    for key in kwdefaults:
        if key not in kwonly:
            raise ValueError(f"Default provided for '{key}' which is not in kwonly_names: {kwonly}")
    overlap = set(positional) & set(kwonly)
    if overlap:
        raise ValueError(f"Arguments cannot be both positional and keyword-only: {overlap}")
    clash = (set(positional) | set(kwonly)) & _RESERVED
    if clash:
        raise ValueError(
            f"Argument names conflict with internal names: {clash}. "
            'Please avoid using names starting with "__i_"'
        )

    unpacked = set(map_dataclass_to_tuple or ())
    params = ", ".join(positional + (["*", *kwonly] if kwonly else []))
    passed = ", ".join(f"{_UNPACK}({n})" if n in unpacked else n for n in positional + kwonly)
    source = f"def wrapper({params}):\n    return {_TARGET}({passed})\n"
    scope: dict[str, Any] = {_TARGET: target_func, _UNPACK: unpack_dataclass_to_tuple}
    exec(compile(source, "<ffi kwargs wrapper>", "exec"), scope)  # names validated above
    wrapper = scope["wrapper"]
    wrapper.__defaults__ = arg_defaults or None
    # Keyword-only defaults in declaration order, as Python itself stores them.
    wrapper.__kwdefaults__ = {n: kwdefaults[n] for n in kwonly if n in kwdefaults} or None
    if prototype is not None:
        functools.update_wrapper(wrapper, prototype, updated=())
        name = getattr(prototype, "__name__", None)
        if isinstance(name, str) and name.isidentifier():
            # CPython 3.9 names the code object, not the function, in its TypeErrors ("wrapper()
            # missing 1 required positional argument"): the code takes the prototype's name too.
            wrapper.__code__ = wrapper.__code__.replace(co_name=name)
    return wrapper


def make_kwargs_wrapper_from_signature(
    target_func: Callable,
    signature: inspect.Signature,
    prototype: Callable | None = None,
    exclude_arg_names: Iterable[str] | None = None,
    map_dataclass_to_tuple: list[str] | None = None,
) -> Callable:
    """:func:`make_kwargs_wrapper` with the parameters of `signature` (less `exclude_arg_names`;
    names not in it are ignored). ValueError for ``*args``, ``**kwargs`` or a required positional
    parameter after one with a default."""
    skip = set(exclude_arg_names or ())
    names: list[str] = []
    defaults: list[Any] = []
    kwonly: list[str] = []
    kwdefaults: dict[str, Any] = {}
    P = inspect.Parameter
    for name, param in signature.parameters.items():
        if name in skip:
            continue
        if param.kind is P.VAR_POSITIONAL:
            raise ValueError("*args not supported in wrapper generation")
        if param.kind is P.VAR_KEYWORD:
            raise ValueError("**kwargs not supported in wrapper generation")
        if param.kind is P.KEYWORD_ONLY:
            kwonly.append(name)
            if param.default is not P.empty:
                kwdefaults[name] = param.default
            continue
        names.append(name)
        if param.default is not P.empty:
            defaults.append(param.default)
        elif defaults:
            raise ValueError(
                f"Required positional parameter '{name}' cannot follow parameters with defaults"
            )
    return make_kwargs_wrapper(
        target_func, names, tuple(defaults), kwonly, kwdefaults, prototype, map_dataclass_to_tuple
    )


__all__ = ["make_kwargs_wrapper", "make_kwargs_wrapper_from_signature"]
