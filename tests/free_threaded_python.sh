#!/usr/bin/env bash
# Prints the path of a free-threaded CPython 3.13 interpreter (python3.13t, built with
# --disable-gil), building it once when there is none:
#
#   1. $FFI_PYTHON_FT, when set;
#   2. a python3.13t on PATH;
#   3. the build cached outside the checkout, ~/.cache/ffi/python-3.13t-<key>, keyed by the
#      pinned source and the configure flags;
#   4. else that build is made: the pristine upstream tarball of Debian trixie's python3.13 source
#      package (through apt's deb-src, checked against the SHA-256 below), configured with
#      --disable-gil: about 12 minutes on 2 cores. Progress goes to the standard error.
#
# With --tsan, the same interpreter built with ThreadSanitizer (--with-thread-sanitizer), cached
# beside it under python-3.13t-tsan-<key> with CPython's own TSan suppressions
# (share/tsan/suppressions_free_threading.txt); FFI_PYTHON_FT and PATH are not consulted.
#
# Usage: python_ft="$(bash tests/free_threaded_python.sh [--tsan])"
set -euo pipefail

tsan=""
if [ "${1:-}" = "--tsan" ]; then
  tsan="-tsan"
fi

readonly VERSION=3.13.5
readonly SOURCE_SHA256=93e583f243454e6e9e4588ca2c2662206ad961659863277afcdb96801647d640

if [ -z "$tsan" ] && [ -n "${FFI_PYTHON_FT:-}" ]; then
  echo "$FFI_PYTHON_FT"
  exit 0
fi
if [ -z "$tsan" ] && command -v python3.13t > /dev/null 2>&1; then
  command -v python3.13t
  exit 0
fi
# The key: what the build depends on (the source, as pinned, and the configure flags).
configure_flags="--disable-gil${tsan:+ --with-thread-sanitizer}"
key="$(echo "$VERSION $SOURCE_SHA256 $configure_flags" | sha256sum | cut -c1-16)"
prefix="${XDG_CACHE_HOME:-$HOME/.cache}/ffi/python-3.13t$tsan-$key"
if [ -f "$prefix/.complete" ]; then  # written last: an interrupted build is made again
  echo "$prefix/bin/python3.13t"
  exit 0
fi

echo "building a free-threaded CPython $VERSION$tsan into $prefix (12 minutes or more)" >&2
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/src"
# Trixie's source packages from the Debian archive this machine's apt already uses.
archive="$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2> /dev/null)"
[ -n "$archive" ] || archive="$(awk '$1 == "deb" {print $2; exit}' /etc/apt/sources.list 2> /dev/null)"
if [ -z "$archive" ]; then
  echo "no Debian archive is configured for apt" >&2
  exit 1
fi
cat > "$work/trixie.sources" << EOF
Types: deb-src
URIs: $archive
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
apt_options=(-o "Dir::Etc::sourcelist=$work/trixie.sources" -o "Dir::Etc::sourceparts=-"
  -o "Dir::State::Lists=$work/lists")
apt-get "${apt_options[@]}" update > /dev/null
(cd "$work/src" && apt-get "${apt_options[@]}" source --download-only python3.13 > /dev/null)
tarball="$work/src/python3.13_$VERSION.orig.tar.xz"
if ! echo "$SOURCE_SHA256  $tarball" | sha256sum --check --quiet; then
  echo "the python3.13 source is not $VERSION as pinned (SHA-256 differs)" >&2
  exit 1
fi
# What CPython's own modules need (ctypes, ssl, zlib, bz2, lzma, sqlite3, uuid, readline).
apt-get install -y -qq build-essential libffi-dev libssl-dev zlib1g-dev libbz2-dev liblzma-dev \
  libsqlite3-dev uuid-dev libreadline-dev > /dev/null
rm -rf "$prefix"
tar -xf "$tarball" -C "$work"
(
  cd "$work/Python-$VERSION"
  # shellcheck disable=SC2086  # the flags are words
  ./configure $configure_flags --prefix="$prefix" > /dev/null
  make -j"$(nproc)" > /dev/null 2>&1
  make install > /dev/null 2>&1
  if [ -n "$tsan" ]; then
    mkdir -p "$prefix/share/tsan"
    cp Tools/tsan/suppressions_free_threading.txt "$prefix/share/tsan/"
  fi
)
touch "$prefix/.complete"
echo "$prefix/bin/python3.13t"
