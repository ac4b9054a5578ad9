"""Build C++/CUDA kernel libraries against ffi's headers and load them: ``load_inline``,
``build_inline``, ``build`` and ``load``.

Builds are cached by content: a library is ``<name>_<key>.so``, where the key digests the sources,
every flag and include directory, the compilers (path and version), ffi's headers and the other
headers the sources include (listed by the compilers as they build). The same
inputs reuse the built library after checking it against the SHA-256 recorded beside it (a
damaged file is rebuilt, never loaded); any change gives a new file, so new source runs new code
even in a process that loaded the old one. Each build compiles in a private directory and is
renamed into place; builders of one key, threads or processes, serialize on a file lock with a
timeout. The cache lives in ``$FFI_CACHE_DIR/<name>`` (default ``~/.cache/ffi/<name>``) or in
``build_directory``; ``verbose=True`` or ``FFI_CPP_VERBOSE=1`` prints the build commands, and
``FFI_CPP_NINJA=0`` runs them one by one instead of through ninja. ``ffi.cpp.extension`` is the
same under the reference's module name.
"""

from typing import Any

from . import nvrtc  # noqa: F401  (an attribute, as in the reference)
from ._api import build, build_inline, load, load_inline
from ._build import BuildError

__all__ = ["BuildError", "build", "build_inline", "load", "load_inline"]


def __getattr__(name: str) -> Any:
    """``ffi.cpp.extension``, the reference's module name for these functions, loads on first use
    (nothing of the package imports the modules that exist for the reference's paths)."""
    if name == "extension":
        import importlib

        return importlib.import_module(f"{__name__}.extension")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
