"""DLPack type codes that name no dtype (18..128: not assigned by DLPack, or a producer's own;
129..255: custom codes with no registered dtype.get_custom_type_name) must never abort the process.
As in the reference (tvm_ffi): a tensor with such a code imports, and printing the code (its
``dtype``, a kernel's DataType result, the runtime's repr and JSON printers) is a ValueError.

Each case runs in a child interpreter, so that a regression (std::terminate, "Fatal Python error:
Aborted") fails that test instead of killing pytest."""

import json
import subprocess
import sys
import textwrap

import pytest

# A minimal DLPack producer for the child: a versioned capsule over a buffer this process keeps
# alive, with a deleter that does nothing (ffi.from_dlpack takes ownership and calls it once).
_PRELUDE = textwrap.dedent(
    """
    import ctypes as C
    import json
    import sys

    import ffi

    class DLDevice(C.Structure):
        _fields_ = [("device_type", C.c_int32), ("device_id", C.c_int32)]

    class DLDataType(C.Structure):
        _fields_ = [("code", C.c_uint8), ("bits", C.c_uint8), ("lanes", C.c_uint16)]

    class DLTensor(C.Structure):
        _fields_ = [("data", C.c_void_p), ("device", DLDevice), ("ndim", C.c_int32),
                    ("dtype", DLDataType), ("shape", C.POINTER(C.c_int64)),
                    ("strides", C.POINTER(C.c_int64)), ("byte_offset", C.c_uint64)]

    class DLPackVersion(C.Structure):
        _fields_ = [("major", C.c_uint32), ("minor", C.c_uint32)]

    DELETER = C.CFUNCTYPE(None, C.c_void_p)

    class DLManagedTensorVersioned(C.Structure):
        _fields_ = [("version", DLPackVersion), ("manager_ctx", C.c_void_p),
                    ("deleter", DELETER), ("flags", C.c_uint64), ("dl_tensor", DLTensor)]

    _capsule_new = C.pythonapi.PyCapsule_New
    _capsule_new.restype = C.py_object
    _capsule_new.argtypes = [C.c_void_p, C.c_char_p, C.c_void_p]
    _deleted = []
    _deleter = DELETER(lambda p: _deleted.append(p))
    _keep = []

    def capsule(code, bits=8, lanes=1, n=4):
        buf = C.create_string_buffer(64 + n * 8)
        shape = (C.c_int64 * 1)(n)
        m = DLManagedTensorVersioned()
        m.version = DLPackVersion(1, 0)
        m.deleter = _deleter
        m.dl_tensor = DLTensor(C.addressof(buf), DLDevice(1, 0), 1, DLDataType(code, bits, lanes),
                               C.cast(shape, C.POINTER(C.c_int64)), None, 0)
        _keep.extend([buf, shape, m])
        return _capsule_new(C.addressof(m), b"dltensor_versioned", None)

    class DT:
        \"\"\"Something a kernel takes as a DataType: only its DLPack (code, bits, lanes).\"\"\"

        def __init__(self, code, bits=8, lanes=1):
            self.t = (code, bits, lanes)

        def __dlpack_data_type__(self):
            return self.t

    results = []

    def attempt(label, fn):
        try:
            value = fn()
            results.append([label, "ok", type(value).__name__, str(value)])
        except Exception as e:  # every outcome is reported to the parent
            results.append([label, "error", type(e).__name__, str(e)])
        print(json.dumps(results[-1]), flush=True)
    """
)


