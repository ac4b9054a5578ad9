"""``ffi.Error``: an FFI error held as a value (an exception passed as an argument, an error a
function returns, an ``Expected`` that failed), as opposed to one raised through a call."""

from __future__ import annotations

from typing import Any

from . import _core
from ._core import Object
from .registry import register_object

__all__ = ["Error"]

_make = _core.convert(_core._make_error)


@register_object("ffi.Error", init=False)
class Error(Object):
    """An FFI error object: its ``kind`` (the exception class name, e.g. ``"ValueError"``), its
    ``message`` and its C++ ``backtrace``. :meth:`py_error` gives the exception it stands for,
    to raise::

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
