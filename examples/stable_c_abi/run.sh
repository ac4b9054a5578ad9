#!/usr/bin/env bash
# Builds the C kernel with the headers alone and the C loader against the runtime, using only
# `python -m ffi.config`, then runs the loader on the kernel. Needs `pip install .` first.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:-$(mktemp -d)}"
# Warnings on; $CFLAGS may add more (the tests add -Werror).
warn="-Wall -Wextra ${CFLAGS:-}"
cc -std=c99 $warn -shared -fPIC $(python -m ffi.config --cflags) "$here/add_one_c.c" \
  -o "$out/add_one_c.so"
cc -std=c99 $warn $(python -m ffi.config --cflags) "$here/load_and_call.c" -o "$out/load_and_call" \
  $(python -m ffi.config --ldflags --libs)
"$out/load_and_call" "$out/add_one_c.so"
