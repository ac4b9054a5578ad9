"""Build C++/CUDA kernel libraries against ffi's headers and load them: ``load_inline``,
``build_inline`` and ``build``.

Builds are cached by content: the same sources, flags, compiler and ffi version reuse the built
library (a cache hit costs milliseconds); any change rebuilds. Concurrent builders of the same
library — threads or processes — serialize on a file lock with a timeout, and the library appears
atomically, so nobody loads a half-written file. The cache lives in ``$FFI_CACHE_DIR`` (default
``~/.cache/ffi``); ``verbose=True`` or ``FFI_CPP_VERBOSE=1`` prints the build commands.
"""

from ._build import BuildError, build, build_inline, load_inline

__all__ = ["BuildError", "build", "build_inline", "load_inline"]
