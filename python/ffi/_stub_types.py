"""How a stub spells a :class:`TypeSchema` (for ffi.stubgen): as the annotation of a value passed
in, or of one coming back, collecting what the stub then has to import."""

from __future__ import annotations

import keyword

from ._type_schema import TypeSchema, typestr_origin

_PLAIN = {"int", "float", "bool", "str", "bytes", "None", "Any"}
# Builtin object types by TypeSchema origin: (annotation of an argument, annotation of a result).
BUILTIN_OBJECTS = {
    "Object": ("ffi.Object", "ffi.Object"),
    "ffi.Module": ("ffi.Module", "ffi.Module"),
    "ffi.Shape": ("ffi.Shape", "ffi.Shape"),
    "dtype": ("ffi.dtype", "ffi.dtype"),
    "Device": ("ffi.Device", "ffi.Device"),
    "Tensor": ("_TensorArg", "_TensorResult"),
    "ffi.Error": ("BaseException", "Any"),
    "ctypes.c_void_p": ("ctypes.c_void_p | None", "ctypes.c_void_p | None"),
}


def signature(s: TypeSchema) -> tuple[tuple[TypeSchema, ...] | None, TypeSchema | None]:
    """The parameter types and the return type of the ``Callable`` schema `s` (None for what it
    does not declare)."""
    named = s.named_args or {}
    returns = named.get("return")
    return named.get("params"), (returns[0] if returns else None)


def is_identifier(name: str) -> bool:
    """Whether `name` can be a Python name in a stub."""
    return name.isidentifier() and not keyword.iskeyword(name)


class Writer:
    """Renders TypeSchemas as annotations and collects what the stub then has to import."""

    def __init__(self, classes: dict[str, str]) -> None:
        self.classes = classes  # type key -> class name in this stub
        self.needs: set[str] = set()

    def annotate(self, s: TypeSchema, arg: bool) -> str:
        """`s` as an annotation: of a value passed in (`arg`) or of one coming back."""
        o = typestr_origin(s.origin)  # a schema keeps std::array, void, ... as written
        if o in _PLAIN:
            if o == "Any":
                self.needs.add("Any")
            return o
        if o in BUILTIN_OBJECTS:
            text = BUILTIN_OBJECTS[o][0 if arg else 1]
            self.needs.add(text if text.startswith("_Tensor") else text.split(".")[0])
            if text == "Any":
                self.needs.add("Any")
            return text
        a = [self.annotate(x, arg) for x in s.args or ()]
        if o in ("Array", "List"):
            elem = a[0] if a else self.any_name()
            if arg:
                self.needs.add("Sequence")
                return f"Sequence[{elem}]"
            self.needs.add("ffi")
            return f"ffi.{o}[{elem}]"
        if o in ("Map", "Dict"):
            k, v = a if len(a) == 2 else (self.any_name(), self.any_name())
            if arg:
                self.needs.add("Mapping")
                return f"Mapping[{k}, {v}]"
            self.needs.add("ffi")
            return f"ffi.{o}[{k}, {v}]"
        if o == "tuple":
            if arg:
                return f"tuple[{', '.join(a)}]" if a else "tuple[()]"
            # Tuples travel as arrays and arrive as ffi.Array.
            self.needs.add("ffi")
            return f"ffi.Array[{_union(a) if a else self.any_name()}]"
        if o == "Optional":
            return f"{a[0] if a else self.any_name()} | None"
        if o == "Union":
            return _union(a) if a else self.any_name()
        if o == "Expected":  # errors raise: a call returns the value
            return a[0] if a else self.any_name()
        if o == "Callable":
            return self._callable(s, arg)
        if o in self.classes:
            return self.classes[o]
        if "." in o:  # an object type this stub has no class for
            self.needs.add("ffi")
            return "ffi.Object"
        return self.any_name()

    def any_name(self) -> str:
        """``Any``, noting that the stub imports it."""
        self.needs.add("Any")
        return "Any"

    def _callable(self, s: TypeSchema, arg: bool) -> str:
        params, ret = signature(s)
        if params is None or ret is None:
            if arg:
                self.needs.add("Callable")
                return f"Callable[..., {self.any_name()}]"
            self.needs.add("ffi")
            return "ffi.Function"
        # A callable passed in receives values from C++ and returns one to it; one coming back
        # is called with Python values.
        shown = ", ".join(self.annotate(p, not arg) for p in params)
        self.needs.add("Callable")
        return f"Callable[[{shown}], {self.annotate(ret, arg)}]"


def _union(parts: list[str]) -> str:
    seen: list[str] = []
    for p in parts:
        if p not in seen:
            seen.append(p)
    return " | ".join(seen)
