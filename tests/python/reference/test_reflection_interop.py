"""Reflection across implementations: one library source (tests/cpp/loader/reflection_lib.cc)
built with our headers ("ours") and with the reference wheel's ("ref"), used from our Python
package, and from the reference's package and runtime (in a subprocess, so that the two runtimes
never share a process)."""

import json
import os
import subprocess
import sys
import textwrap

import pytest
from support.build import OURS, REFERENCE, build, reference_include_dir


@pytest.fixture(scope="module")
def libs(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("reflection"))
    built = {"ours": build("ours", OURS, out)}
    if reference_include_dir() is not None:
        built["ref"] = build("ref", REFERENCE, out)
    return built


def copies(libs):
    return sorted(libs)


# What the reference's package reads back from a library: run in a fresh interpreter.
REFERENCE_PROBE = textwrap.dedent(
    """
    import json, sys
    import tvm_ffi

    out = {}
    for prefix, path in json.loads(sys.argv[1]).items():
        tvm_ffi.load_module(path)
        get = tvm_ffi.get_global_func
        meta = get("ffi.GetGlobalFuncMetadata")
        c = get(prefix + ".make_counter")(3, "a")
        r = {"type": type(c).__name__, "count": c.count, "scale": c.scale, "name": c.name}
        r["add"] = c.add(4)
        r["peek"] = c.peek()
        c.scale = 2.0
        r["scaled"] = c.scaled()
        r["zero"] = type(c).zero().count
        r["nargs"] = get(prefix + ".nargs")(1, 2, 3)
        r["counter_peek"] = get(prefix + ".counter_peek")(c)
        made = get("ffi.MakeObjectFromPackedArgs")(prefix + ".Counter", "count", 9, "name", "m")
        r["made"] = [made.count, made.scale, made.name, len(made.tags)]
        r["metadata"] = {
            n: meta(prefix + n).replace(prefix, "P")
            for n in (".make_counter", ".counter_peek", ".nargs", ".with_meta", ".containers")
        }
        try:
            c.count = 1
            r["set_readonly"] = "allowed"
        except Exception as e:
            r["set_readonly"] = type(e).__name__
        out[prefix] = r
    print(json.dumps(out))
    """
)


def run_reference(libs):
    if "ref" not in libs:
        pytest.skip("apache-tvm-ffi is not installed")
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    proc = subprocess.run(
        [sys.executable, "-c", REFERENCE_PROBE, json.dumps(libs)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_our_library_works_in_the_reference_runtime(libs):
    got = run_reference(libs)
    ours = got["ours"]
    assert ours["type"] == "Counter"
    assert (ours["count"], ours["scale"], ours["name"]) == (3, 1.0, "a")
    assert (ours["add"], ours["peek"], ours["scaled"], ours["zero"]) == (7, 7, 14.0, 0)
    assert (ours["nargs"], ours["counter_peek"]) == (3, 7)
    # Fields not given take the registered default (scale: 1.5).
    assert ours["made"] == [9, 1.5, "m", 0]
    assert json.loads(ours["metadata"][".with_meta"]) == {
        "type_schema": json.dumps(
            {
                "type": "ffi.Function",
                "named_args": {"return": [{"type": "int"}], "params": [{"type": "int"}]},
            },
            separators=(",", ":"),
        ),
        "bound": 3,
        "label": 'one "more"',
        "pure": True,
    }


def test_the_reference_sees_the_same_records_from_both_copies(libs):
    got = run_reference(libs)
    assert got["ours"] == got["ref"]


@pytest.mark.parametrize("prefix", ["ours", "ref"])
def test_our_package_calls_registered_functions_and_methods(libs, prefix):
    if prefix not in libs:
        pytest.skip("apache-tvm-ffi is not installed")
    import ffi

    ffi.load_module(libs[prefix])
    counter = ffi.get_global_func(f"{prefix}.make_counter")(3, "a")
    assert isinstance(counter, ffi.Object)
    assert ffi.get_global_func(f"{prefix}.counter_peek")(counter) == 3
    assert ffi.get_global_func(f"{prefix}.nargs")(1, "x", None) == 3
    assert ffi.get_global_func(f"{prefix}.with_meta")(41) == 42
    made = ffi.get_global_func("ffi.MakeObjectFromPackedArgs")(
        f"{prefix}.Counter", "count", 9, "name", "m"
    )
    assert ffi.get_global_func(f"{prefix}.counter_peek")(made) == 9
    with pytest.raises(TypeError, match="does not have field `nope`"):
        ffi.get_global_func("ffi.MakeObjectFromPackedArgs")(
            f"{prefix}.Counter", "count", 1, "name", "n", "nope", 1
        )
    with pytest.raises(TypeError, match="Required field `count` not set"):
        ffi.get_global_func("ffi.MakeObjectFromPackedArgs")(f"{prefix}.Counter", "name", "n")
    with pytest.raises(TypeError, match="counter_peek"):
        ffi.get_global_func(f"{prefix}.counter_peek")(1)
    metadata = json.loads(ffi.get_global_func("ffi.GetGlobalFuncMetadata")(f"{prefix}.with_meta"))
    assert (metadata["bound"], metadata["pure"]) == (3, True)
