"""The public C++ headers on their own: each compiles alone, none pulls in the heavy standard
headers kept out of kernels for compile time, error messages reject what they cannot format with a
clear diagnostic, the stream operators work once the user includes a stream header, and typed
exports carry their metadata as a compile-time constant."""

import glob
import inspect
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

import pytest
from support.paths import ROOT

# Tools, headers and examples: not run again on other interpreters (run_all.sh interpreters).
pytestmark = pytest.mark.tooling

INCLUDE = os.path.join(ROOT, "include")
# Every public header, as the path after "ffi/" ("tensor.h", "container/array.h", ...).
HEADERS = sorted(
    os.path.relpath(p, os.path.join(INCLUDE, "ffi"))
    for p in glob.glob(os.path.join(INCLUDE, "ffi", "**", "*.h"), recursive=True)
)
C_HEADERS = ["c_api.h", "c_env_api.h", "c_reflection_api.h", "dlpack.h"]
# Standard headers kernels must not parse (bits/ostream_insert.h, <iosfwd> and the like are fine).
FORBIDDEN = {
    "ostream",
    "sstream",
    "istream",
    "iostream",
    "vector",
    "memory",
    "map",
    "functional",
    "algorithm",
}
# Headers outside ffi.h that may include more: CUDA helpers need the CUDA runtime headers, extra/
# holds opt-in helpers (STL interop includes the STL containers it converts), and the opt-in
# big_int.h keeps its words in std::vector and reads and writes streams. (tvm/ffi/tvm_compat.h,
# with the forwarding headers, is not held to this.)
NOT_LEAN = {"big_int.h", "detail/big_int_ops.h"}


def _needs_cuda(header):
    return header.startswith("extra/cuda/")


def _is_lean(header):
    return header not in NOT_LEAN and not header.startswith("extra/")


def _compile(tmp_path, source, *flags, compiler="g++", suffix=".cc", libs=()):
    """Compiles `source` with `flags` against the checkout's headers, linking `libs` after it;
    returns the finished run."""
    src = tmp_path / f"tu{suffix}"
    src.write_text(source)
    cmd = [compiler, *flags, f"-I{INCLUDE}", str(src), *libs]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path)


def _syntax_check(tmp_path, source, *flags):
    return _compile(tmp_path, source, "-std=c++17", "-fsyntax-only", *flags)


def _config(*flags):
    out = subprocess.run(
        [sys.executable, "-m", "ffi.config", *flags], capture_output=True, text=True, check=True
    )
    return shlex.split(out.stdout)


def _cuda_include_dir():
    """The CUDA include directory holding cuda_runtime.h, or None when there is no nvcc."""
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        return None
    candidates = [
        os.path.join(os.environ[var], "include")
        for var in ("CUDA_HOME", "CUDA_PATH")
        if os.environ.get(var)
    ]
    candidates.append(
        os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(nvcc))), "include")
    )
    candidates.append("/usr/local/cuda/include")
    for path in candidates:
        if os.path.isfile(os.path.join(path, "cuda_runtime.h")):
            return path
    return None


@pytest.mark.skipif(shutil.which("clang++") is None, reason="clang++ is not installed")
def test_every_header_compiles_with_clang(tmp_path):
    """Kernels are built with clang too: every public and forwarding header (the CUDA helpers
    aside) in one translation unit compiles with clang++ (clang 14 rejected a lambda inside a
    fold expression that g++ accepts)."""
    forwarding = sorted(
        os.path.relpath(p, INCLUDE)
        for p in glob.glob(os.path.join(INCLUDE, "tvm", "**", "*.h"), recursive=True)
    )
    includes = [f"ffi/{h}" for h in HEADERS if not _needs_cuda(h)]
    includes += [h for h in forwarding if "cuda" not in h]
    source = "".join(f"#include <{h}>\n" for h in includes)
    out = _compile(tmp_path, source, "-std=c++17", "-fsyntax-only", compiler="clang++")
    assert out.returncode == 0, out.stderr


