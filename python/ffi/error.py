"""``ffi.Error``: an FFI error held as a value (an exception passed as an argument, an error a
function returns, an ``Expected`` that failed), as opposed to one raised through a call."""

from __future__ import annotations

from typing import Any, Callable, TypeVar, overload

from . import _core
from ._core import Object

__all__ = ["Error", "register_error"]

_make = _core.convert(_core._make_error)


class Error(Object):
    """An FFI error object: its ``kind`` (the exception class name, e.g. ``"ValueError"``), its
    ``message`` and its C++ ``backtrace``; the class of ``ffi.Error`` values (bound to the type by
    ``ffi._bootstrap``). :meth:`py_error` gives the exception it stands for, to raise::

        err = ffi.Error("KeyError", "no such entry")
        raise err.py_error()   # KeyError: 'no such entry'
    """

    def __init__(self, kind: str, message: str, backtrace: str = "") -> None:
        self.__init_handle_by_constructor__(_make, kind, message, backtrace)

    @property
    def kind(self) -> str:
        """The error kind: the name of the exception class it stands for."""
        return _core._error_parts(self)[0]

    @property
    def message(self) -> str:
        """The message."""
        return _core._error_parts(self)[1]

    @property
    def backtrace(self) -> str:
        """Where it was made, most recent call first ("" when unknown)."""
        return _core._error_parts(self)[2]

    def py_error(self) -> BaseException:
        """The exception this error stands for: the original one when it came from Python, else
        one of the class registered for its kind (``ffi.register_error``, or the builtin of that
        name; RuntimeError otherwise) with the message."""
        return _core._error_to_exception(self)

    def __reduce__(self) -> Any:
        return (Error, (self.kind, self.message, self.backtrace))

    def __repr__(self) -> str:
        return f"ffi.Error({self.kind!r}, {self.message!r})"


_E = TypeVar("_E", bound=type[BaseException])


@overload
def register_error(name_or_cls: _E, cls: None = None) -> _E: ...
@overload
def register_error(name_or_cls: str, cls: _E) -> _E: ...
@overload
def register_error(name_or_cls: str | None = None, cls: None = None) -> Callable[[_E], _E]: ...


def register_error(name_or_cls: str | type | None = None, cls: type | None = None) -> Any:
    """Map an FFI error kind (`name_or_cls`, or the class's name) to a Python exception class.

    ``register_error("MyError", MyError)``, or as a decorator: ``@register_error("MyError")`` or
    ``@register_error`` (the kind is the class name). Errors of that kind raised in C++
    (``FFI_THROW(MyError)``) then arrive as ``MyError``.
    """
    kind = name_or_cls
    if isinstance(kind, type):
        _core.register_error(kind.__name__, kind)
        return kind
    if cls is not None:
        if kind is None:
            raise TypeError("register_error(kind, cls) needs the kind's name")
        _core.register_error(kind, cls)
        return cls

    name = kind if isinstance(kind, str) else None

    def decorate(c: type) -> type:
        _core.register_error(name if name is not None else c.__name__, c)
        return c

    return decorate
