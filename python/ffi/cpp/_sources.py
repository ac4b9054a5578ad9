"""The generated sources of ffi.cpp's inline builds: the C++/CUDA texts of `build_inline` (ffi's
headers included, the named functions exported) and the assembly that links CUDA images in for
``TVM_FFI_EMBED_CUBIN`` (also used by ``ffi.utils.embed_cubin``)."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Mapping

from ._build import _cache_root, _check_identifier, _write_atomically

_CUDA_HELPERS = "".join(
    f"#include <ffi/extra/cuda/{h}.h>\n" for h in ("base", "device_guard", "stream", "allocator")
)


def _cpp_string(text: str) -> str:
    """`text` as a C++ string literal (UTF-8 kept as is; control characters escaped in octal,
    which cannot run into the characters that follow)."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ord(ch) < 0x20 or ch == "\x7f":
            out.append(f"\\{ord(ch):03o}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _inline_sources(cpp_sources: object, cuda_sources: object, functions: object) -> dict[str, str]:
    """The generated files' texts by suffix: ffi's headers included (and the TVM_FFI_* spelling,
    <tvm/ffi/tvm_compat.h>, for sources that use it), `functions` exported with their docs."""
    cpp = _texts(cpp_sources, "cpp_sources")
    cuda = _texts(cuda_sources, "cuda_sources")
    if not cpp and not cuda:
        raise ValueError("load_inline needs cpp_sources or cuda_sources")
    if isinstance(functions, Mapping):
        docs = dict(functions)
        for n, doc in docs.items():
            if not isinstance(doc, str):
                raise TypeError(f"the doc of `{n}` must be a str, got {type(doc).__name__}")
    else:
        docs = dict.fromkeys(_texts(functions, "functions"), "")
    exports = ""
    for n, doc in docs.items():
        _check_identifier(n, "each function name")
        exports += f"\nFFI_DLL_EXPORT_TYPED_FUNC({n}, {n});"
        if doc:
            exports += f"\nFFI_DLL_EXPORT_TYPED_FUNC_DOC({n}, {_cpp_string(doc)});"
    exports += "\n"
    texts = {}
    for suffix, parts, helpers in ((".cc", cpp, ""), (".cu", cuda, _CUDA_HELPERS)):
        if not parts:
            continue
        header = "#include <ffi/ffi.h>\n"
        if any("TVM_FFI_" in part for part in parts):
            header += "#include <tvm/ffi/tvm_compat.h>\n"
        body = header + helpers + "\n" + "\n".join(parts) + "\n"
        texts[suffix] = body + exports if suffix == ".cc" or not cpp else body
    return texts


def _image_asm(name: str, path: str) -> str:
    """C++ source (top-level assembly) defining `__tvm_ffi__cubin_<name>` .. `_end` around the
    bytes of the file at `path`, 64-byte aligned and hidden: what TVM_FFI_EMBED_CUBIN(name) reads.
    `.incbin` reads the file when this source is compiled."""
    sym = f"__tvm_ffi__cubin_{name}"
    quoted = '"' + path.replace("\\", "\\\\").replace('"', '\\"') + '"'  # an assembler string
    lines = [f'.section .rodata.{sym},"a"', ".balign 64", f".globl {sym}", f".hidden {sym}",
             f"{sym}:", f".incbin {quoted}", f".globl {sym}_end", f".hidden {sym}_end",
             f"{sym}_end:", ".byte 0", ".previous"]  # fmt: skip
    body = "".join(f"    {_cpp_string(line + chr(10))}\n" for line in lines)
    return f"__asm__(\n{body});\n"


def _embedded_images(embed_cubin: object) -> str:
    """A C++ source defining `__tvm_ffi__cubin_<name>` .. `__tvm_ffi__cubin_<name>_end` around
    each image (what TVM_FFI_EMBED_CUBIN(name) reads), or "" for none. Each image is stored once,
    named by its digest, in the cache root and pulled in with `.incbin`, so the source (and with
    it the build key) names the exact bytes."""
    if embed_cubin is None:
        return ""
    if not isinstance(embed_cubin, Mapping):
        raise TypeError(f"embed_cubin must map names to bytes, got {type(embed_cubin).__name__}")
    parts = []
    for image_name, data in sorted(embed_cubin.items()):
        _check_identifier(image_name, "each embed_cubin name")
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"embed_cubin[{image_name!r}] must be bytes, got {type(data).__name__}")
        data = bytes(data)
        images = os.path.join(_cache_root(), "images")
        path = os.path.join(images, hashlib.sha256(data).hexdigest() + ".bin")
        if not os.path.exists(path):
            os.makedirs(images, exist_ok=True)
            _write_atomically(path, data)
        parts.append(_image_asm(image_name, path))
    return "// The CUDA images of embed_cubin, for TVM_FFI_EMBED_CUBIN(name).\n" + "".join(parts)


def _texts(value: object, what: str) -> list[str]:
    """Source texts or function names: one str or a sequence of str."""
    if value is None:
        return []
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, Iterable):
        raise TypeError(f"{what} must be a str or a sequence of str, got {type(value).__name__}")
    out = []
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"{what} must be a str or a sequence of str, got {type(item).__name__}")
        out.append(item)
    return out
