"""The metaclass of :class:`ffi.Object` and every class derived from it, as in the reference.

A class body without ``__slots__`` gets ``__slots__ = ()``: an FFI object keeps its state in the
C++ object, so an attribute the type does not reflect is an ``AttributeError`` instead of a
Python attribute the C++ side never sees (a misspelt field name fails at once). A class that
wants a per-instance ``__dict__`` says so: ``__slots__ = ("__dict__",)``.

It derives from :class:`abc.ABCMeta`, so object classes may also derive from ``collections.abc``
classes (``ffi.Array`` is a ``Sequence``); ``isinstance``/``issubclass`` against an object class
look at the class hierarchy only (virtual subclasses registered with ``register`` do not count),
which keeps them as cheap as for plain classes.

The extension's ``Object`` takes it as its metaclass in ``ffi._bootstrap``, before any class
deriving from it is defined.
"""

from __future__ import annotations

import abc
from typing import Any

__all__ = ["ObjectMeta"]


class ObjectMeta(abc.ABCMeta):
    """The metaclass of ffi.Object: injects ``__slots__ = ()`` into class bodies without one."""

    def __new__(
        mcls, name: str, bases: tuple[type, ...], namespace: dict[str, Any], **kwargs: Any
    ) -> ObjectMeta:
        namespace.setdefault("__slots__", ())
        return super().__new__(mcls, name, bases, namespace, **kwargs)

    __instancecheck__ = type.__instancecheck__
    __subclasscheck__ = type.__subclasscheck__
