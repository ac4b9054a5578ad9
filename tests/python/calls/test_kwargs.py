"""Keyword arguments: exports that declare parameter names and defaults
(FFI_DLL_EXPORT_TYPED_FUNC_ARGS, tests/python/kernels/kwargs_kernels.cc) take keywords natively,
and reflected object types without an explicit constructor take their fields by keyword
(the runtime's KWARGS constructor, tests/python/kernels/kwargs_objects.cc, built with our headers
and with the reference's)."""

import inspect
import json
import os
import pydoc
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from support.build import build_kernel, build_with_both_headers
from support.paths import TESTS_DIR

import ffi


@pytest.fixture(scope="module")
def kwmod(tmp_path_factory):
    path = build_kernel(
        os.path.join(TESTS_DIR, "kernels", "kwargs_kernels.cc"), str(tmp_path_factory.mktemp("kw"))
    )
    return ffi.load_module(path)


# ---- functions ----------------------------------------------------------------------------------


def test_keywords_and_defaults(kwmod):
    scale = kwmod.scale
    # x * alpha + len(tag) + offset, negated when asked.
    assert scale(3.0) == 3.0 * 2 + 2
    assert scale(3.0, 1.0) == 5.0
    assert scale(3.0, alpha=1.0) == 5.0
    assert scale(x=3.0) == 8.0
    assert scale(3.0, negate=True) == -8.0
    assert scale(3.0, tag="abcd", offset=10) == 3.0 * 2 + 4 + 10
    assert scale(offset=1, x=1.0, alpha=0.0, tag="") == 1.0
    assert scale(1.0, 1.0, False, "", 5) == 6.0
    assert kwmod.describe(count=2, name="n") == "n:2"


def test_python_like_type_errors(kwmod):
    with pytest.raises(TypeError, match=r"^scale\(\) missing 1 required positional argument: 'x'$"):
        kwmod.scale()
    with pytest.raises(TypeError, match=r"^scale\(\) missing 1 required positional argument: 'x'$"):
        kwmod.scale(alpha=1.0)
    with pytest.raises(
        TypeError,
        match=r"^describe\(\) missing 2 required positional arguments: 'name' and 'count'$",
    ):
        kwmod.describe()
    with pytest.raises(TypeError, match=r"^scale\(\) got an unexpected keyword argument 'beta'$"):
        kwmod.scale(1.0, beta=2)
    with pytest.raises(TypeError, match=r"^scale\(\) got multiple values for argument 'x'$"):
        kwmod.scale(1.0, x=2.0)
    with pytest.raises(
        TypeError, match=r"^scale\(\) takes from 1 to 5 positional arguments but 6 were given$"
    ):
        kwmod.scale(1.0, 1.0, True, "", 1, 2)
    with pytest.raises(
        TypeError, match=r"^describe\(\) takes 2 positional arguments but 3 were given$"
    ):
        kwmod.describe("a", 1, 2)
    # A keyword value of the wrong type is reported by the typed call, by position.
    with pytest.raises(TypeError, match="argument #1"):
        kwmod.scale(1.0, alpha="no")


def test_keyword_values_keep_their_references(kwmod):
    name = "x" * 100
    before = sys.getrefcount(name)
    for _ in range(10):
        assert kwmod.describe(name=name, count=1) == name + ":1"
    with pytest.raises(TypeError):
        kwmod.describe(name=name, counts=1)
    assert sys.getrefcount(name) == before


def test_tensor_argument_by_keyword(kwmod):
    a = np.zeros(4, dtype=np.float32)
    kwmod.fill(a)
    assert (a == 1.5).all()
    kwmod.fill(t=a, value=-2)
    assert (a == -2).all()


def test_signature_and_help(kwmod):
    sig = inspect.signature(kwmod.scale)
    assert list(sig.parameters) == ["x", "alpha", "negate", "tag", "offset"]
    p = sig.parameters
    assert p["x"].default is inspect.Parameter.empty and p["x"].annotation == "float"
    # Given as `= 2` for a double: shown (and passed) as 2.0.
    assert p["alpha"].default == 2.0 and type(p["alpha"].default) is float
    assert p["negate"].default is False
    assert p["tag"].default == "ab" and p["offset"].default is None
    assert p["offset"].annotation == "Optional<int>"
    assert all(q.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD for q in p.values())
    assert sig.return_annotation == "float"
    assert "x: 'float', alpha: 'float' = 2.0" in str(sig)
    text = pydoc.render_doc(kwmod.scale, renderer=pydoc.plaintext)
    assert "scale(x: 'float', alpha: 'float' = 2.0, negate: 'bool' = False" in text
    assert "tag: 'str' = 'ab', offset: 'Optional<int>' = None) -> 'float'" in text


