#!/usr/bin/env bash
# Runs every check on a machine that has only Python and this checkout, in stages:
#
#   provision     system packages (apt-get, as root or through sudo) and Python packages
#   lint          ruff, clang-format and rustfmt (first: the cheapest way to fail)
#   build         the package (pip install .) and the C++ test suites, in one CMake tree
#   cpp           the C++ suites (GCC)
#   rust          the Rust crates (rust/): clippy, cargo test, cargo doc, against the runtime built
#   sanitize      the C++ suites and the fuzzers with ASan/UBSan (clang)
#   tsan          the suites that start threads (ctest label `threads`) with ThreadSanitizer
#   windows       the runtime and the C++ suites cross-built with MinGW-w64, run under wine
#   python        the Python suite
#   python-asan   the Python tests marked `sanitized`, against the ASan build
#   interpreters  the Python suite on CPython 3.9 and 3.13, the oldest supported and the newest
#                 with the GIL (without PyTorch and the `tooling` tests)
#   free-threaded the Python suite on free-threaded CPython 3.13t (no GIL; likewise), with the
#                 interpreter built once and cached (tests/free_threaded_python.sh)
#   wheels        the sdist, a wheel built from it, repaired by auditwheel, installed into a fresh
#                 venv and tested without a compiler; the free-threaded wheel (tests/wheels.sh)
#   clients       PyPI clients of the reference (apache-tvm, TileLang, xgrammar) on both runtimes
#
#   free-threaded-tsan  (only when named) the thread stress suites on a ThreadSanitizer build of
#                 free-threaded CPython 3.13t with the package built with TSan
#                 (tests/tsan_free_threaded.sh; the interpreter is built once, ~15 minutes)
#
#   bash tests/run_all.sh              every stage but the optional ones, in this order
#   bash tests/run_all.sh cpp python   the named stages only (after provision and build)
#
# Run it inside a virtual environment. Everything is built with -Wall -Wextra -Werror.
# CMAKE_ARGS, if set, is left untouched and reaches the package build (scikit-build-core reads it).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

all_stages=(provision lint build cpp rust sanitize tsan windows python python-asan interpreters
  free-threaded wheels clients)

section() {
  printf '\n==== %s ==== (at %d s)\n' "$*" "$SECONDS"
}

# One tree (build/tests) for the wheel and the C++ suites, so the runtime is compiled once.
# Optimized (-O2, where GCC's flow-based warnings such as -Wmaybe-uninitialized fire) but without
# debug info, which would cost a quarter of the build; the sanitizer build keeps line tables.
# The test suites themselves at -O1 (FFI_TEST_OPTIONS): a quarter less time, the same warnings.
# The same settings build the package for the other interpreters and for the clients, in this tree.
wheel_settings=(--config-settings=build-dir=build/tests
  --config-settings=cmake.define.FFI_WERROR=ON --config-settings=cmake.define.FFI_BUILD_TESTS=ON
  --config-settings=cmake.define.FFI_TEST_OPTIONS=-O1
  "--config-settings=cmake.define.CMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG")

# A stage run alone needs what an earlier stage made: says which, and stops.
require() {
  local what="$1" stage="$2"
  shift 2
  if ! "$@" > /dev/null 2>&1; then
    echo "error: no $what; run first: bash tests/run_all.sh $stage" >&2
    exit 1
  fi
}

