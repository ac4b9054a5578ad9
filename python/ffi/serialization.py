"""Object graphs as JSON text, in the reference's format (``tvm_ffi.serialization``).

The text keeps sharing: an object reachable along two paths is one node, and loads back as one
object. Functions, modules and other objects without reflection cannot be written::

    text = ffi.serialization.to_json_graph_str(ffi.Array([1, 2, 3]))
    assert list(ffi.serialization.from_json_graph_str(text)) == [1, 2, 3]

Pickling an :class:`ffi.Object` uses the same format.
"""

from __future__ import annotations

from typing import Any

from ._core import get_global_func

__all__ = ["from_json_graph_str", "to_json_graph_str"]


def to_json_graph_str(obj: Any, metadata: dict[str, Any] | None = None) -> str:
    """`obj` (any FFI value) as a JSON graph string; `metadata` is stored beside it."""
    return str(get_global_func("ffi.ToJSONGraphString")(obj, metadata))


def from_json_graph_str(json_str: str) -> Any:
    """The value a string from :func:`to_json_graph_str` describes. Malformed text is a
    ValueError naming what is wrong."""
    return get_global_func("ffi.FromJSONGraphString")(json_str)