def test_float_defaults_arrive_as_floats(kwmod):
    meta = kwmod.fill._ffi_metadata
    assert meta["arg_names"] == ["t", "value"]
    assert meta["arg_defaults"] == {"value": 1.5}
    assert isinstance(meta["arg_defaults"]["value"], float)
    assert json.loads(meta["type_schema"])["type"] == "ffi.Function"


def test_global_functions_with_names_take_keywords(kwmod):
    clamp = ffi.get_global_func("kwtest.clamp")
    assert clamp(42) == 10 and clamp(-1) == 0
    assert clamp(42, hi=50) == 42
    assert clamp(hi=3, v=5, lo=1) == 3
    with pytest.raises(
        TypeError, match=r"^kwtest.clamp\(\) got an unexpected keyword argument 'h'$"
    ):
        clamp(1, h=2)
    sig = inspect.signature(clamp)
    assert str(sig) == "(v: 'int', lo: 'int' = 0, hi: 'int' = 10) -> 'int'"
    assert ffi.get_global_func_metadata("kwtest.clamp")["arg_defaults"] == {"lo": 0, "hi": 10}
    # Functions registered without names are unchanged.
    with pytest.raises(TypeError, match="positional arguments only"):
        ffi.get_global_func("ffi.GetKwargsObject")(x=1)


def test_functions_without_names_refuse_keywords_clearly(kwmod):
    assert kwmod.add(1, 2) == 3
    with pytest.raises(TypeError, match="takes positional arguments only.*ARGS"):
        kwmod.add(1, b=2)
    assert list(inspect.signature(kwmod.add).parameters) == ["arg0", "arg1"]


def test_python_side_wrapper_for_functions_without_names(kwmod):
    from ffi.utils.kwargs_wrapper import make_kwargs_wrapper

    add = make_kwargs_wrapper(kwmod.add, ["a", "b"], (10,), prototype=None)
    assert add(1) == 11 and add(b=2, a=1) == 3
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'a'"):
        add()


def test_the_export_itself_fills_omitted_defaults(kwmod):
    # Without the package's metadata (as a C host or the reference runtime calls it).
    raw = ffi._core.module_get_function(kwmod, "scale")
    assert raw(3.0) == 8.0
    assert raw(3.0, 1.0, True) == -5.0
    with pytest.raises(TypeError, match="Expected 1 to 5 but got 0"):
        raw()


def test_set_function_params_validates():
    f = ffi.get_global_func("ffi.GetKwargsObject")
    with pytest.raises(TypeError):
        ffi._core._set_function_params(f, ["a"], ())
    with pytest.raises(TypeError):
        ffi._core._set_function_params(f, ("a",), (1, 2))
    with pytest.raises(TypeError):
        ffi._core._set_function_params(f, (1,), ())


# ---- objects ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def object_libs(tmp_path_factory):
    """kwargs_objects.cc built with our headers ("kwours") and, when installed, the reference's."""
    out = str(tmp_path_factory.mktemp("kwobj"))
    src = os.path.join(TESTS_DIR, "kernels", "kwargs_objects.cc")
    return build_with_both_headers(src, ("kwours", "kwref"), "KW_PREFIX", out)


@pytest.fixture(scope="module")
def classes(object_libs):
    out = {}
    for prefix, path in object_libs.items():
        ffi.load_module(path)

        @ffi.register_object(f"{prefix}.Point")
        class Point(ffi.Object):
            pass

        @ffi.register_object(f"{prefix}.Point3")
        class Point3(Point):
            pass

        @ffi.register_object(f"{prefix}.Pair")
        class Pair(ffi.Object):
            pass

        out[prefix] = (Point, Point3, Pair)
    return out


PREFIXES = ["kwours", "kwref"]


def get_classes(classes, prefix):
    if prefix not in classes:
        pytest.skip("apache-tvm-ffi is not installed")
    return classes[prefix]


