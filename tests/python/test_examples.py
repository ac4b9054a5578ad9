"""Every example runs and prints what it promises."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_quickstart(tmp_path):
    out = subprocess.run(
        [sys.executable, os.path.join(ROOT, "examples", "quickstart", "run.py"), str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    assert out[0] == "<ffi.Function add_one(0: Tensor, 1: Tensor) -> void>"
    assert out[1] == "torch: [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]"
    assert out[2].startswith("numpy: [1.0, 1.33")
    assert out[3] == "error: x must be float32, got float64"


def test_stable_c_abi(tmp_path):
    script = os.path.join(ROOT, "examples", "stable_c_abi", "run.sh")
    out = subprocess.run(
        ["bash", script, str(tmp_path)], capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["2", "3", "4", "5", "6"]
