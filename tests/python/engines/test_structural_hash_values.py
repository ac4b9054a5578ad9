"""Structural hashes and content hashes (ffi.RecursiveHash, behind `hash()` of containers and
dataclasses) equal the reference runtime's, bit for bit (users persist them: tuning databases are
keyed by a workload's structural hash). The same corpus of values
(structural_hash_corpus.py: every kind of value, object types of every structural kind, free
variables mapped, DAG sharing, maps in any order, generated nested values) is hashed in two fresh
processes, one served by the installed reference runtime and one by ours, and the results must
be equal; where the reference raises, ours raises the same exception type."""

import json
import os
import subprocess
import sys

import pytest
from support.build import build_with_both_headers
from support.paths import TESTS_DIR

import ffi


@pytest.fixture(scope="module")
def reference_objects(tmp_path_factory):
    """kernels/structural_objects.cc built with the reference's headers (both runtimes load it)."""
    src = os.path.join(TESTS_DIR, "kernels", "structural_objects.cc")
    out = str(tmp_path_factory.mktemp("structural_hash_values"))
    libs = build_with_both_headers(src, ("seours", "seref"), "SE_PREFIX", out)
    if "seref" not in libs:
        pytest.skip("apache-tvm-ffi is not installed")
    return libs["seref"]


def corpus_hashes(package, library):
    """{name: hash or 'TypeName: message'} of the corpus, computed in a process served by
    `package`'s runtime."""
    proc = subprocess.run(
        [sys.executable, os.path.join(TESTS_DIR, "structural_hash_corpus.py"), package, library],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_hashes_equal_the_reference_runtimes(reference_objects):
    reference = corpus_hashes("tvm_ffi", reference_objects)
    ours = corpus_hashes("ffi", reference_objects)
    assert sorted(ours) == sorted(reference)
    assert len(reference) > 500 and sum(n.startswith("recursive:") for n in reference) > 250
    differences = []
    for name, expected in reference.items():
        got = ours[name]
        if not expected[0].isdigit():
            # An error: the same exception type (the messages are each runtime's own).
            expected, got = expected.split(":")[0], got.split(":")[0]
        if got != expected:
            differences.append(f"{name}: ours {got}, reference {expected}")
    assert not differences, "\n".join(differences)
    # The corpus exercises what it claims to: values hashed, and the order of a map's entries
    # not entering its hash.
    assert reference["map-str"] == reference["map-str-other-order"]
    assert sum(not h[0].isdigit() for h in reference.values()) == 1  # only `plain` raises


def test_hashes_in_this_process_match_the_corpus_run(reference_objects):
    # The hash of a value does not depend on the process (type keys, not type indices, enter it).
    ours = corpus_hashes("ffi", reference_objects)
    assert str(ffi.structural_hash(1) & (2**64 - 1)) == ours["int1"]
    assert str(ffi.structural_hash(ffi.Array([1, 2, 3])) & (2**64 - 1)) == ours["array-ints"]
    assert str(ffi.structural_hash("abcdefgh") & (2**64 - 1)) == ours["str-8"]
