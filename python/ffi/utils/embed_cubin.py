"""Embed a CUDA image (cubin or fatbin) into an object file that uses ``TVM_FFI_EMBED_CUBIN``
(the reference's ``tvm_ffi.utils.embed_cubin``), for builds that compile their objects
themselves; CMake projects use ``ffi_embed_cubin`` and ``ffi.cpp`` builds ``embed_cubin=``.

From Python::

    embed_cubin(Path("kernels.cubin"), Path("ops.o"), Path("ops_with_kernels.o"), "my_kernels")

or from a shell::

    python -m ffi.utils.embed_cubin --cubin kernels.cubin --input-obj ops.o \\
        --output-obj ops_with_kernels.o --name my_kernels

where ``ops.o`` was compiled from a source holding ``TVM_FFI_EMBED_CUBIN(my_kernels)``. The
image is assembled into its own object (the C++ compiler's ``.incbin``), joined to the input
with a relocatable link (``ld -r``, or ``$LD``) and its two symbols are made local to the
result (``objcopy``, or ``$OBJCOPY``), so objects embedding images under one name never clash.
The input must refer to the image (checked with ``nm``, or ``$NM``).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Union

from ..cpp._build import _check_identifier, _compiler
from ..cpp._sources import _image_asm

__all__ = ["embed_cubin", "main"]

_PathLike = Union[str, "os.PathLike[str]"]


def _run(argv: list[str], verbose: bool) -> None:
    if verbose:
        print(shlex.join(argv), flush=True)
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if verbose and (done.stdout or done.stderr):
        print(done.stdout + done.stderr, end="", flush=True)
    if done.returncode != 0:
        raise RuntimeError(
            f"embed_cubin: `{shlex.join(argv)}` failed (exit status {done.returncode}):\n"
            f"{done.stdout}{done.stderr}"
        )


def _check_uses(nm: list[str], obj: Path, symbol: str, name: str) -> None:
    """The object must refer to `symbol` without defining it: its image is local to the result,
    so nothing else could read it, and a second image under one name would go unread."""
    done = subprocess.run([*nm, str(obj)], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"embed_cubin: `nm {obj}` failed:\n{done.stdout}{done.stderr}")
    kinds = {f[-1]: f[-2] for f in map(str.split, done.stdout.splitlines()) if len(f) >= 2}
    if symbol not in kinds:
        raise RuntimeError(
            f"embed_cubin: {str(obj)!r} does not use TVM_FFI_EMBED_CUBIN({name}) (it never refers "
            f"to {symbol})"
        )
    if kinds[symbol] != "U":
        raise RuntimeError(f"embed_cubin: {str(obj)!r} already holds an image named {name!r}")


def embed_cubin(
    cubin_path: _PathLike,
    input_obj_path: _PathLike,
    output_obj_path: _PathLike,
    name: str,
    verbose: bool = False,
) -> None:
    """Write to `output_obj_path` the object `input_obj_path` joined with the image in
    `cubin_path`, stored as ``TVM_FFI_EMBED_CUBIN(name)`` reads it.

    The output may be the input (it is replaced only when everything succeeded). `verbose`
    prints each command and its output.

    Raises ``FileNotFoundError`` for a missing image or input object, ``ValueError`` for a
    `name` that is not a C identifier, ``RuntimeError`` (with the tool's output) when a tool is
    missing or fails, and when the input does not refer to the image (it would go unread: the
    image's symbols are local to the output) or already holds one under `name`.
    """
    _check_identifier(name, "the image name")
    cubin, source = Path(cubin_path).resolve(), Path(input_obj_path)
    if not cubin.is_file():
        raise FileNotFoundError(f"embed_cubin: no CUDA image file {str(cubin_path)!r}")
    if not source.is_file():
        raise FileNotFoundError(f"embed_cubin: no input object file {str(input_obj_path)!r}")
    output = Path(output_obj_path)
    ld, objcopy, nm = _compiler("ld"), _compiler("objcopy"), _compiler("nm")
    cxx = _compiler("c++")
    symbol = f"__tvm_ffi__cubin_{name}"
    _check_uses(nm, source, symbol, name)
    with tempfile.TemporaryDirectory(prefix="ffi_embed_cubin_") as work:
        image_src, image_obj = os.path.join(work, "image.cc"), os.path.join(work, "image.o")
        joined = os.path.join(work, "joined.o")
        Path(image_src).write_text(_image_asm(name, str(cubin)), encoding="utf-8")
        _run([*cxx, "-c", "-fPIC", image_src, "-o", image_obj], verbose)
        _run([*ld, "-r", str(source), image_obj, "-o", joined], verbose)
        _run([*objcopy, f"--localize-symbol={symbol}", f"--localize-symbol={symbol}_end", joined],
             verbose)  # fmt: skip
        output.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(joined, str(output) + ".tmp")
        os.replace(str(output) + ".tmp", output)


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: ``python -m ffi.utils.embed_cubin --cubin F --input-obj F
    --output-obj F --name NAME [-v]``; returns the exit status (errors are printed, status 1)."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m ffi.utils.embed_cubin",
        description="Embed a CUDA image into an object file that uses TVM_FFI_EMBED_CUBIN(name).",
    )
    parser.add_argument("--cubin", required=True, metavar="PATH", help="the cubin or fatbin")
    parser.add_argument("--input-obj", required=True, metavar="PATH", help="the object to extend")
    parser.add_argument("--output-obj", required=True, metavar="PATH", help="the object to write")
    parser.add_argument("--name", required=True, help="the name given to TVM_FFI_EMBED_CUBIN")
    parser.add_argument("-v", "--verbose", action="store_true", help="print each command")
    args = parser.parse_args(argv)
    try:
        embed_cubin(args.cubin, args.input_obj, args.output_obj, args.name, args.verbose)
    except (OSError, ValueError, RuntimeError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
