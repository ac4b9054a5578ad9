"""What every client scenario shares: the runtime it runs on (its one argument) and the way it
reports its results (one JSON object on the standard output).

    python <client>_scenario.py reference|ours|in-place
        # ours: import ffi first, so our runtime serves; in-place: the client unchanged, with our
        # runtime file in place of the reference package's own (run.sh puts such a copy of the
        # package first on PYTHONPATH)
"""

import json
import os
import sys
from typing import Any


def select_runtime() -> dict[str, Any]:
    """Loads the runtime the command line names and returns the results so far: ``served_by``,
    which implementation serves the process. Call it before importing the client."""
    if sys.argv[1:] == ["ours"]:
        import ffi  # noqa: PLC0415 - first of all: its runtime then serves the process

        return {"served_by": ffi.runtime_info()["implementation"]}
    if sys.argv[1:] == ["reference"]:
        return {"served_by": "reference"}
    if sys.argv[1:] == ["in-place"]:
        import tvm_ffi  # noqa: PLC0415 - what the client imports first anyway

        # A global function only our runtime registers tells which runtime the package loaded.
        ours = tvm_ffi.get_global_func("ffi.EnumAdaptToReferencePackage", allow_missing=True)
        return {"served_by": "ffi" if ours is not None else "reference"}
    sys.exit(f"usage: {os.path.basename(sys.argv[0])} reference|ours|in-place")


def keep_stdout_for_results() -> Any:
    """For a client that logs to the standard output: sends everything written there from now on
    (by Python or C) to the standard error, and returns a stream onto the original output."""
    results = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return results


def report(results: dict[str, Any], stream: Any = None) -> None:
    """Writes the results as one JSON object (keys sorted, so that runs compare as text too)."""
    print(json.dumps(results, indent=1, sort_keys=True), file=stream or sys.stdout)
