"""The reference runtime's C++ ABI on our runtime (docs/cxx_abi.md): the runtime exports exactly
the C ABI plus the C++ symbols listed in cmake/runtime_exports.map, which cover every C++ symbol
of the reference's libtvm_ffi.so that a client can link; a client built with the reference's
headers alone (kernels/cxx_abi_client.cc: a ModuleObj subclass, calls to the exported
functions) loads and runs on our runtime, with the same results as our own API gives."""

import json
import os
import re
import subprocess

import pytest
from support.build import REFERENCE, build, reference_include_dir
from support.paths import TESTS_DIR

import ffi
from ffi import libinfo

# Run again against the AddressSanitizer build (tests/run_all.sh python-asan).
pytestmark = pytest.mark.sanitized

EXPORTS_MAP = os.path.join(TESTS_DIR, "..", "..", "cmake", "runtime_exports.map")


def _defined_dynamic_symbols(lib):
    out = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True,
                         check=True)  # fmt: skip
    return {line.split()[-1] for line in out.stdout.splitlines() if line.strip()}


def _allowed_cxx_symbols():
    text = re.sub(r"/\*.*?\*/", "", open(EXPORTS_MAP).read(), flags=re.S)
    return {m for m in re.findall(r"^\s*(_Z\w+);", text, flags=re.M)}


def _is_c_abi(name):
    return name.startswith(("TVMFFI", "__tvm_ffi", "FFIRuntime"))


def test_runtime_exports_the_c_abi_and_the_listed_cxx_symbols_alone():
    # Loaded with RTLD_GLOBAL: any other C++ it exported (std::vector's code, say) would preempt
    # the same-named code of every library loaded after it (seen: JAX's ml_dtypes and CuPy
    # crashing in a process that imported ffi first).
    names = _defined_dynamic_symbols(libinfo.get_runtime_library_path())
    assert {n for n in names if not _is_c_abi(n)} == _allowed_cxx_symbols()


def test_testing_library_exports_the_c_abi_alone():
    from ffi.testing import _ffi_api as testing_api

    names = _defined_dynamic_symbols(testing_api._library_path())
    assert names and [n for n in names if not _is_c_abi(n)] == []


def _reference_runtime_library():
    include = reference_include_dir()
    if include is None:
        pytest.skip("the reference package is not installed")
    lib = os.path.join(os.path.dirname(include), "lib", "libtvm_ffi.so")
    if not os.path.isfile(lib):
        pytest.skip("the reference package has no libtvm_ffi.so")
    return lib


def test_every_cxx_symbol_of_the_reference_runtime_is_exported():
    """What the installed reference runtime exports in tvm::ffi, ours does: data local to inline
    functions (`_ZZ...`, guard variables) excepted, which each client carries itself, and the
    C++ standard library's code, which is not the convention's."""
    reference = _defined_dynamic_symbols(_reference_runtime_library())
    wanted = {n for n in reference if n.startswith(("_ZN3tvm3ffi", "_ZTVN3tvm3ffi", "_ZTIN3tvm3ffi",
                                                    "_ZTSN3tvm3ffi"))}  # fmt: skip
    assert wanted, "the reference exports no C++ symbols: the filter is wrong"
    ours = _defined_dynamic_symbols(libinfo.get_runtime_library_path())
    assert wanted - ours == set()


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    src = os.path.join(TESTS_DIR, "kernels", "cxx_abi_client.cc")
    out = str(tmp_path_factory.mktemp("cxx_abi"))
    lib = build("reference", REFERENCE, out, src=src, prefix_macro="UNUSED")
    # RTLD_NOW: every C++ symbol the client links must resolve in our runtime.
    return ffi.load_module(lib)


def test_client_module_kind_functions_and_docs(client):
    counter = client.make_counter(5)
    assert isinstance(counter, ffi.Module)
    assert counter.kind == "test.counter" == client.module_kind(counter)
    assert counter.get_function("count")(1) == 6
    assert counter.implements_function("count") and not counter.implements_function("other")
    assert counter.get_function_doc("count") == "Adds the step."
    assert counter.get_property_mask() == 2 and counter.is_runnable()
    assert counter.imports == [] and client.import_count(counter) == 0


