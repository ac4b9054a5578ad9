"""ffi.dataclasses.Enum / IntEnum / StrEnum: enums whose members are FFI objects, defined in
Python or in C++ (kernels/enum_objects.cc, built with our headers and with the reference's), found
by either canonical index from both sides, with extensible attributes, JSON graphs, pickling,
structural equality and fields that take a member's index."""

from __future__ import annotations

import copy
import itertools
import json
import pickle
import shutil
import subprocess
import sys
from typing import ClassVar

import pytest
from support.build import build_with_both_headers
from support.paths import KERNELS_DIR

import ffi
from ffi import dataclasses as dc
from ffi.dataclasses import Enum, EnumAttrMap, EnumState, IntEnum, StrEnum, auto, entry
from ffi.dataclasses.enum import ENUM_STATE_ATTR
from ffi.serialization import from_json_graph_str, to_json_graph_str

# Run again against the AddressSanitizer build (tests/run_all.sh python-asan).
pytestmark = pytest.mark.sanitized

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
_keys = itertools.count()


def key(name: str) -> str:
    """A fresh type key: a type registered once stays registered for the process."""
    return f"test_enum.{name}.{next(_keys)}"


def state_of(cls: type) -> EnumState:
    return ffi._core._type_attr(ffi._core._class_type_index(cls), ENUM_STATE_ATTR)


# ---- enums defined in Python ---------------------------------------------------------------------


def test_plain_enum_members_indices_and_fields():
    k = key("Activation")

    class Activation(Enum, type_key=k):
        arity: int = 0
        relu: ClassVar[Activation] = entry(arity=1)
        add = entry(arity=2)
        noop = auto()

        def describe(self) -> str:  # methods stay methods, not members
            return f"{self._str_index}/{self.arity}"

    assert [(m._int_index, m._str_index, m.arity) for m in Activation] == [
        (0, "relu", 1),
        (1, "add", 2),
        (2, "noop", 0),
    ]
    assert len(Activation) == 3 and Activation.relu in Activation
    assert Activation.get(1).same_as(Activation.add)
    assert Activation.get("noop").same_as(Activation.noop)
    assert Activation(0) is Activation.relu or Activation(0).same_as(Activation.relu)
    assert Activation("add").same_as(Activation.add)
    assert Activation(Activation.add) is Activation.add
    assert list(Activation.all_entries()) == list(Activation)
    assert Activation.add.describe() == "add/2"
    assert isinstance(Activation.add, Activation) and isinstance(Activation.add, ffi.Object)
    assert repr(Activation.relu) == f"{k}.relu"
    with pytest.raises(AttributeError):
        Activation.relu.arity = 3  # members are constants
    with pytest.raises(KeyError):
        Activation.get("gelu")
    with pytest.raises(ValueError, match="not a valid Activation"):
        Activation("gelu")
    with pytest.raises(TypeError):
        Activation.get(1.5)


def test_bare_class_vars_declare_members_and_sentinels_are_fresh():
    class Status(Enum, type_key=key("Status")):
        ready: ClassVar[Status]
        failed: ClassVar[Status]

    assert [m._str_index for m in Status] == ["ready", "failed"]
    assert Status.failed._int_index == 1
    a, b = auto(), entry(2, code=3)
    assert a is not auto() and repr(b) == "entry(2, code=3)"


def test_int_enum_takes_any_int64_and_behaves_as_its_value():
    class Limit(IntEnum, type_key=key("Limit")):
        MIN = INT64_MIN
        ZERO = 0
        MAX = INT64_MAX

    assert Limit.MIN.value == Limit.MIN._int_index == INT64_MIN
    assert Limit.MAX.name == Limit.MAX._str_index == "MAX"
    assert Limit(INT64_MAX).same_as(Limit.MAX) and Limit("MIN").same_as(Limit.MIN)
    assert Limit(False).same_as(Limit.ZERO)  # a bool is an int index
    assert Limit.ZERO == 0 and Limit.MAX != 0 and Limit.MIN == Limit.MIN
    assert hash(Limit.MAX) == hash(INT64_MAX)
    assert str(Limit.MIN) == str(INT64_MIN) and repr(Limit.MIN) == "Limit.MIN"
    assert {Limit.ZERO: "z"}[0] == "z"
    for bad in (INT64_MIN - 1, INT64_MAX + 1):
        with pytest.raises(OverflowError):
            Limit(bad)
        with pytest.raises(OverflowError):
            Limit.get(bad)


