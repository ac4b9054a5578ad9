"""Type stubs (``.pyi``) for kernel libraries, generated from what the library itself declares.

``python -m ffi.stubgen kernels.so -o kernels.pyi`` loads the library and writes a stub for the
Python module that wraps it: one ``def`` per exported function (typed from its
``__tvm_ffi__metadata_<name>`` export), optionally the global functions the library registers
under a prefix (``--prefix my.pkg``, the names ``ffi.init_ffi_api`` exposes) and classes for its
registered object types (``--objects``: reflected fields, methods and constructor).
``--check kernels.pyi`` regenerates and exits 1 when the file differs, so a CI job catches a
stub that drifted from its library. See docs/stubgen.md.
"""

from __future__ import annotations

import argparse
import difflib
import json
import math
import os
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from . import _core
from ._stub_types import BUILTIN_OBJECTS, Writer, is_identifier, signature
from ._type_info import type_info
from ._type_schema import TypeSchema, function_schema, typestr_origin
from .module import load_module
from .registry import get_global_func_metadata, get_registered_type_keys


def _default_text(value: Any) -> str:
    """A default value as the stub shows it: simple literals as such, anything else ``...``."""
    if value is None or isinstance(value, (bool, int)):
        return repr(value)
    if isinstance(value, float) and math.isfinite(value):
        return repr(value)
    if isinstance(value, str) and len(value) <= 40 and value.isprintable():
        return repr(value)
    return "..."


@dataclass
class Func:
    """One function of the stub: its name, metadata record (None: none) and documentation."""

    name: str
    meta: dict[str, Any] | None
    doc: str | None = None
    method: str = ""  # "", "instance", "static" or "init" (a constructor): how a class shows it


def render_function(w: Writer, f: Func, indent: str = "") -> list[str]:
    """The ``def`` lines for `f`, using every metadata key present: the type schema or the
    TypeStr types, ``arg_names`` and ``arg_defaults``."""
    lines: list[str] = []
    schema = function_schema(f.meta)
    declared, returns = signature(schema) if schema is not None else (None, None)
    self_param = ["self"] if f.method in ("instance", "init") else []
    deco = [f"{indent}@staticmethod"] if f.method == "static" else []
    if declared is None or returns is None:
        params = ", ".join([*self_param, f"*args: {w.any_name()}"])
        ret = "Any" if returns is None else w.annotate(returns, False)
        ret = "None" if f.method == "init" else ret
        return [*deco, f"{indent}def {f.name}({params}) -> {ret}:{_body(f.doc, indent)}"]
    types = list(declared)
    if f.method == "instance" and types:
        types = types[1:]  # the object itself
    names = f.meta.get("arg_names") if f.meta else None
    if not (isinstance(names, list) and len(names) == len(types)):
        if names is not None:
            lines.append(f"{indent}# arg_names ignored: {len(types)} parameters, names {names!r}")
        names = [None] * len(types)
    defaults = f.meta.get("arg_defaults") if f.meta else None
    defaults = defaults if isinstance(defaults, dict) else {}
    # Parameters up to the last one without a usable name are positional-only.
    positional_only = 0
    for i, n in enumerate(names):
        if not (isinstance(n, str) and is_identifier(n)):
            positional_only = i + 1
            if n is not None:
                lines.append(f"{indent}# parameter {i} {n!r} is not a Python name: positional only")
    # Only a trailing run of defaults can be written in Python.
    first_default = len(types)
    while first_default > 0 and names[first_default - 1] in defaults:
        first_default -= 1
    dropped = sorted(n for n in defaults if n in names[:first_default])
    if dropped:
        lines.append(
            f"{indent}# defaults of {', '.join(dropped)} dropped: later parameters have none"
        )
    used = set(self_param)
    parts = list(self_param)
    for i, t in enumerate(types):
        n = names[i] if i >= positional_only else None
        pname = n if n is not None and n not in used else f"_{i}"
        used.add(pname)
        text = f"{pname}: {w.annotate(t, True)}"
        if i >= first_default:
            text += f" = {_default_text(defaults[names[i]])}"
        parts.append(text)
        if i + 1 == positional_only:
            parts.append("/")
    ret = "None" if f.method == "init" else w.annotate(returns, False)
    head = f"{indent}def {f.name}({', '.join(parts)}) -> {ret}:"
    return [*lines, *deco, head + _body(f.doc, indent)]


