"""The Python-level parts of the API: modules, shapes, devices, errors, streams, registration.

Everything on the call path is native (``ffi._core``); this module holds the conveniences around
it and never imports PyTorch or NumPy at import time.
"""

from __future__ import annotations

import contextlib
import enum
import operator
import os
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Callable, TypeVar, overload

from . import _core
from ._core import Device, Function, Object


class Shape(tuple):
    """The extents of a tensor: a tuple of ints, as FFI Shape objects arrive in Python."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"ffi.Shape({tuple.__repr__(self)})"


class ObjectConvertible:
    """Base for Python classes that stand for an FFI object: a subclass defines :meth:`asobject`,
    and its instances pass to FFI calls (and to ``ffi.convert``, containers, fields) as the object
    it returns::

        class Point(ffi.ObjectConvertible):
            def __init__(self, x, y):
                self.x, self.y = x, y

            def asobject(self):
                return ffi.Array([self.x, self.y])

        mod.sum_ints(Point(1, 2))   # receives the Array
    """

    def asobject(self) -> Object:
        """The FFI object this value stands for."""
        raise NotImplementedError(f"{type(self).__name__} does not define asobject()")

    def __tvm_ffi_value__(self) -> Object:
        # The conversion protocol calls converts through (docs/python_api.md).
        return self.asobject()


class Module(_core._ModuleBase):
    """A loaded library. Its functions are attributes: ``mod.add_one(x, y)``.

    Every function the library exports (symbols ``__tvm_ffi_<name>``) is an attribute from the
    moment the module is loaded, so calling one costs a plain attribute read; ``dir(mod)`` lists
    them.
    """

    def _populate(self) -> None:
        # Called (through the hook registered below) when a module arrives in Python. The
        # reference's runtime has no way to list a module's functions: there, each function
        # becomes an attribute when it is first looked up (__getattr__ below).
        lister = _core.get_global_func("ffi.ModuleListFunctionNames", True)
        if lister is None:
            return
        for name in lister(self).split():
            # Interned, as attribute names in code are: lookups then compare pointers only.
            self.__dict__[sys.intern(name)] = self.get_function(name)

    if TYPE_CHECKING:
        # Exported functions are instance attributes, set when the module is loaded.
        def __getattr__(self, name: str) -> Function: ...

    def _missing_attribute(self, name: str) -> Function:
        # Called by the base class's attribute lookup for names that are not attributes yet (see
        # _populate), never for special names.
        func = self._require_function(name)
        self.__dict__[sys.intern(name)] = func
        return func

    def __getitem__(self, name: str) -> Function:
        func = self.__dict__.get(name)
        return func if isinstance(func, Function) else self._require_function(name)

    def _require_function(self, name: str) -> Function:
        func = self.get_function(name)
        assert func is not None  # get_function raises when it is missing
        return func

    def get_function(
        self, name: str, query_imports: bool = False, *, allow_missing: bool = False
    ) -> Function | None:
        """Return the function `name` (also from imported modules with `query_imports`);
        AttributeError when it is missing, or None with `allow_missing`."""
        if query_imports:
            func = _core.get_global_func("ffi.ModuleGetFunction")(self, name, True)
        else:
            func = _core.module_get_function(self, name)
        if func is None:
            if allow_missing:
                return None
            raise AttributeError(f"Module {self.path!r} has no function `{name}`")
        # Typed exports carry their signature as `__tvm_ffi__metadata_<name>`.
        meta = _core.module_get_function(self, "_metadata_" + name)
        if meta is not None:
            import json

            func._ffi_metadata = json.loads(meta())
            _set_params_from_metadata(func, func._ffi_metadata)
        return func

    @property
    def path(self) -> str:
        """The file the module was loaded from ("" where the runtime cannot say)."""
        get_path = _core.get_global_func("ffi.ModuleGetPath", True)
        return get_path(self) if get_path is not None else self.__dict__.get("_path", "")

    def __repr__(self) -> str:
        return f"<ffi.Module {self.path!r}>"

    def __call__(self, *args: Any) -> Any:
        """Call the module's ``main`` function."""
        return self["main"](*args)

    @property
    def kind(self) -> str:
        """The module's kind, e.g. ``"library"`` for a loaded shared library."""
        return _module_global("ffi.ModuleGetKind")(self)

    @property
    def imports(self) -> list[Module]:
        """The modules this one imports (see :meth:`import_module`)."""
        return list(getattr(self, "imports_", None) or ())

    def implements_function(self, name: str, query_imports: bool = False) -> bool:
        """Whether the module (or, with `query_imports`, a module it imports) defines `name`."""
        return bool(_module_global("ffi.ModuleImplementsFunction")(self, name, query_imports))

    def get_function_metadata(self, name: str, query_imports: bool = False) -> dict | None:
        """The metadata a typed export carries (its ``type_schema``, parameter names, ...) as a
        dict, or None when `name` has none."""
        import json

        text = _module_global("ffi.ModuleGetFunctionMetadata")(self, name, query_imports)
        return None if text is None else json.loads(text)

    def get_function_doc(self, name: str, query_imports: bool = False) -> str | None:
        """The docstring a library exported for `name`, or None."""
        doc = _module_global("ffi.ModuleGetFunctionDoc")(self, name, query_imports)
        return doc or None

    def import_module(self, module: Module) -> None:
        """Make `module`'s functions reachable through this one (``query_imports``)."""
        _module_global("ffi.ModuleImportModule")(self, module)

    def clear_imports(self) -> None:
        """Forget the imported modules."""
        _module_global("ffi.ModuleClearImports")(self)

    def inspect_source(self, fmt: str = "") -> str:
        """The module's source in format `fmt`, where its kind keeps one ("" otherwise)."""
        return _module_global("ffi.ModuleInspectSource")(self, fmt)

    def get_write_formats(self) -> list[str]:
        """The formats :meth:`write_to_file` accepts."""
        return list(_module_global("ffi.ModuleGetWriteFormats")(self))

    def get_property_mask(self) -> int:
        """The module's properties as :class:`ModulePropertyMask` bits."""
        return int(_module_global("ffi.ModuleGetPropertyMask")(self))

    def is_binary_serializable(self) -> bool:
        """Whether the module can be serialized to bytes."""
        return bool(self.get_property_mask() & ModulePropertyMask.BINARY_SERIALIZABLE)

    def is_runnable(self) -> bool:
        """Whether the module's functions can be called."""
        return bool(self.get_property_mask() & ModulePropertyMask.RUNNABLE)

    def is_compilation_exportable(self) -> bool:
        """Whether the module can be exported into a compiled library."""
        return bool(self.get_property_mask() & ModulePropertyMask.COMPILATION_EXPORTABLE)

    def write_to_file(self, file_name: str, fmt: str = "") -> None:
        """Write the module to `file_name` in format `fmt` (see :meth:`get_write_formats`)."""
        _module_global("ffi.ModuleWriteToFile")(self, file_name, fmt)


