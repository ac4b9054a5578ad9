"""Native core of the ffi package: FFI objects, functions, tensors and conversions.

Type stubs for the extension module ``ffi._core`` (sources in ``src/python/``). The classes are
re-exported by the package as ``ffi.Object``, ``ffi.Function``, ``ffi.Tensor``, ``ffi.dtype`` and
``ffi.Device``.
"""

import ctypes
import inspect
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Literal, Protocol, TypeVar, final, overload

from typing_extensions import CapsuleType, Self, disjoint_base

from ._object_meta import ObjectMeta
from ._type_info import TypeInfo
from .api import Shape
from .module import Module

_O = TypeVar("_O", bound="Object")

class _SupportsDLPack(Protocol):
    """Anything that exports DLPack: PyTorch, NumPy, JAX, CuPy arrays, ffi.Tensor, ..."""

    def __dlpack__(self) -> Any: ...

@disjoint_base
class Object(metaclass=ObjectMeta):
    """Base of every FFI object: holds one reference to it. Made by FFI calls, never directly."""

    @property
    def type_key(self) -> str:
        """The registered type key, e.g. ``"ffi.Tensor"``."""

    @property
    def type_index(self) -> int:
        """The runtime type index."""

    @property
    def _handle(self) -> int:
        """Address of the underlying TVMFFIObject."""

    def same_as(self, other: object, /) -> bool:
        """Whether both refer to the same FFI object."""

    def is_(self, other: object, /) -> bool:
        """Same as same_as (the reference's name)."""

    @property
    def id_(self) -> int:
        """The address of the underlying FFI object as an int (0 when there is none), as the
        reference names it."""

    def __move_handle_from__(self, other: Function, /) -> None:
        """Takes over the function another ffi.Function holds, leaving that one empty (for
        instances of Function subclasses, which start empty)."""

    def __chandle__(self) -> int:
        """The address of the underlying FFI object as an int, as id_ (the reference's name)."""

    def __ctypes_handle__(self) -> ctypes.c_void_p:
        """The address of the underlying FFI object as a ctypes.c_void_p (value None when there
        is none), as the reference's."""

    def _move(self) -> ObjectRValueRef:
        """Hands the object over to the call it is passed to: the callee may take this Python
        object's reference (leaving it without an object), so that it owns the object alone and
        may change it in place."""

    def _use_count(self) -> int:
        """The object's strong reference count."""

    def __copy__(self) -> Self:
        """A copy by the type's copy constructor (``__ffi_shallow_copy__``); TypeError without."""

    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        """A deep copy (the runtime's ``ffi.DeepCopy``): sharing and cycles are kept."""

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickling through the object's JSON graph (``ffi.ToJSONGraphString``)."""

    __tvm_ffi_type_info__: ClassVar[TypeInfo]
    """The TypeInfo of the type the class is bound to (``ffi.Object``'s for an unbound class)."""

    def __tvm_ffi_object__(self) -> Any:
        """This object as a ``tvm_ffi`` object (the same FFI object); needs ``tvm_ffi`` imported."""

    def __init_handle_by_constructor__(self, constructor: Function, /, *args: Any) -> None:
        """Call `constructor` and hold the object it makes (for custom ``__init__`` methods)."""

class _ModuleBase(Object):
    """Base of ffi.Module: fast lookup of exported functions."""

@disjoint_base
class Function(Object):
    """A callable FFI function: ``f(*args)`` calls it with positional arguments only."""

    _ffi_metadata: dict[str, Any]
    """The metadata of a typed module export (set by ffi.Module when the library provides it)."""

    def __call__(self, *args: Any) -> Any:
        """Call the function; arguments and result are converted without copies."""

    @staticmethod
    def __from_extern_c__(c_symbol: int, *, keep_alive_object: object = None) -> Function:
        """A Function calling the C safe-call function at address `c_symbol` (its `self` ignored),
        keeping `keep_alive_object` alive."""

    @staticmethod
    def __from_mlir_packed_safe_call__(
        mlir_packed_symbol: int, *, keep_alive_object: object = None
    ) -> Function:
        """As __from_extern_c__, for an MLIR packed-interface function ``void f(void** args)``."""

    @property
    def __name__(self) -> str | None:
        """The name the function was looked up by (None for anonymous functions)."""

    @property
    def __signature__(self) -> inspect.Signature:
        """``inspect.Signature`` from the export's metadata; AttributeError when it has none."""

    keep_gil: bool
    """Opt-in fast path: when True, calls keep holding the GIL (default False: released)."""

    release_gil: bool
    """The reference's name for ``not keep_gil``: whether calls release the GIL (default True)."""