def _escape(doc: str) -> str:
    """`doc` as the inside of a triple-quoted string."""
    text = doc.strip().replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    return text[:-1] + '\\"' if text.endswith('"') else text


def _body(doc: str | None, indent: str) -> str:
    if not doc or not doc.strip():
        return " ..."
    text = _escape(doc)
    inner = indent + "    "
    body = "\n".join((inner + line).rstrip() for line in text.splitlines())
    return f'\n{inner}"""{body.lstrip()}"""'


# ---- what the runtime knows of types ----------------------------------------------------------

_ANY = TypeSchema("Any")  # a field without a declared type


@dataclass
class ObjectType:
    """A registered object type as the stub shows it."""

    key: str
    depth: int
    parent: str | None  # the parent's type key (None: the root Object)
    fields: list[tuple[str, bool, TypeSchema, str]]  # name, writable, type, documentation
    methods: list[Func]
    doc: str


def _json_or_none(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text) if text else None
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def read_object_type(key: str) -> ObjectType:
    """Fields and methods of the registered type `key`, from the runtime's reflection records."""
    info = type_info(_core.type_key_to_index(key))
    fields = [
        (f.name, not f.frozen, f.ty if f.ty is not None else _ANY, f.doc or "") for f in info.fields
    ]
    methods = [
        Func(m.name, m.metadata or None, m.doc, "static" if m.is_static else "instance")
        for m in info.methods
    ]
    parent = info.parent_type_info
    return ObjectType(
        key,
        len(info.type_ancestors),
        parent.type_key if parent is not None else None,
        fields,
        methods,
        info.doc or "",
    )


# ---- the stub --------------------------------------------------------------------------------


def _module_functions(path: str) -> list[Func]:
    mod = load_module(path)
    names = _core.get_global_func("ffi.ModuleListFunctionNames")(mod).split()
    funcs = []
    for name in sorted(set(names)):
        get_meta = _core.module_get_function(mod, "_metadata_" + name)
        get_doc = _core.module_get_function(mod, "_doc_" + name)
        meta = _json_or_none(get_meta()) if get_meta is not None else None
        funcs.append(Func(name, meta, get_doc() if get_doc is not None else None))
    return funcs


def _prefix_functions(prefix: str) -> list[Func]:
    funcs = []
    for full in sorted(_core.list_global_func_names()):
        if full.startswith(prefix + ".") and "." not in full[len(prefix) + 1 :]:
            meta = get_global_func_metadata(full)
            funcs.append(Func(full[len(prefix) + 1 :], meta, meta.get("doc") or None))
    return funcs


def _referenced_keys(s: TypeSchema | None, out: set[str]) -> None:
    if s is None:
        return
    if "." in s.origin:
        out.add(s.origin)
    for sub in (*(s.args or ()), *(t for group in (s.named_args or {}).values() for t in group)):
        _referenced_keys(sub, out)


def _object_types(prefixes: list[str], funcs: list[Func]) -> list[ObjectType]:
    """The types registered under the prefixes and those the functions name, with the
    ancestors they derive from (parents first)."""
    registered = set(get_registered_type_keys())
    keys = {k for k in registered for p in prefixes if k.startswith(p + ".")}
    for f in funcs:
        _referenced_keys(function_schema(f.meta), keys)
    found: dict[str, ObjectType] = {}
    todo = sorted(k for k in keys if k in registered and not k.startswith("ffi."))
    while todo:
        key = todo.pop()
        if key in found:
            continue
        found[key] = t = read_object_type(key)
        if t.parent and not t.parent.startswith("ffi.") and t.parent not in found:
            todo.append(t.parent)
    return sorted(found.values(), key=lambda t: (t.depth, t.key))


