"""Loaded libraries: :class:`Module` (the reference's ``tvm_ffi.module``), ``load_module``,
``system_lib``, and the signatures typed exports declare in their metadata.

``ffi._bootstrap`` makes modules arrive as :class:`Module` and gives the extension this module's
hooks: ``Module._populate`` for each module arriving in Python, :func:`_signature_from_metadata`
for ``inspect.signature`` of a typed function and :func:`_global_metadata` for each global
function looked up."""

from __future__ import annotations

import enum
import os
import sys
from typing import TYPE_CHECKING, Any

from . import _core
from ._core import Function
from ._type_schema import parse_metadata


class _ShadowedByExports:
    """A read-only member of :class:`Module` that the reference's Module does not have (``path``,
    ``type_key``, ``type_index``): an exported function of the same name takes its place, so
    ``mod.path(...)`` calls the library's ``path`` there as in the reference. A non-data
    descriptor, so that the function cached in the module's ``__dict__`` wins."""

    def __init__(self, getter: Any) -> None:
        self._getter = getter
        self.__doc__ = getter.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    def __get__(self, mod: Module | None, owner: type | None = None) -> Any:
        if mod is None:
            return self
        # Without a runtime that lists a module's functions (_populate), look the name up first.
        func = Module.get_function(mod, self._name, allow_missing=True)
        if func is not None:
            mod.__dict__[self._name] = func
            return func
        return self._getter(mod)


class Module(_core._ModuleBase):
    """A loaded library. Its functions are attributes: ``mod.add_one(x, y)``.

    Every function the library exports (symbols ``__tvm_ffi_<name>``) is an attribute from the
    moment the module is loaded, so calling one costs a plain attribute read; ``dir(mod)`` lists
    them.
    """

    __slots__ = ("__dict__",)  # where the exported functions are cached

    def _populate(self) -> None:
        # The extension's hook (see the module docstring): called when a module arrives in
        # Python. The reference's runtime has no way to list a module's functions: there, each
        # function becomes an attribute when it is first looked up (__getattr__ below).
        lister = _core.get_global_func("ffi.ModuleListFunctionNames", True)
        if lister is None:
            return
        cls = type(self)
        for name in lister(self).split():
            # A function named like a member of Module (`get_function`, `kind`, ...) does not
            # replace it, as in the reference: `mod[name]` and `get_function(name)` reach it.
            # Members the reference's Module lacks (`path`, ...) give way to the function.
            if hasattr(cls, name) and not isinstance(getattr(cls, name), _ShadowedByExports):
                continue
            # Interned, as attribute names in code are: lookups then compare pointers only.
            self.__dict__[sys.intern(name)] = Module.get_function(self, name)

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

    def __contains__(self, name: object) -> bool:
        """Whether the module defines a function `name` (a str)."""
        return isinstance(name, str) and self.implements_function(name)

    def _require_function(self, name: str) -> Function:
        func = self.get_function(name)
        assert func is not None  # get_function raises when it is missing
        return func

    def get_function(
        self, name: str, query_imports: bool = False, *, allow_missing: bool = False
    ) -> Function | None:
        """Return the function `name` (also from imported modules with `query_imports`);
        AttributeError when it is missing, or None with `allow_missing`."""
        if not isinstance(name, str):
            raise TypeError(f"a function name is a str, not `{type(name).__name__}`")
        if query_imports:
            func = _core.get_global_func("ffi.ModuleGetFunction")(self, name, True)
        else:
            func = _core.module_get_function(self, name)
        if func is None:
            if allow_missing:
                return None
            raise AttributeError(f"Module {_file_path(self)!r} has no function `{name}`")
        # Typed exports carry their signature as `__tvm_ffi__metadata_<name>`.
        meta = _core.module_get_function(self, "_metadata_" + name)
        if meta is not None:
            func._ffi_metadata = parse_metadata(meta())
            _set_params_from_metadata(func, func._ffi_metadata)
        return func

    #: The name of the function calling the module runs (the reference's attribute).
    entry_name = "main"

    def __repr__(self) -> str:
        return f"<ffi.Module {_file_path(self)!r}>"

    def __call__(self, *args: Any) -> Any:
        """Call the module's ``main`` function."""
        return self[self.entry_name](*args)

    if TYPE_CHECKING:
        path: str
        type_key: str
        type_index: int
    else:

        @_ShadowedByExports
        def path(self) -> str:
            """The file the module was loaded from ("" where the runtime cannot say)."""
            return _file_path(self)

        type_key = _ShadowedByExports(_core.Object.type_key.__get__)
        type_index = _ShadowedByExports(_core.Object.type_index.__get__)

    @property
    def kind(self) -> str:
        """The module's kind, e.g. ``"library"`` for a loaded shared library."""
        return _module_global("ffi.ModuleGetKind")(self)

    @property
    def imports(self) -> list[Module]:
        """The modules this one imports (see :meth:`import_module`)."""
        get_imports = _core.get_global_func("ffi.ModuleGetImports", True)
        if get_imports is not None:
            return list(get_imports(self))
        # The reference's runtime has no such function; its modules reflect the field instead.
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


def _file_path(mod: Module) -> str:
    get_path = _core.get_global_func("ffi.ModuleGetPath", True)
    return get_path(mod) if get_path is not None else mod.__dict__.get("_path", "")


class ModulePropertyMask(enum.IntEnum):
    """The bits of :meth:`Module.get_property_mask` (the reference's values; no public header
    declares them, so the extension cannot export them)."""

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

    if "arg_types" not in meta:
        raise ValueError("the function's metadata describes no parameters (no type_schema)")
    types = meta["arg_types"]
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


def _global_metadata(func: Function, text: str) -> None:
    """Names the parameters of a global function registered with ``ffi::arg`` annotations (its
    metadata has "arg_names" beside the reference's "type_schema"); called by get_global_func."""
    meta = parse_metadata(text)
    func._ffi_metadata = meta
    _set_params_from_metadata(func, meta)


def load_module(path: str | os.PathLike, keep_module_alive: bool = True) -> Module:
    """Load a shared library whose functions are exported as ``__tvm_ffi_<name>``.

    `keep_module_alive` is the reference's parameter: a loaded library always stays loaded for
    the life of the process here (objects and functions it made may outlive the module), so
    either value behaves as True."""
    mod = _core.load_module(os.fspath(path))
    mod.__dict__["_path"] = os.fspath(path)  # for runtimes without ffi.ModuleGetPath
    return mod


def system_lib(symbol_prefix: str = "") -> Module:
    """The module over the functions statically linked libraries registered with
    ``TVMFFIEnvModRegisterSystemLibSymbol``; a name is looked up with `symbol_prefix` first, then
    without it."""
    return _core.get_global_func("ffi.SystemLib")(symbol_prefix)