def test_str_enum_name_and_value_are_the_string_index():
    class Space(StrEnum, type_key=key("Space")):
        SMEM = "smem"
        GMEM = "gmem"

        def __repr__(self) -> str:  # the class body's repr is kept
            return f"<{self.value}>"

    assert Space.SMEM.name == Space.SMEM.value == Space.SMEM._str_index == "smem"
    assert Space.GMEM._int_index == 1 and Space.get(1).same_as(Space.GMEM)
    assert Space("smem").same_as(Space.SMEM) and Space.SMEM == "smem"
    assert str(Space.GMEM) == "gmem" and repr(Space.GMEM) == "<gmem>"
    with pytest.raises(ValueError):
        Space("SMEM")  # the alias is not an index


def test_aliases_name_one_member():
    class Op(StrEnum, type_key=key("Op")):
        PLUS = "+"
        ADD = "+"

    assert Op.PLUS.same_as(Op.ADD) and len(Op) == 1


def test_definition_errors():
    with pytest.raises(TypeError, match="reserves `value`"):

        class BadInt(IntEnum, type_key=key("BadInt")):
            value: int
            ONE = 1

    with pytest.raises(TypeError, match="must be a int"):

        class BadLiteral(IntEnum, type_key=key("BadLiteral")):
            ONE = "one"

    with pytest.raises(TypeError, match="must be a str"):

        class BadStr(StrEnum, type_key=key("BadStr")):
            ONE = 1

    with pytest.raises(TypeError, match="needs a int value"):

        class NoValue(IntEnum, type_key=key("NoValue")):
            ONE: ClassVar[NoValue]

    with pytest.raises(TypeError, match="inferred"):

        class GivenIndex(Enum, type_key=key("GivenIndex")):
            A = entry(_int_index=3)

    with pytest.raises(TypeError, match="invalid enum member"):

        class BadField(Enum, type_key=key("BadField")):
            size: int = 0
            BIG = entry(size="large")


def test_state_is_one_type_attribute():
    class Flag(Enum, type_key=key("Flag")):
        OFF = auto()
        ON = auto()

    state = state_of(Flag)
    assert isinstance(state, EnumState)
    assert [f.name for f in dc.fields(state)] == ["entries", "indexes", "attrs"]
    assert list(state.entries) == [Flag.OFF, Flag.ON]
    assert state.indexes[1].same_as(Flag.ON) and state.indexes["OFF"].same_as(Flag.OFF)


def test_extensible_attributes():
    class Unit(Enum, type_key=key("Unit")):
        A = auto()
        B = auto()

    class Other(Enum, type_key=key("Other")):
        A = auto()

    cost = Unit.def_attr("cost", default=-1)
    assert isinstance(cost, EnumAttrMap) and cost.name == "cost"
    assert cost[Unit.A] == -1 and Unit.A not in cost
    cost[Unit.A] = None
    cost[Unit.B] = 7
    assert Unit.A in cost and cost[Unit.A] is None and cost.get(Unit.B) == 7
    assert Unit.attr_dict["cost"][Unit.B] == 7  # the live table C++ reads
    strict = Unit.def_attr("strict")
    with pytest.raises(KeyError):
        strict[Unit.A]
    assert strict.get(Unit.A, 3) == 3
    with pytest.raises(TypeError):
        strict[Other.A] = 1
    assert Other.A not in strict


def test_json_pickle_copy_and_structural_equality():
    class Status(Enum, type_key=key("JStatus")):
        READY = auto()

    class Priority(IntEnum, type_key=key("JPriority")):
        LOW = -9

    class Opcode(StrEnum, type_key=key("JOpcode")):
        ADD = "+"

    for member, data in ((Status.READY, "READY"), (Priority.LOW, -9), (Opcode.ADD, "+")):
        text = to_json_graph_str(member)
        graph = json.loads(text)
        assert graph["nodes"][graph["root_index"]]["data"] == data
        assert from_json_graph_str(text).same_as(member)
        assert pickle.loads(pickle.dumps(member)).same_as(member)
        assert copy.deepcopy(member).same_as(member)
    duplicate = copy.copy(Status.READY)  # a second object is not the member
    assert not duplicate.same_as(Status.READY)
    assert ffi.structural_equal(Status.READY, Status.READY)
    assert not ffi.structural_equal(Status.READY, duplicate)


def test_py_class_fields_take_members_or_their_indices():
    class Priority(IntEnum, type_key=key("HPriority")):
        MIN = INT64_MIN
        MAX = INT64_MAX

    class Opcode(StrEnum, type_key=key("HOpcode")):
        ADD = "+"
        MUL = "*"

    @dc.py_class(key("Holder"))
    class Holder(ffi.Object):
        priority: Priority
        opcode: Opcode

    h = Holder(priority=INT64_MIN, opcode="*")
    assert h.priority.same_as(Priority.MIN) and h.opcode.same_as(Opcode.MUL)
    h.opcode = Opcode.ADD
    h.priority = INT64_MAX
    assert h.priority.same_as(Priority.MAX) and h.opcode.same_as(Opcode.ADD)
    back = from_json_graph_str(to_json_graph_str(h))
    assert back.priority.same_as(Priority.MAX) and ffi.structural_equal(h, back)
    for bad in (INT64_MAX + 1, 5, "MIN", Opcode.ADD):
        with pytest.raises(TypeError):
            h.priority = bad
    assert h.priority.same_as(Priority.MAX)  # refused writes change nothing
    with pytest.raises(TypeError, match="int64 range"):
        Holder(priority=INT64_MIN - 1, opcode="+")


