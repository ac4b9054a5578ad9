"""Dataclass-style FFI classes, as the reference's ``tvm_ffi.dataclasses`` names them.

``c_class`` binds a class to an object type defined in C++ (like :func:`ffi.register_object`) and
``py_class`` defines a new object type in Python, its annotated fields stored in the object. Both
give the class what :func:`dataclasses.dataclass` gives a Python class: an ``__init__`` with a
real signature, a ``__repr__``, optional equality, ordering and hashing (the runtime's recursive
comparisons), freezing, ``__match_args__`` and ``__replace__``, driven by each field's traits
(``refl::default_value``, ``kw_only``, ``init(false)``, ``repr(false)``, ... in C++; ``field(...)``
in Python). :func:`fields`, :func:`asdict`, :func:`astuple`, :func:`replace` and
:func:`is_dataclass` work on such classes and their instances::

    @ffi.dataclasses.py_class("my.Point", eq=True)
    class Point(ffi.Object):
        x: int
        y: float = 0.0

    p = Point(1, y=2.0)
    ffi.dataclasses.asdict(p)                   # {'x': 1, 'y': 2.0}
    ffi.dataclasses.replace(p, x=3) == Point(3, 2.0)

:class:`Enum`, :class:`IntEnum` and :class:`StrEnum` define enums whose members are FFI objects
shared with C++ (see ``ffi.dataclasses.enum``).
"""

from .._core import Object
from .c_class import c_class
from .common import asdict, astuple, fields, is_dataclass, replace
from .enum import Enum, EnumAttrMap, EnumState, IntEnum, StrEnum, auto, entry
from .field import KW_ONLY, MISSING, Field, field, init_property
from .py_class import method, py_class

__all__ = [
    "KW_ONLY",
    "MISSING",
    "Enum",
    "EnumAttrMap",
    "EnumState",
    "Field",
    "IntEnum",
    "Object",
    "StrEnum",
    "asdict",
    "astuple",
    "auto",
    "c_class",
    "entry",
    "field",
    "fields",
    "init_property",
    "is_dataclass",
    "method",
    "py_class",
    "replace",
]
