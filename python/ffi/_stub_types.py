"""The type vocabulary of export metadata, and its Python annotations (for ffi.stubgen).

Both header sets describe types two ways: type schemas (JSON, ``{"type": "ffi.Array", "args":
[{"type": "int"}]}``), and this project's older TypeStr names (``Array<int>``). Both parse into
one :class:`Schema`, which :class:`Writer` renders as an annotation for a value passed in or one
coming back.
"""

from __future__ import annotations

import keyword
from dataclasses import dataclass
from typing import Any

from ._type_info import TypeSchema

# ---- type schemas ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Schema:
    """A type in one vocabulary: the origin (``"int"``, ``"Array"``, ``"Function"``, a type
    key...), positional type arguments, and for a typed function its parameters and return."""

    origin: str
    args: tuple[Schema, ...] = ()
    params: tuple[Schema, ...] | None = None
    ret: Schema | None = None


# The spellings both header sets use (type schemas, TypeStr, STL names), folded to one origin.
ORIGINS = {
    "void": "None",
    "AnyView": "Any",
    "ffi.OpaquePyObject": "Any",
    "ffi.String": "str",
    "String": "str",
    "std::string": "str",
    "const char*": "str",
    "ffi.SmallStr": "str",
    "ffi.Bytes": "bytes",
    "Bytes": "bytes",
    "ffi.SmallBytes": "bytes",
    "TVMFFIByteArray*": "bytes",
    "ffi.BigInt": "int",
    "DataType": "dtype",
    "ffi.Tensor": "Tensor",
    "DLTensor*": "Tensor",
    "ffi.Array": "Array",
    "std::vector": "Array",
    "std::array": "Array",
    "ffi.List": "List",
    "ffi.Map": "Map",
    "std::map": "Map",
    "std::unordered_map": "Map",
    "ffi.Dict": "Dict",
    "std::tuple": "Tuple",
    "std::optional": "Optional",
    "std::variant": "Variant",
    "Union": "Variant",
    "ffi.Function": "Function",
    "std::function": "Function",
    "Callable": "Function",
    "ffi.Object": "Object",
    "ObjectRValueRef": "Object",
    "ffi.Shape": "Shape",
    "ffi.Module": "Module",
    "ffi.Error": "Error",
}


# The origins of ffi.core.TypeSchema (the reference's vocabulary) that stubs spell otherwise.
_FROM_TYPE_SCHEMA = {
    "Callable": "Function",
    "Union": "Variant",
    "tuple": "Tuple",
    "ctypes.c_void_p": "void*",
}


def schema_from_type_schema(ts: TypeSchema | None) -> Schema:
    """The Schema of a parsed type schema (``TypeField.ty``; None: ``Any``)."""
    if ts is None:
        return Schema("Any")
    origin = _FROM_TYPE_SCHEMA.get(ts.origin) or ORIGINS.get(ts.origin, ts.origin)
    named = ts.named_args or {}
    if origin == "Function" and named.get("return"):
        params = named.get("params")
        return Schema(
            origin,
            params=None if params is None else tuple(schema_from_type_schema(p) for p in params),
            ret=schema_from_type_schema(named["return"][0]),
        )
    return Schema(origin, tuple(schema_from_type_schema(a) for a in ts.args))


def schema_from_json(obj: Any) -> Schema:
    """A Schema from a type-schema JSON object (or its text), parsed by ffi.core.TypeSchema;
    ``Any`` where it is not one."""
    try:
        ts = (
            TypeSchema.from_json_str(obj) if isinstance(obj, str) else TypeSchema.from_json_obj(obj)
        )
    except (TypeError, ValueError):
        return Schema("Any")
    return schema_from_type_schema(ts)


def schema_from_typestr(text: str) -> Schema:
    """A Schema from a type name in TypeStr's vocabulary: ``Map<str, Array<int>>``,
    ``Optional<my.Point>``, ``std::function<int(float)>``. Unparsable text is ``Any``."""
    try:
        schema, end = _parse_typestr(text, 0)
    except (IndexError, ValueError):
        return Schema("Any")
    return schema if end == len(text) else Schema("Any")


