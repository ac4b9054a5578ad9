"""Binding Python classes to C++ object types, and the registry of global functions and types.

``register_object`` gives a C++ type registered with reflection (``ObjectDef<T>``) a Python class:
its reflected fields become attributes (read-only or writable as declared), its methods methods,
its static methods static methods and its reflected constructor ``__init__``. Field and method
access is native (``ffi._Field`` / ``ffi._Method`` descriptors built once per class).
"""

from __future__ import annotations

import json
import sys
import types
import warnings
import weakref
from collections import Counter
from collections.abc import MutableMapping, Sequence
from typing import Any, Callable, TypeVar, overload

from . import _core
from ._core import Function, Object, get_global_func, remove_global_func
from ._type_info import MISSING, TypeInfo, type_info
from ._type_schema import declared_schema, parse_metadata
from .api import set_tensor_class
from .module import Module

__all__ = [
    "get_global_func",
    "get_global_func_metadata",
    "get_registered_type_keys",
    "init_ffi_api",
    "list_global_func_names",
    "register_global_func",
    "register_object",
    "remove_global_func",
]

_T = TypeVar("_T", bound=type)

# When true, register_object leaves a class whose type key no library registered unbound (and
# returns it) instead of raising ValueError: the reference's switch, which TVM sets when it runs
# without its compiler library, whose types its Python classes still name.
_SKIP_UNKNOWN_OBJECTS = False


def _type_index(type_key: str) -> int:
    try:
        return _core.type_key_to_index(type_key)
    except KeyError:
        raise ValueError(
            f"Cannot find object type index for `{type_key}`: no C++ type is registered with that "
            "key (load the library that defines it first)"
        ) from None


_get_kwargs_object = _core.get_global_func("ffi.GetKwargsObject", True)
KWARGS: Object | None = _get_kwargs_object() if _get_kwargs_object is not None else None
"""The runtime's keyword-argument marker: ``f(KWARGS, "name", value, ...)`` passes ``name=value``
to a function that reads keywords (a reflected ``__ffi_init__``). None on a runtime without it."""


def _kwargs_sentinel() -> Any:
    """:data:`KWARGS`; the runtime's error for a missing function on a runtime without it."""
    if KWARGS is None:
        return _core.get_global_func("ffi.GetKwargsObject")()  # raises: no such function
    return KWARGS


def _pack_kwargs(args: tuple, kwargs: dict) -> tuple:
    """``(*args, KWARGS, key0, value0, ...)``: keywords as the runtime's constructors take them."""
    packed = [*args, _kwargs_sentinel()]
    for item in kwargs.items():
        packed.extend(item)
    return tuple(packed)


def _install_init(cls: type, ffi_init: Function | None, described: bool = False) -> None:
    """Give `cls` ``__ffi_init__`` (when the type has a constructor) and, unless its body
    defines one, an ``__init__`` calling it; without a constructor ``__init__`` refuses.
    Keywords are passed with the KWARGS protocol, which the constructor the runtime generates
    from the fields understands (``Point(x=1, y=2)``)."""
    name = cls.__name__
    if ffi_init is not None:

        def __ffi_init__(self: Any, *args: Any, **kwargs: Any) -> None:
            if kwargs:
                args = _pack_kwargs(args, kwargs)
            self.__init_handle_by_constructor__(ffi_init, *args)

        __ffi_init__.__qualname__ = f"{cls.__qualname__}.__ffi_init__"
        __ffi_init__.__module__ = cls.__module__
        __ffi_init__.__doc__ = ffi_init.__doc__
        cls.__ffi_init__ = __ffi_init__  # type: ignore[attr-defined]
    if "__init__" in cls.__dict__:
        return
    if ffi_init is not None:

        def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
            if kwargs:
                args = _pack_kwargs(args, kwargs)
            self.__init_handle_by_constructor__(ffi_init, *args)

    else:

        def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
            raise TypeError(
                f"`{name}` cannot be constructed directly: its C++ type registers no constructor "
                "(refl::init<...>). Define __init__ or use a factory function."
            )

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    __init__.__module__ = cls.__module__
    if ffi_init is not None and described:
        __init__.__signature__ = _init_signature(cls)  # type: ignore[attr-defined]
    cls.__init__ = __init__  # type: ignore[misc]


