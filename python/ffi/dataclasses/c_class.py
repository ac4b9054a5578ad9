"""``c_class``: dataclass behaviour for object types defined in C++."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from .. import registry
from .._type_info import lookup_type_attr
from . import _dunders
from ._dunders import ClassOptions
from .field import Field, _field_converter, _type_hints, dataclass_transform, field

_T = TypeVar("_T", bound=type)
# Type attributes a C++ type may define that c_class puts on its class.
_CXX_HOOKS = ("__ffi_repr__", "__ffi_hash__", "__ffi_eq__", "__ffi_compare__")


@dataclass_transform(eq_default=False, field_specifiers=(Field, field), converter=_field_converter)
def c_class(
    type_key: str,
    *,
    frozen: bool = False,
    init: bool = True,
    repr: bool = True,
    eq: bool = False,
    order: bool = False,
    unsafe_hash: bool = False,
    match_args: bool = True,
) -> Callable[[_T], _T]:
    """Bind a class to the C++ type `type_key` (as :func:`ffi.register_object`) with dataclass
    behaviour from the type's reflection.

    - ``init``: an ``__init__`` through the reflected constructor; for the constructor the runtime
      generates from the fields its signature honours ``kw_only``, defaults and ``init(false)``.
      With ``init=False`` the class cannot be constructed directly.
    - ``repr``: ``__repr__`` prints the fields (``ffi.ReprPrint``), leaving out ``repr(false)``.
    - ``eq`` / ``order`` / ``unsafe_hash``: equality, ordering and hashing by the runtime's
      recursive comparison of the fields (``compare(false)``/``hash(false)`` ones left out).
    - ``frozen``: the type's own fields refuse assignment; ``type(obj).name.set(obj, value)``
      still writes (and :func:`replace` uses it).
    - ``match_args``: ``__match_args__`` lists the positional constructor fields.

    The hooks the C++ type defines itself (``__ffi_repr__``, ``__ffi_hash__``, ``__ffi_eq__``,
    ``__ffi_compare__`` type attributes) become class attributes. What the class body defines
    itself is kept. An unknown `type_key` is a ValueError.
    """

    options = ClassOptions(frozen, init, repr, eq, order, unsafe_hash, match_args)

    def decorate(cls: _T) -> _T:
        return _bind(cls, type_key, options, warn=True)

    return decorate


def _bind(cls: _T, type_key: str, options: ClassOptions, *, warn: bool = False) -> _T:
    """What :func:`c_class` does to `cls`, `options` being its keywords; `warn`: a UserWarning
    for reflected fields the class body does not annotate (the enum machinery binds classes
    whose fields are its own)."""
    for name, value in list(cls.__dict__.items()):
        if isinstance(value, Field):
            delattr(cls, name)
    own_body = set(cls.__dict__)
    ffi_init = registry._bind_class(cls, type_key)
    if warn:  # stacklevel 3: the line applying the decorator, past _bind and decorate
        registry._warn_missing_field_annotations(cls, cls.__tvm_ffi_type_info__, stacklevel=3)
    _dunders.finish_class(cls, type_key, own_body, ffi_init, options)
    # The type's own C++ hooks, as class attributes (what a py_class defines in its body).
    index = cls.__tvm_ffi_type_info__.type_index  # type: ignore[attr-defined]
    for hook in _CXX_HOOKS:
        value = lookup_type_attr(index, hook)
        if value is not None and hook not in own_body:
            setattr(cls, hook, value)
    return cls


def _attach_field_objects(cls: type, type_info: Any) -> None:
    """Gives each field of `type_info` a new :class:`Field` (``TypeField.dataclass_field``) made
    from its reflection, its ``type`` from `cls`'s annotations (None where there is none, or when
    they do not resolve): the reference's private helper, which may run again."""
    try:
        hints = _type_hints(cls)
    except Exception:
        hints = {}
    for tf in type_info.fields:
        f = Field(
            tf.name,
            default=tf.c_default,
            default_factory=tf.c_default_factory,
            init=tf.c_init,
            repr=tf.c_repr,
            hash=tf.c_hash,
            compare=tf.c_compare,
            kw_only=tf.c_kw_only,
            frozen=tf.frozen,
            doc=tf.doc,
            metadata={k: v for k, v in tf.metadata.items() if k != "type_schema"},
            structural_eq=tf.c_structural_eq,
            _ty_schema=tf.ty,
        )
        f.type = hints.get(tf.name)
        tf.dataclass_field = f
