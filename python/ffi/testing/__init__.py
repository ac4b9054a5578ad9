"""Test fixtures under the reference package's names (``tvm_ffi.testing``): the testing library's
global functions (``testing.*``: ``echo``, ``apply``, ``nop``, ``object_use_count``,
``test_raise_error``, the ``schema_id_*`` identities, ...), Python classes for its object types
(:class:`TestObjectBase`, :class:`TestIntPair`, the ``_TestCxx*`` dataclass fixtures, ...),
:func:`create_object`, :func:`make_unregistered_object` and :func:`run_with_gpu_lock`.

Importing it loads the testing library (``libffi_testing.so``, built with the package) unless the
reference package's testing library is already in the process, in which case that one serves:
both register the same type keys and function names, and a name can be registered only once.
"""

from . import _ffi_api
from ._ffi_api import *  # noqa: F403
from ._locking import run_with_gpu_lock
from .testing import (
    TestCompare,
    TestCustomCompare,
    TestCustomHash,
    TestEqWithoutHash,
    TestFrozenCxx,
    TestHash,
    TestIntPair,
    TestNonCopyable,
    TestObjectBase,
    TestObjectDerived,
    TestObjectPtrHolder,
    _SchemaAllTypes,
    _TestCxxAutoInit,
    _TestCxxAutoInitAllInitOff,
    _TestCxxAutoInitChild,
    _TestCxxAutoInitKwOnlyDefaults,
    _TestCxxAutoInitParent,
    _TestCxxAutoInitSimple,
    _TestCxxClassBase,
    _TestCxxClassDerived,
    _TestCxxClassDerivedDerived,
    _TestCxxEnumHolder,
    _TestCxxInitSubset,
    _TestCxxIntEnum,
    _TestCxxKwOnly,
    _TestCxxNoAutoInit,
    _TestCxxStrEnum,
    add_one,
    create_object,
    make_unregistered_object,
)

# The testing library's functions, then the Python fixtures (add_one and make_unregistered_object
# are both: the Python wrappers replace the functions of the same name).
__all__ = [
    *_ffi_api.__all__,
    "run_with_gpu_lock",
    "TestCompare",
    "TestCustomCompare",
    "TestCustomHash",
    "TestEqWithoutHash",
    "TestFrozenCxx",
    "TestHash",
    "TestIntPair",
    "TestNonCopyable",
    "TestObjectBase",
    "TestObjectDerived",
    "TestObjectPtrHolder",
    "_SchemaAllTypes",
    "_TestCxxAutoInit",
    "_TestCxxAutoInitAllInitOff",
    "_TestCxxAutoInitChild",
    "_TestCxxAutoInitKwOnlyDefaults",
    "_TestCxxAutoInitParent",
    "_TestCxxAutoInitSimple",
    "_TestCxxClassBase",
    "_TestCxxClassDerived",
    "_TestCxxClassDerivedDerived",
    "_TestCxxEnumHolder",
    "_TestCxxInitSubset",
    "_TestCxxIntEnum",
    "_TestCxxKwOnly",
    "_TestCxxNoAutoInit",
    "_TestCxxStrEnum",
    "add_one",
    "create_object",
    "make_unregistered_object",
]