stage_provision() {
  section "System packages"
  # git: the lint lists tracked files; binutils: readelf for the packaging example; ccache: every
  # compilation, cached outside the checkout (see use_ccache); MinGW-w64, wine and GoogleTest's
  # sources: the windows stage; valgrind: the rust stage's leak check.
  local system_packages=(g++ cmake ninja-build libgtest-dev clang-format git binutils clang
    libclang-rt-14-dev ccache g++-mingw-w64-x86-64 wine64 googletest valgrind)
  local missing=() as_root=()
  if command -v dpkg-query > /dev/null; then
    for pkg in "${system_packages[@]}"; do
      if ! dpkg-query -W -f='${Status}' "$pkg" 2> /dev/null | grep -q "install ok installed"; then
        missing+=("$pkg")
      fi
    done
    echo "needed: ${system_packages[*]}; missing: ${missing[*]:-none}"
  else
    echo "not a Debian system: make sure these (or their equivalents) are installed:"
    echo "  ${system_packages[*]}"
  fi
  if [ "${#missing[@]}" -gt 0 ]; then
    if [ "$(id -u)" -ne 0 ]; then
      if command -v sudo > /dev/null && sudo -n true 2> /dev/null; then
        as_root=(sudo -n)
      else
        echo "error: missing system packages: ${missing[*]}; install them as root" >&2
        echo "  (apt-get install ${missing[*]}), or run this script as root or with sudo" >&2
        exit 1
      fi
    fi
    export DEBIAN_FRONTEND=noninteractive
    "${as_root[@]}" apt-get update -q
    "${as_root[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
  fi

  # Rust (the rust stage, the Rust example): a toolchain new enough for the crates' rust-version,
  # with rustfmt and clippy; Debian's cargo is older, so it comes from rustup, not from here.
  local tool
  for tool in cargo rustfmt cargo-clippy; do
    if ! command -v "$tool" > /dev/null; then
      echo "error: $tool is not installed: install Rust >= 1.82 with rustfmt and clippy" >&2
      echo "  (https://rustup.rs: rustup component add rustfmt clippy)" >&2
      exit 1
    fi
  done

  section "Python packages"
  # PyTorch first and pinned, so that nothing after it pulls another version.
  python -m pip install torch==2.13.0
  python -m pip install -r tests/requirements.txt
}

stage_lint() {
  section "Lint: ruff"
  ruff check python tests benchmarks examples
  ruff format --check python tests benchmarks examples

  section "Lint: clang-format"
  local cxx_files=()
  mapfile -t cxx_files < <(git ls-files -- include src tests examples benchmarks python \
    | grep -E '\.(h|cc|c|cu)$' || true)
  clang-format --dry-run -Werror "${cxx_files[@]}"
  echo "checked ${#cxx_files[@]} C/C++ files"

  section "Lint: rustfmt"
  (cd rust && cargo fmt --all --check)
  (cd examples/rust && cargo fmt --check)
  (cd benchmarks/rust_kernels && cargo fmt --check)
}

stage_build() {
  section "Install the package (pip install .) and build the C++ tests in the same CMake tree"
  python -m pip install "${wheel_settings[@]}" .
}

stage_cpp() {
  section "C++ tests"
  require "C++ build in build/tests" build test -f build/tests/CTestTestfile.cmake
  ctest --test-dir build/tests --output-on-failure -j2
}