@final
class ObjectRValueRef:
    """An object handed over to a call (Object._move())."""

@final
class _Field:
    """A reflected field on its class: reads and writes go through the C++ getter and setter."""

    __name__: str
    metadata: str | None
    """The field's metadata (JSON text), or None."""
    flags: int
    """The field's TVMFFIFieldFlagBitMask bits."""
    _owner: str
    """The type key of the type declaring the field."""
    _default: Any
    """The default value, or the factory producing it (see flags); None without one."""

    @property
    def writable(self) -> bool:
        """Whether the field may be assigned."""

    @property
    def fget(self) -> Callable[[Object], Any]:
        """fget(obj): reads the field (as property.fget)."""

    @property
    def fset(self) -> Callable[[Object, Any], None] | None:
        """fset(obj, value): assigns the field (as property.fset); None when it is read-only."""

    def set(self, obj: Object, value: Any, /) -> None:
        """Writes the field of obj even when it is read-only or frozen."""

    def _get(self, obj: Object, /) -> Any:
        """The field of obj."""

    def _assign(self, obj: Object, value: Any, /) -> None:
        """Assigns the field of obj (refused when it is read-only)."""

    def _frozen(self) -> _Field:
        """The same field, refusing assignment."""

    def _converting(self, fn: Callable[[Any], Any], /) -> _Field:
        """The same field, passing each written value through fn first."""

    @overload
    def __get__(self, obj: None, owner: type | None = None, /) -> _Field: ...
    @overload
    def __get__(self, obj: Object, owner: type | None = None, /) -> Any: ...
    def __set__(self, obj: Object, value: Any, /) -> None: ...
    def __delete__(self, obj: Object, /) -> None: ...

@final
class _Method(Function):
    """A reflected instance method: binds like a Python method, the object passed first."""

    def __get__(self, obj: object, owner: type | None = None, /) -> Any: ...

@disjoint_base
class Tensor(Object):
    """An n-dimensional array shared through DLPack (zero-copy)."""

    __dlpack_c_exchange_api__: CapsuleType
    """A ``dlpack_exchange_api`` capsule: the DLPack exchange API (C functions) for this type."""

    @property
    def shape(self) -> Shape:
        """Extents (an ffi.Shape, a tuple of ints)."""

    @property
    def strides(self) -> tuple[int, ...]:
        """Strides in elements (filled in for compact tensors)."""

    @property
    def dtype(self) -> dtype:
        """Element type."""

    @property
    def device(self) -> Device:
        """Where the data lives."""

    @property
    def ndim(self) -> int:
        """Number of dimensions."""

    @property
    def byte_offset(self) -> int:
        """Offset in bytes of the first element from ``data_ptr()``."""

    def data_ptr(self) -> int:
        """The data pointer as an int."""

    def is_contiguous(self) -> bool:
        """Whether the layout is compact row-major."""

    def numel(self) -> int:
        """Number of elements."""

    def size(self, dim: int, /) -> int:
        """size(dim): the extent of dimension `dim` (negative from the end)."""

    def __dlpack__(
        self,
        *,
        stream: int | None = None,
        max_version: tuple[int, int] | None = None,
        dl_device: tuple[int, int] | None = None,
        copy: bool | None = None,
    ) -> CapsuleType:
        """A DLPack capsule sharing this tensor's memory (versioned when max_version >= (1, 0)).

        ``stream`` is the consumer's stream (the DLPack protocol's values; -1: no ordering): its
        later work waits for this thread's FFI stream of the tensor's device. ``copy=True``
        copies (CPU tensors only); a ``dl_device`` other than the tensor's raises BufferError.
        """

    def __dlpack_device__(self) -> tuple[int, int]:
        """``(device_type, device_id)`` as DLPack numbers."""