# ---- enums defined in C++ ----------------------------------------------------------------------

PREFIXES = ["enours", "enref"]


@pytest.fixture(scope="module")
def libs(tmp_path_factory):
    import os

    src = os.path.join(KERNELS_DIR, "enum_objects.cc")
    out = build_with_both_headers(
        src, tuple(PREFIXES), "ENUM_PREFIX", str(tmp_path_factory.mktemp("enum"))
    )
    return {p: ffi.load_module(path) for p, path in out.items()}


@pytest.fixture(scope="module", params=PREFIXES)
def k(request, libs):
    """The classes and functions of one copy of the library, as a namespace."""
    p = request.param
    if p not in libs:
        pytest.skip("apache-tvm-ffi is not installed")

    class Variant(Enum, type_key=f"{p}.Variant"):
        Alpha: ClassVar[Variant]
        Beta: ClassVar[Variant]

    class Priority(IntEnum, type_key=f"{p}.Priority"):
        low = entry(value=10)
        high = entry(value=20)

    class Opcode(StrEnum, type_key=f"{p}.Opcode"):
        add = entry(value="+")
        mul = entry(value="*")

    class Level(IntEnum, type_key=f"{p}.Level"):
        pass

    @dc.c_class(f"{p}.Holder")
    class Holder(ffi.Object):
        priority: Priority
        opcode: Opcode

    class NS:
        pass

    ns = NS()
    ns.p, ns.lib = p, libs[p]
    ns.Variant, ns.Priority, ns.Opcode, ns.Level, ns.Holder = (
        Variant,
        Priority,
        Opcode,
        Level,
        Holder,
    )
    ns.fn = lambda name: ffi.get_global_func(f"{p}.{name}")
    return ns


def test_cxx_members_bind_by_string_index(k):
    assert k.fn("variant_get")("Alpha").same_as(k.Variant.Alpha)
    assert k.fn("variant_get")("Beta") is not None
    assert k.Variant.get(1).same_as(k.Variant.Beta)
    assert isinstance(k.fn("variant_get")("Beta"), k.Variant)
    assert k.Variant.attr_dict["code"][k.Variant.Alpha] == 10
    assert k.Variant.def_attr("code")[k.Variant.Beta] == 20
    assert k.fn("variant_defined")("Alpha") and not k.fn("variant_defined")("Gamma")
    with pytest.raises(ValueError):
        k.fn("variant_get")("Gamma")
    with pytest.raises(RuntimeError, match="string index"):

        class Typo(Enum, type_key=f"{k.p}.Variant"):
            Alpah: ClassVar[Typo]


def test_members_declared_in_python_on_a_cxx_type(k):
    assert k.Priority.high.value == 20 and k.Priority.high.name == "high"
    assert k.Opcode.mul.value == k.Opcode.mul.name == "*"
    assert k.Priority(20).same_as(k.Priority.high) and k.Opcode("*").same_as(k.Opcode.mul)
    assert k.fn("name_of")(k.Opcode.mul) == "*"  # C++ reads the name in place
    assert k.fn("index_of")(k.Priority.low) == 10


def test_cxx_defined_int_enum(k):
    assert [(m.name, m.value) for m in k.Level] == [("low", -1), ("high", 1 << 40)]
    assert k.fn("level_get")(1 << 40).same_as(k.Level.get("high"))
    assert repr(k.Level(-1)) == "Level.low"
    with pytest.raises(ValueError):
        k.fn("level_get")(0)


def test_cxx_fields_take_members_or_their_indices(k):
    h = k.Holder(priority=20, opcode="*")
    assert h.priority.same_as(k.Priority.high) and h.opcode.same_as(k.Opcode.mul)
    assert k.fn("holder_priority")(h) == 20
    h.priority = 10
    assert h.priority.same_as(k.Priority.low) and k.fn("holder_priority")(h) == 10
    with pytest.raises(TypeError):
        h.priority = 99
    back = from_json_graph_str(to_json_graph_str(h))
    assert back.priority.same_as(k.Priority.low) and back.opcode.same_as(k.Opcode.mul)
    positional = k.Holder(10, "+")
    assert positional.opcode.same_as(k.Opcode.add)


