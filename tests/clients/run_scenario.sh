#!/usr/bin/env bash
# Runs one client's scenario on the three runtimes, each in a process of its own, and compares:
# the reference's runtime (the control), ours (`import ffi` first) and ours in place of the
# reference's runtime file (the client unchanged, no `import ffi`).
#
# Usage: bash tests/clients/run_scenario.sh CLIENT PYTHON DIR
#   CLIENT   runs tests/clients/CLIENT_scenario.py
#   PYTHON   an interpreter whose environment (a venv, or PYTHONPATH) holds the client, the
#            reference package and ours
#   DIR      receives CLIENT.<runtime>.json and CLIENT-in-place/, a copy of the reference package
#            (with its metadata, through which the package finds its runtime file) whose runtime
#            file is ours; put first on PYTHONPATH, it stands in for the installed package
# Exits non-zero when a run fails or a result differs from the control's.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
client="$1" python="$2" dir="$3"
mkdir -p "$dir"

copy="$dir/$client-in-place"
rm -rf "$copy"
mkdir -p "$copy"
"$python" - "$copy" << 'EOF'
import importlib.metadata, importlib.util, shutil, sys

import ffi.libinfo

copy = sys.argv[1]
package = importlib.util.find_spec("tvm_ffi").submodule_search_locations[0]
metadata = importlib.metadata.distribution("apache-tvm-ffi")._path
shutil.copytree(package, f"{copy}/tvm_ffi")
shutil.copytree(metadata, f"{copy}/{metadata.name}")
shutil.copy(ffi.libinfo.get_runtime_library_path(), f"{copy}/tvm_ffi/lib/libtvm_ffi.so")
EOF

for runtime in reference ours in-place; do
  run=("$python")
  if [ "$runtime" = in-place ]; then
    run=(env "PYTHONPATH=$copy${PYTHONPATH:+:$PYTHONPATH}" "$python")
  fi
  if ! "${run[@]}" "tests/clients/${client}_scenario.py" "$runtime" > "$dir/$client.$runtime.json"; then
    echo "$client: the scenario failed on the $runtime runtime" >&2
    exit 1
  fi
done
status=0
"$python" tests/clients/compare.py "$dir/$client" ours || status=1
"$python" tests/clients/compare.py "$dir/$client" in-place || status=1
exit $status