def run_child(body: str, *args: str) -> dict:
    """Runs the prelude and `body` in a fresh interpreter; the outcomes by label. An abort (or any
    non-zero exit) fails the test with the child's output."""
    # Tensors are released before the end: their deleter is a ctypes callback, gone at shutdown.
    epilogue = "\nimport gc\ngc.collect()\nprint('DONE', flush=True)\n"
    script = _PRELUDE + textwrap.dedent(body) + epilogue
    proc = subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0 and proc.stdout.rstrip().endswith("DONE"), (
        f"child exited with {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    )
    outcomes = {}
    for line in proc.stdout.splitlines():
        if line.startswith("["):
            label, *rest = json.loads(line)
            outcomes[label] = rest
    return outcomes


def expected_message(code: int) -> str:
    if code >= 129:
        return "Function dtype.get_custom_type_name not found"
    return f"DLDataType contains unknown type_code={code}"


CODES = [18, 100, 128, 129, 255]


@pytest.mark.parametrize("code", CODES)
def test_tensor_with_unknown_code_imports_and_its_dtype_is_a_value_error(code):
    out = run_child(
        """
        code = int(sys.argv[1])
        t = ffi.from_dlpack(capsule(code))
        attempt("shape", lambda: tuple(t.shape))
        attempt("dtype", lambda: t.dtype)
        attempt("dtype again", lambda: t.dtype)
        attempt("repr", lambda: repr(t))
        attempt("str", lambda: str(t))
        del t
        attempt("deleted", lambda: len(_deleted))
        """,
        str(code),
    )
    assert out["shape"] == ["ok", "tuple", "(4,)"]
    assert out["dtype"] == ["error", "ValueError", expected_message(code)]
    assert out["dtype again"] == out["dtype"]
    # repr and str must come back: a string, or (at worst) the same ValueError, never an abort.
    for label in ("repr", "str"):
        assert out[label][:2] == ["ok", "str"] or out[label][1] == "ValueError", out[label]
    assert out["deleted"] == ["ok", "int", "1"]


@pytest.mark.parametrize("code", CODES)
def test_kernel_data_type_result_with_unknown_code_is_a_value_error(kernels_path, code):
    # The repro: a DataType argument is accepted, the kernel's DataType result cannot be named.
    out = run_child(
        """
        code = int(sys.argv[1])
        mod = ffi.load_module(sys.argv[2])
        attempt("type_of", lambda: mod.type_of(DT(code)))
        attempt("echo", lambda: mod.echo(DT(code)))
        attempt("echo float32", lambda: mod.echo(DT(2, 32, 1)))
        """,
        str(code),
        kernels_path,
    )
    assert out["echo"][:2] == ["error", "ValueError"], out["echo"]
    assert out["echo"][2] == expected_message(code)
    # Refusing the argument is allowed too; taking it, it is a DataType.
    assert out["type_of"] == ["ok", "str", "DataType"] or out["type_of"][1] == "ValueError"
    assert out["echo float32"][1:] == ["dtype", "float32"]


def test_kernel_passes_a_tensor_with_unknown_code_through(kernels_path):
    out = run_child(
        """
        mod = ffi.load_module(sys.argv[1])
        t = ffi.from_dlpack(capsule(18))
        attempt("echo", lambda: tuple(mod.echo(t).shape))
        attempt("echo dtype", lambda: mod.echo(t).dtype)
        attempt("shape_of", lambda: tuple(mod.shape_of(t)))
        del t
        """,
        kernels_path,
    )
    assert out["echo"] == ["ok", "tuple", "(4,)"]
    assert out["echo dtype"] == ["error", "ValueError", expected_message(18)]


@pytest.mark.parametrize("code", [18, 129])
def test_runtime_printers_return_value_errors(code):
    # The runtime's own printers (repr, JSON graph) report the code as a ValueError, as the
    # reference's do; the process goes on.
    out = run_child(
        """
        code = int(sys.argv[1])
        repr_print = ffi.get_global_func("ffi.ReprPrint")
        to_json = ffi.get_global_func("ffi.ToJSONGraphString")
        attempt("repr", lambda: repr_print(DT(code)))
        attempt("json", lambda: to_json(DT(code), None))
        attempt("repr tensor", lambda: repr_print(ffi.from_dlpack(capsule(code))))
        attempt("repr float32", lambda: repr_print(DT(2, 32, 1)))
        """,
        str(code),
    )
    for label in ("repr", "json", "repr tensor"):
        assert out[label] == ["error", "ValueError", expected_message(code)], label
    assert out["repr float32"] == ["ok", "str", "float32"]


@pytest.mark.parametrize("code", CODES)
def test_from_dlpack_data_type_refuses_unknown_codes(code):
    out = run_child(
        """
        code = int(sys.argv[1])
        attempt("from", lambda: ffi.dtype.from_dlpack_data_type((code, 8, 1)))
        attempt("ok", lambda: ffi.dtype.from_dlpack_data_type((2, 16, 1)))
        """,
        str(code),
    )
    assert out["from"][:2] == ["error", "ValueError"]
    assert out["ok"][1:] == ["dtype", "float16"]


@pytest.mark.parametrize("code", [18, 130])
def test_custom_dtype_string_whose_code_has_no_name(code):
    # "custom[x]8" parses through the registered dtype.get_custom_type_code; the code it gives
    # (here one with no name to print back) must not abort ffi.dtype(). The reference keeps the
    # text it was given; a ValueError is acceptable too.
    out = run_child(
        """
        code = int(sys.argv[1])
        ffi.register_global_func("dtype.get_custom_type_code", lambda name: code)
        attempt("dtype", lambda: ffi.dtype("custom[x]8"))
        attempt("again", lambda: ffi.dtype("custom[x]8"))
        """,
        str(code),
    )
    for label in ("dtype", "again"):
        assert out[label][1:] == ["dtype", "custom[x]8"] or out[label][:2] == [
            "error",
            "ValueError",
        ], out[label]