def test_a_new_member_may_not_reuse_an_index(k):
    # Runs last for each copy: the failed definition has already bound its class to the type.
    with pytest.raises(ValueError, match="duplicate enum index"):

        class LevelAgain(IntEnum, type_key=f"{k.p}.Level"):
            low = 5  # "low" is C++'s member at -1

    index = ffi._core.type_key_to_index(f"{k.p}.Level")
    state = ffi._core._type_attr(index, ENUM_STATE_ATTR)
    assert [m._int_index for m in state.entries] == [-1, 1 << 40]


# ---- the field names of reference releases before 0.1.14 ---------------------------------------

LEGACY_NAMES_SCRIPT = """
import ffi
from typing import ClassVar
from ffi.dataclasses import Enum, IntEnum

class Before(Enum, type_key="test_enum.legacy.Before"):
    A: ClassVar["Before"]

ffi.get_global_func("ffi.EnumUseLegacyFieldNames")()
ffi.get_global_func("ffi.EnumUseLegacyFieldNames")()  # a second call changes nothing

class After(Enum, type_key="test_enum.legacy.After"):
    X: ClassVar["After"]
    Y: ClassVar["After"]

class Level(IntEnum, type_key="test_enum.legacy.Level"):
    LOW = 3

index = ffi._core.type_key_to_index("ffi.Enum")
print([f.__name__ for f in ffi._core._type_fields(index)])
for member in (Before.A, After.Y, Level.LOW):
    print(member._int_index, member._str_index, After("Y").same_as(After.Y))
"""


def test_legacy_enum_field_names_keep_this_package_working(tmp_path):
    # A reference package before 0.1.14 reads ffi.Enum's fields as _value and _name; the runtime
    # renames them for it, and this package's enums, defined before or after, keep working.
    script = tmp_path / "legacy.py"
    script.write_text(LEGACY_NAMES_SCRIPT)
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n")[:4] == [
        "['_value', '_name']",
        "0 A True",
        "1 Y True",
        "3 LOW True",
    ]
    assert "Warning" not in proc.stderr


ENUM_FIELDS_SCRIPT = """
import ctypes, os, sys
if len(sys.argv) > 2:  # a runtime file to load first, as a reference package would load its own
    ctypes.CDLL(sys.argv[2], mode=ctypes.RTLD_GLOBAL)
import ffi
if len(sys.argv) == 2:
    print(ffi.get_global_func("ffi.EnumAdaptToReferencePackage")(sys.argv[1]))
else:
    print(os.path.samefile(ffi.runtime_info()["path"], sys.argv[2]))
index = ffi._core.type_key_to_index("ffi.Enum")
print([f.__name__ for f in ffi._core._type_fields(index)])
"""

LEGACY = "['_value', '_name']"
CURRENT = "['_int_index', '_str_index']"


def _enum_fields_after(tmp_path, *args):
    script = tmp_path / "enum_fields.py"
    script.write_text(ENUM_FIELDS_SCRIPT)
    proc = subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.split("\n")[:2]


@pytest.mark.parametrize(
    "text, legacy",
    [
        ("__version__ = version = '0.1.12'\n", True),
        ("__all__ = ['__version__']\n__version__ = '0.1.13rc1'\n", True),
        ('__version__ = "0.1.15.post2"\n', False),
        ("__version__ = version = '0.1.14'\n", False),
        ("__version__ = version = '1.0.0'\n", False),
        ("version = '0.1.12'\n", False),  # no __version__ line: nothing to follow
        ("__version__ = unknown\n", False),
        (None, False),  # no _version.py
    ],
)
def test_runtime_follows_the_reference_package_it_is_shown(tmp_path, text, legacy):
    # What our package does when a reference package loads on our runtime: it shows the runtime
    # the package's directory, and the runtime reads the release there.
    package = tmp_path / "tvm_ffi"
    package.mkdir()
    if text is not None:
        (package / "_version.py").write_text(text)
    assert _enum_fields_after(tmp_path, str(package)) == [
        str(legacy),
        LEGACY if legacy else CURRENT,
    ]


@pytest.mark.parametrize(
    "package_name, version, legacy",
    [("tvm_ffi", "0.1.12", True), ("tvm_ffi", "0.1.15", False), ("other", "0.1.12", False)],
)
def test_runtime_in_place_of_the_reference_file_follows_its_package(
    tmp_path, package_name, version, legacy
):
    # Our runtime file put in place of the reference package's own (tvm_ffi/lib/libtvm_ffi.so)
    # reads that package's release when it loads; elsewhere it reads nothing.
    lib = tmp_path / package_name / "lib"
    lib.mkdir(parents=True)
    (tmp_path / package_name / "_version.py").write_text(f"__version__ = '{version}'\n")
    runtime = lib / "libtvm_ffi.so"
    shutil.copyfile(ffi.libinfo.get_runtime_library_path(), runtime)
    assert _enum_fields_after(tmp_path, "", str(runtime)) == [
        "True",
        LEGACY if legacy else CURRENT,
    ]
