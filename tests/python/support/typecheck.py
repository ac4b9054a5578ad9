"""Running mypy on samples and comparing what it reports with what a sample tags."""

import re
import subprocess
import sys
import textwrap

#: One mypy error line: the sample's line number and the error code.
ERROR_LINE = re.compile(r"^[^:]+:(\d+): error: .*\[([a-z-]+)\]$")


def reported_errors(proc: subprocess.CompletedProcess) -> set:
    """The (line, code) pairs of the errors in mypy's output."""
    found = set()
    for line in proc.stdout.splitlines():
        m = ERROR_LINE.match(line)
        if m:
            found.add((int(m.group(1)), m.group(2)))
    return found


def assert_reported_as_tagged(proc: subprocess.CompletedProcess, source: str) -> None:
    """mypy reported exactly the errors `source` tags with ``# E: <code>`` on their lines."""
    lines = textwrap.dedent(source).lstrip().splitlines()
    expected = {
        (i, line.split("# E: ")[1].strip())
        for i, line in enumerate(lines, start=1)
        if "# E: " in line
    }
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert reported_errors(proc) == expected, proc.stdout + proc.stderr


def mypy_config(tmp_path) -> str:
    """An empty configuration, so that no setup.cfg or pyproject.toml around changes the run."""
    config = tmp_path / "mypy.ini"
    config.write_text("[mypy]\n")
    return str(config)


def mypy_on_stub(tmp_path, cache, stub_text: str, source: str) -> subprocess.CompletedProcess:
    """mypy --strict on `source` (as user.py) beside the stub `stub_text` (as kernels.pyi)."""
    (tmp_path / "kernels.pyi").write_text(stub_text)
    (tmp_path / "user.py").write_text(textwrap.dedent(source).lstrip())
    cmd = [sys.executable, "-m", "mypy", "--strict", "--no-error-summary", "--show-error-codes"]
    cmd += ["--config-file", mypy_config(tmp_path), "--cache-dir", str(cache)]
    return subprocess.run(
        [*cmd, "user.py", "kernels.pyi"], cwd=tmp_path, capture_output=True, text=True, timeout=600
    )