@final
class dtype(str):
    """An element type: ``ffi.dtype("float32")``, also from NumPy and PyTorch dtypes.

    A ``str``, as in the reference: the text it was made from (``ffi.dtype("i8")`` stays
    ``"i8"``), compared and hashed as that text, so NumPy and ``dict`` keys take it as is.
    """

    def __new__(cls, content: str | Any) -> dtype:
        """Parse a dtype: an ffi.dtype, a string like ``"float32"``, a NumPy or PyTorch dtype."""

    @property
    def type_code(self) -> int:
        """The DLDataTypeCode (0 int, 1 uint, 2 float, ...)."""

    @property
    def bits(self) -> int:
        """Bits per lane."""

    @property
    def lanes(self) -> int:
        """Vector lanes (negative for a scalable vector: -4 is "x vscale x 4")."""

    @property
    def itemsize(self) -> int:
        """Bytes per element (rounded up); ValueError for a scalable vector."""

    @property
    def is_bool(self) -> bool:
        """Whether this is bool."""

    @property
    def is_integer(self) -> bool:
        """Whether this is a signed or unsigned int."""

    @property
    def is_float(self) -> bool:
        """Whether this is a float (bfloat16, fp8/6/4 included)."""

    @property
    def is_handle(self) -> bool:
        """Whether this is an opaque handle."""

    def with_lanes(self, lanes: int, /) -> dtype:
        """The same element type with `lanes` lanes."""

    @staticmethod
    def from_dlpack_data_type(dltype_data_type: tuple[int, int, int], /) -> dtype:
        """The dtype of a DLPack (type_code, bits, lanes) tuple."""

    @staticmethod
    def is_dtype(arg: object, /) -> bool:
        """Whether ffi.dtype() accepts the argument."""

    def __eq__(self, other: object, /) -> bool:
        """Equal to the same dtype or to its string form (``ffi.float32 == "float32"``)."""

    def __ne__(self, other: object, /) -> bool:
        """The negation of ``==``."""

    def __hash__(self) -> int:
        """Hash of (code, bits, lanes)."""

@final
class Device:
    """A device: ``ffi.Device("cuda:1")``, ``ffi.Device("cuda", 1)``, also from torch.device."""

    def __new__(cls, type: str | int | Device | Any, index: int | None = None) -> Device:
        """Make a device from a name (``"cuda:1"``), a DLDeviceType number or a torch.device;
        `index` overrides the ordinal."""

    @property
    def type(self) -> str:
        """Device type name, e.g. ``"cuda"``."""

    @property
    def index(self) -> int:
        """Device ordinal."""

    def dlpack_device_type(self) -> int:
        """The DLDeviceType number."""

    def __eq__(self, other: object, /) -> bool:
        """Same device type and ordinal."""

    def __ne__(self, other: object, /) -> bool:
        """The negation of ``==``."""

    def __hash__(self) -> int:
        """Hash of (device type, ordinal)."""

@final
class CAny:
    """One value converted to the FFI and owned here (what ``TypeSchema.convert`` returns);
    ``_to_py_class_value(cany)`` reads it back."""

    def __new__(cls, value: Any) -> CAny:
        """Convert `value` as a call argument is and hold the result."""

    @property
    def type_index(self) -> int:
        """The type index of the held value (a TVMFFITypeIndex or an object type's)."""

def _to_py_class_value(cany: CAny, /) -> Any:
    """The value a CAny holds, converted as a returned value is."""

def from_dlpack(
    ext_tensor: _SupportsDLPack, *, require_alignment: int = 0, require_contiguous: bool = False
) -> Tensor:
    """An ffi.Tensor sharing the memory of any DLPack producer (PyTorch, NumPy, JAX, ...).

    ``require_alignment`` (bytes) and ``require_contiguous`` refuse tensors that do not meet them
    with a ValueError.
    """

def load_module(path: str) -> Module:
    """Load a shared library of ``__tvm_ffi_<name>`` functions as a Module."""

def module_get_function(module: Object, name: str) -> Function | None:
    """The module's function `name` (symbol ``__tvm_ffi_<name>``), or None."""

@overload
def get_global_func(name: str, allow_missing: Literal[False] = False) -> Function:
    """The global function `name`; ValueError when it is not registered."""

@overload
def get_global_func(name: str, allow_missing: bool) -> Function | None:
    """The global function `name`; None when missing and `allow_missing`, else ValueError."""

def register_global_func(name: str, func: Callable[..., Any], override: bool = False) -> Function:
    """Register a callable (or ffi.Function) as the global function `name`; returns the
    registered ffi.Function."""

def remove_global_func(name: str) -> bool:
    """Remove the global function `name`; return whether it existed."""

def list_global_func_names() -> list[str]:
    """Names of all global functions."""

def convert(value: Any) -> Any:
    """Convert a Python value to its FFI form: callables become ffi.Function, DLPack producers
    ffi.Tensor, lists and tuples ffi.Array, dicts ffi.Map, other objects
    ffi.core.OpaquePyObject; plain values round-trip."""

def register_error(kind: str, cls: type[BaseException]) -> None:
    """Map the FFI error kind `kind` to the exception class `cls`."""