def test_headers_are_found():
    """The glob sees the public headers (so the parametrized cases below are not vacuous)."""
    assert {"ffi.h", "c_api.h", "error.h", "function.h"} <= set(HEADERS)


@pytest.mark.parametrize("header", HEADERS)
def test_header_compiles_alone(tmp_path, header):
    """Each public header is self-contained: it compiles as the only #include of a C++ TU."""
    flags = []
    if _needs_cuda(header):
        cuda_include = _cuda_include_dir()
        if cuda_include is None:
            pytest.skip("the CUDA helpers need the CUDA headers (no nvcc found)")
        flags.append(f"-I{cuda_include}")
    out = _syntax_check(tmp_path, f"#include <ffi/{header}>\n", *flags)
    assert out.returncode == 0, out.stderr


@pytest.mark.parametrize("header", C_HEADERS)
def test_c_header_compiles_as_c(tmp_path, header):
    """The ABI headers are plain C99."""
    source = f"#include <ffi/{header}>\nint main(void) {{ return 0; }}\n"
    out = _compile(
        tmp_path, source, "-std=c99", "-fsyntax-only", "-x", "c", compiler="gcc", suffix=".c"
    )
    assert out.returncode == 0, out.stderr


def test_headers_include_no_heavy_std_headers(tmp_path):
    """ffi.h and every other lean header include no stream, container, <memory> or algorithm
    header, directly or indirectly."""
    lean = [h for h in HEADERS if _is_lean(h)]
    assert "ffi.h" in lean
    source = "".join(f"#include <ffi/{h}>\n" for h in lean)
    out = _compile(tmp_path, source, "-std=c++17", "-E", "-H", "-o", os.devnull)
    assert out.returncode == 0, out.stderr
    included = [m.group(1) for m in re.finditer(r"^\.+ (.+)$", out.stderr, re.MULTILINE)]
    names = {os.path.basename(path) for path in included}
    assert {"string", "string_view"} <= names  # the -H listing was read
    offenders = sorted(p for p in included if os.path.basename(p) in FORBIDDEN)
    assert not offenders, offenders


USER_TYPE_IN_ERROR = r"""
#include <ffi/ffi.h>
#include <ostream>
%s
struct Point {
  int x, y;
};
std::ostream& operator<<(std::ostream& os, const Point& p) { return os << p.x << "," << p.y; }
void Check(Point p) { FFI_THROW(ValueError) << "bad point " << p; }
"""


def test_user_type_in_error_needs_sstream(tmp_path):
    """A type written by its own operator<< needs <sstream>, and the diagnostic says so."""
    out = _syntax_check(tmp_path, USER_TYPE_IN_ERROR % "")
    assert out.returncode != 0
    assert "#include <sstream>" in out.stderr, out.stderr
    out = _syntax_check(tmp_path, USER_TYPE_IN_ERROR % "#include <sstream>")
    assert out.returncode == 0, out.stderr


def test_stream_manipulator_in_error_is_rejected(tmp_path):
    """std::hex in an error message fails to compile with a diagnostic naming manipulators."""
    source = (
        "#include <ffi/ffi.h>\n#include <ios>\n"
        'void Check(int n) { FFI_THROW(ValueError) << "n = " << std::hex << n; }\n'
    )
    out = _syntax_check(tmp_path, source)
    assert out.returncode != 0
    assert "manipulators" in out.stderr, out.stderr


