"""The methods ``c_class`` and ``py_class`` install: ``__init__`` with a signature from the fields,
``__repr__``, comparisons and hashing through the runtime's recursive comparison, ``__replace__``
and ``__match_args__``."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import json
from collections.abc import Callable
from typing import Any

from .. import _core, registry
from .._core import Function
from .._type_convert import enum_member_converter
from .._type_info import MISSING, Field, _field_from_reflection
from .field import _type_hints


def _init_signature(fs: tuple[Field, ...]) -> inspect.Signature:
    """The generated constructor's signature: required positional fields, then defaulted ones,
    then keyword-only ones (required first); defaults show as MISSING (C++ fills them in)."""
    init = [f for f in fs if f.init]

    def has_default(f: Field) -> bool:
        return f.default is not MISSING or f.default_factory is not MISSING

    positional = [f for f in init if not f.kw_only]
    keyword = [f for f in init if f.kw_only]
    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    for group, kind in (
        (positional, inspect.Parameter.POSITIONAL_OR_KEYWORD),
        (keyword, inspect.Parameter.KEYWORD_ONLY),
    ):
        for f in sorted(group, key=has_default):  # stable: required first, order kept
            default = MISSING if has_default(f) else inspect.Parameter.empty
            params.append(inspect.Parameter(f.name, kind, default=default, annotation=_annot(f)))
    return inspect.Signature(params)


def _annot(f: Field) -> Any:
    return f.type if f.type is not None else inspect.Parameter.empty


def _install_init(
    cls: type,
    own_body: set[str],
    ffi_init: Function | None,
    fs: tuple[Field, ...],
    descriptors: dict[str, Any],
    init: bool,
    py_class_mode: bool,
    converters: dict[str, Callable[[Any], Any]],
) -> None:
    """``__ffi_init__`` and, unless the class body defines one, ``__init__``: through the type's
    constructor, with a signature from the fields when the runtime generated that constructor
    (no ``refl::init<...>``); keyword arguments given as MISSING are left to their default, and
    ``__post_init__`` runs after. Without a constructor, or with ``init=False``, ``__init__``
    refuses. For a class defined in Python (`py_class_mode`), ``__init__`` on an object already
    made (``super().__init__(...)`` from a subclass's own ``__init__``) writes its arguments into
    the fields, and an ``__init__`` of the class body first gets a fresh object (``__ffi_new__``)
    holding the defaults. `descriptors` are the type's field descriptors by name; `converters`
    convert the arguments of the fields they name before the constructor sees them."""
    registry._install_init(cls, ffi_init)
    if "__init__" in own_body:
        if py_class_mode:
            _wrap_user_init(cls, fs, descriptors)
        return
    if not init or ffi_init is None:
        name = cls.__name__
        reason = "init=False" if not init else "its C++ type registers no constructor"

        def refuse(self: Any, *args: Any, **kwargs: Any) -> None:
            raise TypeError(
                f"`{name}` cannot be constructed directly ({reason}): define __init__ or use a "
                "factory function"
            )

        refuse.__qualname__ = f"{cls.__qualname__}.__init__"
        cls.__init__ = refuse  # type: ignore[misc]
        return
    construct = cls.__ffi_init__  # type: ignore[attr-defined]

    post_init = getattr(cls, "__post_init__", None)
    signature = _init_signature(fs)
    # init_property fields of the class and its py_class bases, computed once the others are set;
    # a subclass's init_property of the same name replaces its base's (in the base's place).
    by_name: dict[str, Any] = {}
    for base in reversed(cls.__mro__):
        by_name.update(base.__dict__.get("__ffi_init_properties__", ()))
    computed = list(by_name.items())

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if py_class_mode and self.__chandle__() != 0:
            # super().__init__(...) from a subclass's own __init__: the object exists; arguments
            # (if any) are written into its fields as this constructor would.
            if args or kwargs:
                _assign(self, fs, descriptors, signature.bind(self, *args, **kwargs).arguments)
            return
        if convert_args:
            bound = signature.bind(self, *args, **kwargs).arguments
            del bound["self"]
            for name, convert in converters.items():
                if bound.get(name, MISSING) is not MISSING:
                    bound[name] = convert(bound[name])
            args, kwargs = (), bound
        if kwargs:
            kwargs = {k: v for k, v in kwargs.items() if v is not MISSING}
        construct(self, *args, **kwargs)
        for name, compute in computed:
            descriptors[name].set(self, compute(self))
        if post_init is not None:
            post_init(self)

    generated = _core._type_attr(_core._class_type_index(cls), "__ffi_init__")
    is_generated = generated is not None and generated.same_as(ffi_init)
    convert_args = bool(converters) and is_generated  # argument names known: the fields'
    if is_generated:
        __init__.__signature__ = signature  # type: ignore[attr-defined]
    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    __init__.__module__ = cls.__module__
    __init__.__doc__ = ffi_init.__doc__
    cls.__init__ = __init__  # type: ignore[misc]


def _assign(
    obj: Any, fs: tuple[Field, ...], descriptors: dict[str, Any], given: dict[str, Any]
) -> None:
    """Writes the fields of `obj`: the `given` values, else each field's default."""
    for f in fs:
        value = given.get(f.name, MISSING) if f.init else MISSING
        if value is MISSING:
            if f.default_factory is not MISSING:
                value = f.default_factory()
            elif f.default is not MISSING:
                value = f.default
            else:
                continue
        descriptors[f.name].set(obj, value)


def _wrap_user_init(cls: type, fs: tuple[Field, ...], descriptors: dict[str, Any]) -> None:
    """Runs the class body's ``__init__`` on a fresh object whose fields hold their defaults
    (zero or None where there is none)."""
    import functools

    user_init = cls.__dict__["__init__"]
    make = _core._type_attr(_core._class_type_index(cls), "__ffi_new__")

    @functools.wraps(user_init)
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if self.__chandle__() == 0:
            self.__init_handle_by_constructor__(make)
            _assign(self, fs, descriptors, {})
        user_init(self, *args, **kwargs)

    cls.__init__ = __init__  # type: ignore[misc]


def _comparable(a: Any, b: Any) -> bool:
    return isinstance(b, type(a)) or isinstance(a, type(b))


def _install_comparisons(cls: type, eq: bool, order: bool, unsafe_hash: bool, frozen: bool) -> None:
    """``__eq__``/``__ne__``, the orderings and ``__hash__`` through the runtime's recursive
    comparison (``ffi.RecursiveEq``, ``RecursiveLt``, ..., ``RecursiveHash``), which skip fields
    declared ``compare(false)`` / ``hash(false)``; unrelated types give NotImplemented. Hashing
    follows :func:`dataclasses.dataclass`: by the fields with ``unsafe_hash``, or ``eq`` and
    ``frozen``; with ``eq`` alone instances are unhashable (equal ones would hash apart)."""
    own = set(cls.__dict__)  # after register_object: what it sets is never a comparison

    def make(global_name: str, negate: bool = False) -> Callable[[Any, Any], Any]:
        impl = _core.get_global_func(global_name)

        def compare(self: Any, other: Any) -> Any:
            if not _comparable(self, other):
                return NotImplemented
            result = bool(impl(self, other))
            return not result if negate else result

        return compare

    if eq and not own & {"__eq__", "__ne__"}:
        cls.__eq__ = make("ffi.RecursiveEq")  # type: ignore[method-assign,assignment]
        cls.__ne__ = make("ffi.RecursiveEq", negate=True)  # type: ignore[method-assign,assignment]
    if order and not own & {"__lt__", "__le__", "__gt__", "__ge__"}:
        for op in ("lt", "le", "gt", "ge"):
            setattr(cls, f"__{op}__", make(f"ffi.Recursive{op.capitalize()}"))
    if "__hash__" in own:
        return
    if unsafe_hash or (eq and frozen):
        recursive_hash = _core.get_global_func("ffi.RecursiveHash")
        cls.__hash__ = lambda self: recursive_hash(self)  # type: ignore[method-assign,assignment]
    elif eq:
        cls.__hash__ = None  # type: ignore[assignment]


def _enum_field_converters(descriptors: list[Any]) -> dict[str, Callable[[Any], Any]]:
    """Converters for the fields whose type (from their type schema) is an ``IntEnum`` or
    ``StrEnum`` class defined in Python: such a field also takes the member's index."""

    out: dict[str, Callable[[Any], Any]] = {}
    for d in descriptors:
        try:
            schema = json.loads(json.loads(d.metadata)["type_schema"])
            index = _core.type_key_to_index(schema["type"])
        except Exception:  # no schema, or not a type: nothing to convert
            continue
        cls = _core._class_for_type_index(index)
        convert = enum_member_converter(cls) if _core._class_type_index(cls) == index else None
        if convert is not None:
            out[d.__name__] = convert
    return out


def _replace(self: Any, **changes: Any) -> Any:
    """A shallow copy (the C++ copy constructor) with `changes` written into it, frozen and
    read-only fields included."""
    by_name = {f.__name__: f for f in _core._type_fields(self.type_index)}
    unknown = [name for name in changes if name not in by_name]
    if unknown:
        raise TypeError(f"{type(self).__name__}.__replace__() got unknown field(s) {unknown}")
    out = copy.copy(self)
    for name, value in changes.items():
        by_name[name].set(out, value)
    return out


@dataclasses.dataclass(frozen=True)
class ClassOptions:
    """The options of :func:`dataclasses.dataclass` that ``c_class`` and ``py_class`` take (their
    keywords of the same names), given once to :func:`finish_class`. ``order`` needs ``eq``
    (ValueError, as in :mod:`dataclasses`)."""

    frozen: bool = False
    init: bool = True
    repr: bool = True
    eq: bool = False
    order: bool = False
    unsafe_hash: bool = False
    match_args: bool = True

    def __post_init__(self) -> None:
        if self.order and not self.eq:
            raise ValueError("order=True requires eq=True")


def finish_class(
    cls: type,
    type_key: str,
    own_body: set[str],
    ffi_init: Function | None,
    options: ClassOptions,
    *,
    frozen_fields: frozenset[str] = frozenset(),
    py_class_mode: bool = False,
) -> None:
    """Everything ``c_class`` and ``py_class`` add once `cls` is bound to `type_key`
    (``register_object``), as `options` say: frozen field descriptors (with ``frozen`` the type's
    own fields, then the `frozen_fields` and those an ancestor class froze), the :class:`Field`
    list, ``__init__``, ``__repr__``, comparisons, hashing, ``__replace__``, ``__match_args__``
    and the dataclass marker. What `own_body` (the class body's names) defines is kept."""
    descriptors = _core._type_fields(_core.type_key_to_index(type_key))
    frozen_names = set(frozen_fields).union(
        *(getattr(b, "__ffi_frozen_fields__", ()) for b in cls.__mro__)
    )
    if options.frozen:
        frozen_names |= {d.__name__ for d in descriptors if d._owner == type_key}
    # A py_class's own setters convert already; C++ fields holding enum members take indices here.
    converters = {} if py_class_mode else _enum_field_converters(descriptors)
    for d in descriptors:
        if d.__name__ in own_body:
            continue
        new = d._converting(converters[d.__name__]) if d.__name__ in converters else d
        if d.__name__ in frozen_names and d.writable:
            new = new._frozen()
        if new is not d:
            setattr(cls, d.__name__, new)
    cls.__ffi_frozen_fields__ = frozenset(frozen_names)  # type: ignore[attr-defined]
    try:
        hints = _type_hints(cls)
    except Exception:  # unresolvable annotations only lose Field.type
        hints = {}
    fs = tuple(_field_from_reflection(d, hints, d.__name__ in frozen_names) for d in descriptors)
    cls.__ffi_dataclass_fields__ = fs  # type: ignore[attr-defined]
    by_name = {d.__name__: d for d in descriptors}
    _install_init(cls, own_body, ffi_init, fs, by_name, options.init, py_class_mode, converters)
    if options.repr and "__repr__" not in own_body:
        repr_print = _core.get_global_func("ffi.ReprPrint")

        def __repr__(self: Any) -> str:
            return str(repr_print(self))

        cls.__repr__ = __repr__  # type: ignore[method-assign]
    _install_comparisons(cls, options.eq, options.order, options.unsafe_hash, options.frozen)
    if "__replace__" not in own_body:
        cls.__replace__ = _replace  # type: ignore[attr-defined]
    if options.match_args and "__match_args__" not in own_body:
        cls.__match_args__ = tuple(  # type: ignore[attr-defined]
            f.name for f in fs if f.init and not f.kw_only
        )
    cls.__ffi_is_dataclass__ = True  # type: ignore[attr-defined]