def _type_info_of(cls: type) -> TypeInfo:
    """The TypeInfo of the type `cls` is bound to."""
    return type_info(_core._class_type_index(cls))


def _init_fields(info: Any) -> list[Any]:
    """The fields a constructor made from the fields takes, root type's first."""
    chain = []
    while info is not None:
        chain.append(info)
        info = info.parent_type_info
    return [f for t in reversed(chain) for f in t.fields if f.c_init]


def _init_signature(cls: type) -> Any:
    """What ``inspect.signature(cls)`` shows: for a constructor declared with
    ``refl::init<Args...>``, its parameter types, named after the fields when their types agree
    (``(x: int, y: float)``), else ``arg0, arg1, ...``; for the constructor the runtime makes
    from the fields, the fields that take part (required, then those with defaults, then the
    keyword-only ones; a default shows as ``MISSING``)."""
    import inspect  # not at import: only signatures need it, and it is costly to import

    info = _type_info_of(cls)
    fields = _init_fields(info)
    self_param = inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY)
    inits = [m for m in info.methods if m.name == "__ffi_init__"]
    if len(inits) > 1:
        # Overloaded constructors (OverloadObjectDef): no one parameter list is the signature.
        args = inspect.Parameter("args", inspect.Parameter.VAR_POSITIONAL)
        return inspect.Signature([self_param, args])
    declared = inits[0] if inits else None
    if declared is not None and isinstance(declared.metadata.get("type_schema"), str):
        types = parse_metadata(json.dumps(declared.metadata))["arg_types"]
        named = len(types) <= len(fields) and all(
            _field_type(f) in (None, t) for f, t in zip(fields, types)
        )
        params = [
            inspect.Parameter(
                fields[i].name if named else f"arg{i}",
                inspect.Parameter.POSITIONAL_OR_KEYWORD
                if named
                else inspect.Parameter.POSITIONAL_ONLY,
                annotation=t,
            )
            for i, t in enumerate(types)
        ]
        return inspect.Signature([self_param, *params])
    kinds = (
        [(f, inspect.Parameter.POSITIONAL_OR_KEYWORD) for f in fields if not f.c_kw_only],
        [(f, inspect.Parameter.KEYWORD_ONLY) for f in fields if f.c_kw_only],
    )
    params = [self_param]
    for group in kinds:
        ordered = [p for p in group if not p[0].c_has_default] + [
            p for p in group if p[0].c_has_default
        ]
        for f, kind in ordered:
            default = MISSING if f.c_has_default else inspect.Parameter.empty
            params.append(inspect.Parameter(f.name, kind, default=default))
    return inspect.Signature(params)


def _field_type(field: Any) -> str | None:
    """A field's declared type as a signature shows it ("int"), or None when it has none."""
    if not isinstance(field.metadata.get("type_schema"), str):
        return None
    schema = declared_schema(field.metadata)
    return "Any" if schema is None else schema.typestr()


def _set_method_metadata(cls: type) -> None:
    """Gives the class's reflected methods their metadata, so that ``inspect.signature`` and
    ``help`` show their parameters."""
    methods = _type_info_of(cls).methods
    counts = Counter(m.name for m in methods)
    for method in methods:
        if counts[method.name] > 1:
            continue  # several signatures (OverloadObjectDef): none of them alone is the method's
        attr = cls.__dict__.get(method.name)
        if isinstance(attr, Function) and getattr(attr, "_ffi_metadata", None) is None:
            if isinstance(method.metadata.get("type_schema"), str):
                attr._ffi_metadata = parse_metadata(json.dumps(method.metadata))


# Types whose values the extension hands out as its own classes (functions, tensors, containers,
# strings, ...): a class bound to one of them would stand for values it cannot represent.
_BUILTIN_VALUE_KEYS = frozenset(
    (
        "ffi.Object",
        "ffi.String",
        "ffi.Bytes",
        "ffi.Function",
        "ffi.Shape",
        "ffi.Tensor",
        "ffi.Array",
        "ffi.List",
        "ffi.Map",
        "ffi.Dict",
        "ffi.Module",
        "ffi.OpaquePyObject",
    )
)