def test_client_module_errors_arrive_typed(client):
    counter = client.make_counter(1)
    with pytest.raises(RuntimeError, match=r"Module\[test.counter\] does not support WriteToFile"):
        counter.write_to_file("/tmp/never", "so")
    with pytest.raises(RuntimeError, match=r"Module\[test.counter\] does not support SaveToBytes"):
        ffi.get_global_func("ffi.ModuleSaveToBytes")(counter)
    with pytest.raises(ValueError, match="the function `broken` cannot be made"):
        counter.get_function("broken")
    # The module is intact after each error.
    assert counter.get_write_formats() == []
    assert counter.inspect_source("") == "" and counter.inspect_source("txt") == "x + step"
    assert counter.get_function("count")(1) == 2


def test_imports_across_clients_and_runtime(client, kernels_path):
    lib = ffi.load_module(kernels_path)
    counter = client.make_counter(10)
    # The client's module imports ours (its ImportModule is the runtime's); lookups with
    # query_imports reach into it, through our global functions and the client's C++ alike.
    client.import_into(counter, lib)
    assert counter.imports == [lib] and client.import_count(counter) == 1
    name = sorted(ffi.get_global_func("ffi.ModuleListFunctionNames")(lib).split())[0]
    assert counter.implements_function(name, True) and not counter.implements_function(name)
    assert client.has_function(counter, name)
    assert client.get_function_from(counter, name, True) is not None
    assert client.get_function_from(counter, name, False) is None
    # Ours imports the client's, and a cycle is refused either way.
    other = client.make_counter(1)
    lib2 = ffi.load_module(kernels_path)
    lib2.import_module(other)
    assert lib2.get_function("count", query_imports=True)(1) == 2
    assert client.function_doc(lib2, "count") == "Adds the step."
    with pytest.raises(RuntimeError, match="Cyclic dependency"):
        client.import_into(other, lib2)
    with pytest.raises(RuntimeError, match="Cyclic dependency"):
        other.import_module(other)
    client.drop_imports(counter)
    assert counter.imports == []


def test_load_from_file_from_client_code(client, kernels_path):
    lib = ffi.load_module(kernels_path)
    assert client.module_kind(lib) == "library"
    with pytest.raises(RuntimeError, match="does not exist"):
        client.load_and_call("/nonexistent/lib.so", "f", 1)
    assert client.count_context_symbols() >= 0


@pytest.mark.parametrize(
    "value",
    [1, 2.5, "text", [1, "a", [2.0]], {"k": [1, 2], "j": None}, ffi.Shape([2, 3]), None, True],
)
def test_structural_engines_match_the_python_api(client, value):
    assert client.structural_equal(value, value, False)
    assert client.structural_hash(value) % 2**64 == ffi.structural_hash(value)  # int64 there
    assert client.repr_print(value) == ffi.get_global_func("ffi.ReprPrint")(value)
    assert client.recursive_hash(value) == ffi.get_global_func("ffi.RecursiveHash")(value)
    assert ffi.structural_equal(client.deep_copy(value), value)
    text, back = client.graph_roundtrip(value)
    assert text == ffi.get_global_func("ffi.json.Stringify")(ffi.get_global_func(
        "ffi.ToJSONGraph")(value, None), None)  # fmt: skip
    assert ffi.structural_equal(back, value)


def test_structural_differences(client):
    assert not client.structural_equal([1, 2], [1, 3], False)
    assert client.first_mismatch([1, 2], [1, 3]) and not client.first_mismatch([1], [1])
    assert list(client.recursive_compare(1, 2)) == [False, True, True, False, False]


def test_json_from_client_code(client):
    text = '{"a": [1, 2.5, true, null], "b": "x"}'
    compact = client.json_roundtrip(text, None)
    assert json.loads(compact) == json.loads(text)
    indented = client.json_roundtrip(text, 2)
    assert "\n  " in indented and json.loads(indented) == json.loads(text)
    value, error = client.json_parse_error("[1, ")
    assert value is None and error and error != "stale"
    assert list(client.json_parse_error("[1]")) == [[1], ""]
    assert client.json_parse_caught("[1, ").startswith("ValueError: ")
    assert client.json_parse_caught("[1]") == "no error"