@pytest.mark.parametrize("prefix", PREFIXES)
def test_objects_take_fields_by_keyword(classes, prefix):
    Point, Point3, _ = get_classes(classes, prefix)
    p = Point(1)
    assert (p.x, p.y, p.label, p.hidden) == (1, 0.5, "p", 7)
    p = Point(x=2, y=3.0)
    assert (p.x, p.y) == (2, 3.0)
    p = Point(4, label="q")
    assert (p.x, p.y, p.label) == (4, 0.5, "q")
    p = Point(y=1.5, label="r", x=5)
    assert (p.x, p.y, p.label, p.hidden) == (5, 1.5, "r", 7)
    assert type(p) is Point and p._use_count() == 1
    # Required fields first: x (base), z (derived), then y with its default.
    q = Point3(1, 2)
    assert (q.x, q.z, q.y) == (1, 2, 0.5)
    q = Point3(z=3, x=1, y=9.0)
    assert (q.x, q.z, q.y) == (1, 3, 9.0)


@pytest.mark.parametrize("prefix", PREFIXES)
def test_objects_refuse_bad_keywords(classes, prefix):
    Point, Point3, _ = get_classes(classes, prefix)
    key = f"{prefix}.Point"
    with pytest.raises(TypeError, match=rf"{key}.__ffi_init__\(\) missing required argument: 'x'"):
        Point()
    with pytest.raises(TypeError, match="unexpected keyword argument 'w'"):
        Point(1, w=2)
    with pytest.raises(TypeError, match="unexpected keyword argument 'hidden'"):
        Point(1, hidden=2)
    with pytest.raises(TypeError, match="multiple values for argument 'x'"):
        Point(1, x=2)
    with pytest.raises(TypeError, match="takes at most 2 positional argument"):
        Point(1, 2.0, "label")  # label is keyword-only
    with pytest.raises(TypeError, match="missing required argument: 'z'"):
        Point3(1)
    # A field's setter failure: the field named, the setter's message below it, indented.
    with pytest.raises(TypeError) as info:
        Point(x="not an int")
    message = str(info.value)
    assert message.startswith(f"{key}.__ffi_init__() field 'x':\n  "), message


@pytest.mark.parametrize("prefix", PREFIXES)
def test_explicit_constructor_is_kept(classes, prefix):
    _, _, Pair = get_classes(classes, prefix)
    p = Pair(1, 2)
    assert (p.a, p.b) == (1, 2)
    with pytest.raises(TypeError):
        Pair(a=1, b=2)  # refl::init<...> takes positions only


def test_kwargs_sentinel_is_one_object():
    get = ffi.get_global_func("ffi.GetKwargsObject")
    assert get().same_as(get())


# What the reference's package and runtime make of the same libraries (in a fresh interpreter:
# the two runtimes never share a process).
REFERENCE_PROBE = textwrap.dedent(
    """
    import json, sys
    import tvm_ffi
    from tvm_ffi.core import TypeSchema

    kernels, objects = sys.argv[1], json.loads(sys.argv[2])
    out = {}
    mod = tvm_ffi.load_module(kernels)
    out["scale"] = [mod.scale(3.0), mod.scale(3.0, 1.0, True)]
    meta = mod.get_function_metadata("scale")
    out["schema"] = str(TypeSchema.from_json_str(meta["type_schema"]))
    out["arg_names"] = meta["arg_names"]
    for prefix, path in objects.items():
        tvm_ffi.load_module(path)

        @tvm_ffi.register_object(prefix + ".Point")
        class Point(tvm_ffi.Object):
            pass

        p = Point(1, label="q")
        out[prefix] = [p.x, p.y, p.label, p.hidden]
    print(json.dumps(out))
    """
)


def test_reference_runtime_reads_our_exports_and_objects(kwmod, object_libs):
    if "kwref" not in object_libs:
        pytest.skip("apache-tvm-ffi is not installed")
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    proc = subprocess.run(
        [sys.executable, "-c", REFERENCE_PROBE, kwmod.path, json.dumps(object_libs)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["scale"] == [8.0, -5.0]
    assert got["schema"].startswith("Callable[[float, float, bool, str, int | None], float]")
    assert got["arg_names"] == ["x", "alpha", "negate", "tag", "offset"]
    assert got["kwours"] == [1, 0.5, "q", 7]
    assert got["kwref"] == [1, 0.5, "q", 7]
