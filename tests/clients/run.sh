#!/usr/bin/env bash
# The clients tier: real PyPI clients of the reference (pinned) run each scenario in a process of
# its own twice, on the reference's runtime and on ours (`import ffi` first), and the results must
# be equal. Usage: bash tests/clients/run.sh [VENV]  (default build/clients-venv; made if absent).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
venv="${1:-build/clients-venv}"
if [[ ! -x "$venv/bin/python" ]]; then
  python3 -m venv "$venv"
fi
py="$venv/bin/python"
# apache-tvm 0.27.0.post1 was built against apache-tvm-ffi 0.1.14.post0: that release is the
# control, as its users run it.
"$py" -m pip install -q numpy pytest scikit-build-core nanobind \
  apache-tvm==0.27.0.post1 apache-tvm-ffi==0.1.14.post0
"$py" -m pip install -q --no-build-isolation --config-settings=build-dir=build/clients-wheel .
status=0
for scenario in tests/clients/*_scenario.py; do
  "$py" "$scenario" reference > "build/$(basename "$scenario" .py).reference.json"
  "$py" "$scenario" ours > "build/$(basename "$scenario" .py).ours.json"
  "$py" tests/clients/compare.py "build/$(basename "$scenario" .py)" || status=1
done
exit $status
