"""Compares one scenario's results on our runtime with the reference's: every key but
`served_by` must be equal, and `served_by` must say which runtime served each run.

    python compare.py PREFIX ours|in-place    # PREFIX.reference.json against PREFIX.<mode>.json
"""

import json
import sys

prefix, mode = sys.argv[1:]
ours = json.load(open(f"{prefix}.{mode}.json"))
reference = json.load(open(prefix + ".reference.json"))
problems = []
if ours.pop("served_by") != "ffi":
    problems.append(f"the `{mode}` run was not served by our runtime")
reference.pop("served_by")
for key in sorted(set(ours) | set(reference)):
    if ours.get(key) != reference.get(key):
        problems.append(
            f"{key}: ours {str(ours.get(key))[:200]!r} != {str(reference.get(key))[:200]!r}"
        )
name = prefix.rsplit("/", 1)[-1]
print(
    f"{name} ({mode}): {len(reference)} results, " + ("all equal" if not problems else "DIFFERENT")
)
for p in problems:
    print("  " + p)
sys.exit(1 if problems else 0)