class ModulePropertyMask(enum.IntEnum):
    """The bits of :meth:`Module.get_property_mask` (the reference's values)."""

    BINARY_SERIALIZABLE = 0b001
    RUNNABLE = 0b010
    COMPILATION_EXPORTABLE = 0b100


def _module_global(name: str) -> Function:
    """A standard module global of the runtime (the reference's runtime has them too)."""
    return _core.get_global_func(name)


def _set_params_from_metadata(func: Function, meta: dict) -> None:
    """Let `func` take keywords when its metadata names its parameters ("arg_names", with
    "arg_defaults" for the trailing ones, as FFI_DLL_EXPORT_TYPED_FUNC_ARGS writes them)."""
    names = meta.get("arg_names")
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        return
    defaults = _typed_defaults(meta)
    first = next((i for i, n in enumerate(names) if n in defaults), len(names))
    _core._set_function_params(func, tuple(names), tuple(defaults[n] for n in names[first:]))


def _typed_defaults(meta: dict) -> dict:
    """The metadata's defaults, an int default of a float parameter made a float (``= 2`` for a
    ``double`` is 2.0, as the call converts it)."""
    defaults = dict(meta.get("arg_defaults") or {})
    for name, type_name in zip(meta.get("arg_names") or (), meta.get("arg_types") or ()):
        value = defaults.get(name)
        if type_name in ("float", "Optional<float>") and type(value) is int:
            defaults[name] = float(value)
    return defaults


def _signature_from_metadata(meta: dict):
    """The inspect.Signature of a typed export, from its metadata (called by Function): named
    parameters with their defaults when the export declares them, else ``arg0, arg1, ...``
    positional-only."""
    import inspect

    types = meta.get("arg_types", [])
    names = meta.get("arg_names")
    if isinstance(names, list) and len(names) == len(types):
        defaults = _typed_defaults(meta)
        empty = inspect.Parameter.empty
        params = [
            inspect.Parameter(
                n,
                inspect.Parameter.POSITIONAL_OR_KEYWORD,
                default=defaults.get(n, empty),
                annotation=t,
            )
            for n, t in zip(names, types)
        ]
    else:
        params = [
            inspect.Parameter(f"arg{i}", inspect.Parameter.POSITIONAL_ONLY, annotation=t)
            for i, t in enumerate(types)
        ]
    return inspect.Signature(params, return_annotation=meta.get("return_type", "Any"))