def _parse_typestr(text: str, i: int) -> tuple[Schema, int]:
    start = i
    while i < len(text) and text[i] not in "<>,()":
        i += 1
    name = text[start:i].strip()
    if not name:
        raise ValueError(text)
    args: list[Schema] = []
    if i < len(text) and text[i] == "<":
        i += 1
        while True:
            while text[i] == " ":
                i += 1
            if text[i].isdigit():  # std::array<T, N>: the length is no type
                while text[i].isdigit():
                    i += 1
            else:
                arg, i = _parse_typestr(text, i)
                args.append(arg)
            if text[i] == ">":
                i += 1
                break
            if text[i] != ",":
                raise ValueError(text)
            i += 1
    if i < len(text) and text[i] == "(":  # R(A, B) inside std::function<...>
        params: list[Schema] = []
        i += 1
        while text[i] != ")":
            param, i = _parse_typestr(text, i)
            params.append(param)
            if text[i] == ",":
                i += 1
        ret = Schema(ORIGINS.get(name, name), tuple(args))
        return Schema("Function", params=tuple(params), ret=ret), i + 1
    origin = ORIGINS.get(name, name)
    if origin == "Function" and len(args) == 1 and args[0].origin == "Function":
        return args[0], i  # std::function<R(A)> parsed its signature as the argument
    return Schema(origin, tuple(args)), i


def function_schema(meta: dict[str, Any] | None) -> Schema | None:
    """The Function schema a metadata record describes: its ``type_schema`` when present, else
    ``arg_types``/``return_type`` (this project's older records); None when it has neither."""
    if not meta:
        return None
    if isinstance(meta.get("type_schema"), (str, dict)):
        try:
            schema = schema_from_json(meta["type_schema"])
        except ValueError:
            schema = None
        if schema is not None and schema.origin == "Function" and schema.ret is not None:
            return schema
    if isinstance(meta.get("arg_types"), list) and isinstance(meta.get("return_type"), str):
        params = tuple(schema_from_typestr(t) for t in meta["arg_types"])
        return Schema("Function", params=params, ret=schema_from_typestr(meta["return_type"]))
    return None


# ---- annotations -----------------------------------------------------------------------------

_PLAIN = {"int", "float", "bool", "str", "bytes", "None", "Any"}
# Builtin object types by origin: (annotation of an argument, annotation of a result).
BUILTIN_OBJECTS = {
    "Object": ("ffi.Object", "ffi.Object"),
    "Module": ("ffi.Module", "ffi.Module"),
    "Shape": ("ffi.Shape", "ffi.Shape"),
    "dtype": ("ffi.dtype", "ffi.dtype"),
    "Device": ("ffi.Device", "ffi.Device"),
    "Tensor": ("_TensorArg", "_TensorResult"),
    "Error": ("BaseException", "Any"),
    "void*": ("ctypes.c_void_p | None", "ctypes.c_void_p | None"),
}


def is_identifier(name: str) -> bool:
    """Whether `name` can be a Python name in a stub."""
    return name.isidentifier() and not keyword.iskeyword(name)


class Writer:
    """Renders Schemas as annotations and collects what the stub then has to import."""

    def __init__(self, classes: dict[str, str]) -> None:
        self.classes = classes  # type key -> class name in this stub
        self.needs: set[str] = set()

    def annotate(self, s: Schema, arg: bool) -> str:
        """`s` as an annotation: of a value passed in (`arg`) or of one coming back."""
        o = s.origin
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
        a = [self.annotate(x, arg) for x in s.args]
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
        if o == "Tuple":
            if arg:
                return f"tuple[{', '.join(a)}]" if a else "tuple[()]"
            # Tuples travel as arrays and arrive as ffi.Array.
            self.needs.add("ffi")
            return f"ffi.Array[{_union(a) if a else self.any_name()}]"
        if o == "Optional":
            return f"{a[0] if a else self.any_name()} | None"
        if o == "Variant":
            return _union(a) if a else self.any_name()
        if o == "Expected":  # errors raise: a call returns the value
            return a[0] if a else self.any_name()
        if o == "Function":
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

    def _callable(self, s: Schema, arg: bool) -> str:
        if s.params is None or s.ret is None:
            if arg:
                self.needs.add("Callable")
                return f"Callable[..., {self.any_name()}]"
            self.needs.add("ffi")
            return "ffi.Function"
        # A callable passed in receives values from C++ and returns one to it; one coming back
        # is called with Python values.
        params = ", ".join(self.annotate(p, not arg) for p in s.params)
        self.needs.add("Callable")
        return f"Callable[[{params}], {self.annotate(s.ret, arg)}]"


def _union(parts: list[str]) -> str:
    seen: list[str] = []
    for p in parts:
        if p not in seen:
            seen.append(p)
    return " | ".join(seen)