def _class_names(types: list[ObjectType]) -> dict[str, str]:
    """A class name per type key: its last component, the whole key where that clashes."""
    last = [t.key.rsplit(".", 1)[-1] for t in types]
    names = {}
    for t, name in zip(types, last):
        if last.count(name) > 1 or not is_identifier(name):
            name = "".join(c if c.isalnum() else "_" for c in t.key)
        names[t.key] = name
    return names


def generate(
    library: str, prefixes: Sequence[str] = (), objects: bool = False, command: str = ""
) -> str:
    """The stub text for `library` (see the module docstring); `command` goes in its header."""
    exports = _module_functions(library)
    globals_ = {p: _prefix_functions(p) for p in prefixes}
    every = exports + [f for fs in globals_.values() for f in fs]
    types = _object_types(list(prefixes), every) if objects else []
    classes = _class_names(types)
    w = Writer(classes)
    body: list[str] = []
    taken: set[str] = set()

    def section(title: str, funcs: list[Func]) -> None:
        body.extend(["", "", f"# {title}", ""])
        for f in funcs:
            if not is_identifier(f.name):
                body.append(f"# skipped {f.name!r}: not a Python name")
            elif f.name in taken:
                body.append(f"# skipped {f.name!r}: the name is taken above")
            else:
                taken.add(f.name)
                body.extend(render_function(w, f))

    for t in types:
        body.extend(["", ""] + _render_class(w, t, classes))
        taken.add(classes[t.key])
    section(f"Functions exported by {os.path.basename(library)}", exports)
    for p in prefixes:
        section(f"Global functions under the prefix {p!r}", globals_[p])
    return _header(command, w.needs) + "\n" + "\n".join(body).lstrip("\n") + "\n"


def _render_class(w: Writer, t: ObjectType, classes: dict[str, str]) -> list[str]:
    base = classes.get(t.parent or "", None)
    if base is None:
        w.needs.add("ffi")
        base = BUILTIN_OBJECTS.get(typestr_origin(t.parent or ""), ("ffi.Object",))[0]
        base = base if base.startswith("ffi.") else "ffi.Object"
    doc = f"{t.doc.strip()}\n\n" if t.doc.strip() else ""
    text = f"{doc}The object type ``{t.key}``."
    lines = [f"class {classes[t.key]}({base}):{_body(text, '')}"]
    for name, writable, schema, doc in sorted(t.fields, key=lambda x: x[0]):
        if not is_identifier(name):
            lines.append(f"    # skipped field {name!r}: not a Python name")
            continue
        get, put = w.annotate(schema, False), w.annotate(schema, True)
        if writable and get == put:
            lines.append(f"    {name}: {get}")
            lines += [f'    """{_escape(doc)}"""'] if doc.strip() else []
            continue
        lines += ["    @property", f"    def {name}(self) -> {get}:{_body(doc, '    ')}"]
        if writable:
            lines += [f"    @{name}.setter", f"    def {name}(self, value: {put}) -> None: ..."]
    # A name registered with several signatures (OverloadObjectDef) is one @overload each.
    counts = Counter(m.name for m in t.methods)
    for m in sorted(t.methods, key=lambda m: m.name):  # stable: signatures keep their order
        if m.name == "__ffi_init__":
            # The reflected constructor takes the arguments and makes the object: __init__.
            rendered = render_function(w, Func("__init__", m.meta, m.doc, "init"), "    ")
        elif not is_identifier(m.name):
            lines.append(f"    # skipped method {m.name!r}: not a Python name")
            continue
        else:
            rendered = render_function(w, m, "    ")
        if counts[m.name] > 1:
            w.needs.add("overload")
            at = next(i for i, x in enumerate(rendered) if x.lstrip().startswith(("@", "def ")))
            rendered.insert(at, "    @overload")
        lines.extend(rendered)
    return lines


_IMPORTS = [
    ("Callable", "from collections.abc import Callable"),
    ("Mapping", "from collections.abc import Mapping"),
    ("Sequence", "from collections.abc import Sequence"),
    ("Any", "from typing import Any"),
    ("overload", "from typing import overload"),
]