_core._register_class(_core.type_key_to_index("ffi.Module"), Module)


def _schema_text(schema: dict) -> str:
    """A type schema ({"type": "Optional", "args": [{"type": "int"}]}) as "Optional<int>"."""
    args = schema.get("args")
    inner = f"<{', '.join(_schema_text(a) for a in args)}>" if args else ""
    return str(schema.get("type", "Any")) + inner


def _global_metadata(func: Function, text: str) -> None:
    """Names the parameters of a global function registered with ``ffi::arg`` annotations (its
    metadata has "arg_names" beside the reference's "type_schema"); called by get_global_func."""
    import json

    meta = json.loads(text)
    if "arg_types" not in meta and "type_schema" in meta:
        named = json.loads(meta["type_schema"]).get("named_args", {})
        meta["arg_types"] = [_schema_text(p) for p in named.get("params", [])]
        meta["return_type"] = _schema_text((named.get("return") or [{}])[0])
    func._ffi_metadata = meta
    _set_params_from_metadata(func, meta)


_core._set_hooks(Module._populate, _signature_from_metadata, _global_metadata)


# ---- copying and pickling objects ---------------------------------------------------------------
# Containers define their own (containers.py); these serve every other object, registered class or
# not. They are attached to ffi.Object below, so objects of unregistered types have them too.


def _object_copy(self: Object) -> Object:
    """``copy.copy``: the type's ``__ffi_shallow_copy__`` (its C++ copy constructor)."""
    copy_fn = _core._type_attr(self.type_index, "__ffi_shallow_copy__")
    if copy_fn is None:
        raise TypeError(f"cannot copy a `{self.type_key}`: its type registers no copy constructor")
    return copy_fn(self)


def _object_deepcopy(self: Object, memo: dict) -> Object:
    """``copy.deepcopy``: the runtime's ffi.DeepCopy (keeps sharing and cycles)."""
    return _core.get_global_func("ffi.DeepCopy")(self)


def _object_reduce(self: Object) -> tuple[Any, ...]:
    """Pickling: the object's JSON graph (``ffi.ToJSONGraphString``, the reference's format);
    objects the graph cannot hold (functions, modules, ...) raise its error."""
    to_json = _core.get_global_func("ffi.ToJSONGraphString", True)
    if to_json is None:
        raise TypeError(f"cannot pickle a `{self.type_key}`: the runtime has no JSON graphs")
    return (_object_from_json_graph, (str(to_json(self, None)),))


def _object_from_json_graph(text: str) -> Any:
    """Unpickling: the object a JSON graph describes (``ffi.FromJSONGraphString``)."""
    return _core.get_global_func("ffi.FromJSONGraphString")(text)


Object.__copy__ = _object_copy  # type: ignore[method-assign]
Object.__deepcopy__ = _object_deepcopy  # type: ignore[method-assign]
Object.__reduce__ = _object_reduce  # type: ignore[method-assign,assignment]
_core._register_class(_core.type_key_to_index("ffi.Shape"), Shape)


def load_module(path: str | os.PathLike) -> Module:
    """Load a shared library whose functions are exported as ``__tvm_ffi_<name>``."""
    mod = _core.load_module(os.fspath(path))
    mod.__dict__["_path"] = os.fspath(path)  # for runtimes without ffi.ModuleGetPath
    return mod


class DLDeviceType(enum.IntEnum):
    """DLPack device types."""

    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17
    kDLTrn = 18


def device(type: str | int | Any, index: int | None = None) -> Device:
    """Make a Device: ``device("cuda:1")``, ``device("cuda", 1)``, ``device(torch.device(...))``."""
    return Device(type, index)


_E = TypeVar("_E", bound=type[BaseException])
_F = TypeVar("_F", bound=Callable[..., Any])


@overload
def register_error(kind: _E, cls: None = None) -> _E: ...
@overload
def register_error(kind: str, cls: _E) -> _E: ...
@overload
def register_error(kind: str | None = None, cls: None = None) -> Callable[[_E], _E]: ...


def register_error(kind: str | type | None = None, cls: type | None = None) -> Any:
    """Map an FFI error kind to a Python exception class.

    ``register_error("MyError", MyError)``, or as a decorator: ``@register_error("MyError")`` or
    ``@register_error`` (the kind is the class name). Errors of that kind raised in C++
    (``FFI_THROW(MyError)``) then arrive as ``MyError``.
    """
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


@overload
def register_global_func(
    name: str, func: None = None, override: bool = False
) -> Callable[[_F], _F]: ...
@overload
def register_global_func(name: str, func: _F, override: bool = False) -> _F: ...


