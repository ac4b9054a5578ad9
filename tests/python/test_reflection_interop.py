"""Reflection across implementations: one library source (tests/cpp/loader/reflection_lib.cc)
built with our headers ("ours") and with the reference wheel's ("ref"), used from our Python
package, and from the reference's package and runtime (in a subprocess, so that the two runtimes
never share a process)."""

import importlib.metadata
import json
import os
import shlex
import subprocess
import sys
import textwrap

import pytest
from conftest import compile_cached

HERE = os.path.dirname(os.path.abspath(__file__))
LIB_SRC = os.path.join(HERE, "..", "cpp", "loader", "reflection_lib.cc")


def reference_include_dir():
    """The wheel's include dir, found through its distribution: importing (or finding) tvm_ffi
    beside ffi is refused, and would load its runtime here."""
    try:
        dist = importlib.metadata.distribution("apache-tvm-ffi")
    except importlib.metadata.PackageNotFoundError:
        return None
    include = str(dist.locate_file(os.path.join("tvm_ffi", "include")))
    return include if os.path.isfile(os.path.join(include, "tvm", "ffi", "c_api.h")) else None


def build(prefix, include_flags, out_dir, src=LIB_SRC, prefix_macro="REFL_LIB_PREFIX"):
    """Builds `src` with `prefix_macro` naming the copy (other tests build their own sources)."""
    name = os.path.splitext(os.path.basename(src))[0]
    lib = os.path.join(out_dir, f"{name}_{prefix}.so")
    cmd = ["g++", "-std=c++17", "-O1", "-shared", "-fPIC", "-Wall", "-Wextra", *include_flags,
           f'-D{prefix_macro}="{prefix}"', src, "-o", lib]  # fmt: skip
    proc = compile_cached(cmd, lib)
    assert proc.returncode == 0, proc.stderr
    return lib


def build_with_both_headers(src, prefixes, prefix_macro, out_dir):
    """`src` built with our headers (as `prefixes[0]`, warnings as errors) and, when the wheel is
    installed, with the reference's (as `prefixes[1]`): {prefix: library path}."""
    import ffi.libinfo

    includes = {prefixes[0]: ["-I", ffi.libinfo.get_include_dir(), "-Werror"]}
    if reference_include_dir() is not None:
        includes[prefixes[1]] = ["-isystem", reference_include_dir()]
    return {
        prefix: build(prefix, flags, out_dir, src=src, prefix_macro=prefix_macro)
        for prefix, flags in includes.items()
    }


# Libraries built_copy made in this process: a module fixture set up again (xdist may interleave
# modules) must load the same file, since a second copy of a library would register its types
# again.
_BUILT = {}


def built_copy(copy, copies, src, prefix_macro, tmp_path_factory):
    """The library `copy` (one of `copies`: [ours, reference]) of `src`, built with our headers
    or with the reference's (as build_with_both_headers does, one copy at a time, once per
    process), for a fixture parametrized by those names; the reference's copy skips the test
    without the wheel."""
    import ffi.libinfo

    key = (src, copy, prefix_macro)
    if key in _BUILT:
        return _BUILT[key]
    if copy == copies[0]:
        flags = ["-I", ffi.libinfo.get_include_dir(), "-Werror"]
    elif reference_include_dir() is None:
        pytest.skip("the reference package is not installed")
    else:
        flags = ["-isystem", reference_include_dir()]
    out = str(tmp_path_factory.mktemp(copy))
    _BUILT[key] = build(copy, flags, out, src=src, prefix_macro=prefix_macro)
    return _BUILT[key]


@pytest.fixture(scope="module")
def libs(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("reflection"))
    ours_flags = shlex.split(
        subprocess.check_output([sys.executable, "-m", "ffi.config", "--cflags"], text=True)
    )
    built = {"ours": build("ours", [*ours_flags, "-Werror"], out)}
    ref_include = reference_include_dir()
    if ref_include is not None:
        built["ref"] = build("ref", ["-isystem", ref_include], out)
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