def test_types_print_to_std_streams(tmp_path):
    """With <iostream> included by the user, dtypes, devices, shapes and strings print."""
    source = r"""
#include <ffi/ffi.h>
#include <iostream>
int main() {
  std::cout << DLDataType{kDLFloat, 32, 1} << DLDevice{kDLCUDA, 1} << ffi::Shape({2, 3})
            << ffi::String("x");
  return 0;
}
"""
    exe = tmp_path / "print_types"
    flags = ["-std=c++17", "-o", str(exe)]
    out = _compile(tmp_path, source, *flags, libs=_config("--ldflags", "--libs"))
    assert out.returncode == 0, out.stderr
    libdir = _config("--libdir")[0]
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = os.pathsep.join(filter(None, [libdir, env.get("LD_LIBRARY_PATH")]))
    run = subprocess.run([str(exe)], capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr
    assert run.stdout == "float32cuda:1[2, 3]x"


ADD_KERNEL = r"""
#include <ffi/ffi.h>
int64_t Add(int64_t a, int64_t b) { return a + b; }
FFI_DLL_EXPORT_TYPED_FUNC(add, Add);
"""
ADD_METADATA = (
    '{"signature": "add(0: int, 1: int) -> int", "arg_types": ["int", "int"], "return_type": "int"}'
)


def test_export_metadata_is_a_compile_time_constant(tmp_path):
    """The metadata JSON lies verbatim in the library (not built at run time) and is exposed."""
    import ffi

    lib = tmp_path / "add.so"
    out = _compile(tmp_path, ADD_KERNEL, "-std=c++17", "-O2", "-shared", "-fPIC", "-o", str(lib))
    assert out.returncode == 0, out.stderr
    assert ADD_METADATA.encode() in lib.read_bytes()

    mod = ffi.load_module(lib)
    f = mod.add
    assert f(2, 3) == 5
    # With "type_schema" added at run time, in the reference's format, for the reference's tools.
    schema = '{"type":"ffi.Function","named_args":{"return":[{"type":"int"}],"params":[{"type":"int"},{"type":"int"}]}}'  # noqa: E501
    assert f._ffi_metadata == {**json.loads(ADD_METADATA), "type_schema": schema}
    assert repr(f) == "<ffi.Function add(0: int, 1: int) -> int>"
    sig = inspect.signature(f)
    assert [p.annotation for p in sig.parameters.values()] == ["int", "int"]
    assert sig.return_annotation == "int"


FORWARDING = sorted(
    os.path.relpath(p, INCLUDE)
    for pattern in ("tvm/**/*.h", "dlpack/*.h")
    for p in glob.glob(os.path.join(INCLUDE, pattern), recursive=True)
)


@pytest.mark.parametrize(
    "header,use",
    [
        ("tvm/ffi/reflection/registry.h", "tvm::ffi::Map<tvm::ffi::String, tvm::ffi::Any> m;"),
        ("tvm/ffi/reflection/access_path.h", "tvm::ffi::Variant<int, tvm::ffi::String> v = 1;"),
        ("tvm/ffi/extra/structural_equal.h", "tvm::ffi::Map<int, int> m;"),
        ("tvm/ffi/container/shape.h", "tvm::ffi::Array<int64_t> a;"),
        ("tvm/ffi/extra/stl.h", "tvm::ffi::List<int64_t> l;"),
    ],
)
def test_forwarding_headers_bring_what_the_references_bring(tmp_path, header, use):
    """Code written for the reference uses what its headers include on the way (omniback uses Map
    after including only reflection/registry.h)."""
    out = _syntax_check(tmp_path, f"#include <{header}>\n{use}\n")
    assert out.returncode == 0, out.stderr


def test_forwarding_headers_exist():
    assert {
        "tvm/ffi/function.h",
        "tvm/ffi/container/tensor.h",
        "tvm/ffi/extra/cuda/cubin_launcher.h",
        "tvm/ffi/extra/cuda/internal/unified_api.h",
        "dlpack/dlpack.h",
    } <= set(FORWARDING)


def test_cubin_launcher_compiles_on_the_driver_api(tmp_path):
    """TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API=1 picks the driver API (CUresult, CUstream): the
    header compiles that way too (linking it needs libcuda, which a machine without a GPU lacks)."""
    cuda_include = _cuda_include_dir()
    if cuda_include is None:
        pytest.skip("the CUDA helpers need the CUDA headers (no nvcc found)")
    source = (
        "#include <ffi/extra/cuda/cubin_launcher.h>\n"
        "#include <type_traits>\n"
        "static_assert(std::is_same_v<ffi::cuda_api::ResultType, CUresult>);\n"
        "static_assert(std::is_same_v<ffi::cuda_api::StreamHandle, CUstream>);\n"
        "void f(ffi::CubinKernel& k, void** args) {\n"
        "  TVM_FFI_CHECK_CUBIN_LAUNCHER_CUDA_ERROR(k.Launch(args, ffi::dim3(1), ffi::dim3(32),"
        " nullptr));\n"
        "}\n"
    )
    flags = ["-DTVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API=1", "-Wall", "-Wextra", "-Werror"]
    out = _syntax_check(tmp_path, source, f"-I{cuda_include}", *flags)
    assert out.returncode == 0, out.stderr
    runtime = source.replace("CUresult", "cudaError_t").replace("CUstream", "cudaStream_t")
    out = _syntax_check(tmp_path, runtime, f"-I{cuda_include}", "-Wall", "-Wextra", "-Werror")
    assert out.returncode == 0, out.stderr


@pytest.mark.parametrize("header", FORWARDING)
def test_forwarding_header_compiles_alone(tmp_path, header):
    flags = []
    if header.startswith("tvm/ffi/extra/cuda/"):
        cuda_include = _cuda_include_dir()
        if cuda_include is None:
            pytest.skip("the CUDA helpers need the CUDA headers (no nvcc found)")
        flags.append(f"-I{cuda_include}")
    out = _syntax_check(tmp_path, f"#include <{header}>\n", *flags)
    assert out.returncode == 0, out.stderr


REFERENCE_STYLE_KERNEL = r"""
#include <dlpack/dlpack.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>

namespace {
void AddOne(tvm::ffi::TensorView x, tvm::ffi::TensorView y) {
  TVM_FFI_CHECK(x.dim() == 1, ValueError) << "x must be 1-d";
  TVM_FFI_CHECK_EQ(x.sizes()[0], y.size(0), ValueError) << "shapes differ";
  TVM_FFI_ICHECK(x.is_contiguous());
  DLDataType f32{kDLFloat, 32, 1};
  TVM_FFI_CHECK(x.dtype() == f32, TypeError) << "x must be float32";
  const float* px = static_cast<const float*>(x.data_ptr());
  float* py = static_cast<float*>(y.data_ptr());
  for (int64_t i = 0; i < x.numel(); ++i) py[i] = px[i] + 1;
}
}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_one, AddOne)
"""


def test_reference_style_kernel_builds_and_runs(tmp_path):
    """A kernel written for the reference's include paths and macros, built against ffi's tree."""
    import numpy as np

    import ffi

    lib = tmp_path / "ref_style.so"
    flags = ["-std=c++17", "-O1", "-shared", "-fPIC", "-Wall", "-Wextra", "-Werror", "-o", str(lib)]
    out = _compile(tmp_path, REFERENCE_STYLE_KERNEL, *flags)
    assert out.returncode == 0, out.stderr
    mod = ffi.load_module(lib)
    x = np.arange(4, dtype=np.float32)
    y = np.zeros(4, dtype=np.float32)
    mod.add_one(x, y)
    assert y.tolist() == [1, 2, 3, 4]
    with pytest.raises(ValueError, match="shapes differ"):
        mod.add_one(x, np.zeros(3, dtype=np.float32))
    with pytest.raises(TypeError, match="float32"):
        mod.add_one(np.zeros(4), np.zeros(4))


def test_installed_include_dir_has_the_forwarding_tree():
    includedir = _config("--includedir")[0]
    for header in ("tvm/ffi/function.h", "tvm/ffi/container/tensor.h", "dlpack/dlpack.h"):
        assert os.path.isfile(os.path.join(includedir, header)), header


NAMESPACE_USER = r"""
#include <tvm/ffi/function.h>
#include <tvm/ffi/any.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/map.h>

namespace ffi = tvm::ffi;  // written at global scope by much reference-era code

enum class Color : int { kRed = 1, kBlue = 2 };

// Reopened to add the user's own trait specialization and helpers.
namespace tvm {
namespace ffi {
template <>
struct TypeTraits<Color> : TypeTraits<int64_t> {
  static void CopyToAnyView(const Color& v, TVMFFIAny* out) {
    TypeTraits<int64_t>::CopyToAnyView(static_cast<int64_t>(v), out);
  }
  static void MoveToAny(Color v, TVMFFIAny* out) { CopyToAnyView(v, out); }
  static Optional<Color> TryCastFromAnyView(const TVMFFIAny* src) {
    if (src->type_index != kTVMFFIInt) return std::nullopt;
    return static_cast<Color>(src->v_int64);
  }
  static constexpr auto TypeStr() { return ConstString("Color"); }
};
inline int UserHelper(Color c) { return static_cast<int>(c) * 10; }
}  // namespace ffi
}  // namespace tvm

// Containers through the forwarding headers: their type names are compile-time strings, which
// nvcc must be able to build too.
int64_t SumRows(tvm::ffi::Array<tvm::ffi::Array<int64_t>> rows,
                tvm::ffi::Map<tvm::ffi::String, int64_t> scale) {
  int64_t total = 0;
  for (const auto& row : rows) {
    for (int64_t v : row) total += v;
  }
  return total * scale.at("by");
}
TVM_FFI_DLL_EXPORT_TYPED_FUNC(sum_rows, SumRows);

int Run() {
  ffi::Function f = ffi::Function::FromTyped([](Color c) { return ffi::UserHelper(c); });
  return f(Color::kBlue).cast<int>();
}
"""


def _namespace_user_compilers():
    compilers = [c for c in ("g++", "clang++") if shutil.which(c)]
    if shutil.which("nvcc"):
        compilers.append("nvcc")
    return compilers


@pytest.mark.parametrize("compiler", _namespace_user_compilers())
def test_namespace_alias_and_reopening_compile(tmp_path, compiler):
    """`namespace ffi = tvm::ffi;` at global scope, and reopening `tvm::ffi` to add a trait
    specialization, compile with every compiler kernels are built with (nvcc rejected the alias
    while `::ffi` was an original namespace)."""
    suffix = ".cu" if compiler == "nvcc" else ".cc"
    flags = ["-std=c++17", "-c", "-o", os.devnull]
    out = _compile(tmp_path, NAMESPACE_USER, *flags, compiler=compiler, suffix=suffix)
    assert out.returncode == 0, out.stderr


def test_namespace_user_runs(tmp_path):
    """The reopened trait specialization is the one typed calls use."""
    source = NAMESPACE_USER + "int main() { return Run() == 20 ? 0 : 1; }\n"
    exe = tmp_path / "ns_user"
    out = _compile(
        tmp_path, source, "-std=c++17", "-o", str(exe), libs=_config("--ldflags", "--libs")
    )
    assert out.returncode == 0, out.stderr
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = _config("--libdir")[0]
    assert subprocess.run([str(exe)], env=env).returncode == 0


def test_linker_names_cannot_clash_with_another_implementation(tmp_path):
    """Inline functions of these headers carry the `ffi_v1` inline namespace in their linker
    names, so a process that also holds libraries built with another implementation's headers
    (same `tvm::ffi::` source names) never merges the two definitions."""
    lib = tmp_path / "add.so"
    out = _compile(tmp_path, ADD_KERNEL, "-std=c++17", "-O0", "-shared", "-fPIC", "-o", str(lib))
    assert out.returncode == 0, out.stderr
    nm = subprocess.run(["nm", "-DC", str(lib)], capture_output=True, text=True, check=True)
    ours = [line for line in nm.stdout.splitlines() if "tvm::ffi::" in line]
    assert ours, nm.stdout  # the kernel does export weak inline functions at -O0
    assert all("tvm::ffi::ffi_v1::" in line for line in ours), ours