def register_global_func(name: str, func: Callable | None = None, override: bool = False) -> Any:
    """Register a Python callable as a global FFI function, visible to C++ by `name`.

    Use directly, ``register_global_func("my.add", add)``, or as a decorator.
    """
    if func is not None:
        _core.register_global_func(name, func, override)
        return func

    def decorate(f: Callable) -> Callable:
        _core.register_global_func(name, f, override)
        return f

    return decorate


def convert_func(pyfunc: Callable[..., Any], tensor_cls: type | None = None) -> Function:
    """`pyfunc` as an ``ffi.Function`` (as ``ffi.convert`` makes it), whose tensor arguments
    arrive as instances of `tensor_cls` when given: a class exposing
    ``__dlpack_c_exchange_api__`` (``torch.Tensor``), converted zero-copy at the C level::

        double = ffi.convert_func(lambda x: x.mul_(2), tensor_cls=torch.Tensor)
        mod.call_with(double, t)   # the callback receives a torch.Tensor

    A tensor the caller borrowed to the call is valid only during it.
    """
    if not callable(pyfunc):
        raise TypeError(f"convert_func needs a callable, not {type(pyfunc).__name__}")
    if tensor_cls is None:
        return _core.convert(pyfunc)
    if not isinstance(tensor_cls, type) or not hasattr(tensor_cls, "__dlpack_c_exchange_api__"):
        raise TypeError(
            f"tensor_cls must be a class exposing __dlpack_c_exchange_api__, not {tensor_cls!r}"
        )
    from ._core import Tensor

    def with_framework_tensors(*args: Any) -> Any:
        return pyfunc(*(_core._tensor_as(a, tensor_cls) if type(a) is Tensor else a for a in args))

    return _core.convert(with_framework_tensors)


def list_global_func_names() -> list[str]:
    """Names of all registered global functions."""
    return _core.list_global_func_names()


def _as_device(dev: Any) -> Device:
    return dev if isinstance(dev, Device) else Device(dev)


def get_raw_stream(dev: Any) -> int:
    """This thread's current stream handle for a device (0: the default stream)."""
    d = _as_device(dev)
    return _core.env_get_stream(d.dlpack_device_type(), d.index)


class StreamContext:
    """Within a ``with`` block, FFI calls on this thread see `stream` (a handle: an int or a
    ``ctypes.c_void_p``) as the current stream of `device`; the previous stream comes back at the
    end of the block (also on an exception). Blocks nest, and one context can be entered again
    once it has been left::

        with ffi.StreamContext(ffi.device("cuda:0"), handle):
            mod.launch(x)   # the kernel reads `handle` through TVMFFIEnvGetStream
    """

    def __init__(self, device: Any, stream: Any) -> None:
        self.device = _as_device(device)
        self.stream = _stream_handle(stream)
        self._previous: list[int] = []

    def __enter__(self) -> StreamContext:
        d = self.device
        self._previous.append(_core.env_set_stream(d.dlpack_device_type(), d.index, self.stream))
        return self

    def __exit__(self, *exc_info: object) -> None:
        d = self.device
        _core.env_set_stream(d.dlpack_device_type(), d.index, self._previous.pop())


def _stream_handle(stream: Any) -> int:
    """A stream handle as an int: an int, a ``ctypes.c_void_p`` or anything with ``__index__``."""
    import ctypes

    if isinstance(stream, ctypes.c_void_p):
        return stream.value or 0
    if stream is None:
        return 0
    try:
        return operator.index(stream)
    except TypeError:
        raise TypeError(
            f"a stream handle is an int or a ctypes.c_void_p, not {type(stream).__name__}"
        ) from None


def use_raw_stream(dev: Any, stream: Any) -> StreamContext:
    """Within the block, FFI calls on this thread see `stream` (an int or ``ctypes.c_void_p``
    handle) for `dev`: ``with ffi.use_raw_stream("cuda:0", handle): ...``."""
    return StreamContext(dev, stream)


def system_lib(symbol_prefix: str = "") -> Module:
    """The module over the functions statically linked libraries registered with
    ``TVMFFIEnvModRegisterSystemLibSymbol``; a name is looked up with `symbol_prefix` first, then
    without it."""
    return _core.get_global_func("ffi.SystemLib")(symbol_prefix)


@contextlib.contextmanager
def use_torch_stream(stream: Any = None) -> Iterator[None]:
    """Within the block, FFI calls see PyTorch's stream: `stream` (a ``torch.cuda.Stream``, made
    current for PyTorch too) or PyTorch's current stream of the current CUDA device."""
    import torch

    with contextlib.ExitStack() as stack:
        if stream is not None:
            stack.enter_context(torch.cuda.stream(stream))
        current = torch.cuda.current_stream()
        dev = Device("cuda", current.device.index)
        stack.enter_context(use_raw_stream(dev, current.cuda_stream))
        yield
