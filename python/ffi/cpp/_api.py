"""The public functions of ffi.cpp: `build_inline`, `load_inline`, `build` and `load` (see the
package's docstring); ``_build`` runs the builds, ``_sources`` writes the inline sources."""

from __future__ import annotations

import filecmp
import os
from collections.abc import Mapping, Sequence

from ..module import Module, load_module
from ._build import (
    _OBJECT_SUFFIXES,
    _build,
    _check_identifier,
    _Paths,
    _source_kind,
    _Spec,
    _strings,
    _write_atomically,
)
from ._sources import _embedded_images, _inline_sources


def build_inline(
    name: str,
    cpp_sources: str | Sequence[str] | None = None,
    cuda_sources: str | Sequence[str] | None = None,
    functions: Sequence[str] | Mapping[str, str] | None = None,
    extra_cflags: Sequence[str] | None = None,
    extra_cuda_cflags: Sequence[str] | None = None,
    extra_ldflags: Sequence[str] | None = None,
    extra_include_paths: Sequence[str] | None = None,
    build_directory: str | os.PathLike[str] | None = None,
    verbose: bool | None = None,
    *,
    embed_cubin: Mapping[str, bytes] | None = None,
    backend: str | None = None,
    output: str | os.PathLike[str] | None = None,
) -> str:
    """Compile inline C++ (and CUDA) sources into a library and return its path.

    ``<ffi/ffi.h>`` is included for you (with ``<tvm/ffi/tvm_compat.h>``, the reference's
    ``TVM_FFI_*`` macros, when a source uses them, and the CUDA helpers of ``<ffi/extra/cuda/>``
    in CUDA sources); each name in `functions` (a name, a sequence of names, or a mapping of names
    to docstrings) is exported with ``FFI_DLL_EXPORT_TYPED_FUNC(name, name)``, and a non-empty
    docstring with ``FFI_DLL_EXPORT_TYPED_FUNC_DOC``. `embed_cubin` maps names to CUDA images
    (cubin or fatbin bytes) linked into the library, each read by ``TVM_FFI_EMBED_CUBIN(name)``
    in the sources. `backend` may only be ``"cuda"`` (or None): there is no HIP build.
    The result is ``<dir>/<name>_<key>.so``, where ``<dir>`` is `build_directory` (relative to the
    current directory) or ``$FFI_CACHE_DIR/<name>``, and ``<key>`` digests the sources, every flag
    and include directory, the compilers (path and ``--version``) and ffi's headers: new source
    gets a new file, so loading it in a process that loaded the old one runs the new code. The
    library's
    SHA-256 is checked against the one recorded at install; a mismatch rebuilds it. In a given
    `build_directory` a copy is also kept at ``<dir>/<name>.so``, where the reference puts its
    result (loading goes through the keyed name, so a rebuilt library is never confused with a
    loaded one). `name` must be
    a C identifier (``ValueError`` before anything is written). A compile error raises BuildError
    with the compiler's diagnostics.

    With `output`, the result is also copied to `output` (a bare file name: into the directory
    of the build) and that path returned. A name ending ``.o`` or ``.obj`` builds a relocatable
    object instead of a library (the objects joined with ``ld -r``), to be linked later, for
    instance by `build` (``sources=[that_object]``).
    """
    _check_identifier(name, "name")
    _check_backend(backend)
    texts = _inline_sources(cpp_sources, cuda_sources, functions)
    images = _embedded_images(embed_cubin)
    if images:
        texts["_images.cc"] = images
    object_output = _is_object_output(output)
    kinds = {"cuda" if suffix == ".cu" else "c++" for suffix in texts}
    spec = _Spec(extra_cflags, extra_cuda_cflags, extra_ldflags, extra_include_paths, kinds)
    built = _build(name, spec, texts, [], build_directory, verbose, object_output)
    return _place(built, output, name, build_directory)


def load_inline(
    name: str,
    cpp_sources: str | Sequence[str] | None = None,
    cuda_sources: str | Sequence[str] | None = None,
    functions: Sequence[str] | Mapping[str, str] | None = None,
    extra_cflags: Sequence[str] | None = None,
    extra_cuda_cflags: Sequence[str] | None = None,
    extra_ldflags: Sequence[str] | None = None,
    extra_include_paths: Sequence[str] | None = None,
    build_directory: str | os.PathLike[str] | None = None,
    verbose: bool | None = None,
    *,
    embed_cubin: Mapping[str, bytes] | None = None,
    keep_module_alive: bool = True,
    backend: str | None = None,
) -> Module:
    """build_inline, then load the library: an ffi.Module whose attributes are `functions`.

    Loaded libraries are never unloaded, so the module stays usable for the life of the process
    whatever `keep_module_alive` says (the reference's keyword, accepted for the same code).
    """
    del keep_module_alive
    return load_module(
        build_inline(
            name,
            cpp_sources=cpp_sources,
            cuda_sources=cuda_sources,
            functions=functions,
            extra_cflags=extra_cflags,
            extra_cuda_cflags=extra_cuda_cflags,
            extra_ldflags=extra_ldflags,
            extra_include_paths=extra_include_paths,
            build_directory=build_directory,
            verbose=verbose,
            embed_cubin=embed_cubin,
            backend=backend,
        )
    )


