"""Print the flags for building against ffi, e.g. ``python -m ffi.config --cxxflags --ldflags``.

Each requested value is printed on its own line, in the order the flags are given. The flags
include those of the reference's ``tvm-ffi-config`` (``--cxxflags``, ``--libfiles``,
``--sourcedir``, ``--dlpack-includedir``, ...), with the same meaning for this package.
"""

from __future__ import annotations

import argparse
import sys

from . import libinfo


def _include_flags() -> str:
    return " ".join(f"-I{d}" for d in libinfo.include_paths())


def _value(key: str) -> str:
    if key == "includedir":
        return libinfo.get_include_dir()
    if key == "dlpack-includedir":
        return libinfo.find_dlpack_include_path()
    if key == "libdir":
        return libinfo.get_lib_dir()
    if key == "libfiles":
        return libinfo.get_runtime_library_path()
    if key == "libs":
        return "-lffi_runtime"
    if key == "cflags":
        return _include_flags()
    if key == "cxxflags":
        return f"{_include_flags()} -std=c++17"
    if key == "ldflags":
        libdir = libinfo.get_lib_dir()
        return f"-L{libdir} -Wl,-rpath,{libdir}"
    if key == "cmakedir":
        return libinfo.get_cmake_dir()
    if key == "sourcedir":
        return libinfo.get_source_dir()
    if key == "cython-lib-path":
        return libinfo.find_cython_lib()
    raise ValueError(key)


_FLAGS = {
    "includedir": "directory to add to the include path (holds ffi/*.h)",
    "dlpack-includedir": "directory to add to the include path for dlpack/dlpack.h",
    "libdir": "directory holding the runtime library",
    "libfiles": "full path of the runtime library",
    "libs": "linker flag naming the runtime library",
    "cflags": "C compiler flags (-I<includedir>)",
    "cxxflags": "C++ compiler flags (-I<includedir> -std=c++17)",
    "ldflags": "linker flags (-L<libdir> and an rpath to it)",
    "cmakedir": "directory holding ffiConfig.cmake (for -Dffi_DIR=)",
    "sourcedir": "directory holding the runtime's sources (src/runtime) and include/",
    "cython-lib-path": "full path of the compiled Python extension (the reference's name)",
}


def main(argv: list[str] | None = None) -> int:
    """Run the command line ``python -m ffi.config`` (installed as ``ffi-config``)."""
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
