"""Code written for the reference's package passes arguments by the reference's parameter names:
every public function both packages have takes the same names (checked against the installed
reference), and calls made with those keywords work."""

import inspect
import json
import subprocess
import sys
import types

import pytest

import ffi

# Public functions and classes whose parameters code calls by keyword.
NAMES = [
    "Array",
    "Dict",
    "List",
    "Map",
    "Shape",
    "device",
    "get_raw_stream",
    "init_ffi_api",
    "load_module",
    "register_error",
    "register_global_func",
    "register_object",
    "use_raw_stream",
    "use_torch_stream",
]


def _parameter_names(obj):
    return [p.name for p in inspect.signature(obj).parameters.values()]


def _reference_json(code):
    """What `code` prints as JSON, run against the reference in its own process (this one's
    runtime is ours); skips the test when the reference is not installed."""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    if proc.returncode != 0 and "No module named 'tvm_ffi'" in proc.stderr:
        pytest.skip("the reference package is not installed")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_parameter_names_are_the_references():
    code = (
        "import inspect, json, tvm_ffi\n"
        f"names = {NAMES!r}\n"
        "print(json.dumps({n: [p.name for p in inspect.signature(getattr(tvm_ffi, n))"
        ".parameters.values()] for n in names}))\n"
    )
    reference = _reference_json(code)
    ours = {name: _parameter_names(getattr(ffi, name)) for name in NAMES}
    assert ours == reference


def test_calls_by_the_references_keywords():
    assert ffi.Array(input_list=[1, 2]) == [1, 2] and ffi.List(input_list=[3]) == [3]
    assert dict(ffi.Map(input_dict={"a": 1})) == {"a": 1}
    assert dict(ffi.Dict(input_dict={"a": 1})) == {"a": 1}
    assert ffi.Shape(content=(2, 3)) == (2, 3)
    assert ffi.device(device_type="cuda", index=1) == ffi.device("cuda:1")
    f = ffi.register_global_func(func_name="testing.sig.inc", f=lambda x: x + 1, override=True)
    assert f(1) == 2
    target = types.ModuleType("testing_sig_target")
    sys.modules[target.__name__] = target
    try:
        ffi.init_ffi_api("testing.sig", target_module_name=target.__name__)
    finally:
        del sys.modules[target.__name__]
    assert target.inc(2) == 3

    class SigError(Exception):
        pass

    assert ffi.register_error(name_or_cls="SigError", cls=SigError) is SigError
    cuda = ffi.device("cuda", 0)
    with ffi.use_raw_stream(device=cuda, stream=7):
        assert ffi.get_raw_stream(device=cuda) == 7
    assert ffi.get_raw_stream(device=cuda) == 0


def test_reference_module_names_used_by_real_code():
    # apache/tvm and the CuTe DSL's TVM-FFI builder import these modules by name.
    import numpy as np

    import ffi._dtype
    import ffi._ffi_api

    code = (
        "import json, tvm_ffi._dtype as d\n"
        "print(json.dumps([{m.name: m.value for m in d.DataTypeCode},"
        " {str(k): v for k, v in d.dtype._NUMPY_DTYPE_TO_STR.items()}]))\n"
    )
    ref_codes, ref_numpy = _reference_json(code)
    assert ffi._dtype.dtype is ffi.dtype
    assert ref_codes.items() <= {m.name: m.value for m in ffi._dtype.DataTypeCode}.items()
    assert ffi.dtype("uint8").type_code == ffi._dtype.DataTypeCode.UINT
    assert ffi.dtype("float8_e4m3fn").type_code == ffi._dtype.DataTypeCode.Float8E4M3FN
    table = {str(k): v for k, v in ffi.dtype._NUMPY_DTYPE_TO_STR.items()}
    assert ffi.dtype._NUMPY_DTYPE_TO_STR[np.dtype(np.bool_)] == "bool"
    common = table.keys() & ref_numpy.keys()
    assert len(common) >= 12 and all(table[k] == ref_numpy[k] for k in common)
    assert ffi._ffi_api.MakeObjectFromPackedArgs is not None
    assert ffi._ffi_api.ReprPrint(ffi.convert([1, 2])) == "(1, 2)"