# The built-in types whose class a subclass may replace, as the reference allows (TVM binds its
# own Tensor and Module classes so).
_REPLACEABLE_BUILTIN_CLASSES: dict[str, type] = {"ffi.Tensor": _core.Tensor, "ffi.Module": Module}


def _warn_missing_field_annotations(cls: type, type_info: Any, stacklevel: int = 1) -> None:
    """A UserWarning naming the type's own reflected fields that the class body of `cls` does not
    annotate (``@c_class`` calls it: without annotations, IDEs and type checkers see no fields).
    Inherited fields are the base classes' business."""
    annotated = cls.__dict__.get("__annotations__", {})
    missing = sorted(f.name for f in type_info.fields or () if f.name not in annotated)
    if missing:
        warnings.warn(
            f"@c_class({type_info.type_key!r}): class `{cls.__name__}` does not annotate the "
            f"following reflected field(s): {', '.join(missing)}. Add type annotations "
            "(e.g. `field_name: type`) to the class body for IDE support and documentation.",
            UserWarning,
            stacklevel=stacklevel + 1,
        )


def _bind_class(cls: type, key: str) -> Function | None:
    """Binds `cls` to the type `key` (fields, methods); returns its constructor or None."""
    if not (isinstance(cls, type) and issubclass(cls, Object)):
        raise TypeError(f"register_object: {cls!r} must inherit from ffi.Object")
    if key in _BUILTIN_VALUE_KEYS:
        raise ValueError(
            f"register_object: `{key}` is a built-in type whose values arrive as ffi's own class; "
            "a class can be bound to an object type a library registers (and a subclass of "
            "ffi.Tensor or ffi.Module to their keys)"
        )
    return _core._register_object(_type_index(key), cls)


# What _add_class_attrs saw of a class, for the last step (``_dunder._install_dataclass_dunders``):
# its constructor and the names its body defined before binding added the fields and methods.
_BOUND: weakref.WeakKeyDictionary[type, tuple[Function | None, set[str]]] = (
    weakref.WeakKeyDictionary()
)


def _add_class_attrs(cls: type, type_info: Any) -> None:
    """Binds `cls` to the type `type_info` describes (fields as attributes, methods as methods):
    the third step of making a ``py_class`` by hand (see ``core._register_py_class``)."""
    body = set(cls.__dict__)
    _BOUND[cls] = (_bind_class(cls, type_info.type_key), body)


def _bound_by_add_class_attrs(cls: type) -> tuple[Function | None, set[str]] | None:
    """The constructor and class body names :func:`_add_class_attrs` recorded for `cls`, or None
    when it did not bind `cls`."""
    return _BOUND.get(cls)


def _replace_builtin_class(cls: type, key: str, base: type) -> None:
    """Makes values of the built-in type `key` arrive as `cls`, a subclass of its class `base`."""
    if not (isinstance(cls, type) and issubclass(cls, base)):
        raise ValueError(
            f"register_object: `{key}` is a built-in type; only a subclass of "
            f"{base.__module__}.{base.__qualname__} can be bound to it, not {cls!r}"
        )
    if base is _core.Tensor:
        set_tensor_class(cls)
    else:
        _core._register_class(_type_index(key), cls)


def register_object(type_key: str | type | None = None, *, init: bool = True) -> Any:
    """Bind a Python class to the C++ object type `type_key` (default: the class name).

    Use as a decorator on a subclass of :class:`ffi.Object`::

        @ffi.register_object("my.Point")
        class Point(ffi.Object):
            pass

        p = Point(1, 2)      # the reflected constructor (refl::init<...>)
        p.x; p.y = 3.0       # reflected fields; writing a read-only one is an AttributeError
        p.shifted(1)         # reflected methods; static methods are static

    Objects of the type (and of types derived from it that have no class of their own) returned
    from C++ then arrive as instances of the class. What the class body defines itself is kept.
    With ``init=False`` no ``__init__`` is installed. An unknown `type_key` is a ValueError.
    """

    def register(cls: _T, key: str) -> _T:
        base = _REPLACEABLE_BUILTIN_CLASSES.get(key)
        if base is not None:
            _replace_builtin_class(cls, key, base)  # its construction stays the built-in's
            return cls
        if _SKIP_UNKNOWN_OBJECTS:  # (built-in keys are always known)
            try:
                _core.type_key_to_index(key)
            except KeyError:
                return cls
        ffi_init = _bind_class(cls, key)
        # Signatures for the user's classes (ffi's own, bound while ffi imports, go without).
        described = cls.__module__.split(".")[0] != "ffi"
        if described:
            _set_method_metadata(cls)
        if init:
            _install_init(cls, ffi_init, described)
        return cls

    if isinstance(type_key, str):
        key = type_key
        return lambda cls: register(cls, key)
    if type_key is None:
        return lambda cls: register(cls, cls.__name__)
    if isinstance(type_key, type):
        return register(type_key, type_key.__name__)
    raise TypeError("register_object(type_key): type_key must be a string, a class or None")


