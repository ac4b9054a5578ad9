"""Runs directories of Apache TVM's own Python tests on the reference runtime and on ours, each
test file in processes of its own (a crash stays in its file), and compares the outcome of every
test. Not part of CI (it takes long); its result goes into docs/clients.md.

    python tests/clients/tvm_suite.py TVM_CHECKOUT DIR_OR_FILE [...] [--jobs N] [--out FILE]

Run it with the Python of the clients tier's `tvm` environment (apache-tvm, its reference runtime
and our package; tests/clients/run.sh makes it), e.g. build/clients/tvm/bin/python. TVM_CHECKOUT
is a checkout of apache/tvm whose tests/python holds the directories (`ir`, `te`, `runtime`, …).
Prints, per directory, the outcome counts on each runtime and every test whose outcome differs.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor, as_completed

#: What runs pytest on one file: `ours` imports ffi first, so that our runtime serves the process.
RUNNER = """
import sys
if sys.argv[1] == "ours":
    import ffi
import pytest
sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", "--junitxml", sys.argv[2], sys.argv[3]]))
"""
RUNTIMES = ("reference", "ours")
#: A file whose process runs longer than this (seconds) counts as timed out.
FILE_TIMEOUT = 900


def outcomes(junit_path: str) -> dict[str, str]:
    """Test id -> passed / failed / error / skipped, from a JUnit XML report."""
    result = {}
    for case in ET.parse(junit_path).getroot().iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        kinds = {child.tag for child in case}
        outcome = "passed"
        for kind in ("error", "failure", "skipped"):
            if kind in kinds:
                outcome = {"failure": "failed"}.get(kind, kind)
                break
        result[name] = outcome
    return result


def run_file(path: str, runtime: str, cwd: str) -> dict[str, str]:
    """The outcome of every test of one file on one runtime; a crash or a timeout of the whole
    process is reported as the single outcome `<crashed: ...>` under the key "*"."""
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "report.xml")
        try:
            proc = subprocess.run(
                [sys.executable, "-c", RUNNER, runtime, report, path],
                cwd=cwd,
                capture_output=True,
                text=True,
                timeout=FILE_TIMEOUT,
            )
        except subprocess.TimeoutExpired:
            return {"*": "<timed out>"}
        if proc.returncode < 0 or not os.path.exists(report):
            return {"*": f"<crashed: exit {proc.returncode}>"}
        return outcomes(report)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkout")
    parser.add_argument("dirs", nargs="+", help="directories (or test files) under tests/python")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", help="also write every outcome here, as JSON")
    args = parser.parse_args()
    tests_root = os.path.join(args.checkout, "tests", "python")
    files = set()
    for d in args.dirs:
        if os.path.isfile(os.path.join(tests_root, d)):  # a single test file
            files.add(os.path.join(tests_root, d))
            continue
        for root, _, names in os.walk(os.path.join(tests_root, d)):
            files.update(
                os.path.join(root, n) for n in names if n.startswith("test_") and n.endswith(".py")
            )
    jobs = [(f, r) for f in sorted(files) for r in RUNTIMES]
    table: dict[str, dict[str, dict[str, str]]] = collections.defaultdict(dict)
    # Progress on the standard error as each file completes on both runtimes (a long run's partial
    # result is worth having); the summary follows on the standard output.
    with ThreadPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(run_file, f, r, args.checkout): (f, r) for f, r in jobs}
        for future in as_completed(futures):
            path, runtime = futures[future]
            rel = os.path.relpath(path, tests_root)
            table[rel][runtime] = future.result()
            if len(table[rel]) == len(RUNTIMES):
                ref, ours = table[rel]["reference"], table[rel]["ours"]
                differ = sorted(t for t in set(ref) | set(ours) if ref.get(t) != ours.get(t))
                print(
                    f"{rel}: {len(ref)} tests, {len(differ)} differ {differ[:3]}",
                    file=sys.stderr,
                    flush=True,
                )
    differences = 0
    for d in args.dirs:
        counts = {r: collections.Counter() for r in RUNTIMES}
        lines = []
        for rel, by_runtime in sorted(table.items()):
            if rel != os.path.normpath(d) and not rel.startswith(d + os.sep):
                continue
            for runtime in RUNTIMES:
                counts[runtime].update(by_runtime[runtime].values())
            ref, ours = by_runtime["reference"], by_runtime["ours"]
            for test in sorted(set(ref) | set(ours)):
                if ref.get(test) != ours.get(test):
                    lines.append(f"  {rel} {test}: {ref.get(test)} -> ours {ours.get(test)}")
        differences += len(lines)
        summary = "; ".join(
            f"{r}: " + ", ".join(f"{n} {k}" for k, n in sorted(counts[r].items())) for r in RUNTIMES
        )
        print(f"{d}: {summary}; {len(lines)} differ")
        for line in lines:
            print(line)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(table, f, indent=1, sort_keys=True)
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