def _header(command: str, needs: set[str]) -> str:
    lines = [
        f"# Generated by `{command}`; do not edit.",
        "# Regenerate with that command; `--check FILE` in place of `-o FILE` fails when this file",
        "# differs from what the library declares now.",
    ]
    stdlib = [imp for name, imp in _IMPORTS if name in needs]
    tensors = any(n.startswith("_Tensor") for n in needs)
    if tensors:
        needs |= {"Any", "ffi"}
        stdlib = [imp for name, imp in _IMPORTS if name in needs]
        stdlib.append("from typing_extensions import TypeAlias")
    # Imports from one module merge into one line, as a formatter would write them.
    imports = ["import ctypes"] if "ctypes" in needs else []
    for module in ("collections.abc", "typing"):
        names = [i.rsplit(" ", 1)[1] for i in stdlib if i.startswith(f"from {module} import")]
        imports += [f"from {module} import {', '.join(names)}"] if names else []
    imports += [i for i in stdlib if not i.startswith(("from collections.abc", "from typing "))]
    lines += ["", *imports] if imports else []
    if "ffi" in needs:
        lines += ["", "import ffi"]
    if tensors:
        lines += [
            "from ffi._core import _SupportsDLPack",
            "",
            "# A tensor argument: an ffi.Tensor or any DLPack producer (PyTorch, NumPy, JAX, ...).",
            "_TensorArg: TypeAlias = ffi.Tensor | _SupportsDLPack",
            "# A tensor result: an ffi.Tensor, or the caller's framework tensor (torch.Tensor when",
            "# the call received PyTorch tensors).",
            "_TensorResult: TypeAlias = Any",
        ]
    return "\n".join(lines) + "\n\n"


# ---- command line ----------------------------------------------------------------------------


def _command(args: argparse.Namespace) -> str:
    parts = ["python -m ffi.stubgen", os.path.basename(args.library)]
    parts += [f"--prefix {p}" for p in args.prefix]
    parts += ["--objects"] if args.objects else []
    target = args.output or args.check
    parts += [f"-o {os.path.basename(target)}"] if target else []
    return " ".join(parts)


def main(argv: list[str] | None = None) -> int:
    """Command line entry point (``python -m ffi.stubgen``, ``ffi-stubgen``); returns the exit
    status: 0, 1 when ``--check`` finds the file out of date, 2 for bad usage."""
    parser = argparse.ArgumentParser(
        prog="python -m ffi.stubgen",
        description="Write a .pyi stub for a kernel library from its export metadata.",
    )
    parser.add_argument("library", help="the kernel library (.so) to describe")
    parser.add_argument("-o", "--output", help="write the stub here (default: standard output)")
    parser.add_argument(
        "--check", metavar="FILE", help="exit 1 when FILE differs from the stub generated now"
    )
    parser.add_argument(
        "--prefix", action="append", default=[],
        help="also the global functions <PREFIX>.<name> registered by the library (repeatable)",
    )  # fmt: skip
    parser.add_argument(
        "--objects", action="store_true",
        help="classes for the object types registered under the prefixes or named in signatures",
    )  # fmt: skip
    args = parser.parse_args(argv)
    if args.output and args.check:
        parser.error("give -o or --check, not both")
    try:
        text = generate(args.library, args.prefix, args.objects, _command(args))
    except (OSError, RuntimeError, ValueError) as err:
        print(f"ffi.stubgen: cannot describe {args.library}: {err}", file=sys.stderr)
        return 2
    if args.check:
        try:
            with open(args.check, encoding="utf-8") as f:
                current = f.read()
        except OSError as err:
            print(f"ffi.stubgen: {args.check} is out of date: {err}", file=sys.stderr)
            return 1
        if current == text:
            return 0
        diff = difflib.unified_diff(
            current.splitlines(True), text.splitlines(True), args.check, "generated"
        )
        sys.stderr.write(f"ffi.stubgen: {args.check} is out of date; regenerate it:\n")
        sys.stderr.writelines(diff)
        return 1
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