def get_global_func_metadata(name: str) -> dict[str, Any]:
    """The metadata of global function `name` as a dict (``type_schema``, user metadata); an
    empty dict for a function registered without any."""
    text = _core.get_global_func("ffi.GetGlobalFuncMetadata")(name)
    return json.loads(text) if text else {}


def get_registered_type_keys() -> Sequence[str]:
    """Every registered type key (``ffi.GetRegisteredTypeKeys``), in type index order."""
    return _core._registered_type_keys()


def init_ffi_api(
    namespace: str,
    target_module_name: str | types.ModuleType | MutableMapping[str, Any] | None = None,
) -> None:
    """Expose the global functions ``<namespace>.<name>`` as attributes ``<name>``.

    `target_module_name` is a module name (the reference's form; default: `namespace` itself), a
    module, or a namespace dict such as ``globals()``. Names with a further dot after the prefix
    are skipped; a leading ``tvm.`` of `namespace` is dropped from the prefix, as the reference
    does::

        ffi.init_ffi_api("my", globals())   # my.add -> add
    """
    target = namespace if target_module_name is None else target_module_name
    if isinstance(target, str):
        target = sys.modules[target]
    setter: Callable[[str, Any], None]
    if isinstance(target, types.ModuleType):
        module = target

        def setter(name: str, value: Any) -> None:
            setattr(module, name, value)

    elif isinstance(target, MutableMapping):
        setter = target.__setitem__
    else:
        raise TypeError("init_ffi_api target must be a module name, a module or a dict")
    prefix = namespace[4:] if namespace.startswith("tvm.") else namespace
    for full in _core.list_global_func_names():
        if not full.startswith(prefix + "."):
            continue
        name = full[len(prefix) + 1 :]
        if "." in name:
            continue
        setter(name, _core.get_global_func(full))


@overload
def register_global_func(
    func_name: str, f: None = None, override: bool = False
) -> Callable[[Callable[..., Any]], Function]: ...
@overload
def register_global_func(
    func_name: str, f: Callable[..., Any], override: bool = False
) -> Function: ...
@overload
def register_global_func(func_name: Callable[..., Any]) -> Function: ...


def register_global_func(
    func_name: str | Callable[..., Any],
    f: Callable[..., Any] | None = None,
    override: bool = False,
) -> Any:
    """Register a Python callable `f` (or an ffi.Function) as the global FFI function
    `func_name`, visible to C++; returns the registered ffi.Function, as the reference does.

    Use directly, ``add = register_global_func("my.add", add)``, or as a decorator,
    ``@register_global_func("my.add")`` (or bare ``@register_global_func``: the function's
    ``__name__``). A decorated name then holds the ffi.Function, so calling it from Python goes
    through the FFI (a list argument arrives as an ffi.Array). An existing name is a ValueError
    unless `override`.
    """
    name, func = func_name, f
    if callable(name) and func is None:
        func, name = name, getattr(name, "__name__", None)
    if not isinstance(name, str):
        raise TypeError(f"register_global_func needs a str name, not {type(name).__name__}")
    if func is not None:
        return _core.register_global_func(name, func, override)
    key = name

    def decorate(g: Callable[..., Any]) -> Function:
        return _core.register_global_func(key, g, override)

    return decorate


def list_global_func_names() -> list[str]:
    """Names of all registered global functions."""
    return _core.list_global_func_names()