def _error_parts(obj: Object, /) -> tuple[str, str, str]:
    """(kind, message, backtrace) of an ffi.Error object."""

def _error_to_exception(obj: Object, /) -> BaseException:
    """The Python exception an ffi.Error object stands for."""

def _make_error(kind: str, message: str, backtrace: str) -> Object:
    """A new ffi.Error object."""

def _tensor_as(tensor: Tensor, cls: type, /) -> Any:
    """The ffi.Tensor `tensor` as a tensor of class `cls` (through its DLPack exchange API),
    zero-copy."""

def _convert_to_opaque_object(value: Any) -> Object:
    """An ffi.core.OpaquePyObject holding `value`, whatever it is."""

def _opaque_pyobject(obj: Object, /) -> Any:
    """The Python object an ffi.core.OpaquePyObject holds."""

def _wrap_as(obj: Object, cls: type[_O], /) -> _O:
    """A new `cls` (a Python subclass of obj's class) holding another reference to obj's
    object."""

def _set_value_class(base: type, cls: type, /) -> None:
    """Make tensors (`base` ffi.Tensor), dtypes (ffi.dtype) or devices (ffi.Device) arrive as
    `cls`, a subclass of `base`."""

def _value_class(base: type, /) -> type:
    """The class values of `base` (ffi.Tensor, ffi.dtype, ffi.Device) arrive as."""

def _set_object_metaclass(meta: type, /) -> None:
    """Make `meta` the metaclass of ffi.Object and of the extension's classes derived from it."""

def _register_class(type_index: int, cls: type, /) -> None:
    """Set the Python class used for FFI objects of a type index."""

def _register_object(type_index: int, cls: type, /) -> Function | None:
    """Bind `cls` to the type, set its reflected fields and methods; returns its constructor."""

def _type_attr(type_index: int, name: str, /) -> Any:
    """A type attribute's value, or None."""

def _class_for_type_index(type_index: int, /) -> type:
    """The class objects of the type arrive as."""

def _class_type_index(cls: type, /) -> int:
    """The type index `cls` (or its nearest registered base) stands for, or -1."""

def _type_key(type_index: int, /) -> str:
    """The type's key."""

def _py_class_new_type(type_key: str, parent_index: int, /) -> int:
    """Allocates a type index for a class defined in Python; a registered key is a ValueError."""

def _py_class_add_field(
    type_index: int,
    name: str,
    doc: str | None,
    metadata: str | None,
    flags: int,
    size: int,
    alignment: int,
    offset: int,
    static_type_index: int,
    getter_address: int,
    setter: Function,
    default: Any,
    /,
) -> None:
    """Registers a field of a type defined in Python."""

def _py_class_set_metadata(
    type_index: int, total_size: int, structural_kind: int, doc: str | None, /
) -> None:
    """Registers the type's metadata."""

def _py_class_add_method(
    type_index: int, name: str, func: Callable[..., Any], is_static: bool, doc: str | None, /
) -> None:
    """Publishes a method of a type defined in Python."""

def _py_class_parent_size(type_index: int, /) -> int:
    """The size of a type a Python class may extend (its state is all plain reflected fields),
    else -1."""

def _py_class_set_type_attr(type_index: int, name: str, value: Any, /) -> None:
    """Sets a type attribute."""

def _py_class_converter_address() -> int:
    """The C conversion callback ffi.MakeFieldSetter calls with a field's Python converter."""

def _type_fields(type_index: int, /) -> list[_Field]:
    """Field descriptors of the type and its ancestors, root first."""

def _function_from_c_symbol(address: int, keep_alive: object, mlir_packed: bool, /) -> Function:
    """A Function calling C code at `address` (a safe call, or an MLIR packed one), keeping
    `keep_alive` alive."""

def _type_info(
    type_index: int, /
) -> tuple[
    str,
    tuple[int, ...],
    str | None,
    list[tuple[_Field, int, int, int, int]],
    list[tuple[str, str | None, str | None, int, Any]],
    int,
]:
    """The type's own reflection records: (type_key, ancestor indices root first, doc, fields as
    (descriptor, size, alignment, offset, static type index), methods as (name, doc, metadata,
    flags, function), the object's total size in bytes (0 when unknown))."""

def _registered_type_keys() -> list[str]:
    """Every registered type key, as ffi.GetRegisteredTypeKeys returns them."""

def type_key_to_index(key: str, /) -> int:
    """The type index registered for a type key."""