def _is_object_output(output: object) -> bool:
    """Whether `output` (None or a path) names an object file; a bad type is a TypeError."""
    if output is None:
        return False
    if not isinstance(output, (str, os.PathLike)) or not isinstance(os.fspath(output), str):
        raise TypeError(f"output must be a str or os.PathLike, got {type(output).__name__}")
    return os.path.splitext(os.fspath(output))[1].lower() in _OBJECT_SUFFIXES


def _place(
    built: str,
    output: str | os.PathLike[str] | None,
    name: str,
    build_directory: str | os.PathLike[str] | None,
) -> str:
    """`built`, or a copy of it at `output` (a bare file name: beside `built`). In a given
    `build_directory`, ``<name>.so`` (or ``.o``) is kept the same as `built` too, where code
    written for the reference looks for what it built; `built` itself is returned."""
    if output is None:
        if build_directory is not None and os.fspath(build_directory) != "":
            beside = os.path.join(os.path.dirname(built), name + os.path.splitext(built)[1])
            if not (os.path.isfile(beside) and filecmp.cmp(built, beside, shallow=False)):
                with open(built, "rb") as f:
                    _write_atomically(beside, f.read())
        return built
    path = _strings(output, "output")[0]
    target = os.path.join(os.path.dirname(built), path) if not os.path.dirname(path) else path
    target = os.path.abspath(target)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(built, "rb") as f:
        _write_atomically(target, f.read())
    return target


def _check_backend(backend: object) -> None:
    if backend not in (None, "cuda"):
        raise ValueError(f"backend must be 'cuda' or None (there is no HIP build), not {backend!r}")


def build(
    name: str,
    cpp_files: Sequence[str | os.PathLike[str]] | None = None,
    cuda_files: Sequence[str | os.PathLike[str]] | None = None,
    extra_cflags: Sequence[str] | None = None,
    extra_cuda_cflags: Sequence[str] | None = None,
    extra_ldflags: Sequence[str] | None = None,
    extra_include_paths: Sequence[str] | None = None,
    build_directory: str | os.PathLike[str] | None = None,
    verbose: bool | None = None,
    *,
    sources: _Paths = None,
    output: str | os.PathLike[str] | None = None,
    backend: str | None = None,
) -> str:
    """Compile source files on disk into a library, cached like build_inline; return its path.

    The files export their functions themselves (FFI_DLL_EXPORT_TYPED_FUNC). `sources` are told
    apart by suffix: ``.cu`` is CUDA (nvcc), ``.c`` is C ($CC, else ``cc``), ``.o``/``.obj``/``.a``
    are objects linked as they are, anything else C++; `cpp_files` and `cuda_files` are C++ and
    CUDA whatever their names. Relative paths are taken from the current directory; the key
    covers each file's absolute path and contents, and the contents of the headers they include
    (found by the compilers' dependency output). `output` as in build_inline: a file name ending
    ``.o``/``.obj`` builds a relocatable object instead of a library.
    """
    _check_identifier(name, "name")
    _check_backend(backend)
    files = [(_source_kind(p), os.path.abspath(p)) for p in _strings(sources, "sources")]
    files += [("c++", os.path.abspath(p)) for p in _strings(cpp_files, "cpp_files")]
    files += [("cuda", os.path.abspath(p)) for p in _strings(cuda_files, "cuda_files")]
    if not files:
        raise ValueError("build needs sources, cpp_files or cuda_files")
    object_output = _is_object_output(output)
    spec = _Spec(
        extra_cflags, extra_cuda_cflags, extra_ldflags, extra_include_paths, {k for k, _ in files}
    )
    built = _build(name, spec, {}, files, build_directory, verbose, object_output)
    return _place(built, output, name, build_directory)


def load(
    name: str,
    cpp_files: Sequence[str | os.PathLike[str]] | None = None,
    cuda_files: Sequence[str | os.PathLike[str]] | None = None,
    extra_cflags: Sequence[str] | None = None,
    extra_cuda_cflags: Sequence[str] | None = None,
    extra_ldflags: Sequence[str] | None = None,
    extra_include_paths: Sequence[str] | None = None,
    build_directory: str | os.PathLike[str] | None = None,
    verbose: bool | None = None,
    *,
    sources: _Paths = None,
    keep_module_alive: bool = True,
    backend: str | None = None,
) -> Module:
    """build, then load the library (see load_inline for `keep_module_alive`)."""
    del keep_module_alive
    return load_module(
        build(
            name,
            cpp_files=cpp_files,
            cuda_files=cuda_files,
            extra_cflags=extra_cflags,
            extra_cuda_cflags=extra_cuda_cflags,
            extra_ldflags=extra_ldflags,
            extra_include_paths=extra_include_paths,
            build_directory=build_directory,
            verbose=verbose,
            sources=sources,
            backend=backend,
        )
    )
