"""Print the flags for building against ffi, e.g. ``python -m ffi.config --cflags --ldflags``.

Each requested value is printed on its own line, in the order the flags are given.
"""

from __future__ import annotations

import argparse
import sys

from . import libinfo


def _value(key: str) -> str:
    if key == "includedir":
        return libinfo.get_include_dir()
    if key == "libdir":
        return libinfo.get_lib_dir()
    if key == "libs":
        return "-lffi_runtime"
    if key == "cflags":
        return f"-I{libinfo.get_include_dir()}"
    if key == "ldflags":
        libdir = libinfo.get_lib_dir()
        return f"-L{libdir} -Wl,-rpath,{libdir}"
    if key == "cmakedir":
        return libinfo.get_cmake_dir()
    raise ValueError(key)


_FLAGS = {
    "includedir": "directory to add to the include path (holds ffi/*.h)",
    "libdir": "directory holding the runtime library",
    "libs": "linker flag naming the runtime library",
    "cflags": "compiler flags (-I<includedir>)",
    "ldflags": "linker flags (-L<libdir> and an rpath to it)",
    "cmakedir": "directory holding ffiConfig.cmake (for -Dffi_DIR=)",
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ffi.config", description=__doc__)
    for key, help_text in _FLAGS.items():
        parser.add_argument(
            f"--{key}", dest="keys", action="append_const", const=key, help=help_text
        )
    args = parser.parse_args(argv)
    if not args.keys:
        parser.print_usage(sys.stderr)
        return 2
    try:
        lines = [_value(key) for key in args.keys]
    except RuntimeError as err:
        print(err, file=sys.stderr)
        return 1
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
