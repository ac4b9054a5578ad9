"""ffi where no compiler exists, as a wheel installs it on a slim image: prebuilt kernel libraries
load and run with NumPy and PyTorch tensors, ffi.cpp says plainly that it cannot build, and
`python -m ffi.config` still answers. Each case runs in a fresh interpreter whose PATH has no
compiler and whose environment names none."""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

# Installation, not the interpreter: run on the main one only (tests/run_all.sh interpreters).
pytestmark = pytest.mark.tooling

# Variables that could name a compiler or a CUDA toolkit to the child.
_COMPILER_VARIABLES = ("CC", "CXX", "NVCC", "LD", "CUDA_HOME", "CUDA_PATH")


@pytest.fixture(scope="module")
def bare_env(tmp_path_factory):
    env = {k: v for k, v in os.environ.items() if k not in _COMPILER_VARIABLES}
    env["PATH"] = str(tmp_path_factory.mktemp("bin_without_compilers"))
    env["FFI_CACHE_DIR"] = str(tmp_path_factory.mktemp("empty_cache"))
    return env


def run(code: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


def test_prebuilt_kernels_run(kernels_path, mod, bare_env):
    expected = np.zeros(4, dtype=np.float32)
    mod.scale_add(np.arange(4, dtype=np.float32), None, expected, np.zeros(4, dtype=np.float32))
    proc = run(
        f"""
        import json, shutil
        import numpy as np
        import ffi
        assert all(shutil.which(c) is None for c in ("c++", "g++", "cc", "gcc", "nvcc"))
        m = ffi.load_module({kernels_path!r})
        x = np.arange(4, dtype=np.float32)
        out = np.zeros(4, dtype=np.float32)
        m.scale_add(x, None, out, np.zeros(4, dtype=np.float32))
        made = np.from_dlpack(m.make_output(3)).tolist()
        print(json.dumps([m.add_int(2, 3), out.tolist(), made]))
        """,
        bare_env,
    )
    assert proc.returncode == 0, proc.stderr
    add, scaled, made = json.loads(proc.stdout)
    assert add == 5
    assert made == [0.0, 1.0, 2.0]
    assert scaled == expected.tolist()


def test_prebuilt_kernels_run_with_pytorch(kernels_path, bare_env):
    pytest.importorskip("torch")
    proc = run(
        f"""
        import torch, ffi
        m = ffi.load_module({kernels_path!r})
        y = m.alloc_like(torch.ones(3))
        print(type(y).__module__, tuple(y.shape))
        """,
        bare_env,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["torch", "(3,)"]


def test_building_says_no_compiler(bare_env):
    proc = run(
        """
        import ffi.cpp
        try:
            ffi.cpp.load_inline("nothing", cpp_sources="int f() { return 1; }", functions=["f"])
        except ffi.cpp.BuildError as err:
            print(type(err).__name__, err)
        """,
        bare_env,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("BuildError cannot find `c++` (set $CXX to choose one)")


def test_config_answers(bare_env):
    proc = run("import runpy; runpy.run_module('ffi.config', run_name='__main__')", bare_env)
    assert proc.returncode != 0  # no flags: a usage error, printed
    proc = subprocess.run(
        [sys.executable, "-m", "ffi.config", "--includedir"],
        capture_output=True,
        text=True,
        env=bare_env,
    )
    assert proc.returncode == 0, proc.stderr
    assert os.path.isfile(os.path.join(proc.stdout.strip(), "ffi", "c_api.h"))