def _set_hooks(
    module_loaded: Callable[[Module], None],
    signature_from_metadata: Callable[[dict[str, Any]], inspect.Signature],
    global_metadata: Callable[[Function, str], None] | None = None,
) -> None:
    """Register the package's Python-level behaviour (called once by ``ffi.module``)."""

def set_tensor_results(mode: Literal["framework", "ffi"], /) -> Literal["framework", "ffi"]:
    """What tensors returned by calls that received framework tensors arrive as; returns the
    previous mode. ``"framework"`` (the default): that framework's tensors, zero-copy;
    ``"ffi"``: ``ffi.Tensor``. Process-wide."""

def _set_function_params(func: Function, names: tuple[str, ...], defaults: tuple[Any, ...]) -> None:
    """Give a function parameter names and the defaults of its last parameters (keywords)."""

def env_set_stream(device_type: int, device_id: int, stream: int, /) -> int:
    """Set this thread's current stream for a device; return the previous one."""

def env_get_stream(device_type: int, device_id: int, /) -> int:
    """This thread's current stream for a device (0: the default stream)."""

# The container functions python/ffi/container.py builds ffi.Array, List, Map and Dict on.

def _new_container(type_index: int, values: Any, /) -> Any:
    """A new Array or List (from an iterable) or Map or Dict (from a mapping) of the FFI type
    `type_index`, converting every element."""

def _seq_len(seq: Object, /) -> int:
    """Size of an Array or List."""

def _seq_getitem(seq: Object, index: int, /) -> Any:
    """Element `index` (negative counts from the end) of an Array or List; IndexError when out of
    range."""

def _seq_items(seq: Object, raw: bool = False, /) -> list[Any]:
    """The elements of an Array or List as a Python list; with `raw`, tensors as ffi.Tensor
    whatever framework the container hands out."""

def _map_len(map: Object, /) -> int:
    """Size of a Map or Dict."""

def _map_key(key: Any, /) -> Any:
    """The key as a Map or Dict made or read through the container API holds it: itself, or an
    ffi.core.OpaquePyObject holding it when it would convert to a new object each time (found by
    Python's hash and ==); TypeError for a key Python refuses (a list, a dict, a set)."""

def _map_get(map: Object, key: Any, default: Any = ..., /) -> Any:
    """The value of `key` in a Map or Dict; `default` when absent and given, else KeyError."""

def _map_items(map: Object, raw: bool = False, /) -> list[tuple[Any, Any]]:
    """The entries of a Map or Dict as (key, value) pairs, in insertion order; with `raw`,
    tensors as ffi.Tensor."""

# The ABI's constants as the extension was compiled against them (src/python/abi_constants.cc):
# each table is named after its C enum and maps the enumerator's name to its value; ffi._abi reads
# them for the rest of the package.

TVMFFITypeIndex: Mapping[str, int]
"""``TVMFFITypeIndex`` (``<ffi/c_api.h>``): what a value is, or what kind of object."""
TVMFFIFieldFlagBitMask: Mapping[str, int]
"""``TVMFFIFieldFlagBitMask`` (``<ffi/c_reflection_api.h>``): the bits of a field's flags."""
TVMFFISEqHashKind: Mapping[str, int]
"""``TVMFFISEqHashKind``: how structural equality and hashing treat a type's objects."""
TVMFFIDefRegionKind: Mapping[str, int]
"""``TVMFFIDefRegionKind``: the definition region a structural visit is in."""
DLDeviceType: Mapping[str, int]
"""DLPack's device types (``<ffi/dlpack.h>``)."""
DLDataTypeCode: Mapping[str, int]
"""DLPack's element type codes."""
AccessKind: Mapping[str, int]
"""``ffi::reflection::AccessKind``: how one step of an access path reaches a part."""
WalkOrder: Mapping[str, int]
"""``ffi::WalkOrder``: before or after a part's children a structural walk calls back."""
WalkResult: Mapping[str, int]
"""``ffi::WalkResult``'s codes: go on into a part's children, or skip them."""
InplaceMode: Mapping[str, int]
"""``ffi::InplaceMode``: whether a structural mutation may change a value in place."""
sizeof: Mapping[str, int]
"""The sizes in bytes of ``TVMFFIObject``, ``TVMFFIAny`` and the C types fields are stored as."""
alignof: Mapping[str, int]
"""The alignments of the types in ``sizeof``."""
TVM_FFI_VERSION: tuple[int, int, int]
"""The C ABI's version (major, minor, patch) the extension was compiled against."""