stage_rust() {
  section "Rust crates: clippy, cargo test (Rust and C++ kernel libraries both ways), cargo doc"
  require "installed ffi package" build python -c "import ffi"
  # ffi-sys links the runtime the package installed (FFI_LIBDIR); no crate comes from a registry,
  # so everything builds offline.
  local libdir
  libdir="$(python -m ffi.config --libdir)"
  (
    cd rust
    export FFI_LIBDIR="$libdir"
    cargo clippy --offline --all-targets -- -D warnings
    cargo test --offline
    RUSTDOCFLAGS="-D warnings" cargo doc --offline --no-deps

    section "Rust integration tests under valgrind: no leaks, no invalid accesses (~10 s)"
    local tests=() test_binary
    mapfile -t tests < <(cargo test --offline --no-run --message-format=json 2> /dev/null \
      | python -c 'import json, sys
for m in map(json.loads, sys.stdin):
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["kind"] == ["test"]:
        print(m["executable"])')
    [ "${#tests[@]}" -gt 0 ] || { echo "error: no Rust test binaries found" >&2; exit 1; }
    for test_binary in "${tests[@]}"; do
      valgrind -q --leak-check=full --show-leak-kinds=definite --errors-for-leak-kinds=definite \
        --error-exitcode=9 \
        "$test_binary" --test-threads=1 -q
    done
  )
}

stage_sanitize() {
  section "C++ tests with AddressSanitizer and UndefinedBehaviorSanitizer (clang)"
  # tests/asan_python.sh builds the package with ASan/UBSan in build/asan, with the C++ suites and
  # the fuzzers in the same tree (so the runtime is compiled once for all); its Python tests run in
  # the python-asan stage.
  bash tests/asan_python.sh build
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build/asan --output-on-failure -j2

  section "Fuzzers: DLPack import and TVMFFIAny conversion, 20 s each"
  tests/fuzz/run.sh 20 build/asan
}

stage_tsan() {
  section "C++ tests that start threads, with ThreadSanitizer"
  # Only the suites labelled `threads` (tests/cpp/CMakeLists.txt), and no CUDA, so CMake need not
  # look for nvcc. -O1 -g1: optimized enough for TSan's speed, line tables for reports. clang: it
  # compiles the instrumented code faster than GCC.
  cmake -S . -B build/tsan -G Ninja -DFFI_BUILD_TESTS=ON -DFFI_WERROR=ON -DFFI_CUDA_TESTS=OFF \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1" -DFFI_SANITIZE=thread
  cmake --build build/tsan --target ffi_threaded_tests
  TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
    ctest --test-dir build/tsan --output-on-failure -j2 -L threads
}

stage_windows() {
  section "The runtime and the C++ suites for Windows (MinGW-w64), run under wine"
  # tests/windows_cross.sh; its wine prefix is kept outside the checkout (made once, ~30 s).
  WINEPREFIX="${XDG_CACHE_HOME:-$HOME/.cache}/ffi/wineprefix" FFI_WINDOWS_BUILD_DIR=build/windows \
    bash tests/windows_cross.sh
}

stage_python() {
  section "Python tests"
  require "installed ffi package" build python -c "import ffi"
  # Two workers (pytest-xdist): most tests wait on compilers and subprocesses, so the suite takes
  # about half the time on two cores. Every test is independent of the others' order and process.
  # --dist loadgroup: the mypy runs share one worker and its warm cache (tests/python/conftest.py).
  python -m pytest tests/python -q -n 2 --dist loadgroup
}

stage_python_asan() {
  section "Python tests against the package built with AddressSanitizer"
  require "ASan build in build/asan-py" sanitize test -d build/asan-py/ffi
  bash tests/asan_python.sh test
}

# The CPython `version` (3.9, 3.13, ...) with the GIL, on PATH or else the newest under pyenv; empty
# when there is none (a pyenv shim of a version not installed does not run, so it is passed over).
find_cpython() {
  local version="$1" candidate candidates=()
  candidate="$(command -v "python$version" 2> /dev/null || true)"
  if [ -n "$candidate" ]; then
    candidates+=("$candidate")
  fi
  mapfile -t -O "${#candidates[@]}" candidates < <(ls -d \
    "$(pyenv root 2> /dev/null || echo /nonexistent)/versions/$version".*/bin/"python$version" \
    2> /dev/null | sort -r -V)
  local gil='import sys, sysconfig; sys.exit(bool(sysconfig.get_config_var("Py_GIL_DISABLED")))'
  for candidate in "${candidates[@]}"; do
    if "$candidate" -c "$gil" 2> /dev/null; then
      echo "$candidate"
      return
    fi
  done
}

stage_interpreters() {
  # The suite runs on the interpreter this machine's PyTorch wheel is for (3.11). The package
  # supports CPython 3.9 and later, so the suite runs again on the oldest (3.9: no `X | None` at
  # run time, older C API behaviours) and on the newest with the GIL (3.13, which like 3.12 ends
  # daemon threads that take the GIL back during shutdown with pthread_exit, inside our calls),
  # each if found (on PATH or under pyenv), each in a virtual environment of its own: without the
  # files that import PyTorch (conftest.py leaves them out) and the `tooling` ones, which do not
  # depend on the interpreter. The package builds in the tree of the build stage, so only the
  # extension is compiled again. (3.10 and 3.12 pass too; free-threaded 3.13t has its own stage.)
  local version python venv
  for version in 3.9 3.13; do
    section "Python tests on CPython $version (without PyTorch)"
    python="$(find_cpython "$version")"
    if [ -z "$python" ]; then
      echo "no CPython $version found: skipped"
      continue
    fi
    venv="build/py${version/./}-venv"
    "$python" -m venv "$venv"
    "$venv/bin/python" -m pip install -q -r tests/requirements.txt
    "$venv/bin/python" -m pip install -q "${wheel_settings[@]}" .
    "$venv/bin/python" -m pytest -q -n 2 -p no:cacheprovider -m "not tooling" tests/python
  done
}

stage_free_threaded() {
  section "Python tests on free-threaded CPython 3.13t (no GIL)"
  # The extension declares that it runs without the GIL, so on a free-threaded interpreter the
  # GIL stays off and calls meet on the extension's shared state at once
  # (tests/python/calls/test_threads_stress.py asserts both). The interpreter is built once (about
  # 12 minutes) and kept outside the checkout; it gets the core test packages only (the others have
  # no free-threaded wheels), and the suite runs without the files that import PyTorch and the
  # `tooling` ones, in the build stage's tree (only the extension is compiled again).
  local python_ft
  python_ft="$(bash tests/free_threaded_python.sh)"
  "$python_ft" -m venv build/ft-venv
  build/ft-venv/bin/python -m pip install -q -r tests/requirements-core.txt
  build/ft-venv/bin/python -m pip install -q "${wheel_settings[@]}" .
  build/ft-venv/bin/python -c 'import sys, ffi; assert not sys._is_gil_enabled(), "GIL enabled"'
  build/ft-venv/bin/python -m pytest -q -n 2 -p no:cacheprovider -m "not tooling" tests/python
}

stage_wheels() {
  section "Wheels: the sdist, a manylinux wheel built from it, installed and tested without a compiler"
  # tests/wheels.sh: the sdist; a wheel from the unpacked sdist alone (its own build tree, as a
  # user's pip would build it); auditwheel repair; the repaired wheel in a fresh venv running the
  # no-compiler and packaging tests; and the free-threaded (cp313t) wheel, whose interpreter the
  # free-threaded stage built and cached.
  bash tests/wheels.sh build/wheels
}

stage_clients() {
  section "Clients of the reference: apache-tvm, TileLang and xgrammar on both runtimes"
  # Real PyPI clients (pinned), each in a virtual environment of its own, run their scenarios on
  # the reference runtime they were built against and on ours; the results must be equal
  # (tests/clients/run.sh). Our wheel comes from the build stage's tree. The environments (a few
  # GB of downloads and installs) are kept outside the checkout, keyed by the tier's script (which
  # holds the pins) and the interpreter, so a later run only reinstalls our wheel.
  local clients_key clients_cache stale
  clients_key="$( (cat tests/clients/run.sh; python -c 'import sys; print(sys.version)') \
    | sha256sum | cut -c1-16)"
  clients_cache="${XDG_CACHE_HOME:-$HOME/.cache}/ffi"
  # Environments under an older key (about 5 GB each) are never used again: remove them.
  for stale in "$clients_cache"/clients-*; do
    if [ -d "$stale" ] && [ "$stale" != "$clients_cache/clients-$clients_key" ]; then
      rm -rf "$stale"
    fi
  done
  bash tests/clients/run.sh "$clients_cache/clients-$clients_key" "${wheel_settings[@]}"
}

stage_free_threaded_tsan() {
  section "Thread stress suites on free-threaded CPython 3.13t under ThreadSanitizer"
  bash tests/tsan_free_threaded.sh build/ft-tsan
}

# Run only when named: longer than a CI run allows beside the others.
optional_stages=(free-threaded-tsan)

stages=("$@")
if [ "${#stages[@]}" -eq 0 ]; then
  stages=("${all_stages[@]}")
fi
for stage in "${stages[@]}"; do
  if [[ ! " ${all_stages[*]} ${optional_stages[*]} " == *" $stage "* ]]; then
    echo "error: unknown stage '$stage'; the stages: ${all_stages[*]} ${optional_stages[*]}" >&2
    exit 2
  fi
done
# Every compiler CMake runs goes through ccache when it is installed (the provision stage installs
# it): its cache (~/.cache/ccache) lives outside the checkout and is keyed by each compilation's
# inputs, so a warm machine recompiles only what changed, in every tree (package, sanitizers,
# Windows, wheels). CMake reads these variables when it configures a tree.
use_ccache() {
  if command -v ccache > /dev/null; then
    export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache
  fi
}
for stage in "${stages[@]}"; do
  use_ccache
  "stage_${stage//-/_}"
done
section "Passed: ${stages[*]}"
