"""Map-key hooks across header releases, on our runtime: a type whose key hooks are native
functions of the convention of 0.1.15 and our headers (registered by a library built with ours),
and keys of it put in a Map by code built against a reference release before 0.1.15 (which calls
a native hook the old way, inline). Run with the Python of an environment that has such a release
(the clients tier's `tvm` one, 0.1.14.post0) and our package:

    python key_hooks_check.py WORK_DIR

Prints one line and exits 0 when the Map built by the old code counts keys by the hooks' value
equality: the runtime stores native hooks as Functions, which both conventions call alike.
"""

import importlib.util
import os
import subprocess
import sys

import ffi

OURS = r"""
#include <ffi/ffi.h>
#include <ffi/reflection/native_function.h>
#include <ffi/reflection/registry.h>

namespace {
// Boxes equal by value: the type's own key hooks, native, in this header set's convention.
class KeyBoxObj : public ffi::Object {
 public:
  explicit KeyBoxObj(int64_t v) : value(v) {}
  int64_t value;
  FFI_DECLARE_OBJECT_INFO_FINAL("key_hooks_check.KeyBox", KeyBoxObj, ffi::Object);
};
int64_t ValueOf(const ffi::Any& v) { return v.cast<ffi::ObjectRef>().as<KeyBoxObj>()->value; }
int64_t Hash(const ffi::Any& v) { return ValueOf(v) * 7; }
bool Equal(const ffi::Any& a, const ffi::Any& b) { return ValueOf(a) == ValueOf(b); }

FFI_STATIC_INIT_BLOCK() {
  namespace refl = ffi::reflection;
  refl::ObjectDef<KeyBoxObj>().def_ro("value", &KeyBoxObj::value);
  refl::TypeAttrDef<KeyBoxObj>()
      .native_fn_attr<&Hash>(ffi::type_attr::kAnyHash)
      .native_fn_attr<&Equal>(ffi::type_attr::kAnyEqual);
}
}  // namespace

ffi::ObjectRef MakeBox(int64_t v) { return ffi::ObjectRef(ffi::make_object<KeyBoxObj>(v)); }
FFI_DLL_EXPORT_TYPED_FUNC(make_box, MakeBox);
"""

OLD = r"""
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/function.h>

namespace ffi = tvm::ffi;

// Distinct keys among `keys`, as a Map built here (inline, with this release's headers) counts.
int64_t CountKeys(ffi::Array<ffi::Any> keys) {
  ffi::Map<ffi::Any, int64_t> seen;
  for (const ffi::Any& key : keys) seen.Set(key, 1);
  return static_cast<int64_t>(seen.size());
}
TVM_FFI_DLL_EXPORT_TYPED_FUNC(count_keys, CountKeys);
"""


def build(name: str, source: str, include: str, work: str) -> str:
    src = os.path.join(work, name + ".cc")
    lib = os.path.join(work, name + ".so")
    with open(src, "w") as f:
        f.write(source)
    cmd = ["g++", "-std=c++17", "-O1", "-shared", "-fPIC", "-isystem", include, src, "-o", lib]
    subprocess.run(cmd, check=True)
    return lib


def main() -> None:
    work = sys.argv[1]
    os.makedirs(work, exist_ok=True)
    reference = os.path.dirname(importlib.util.find_spec("tvm_ffi").origin)
    ours = ffi.load_module(build("ours", OURS, ffi.libinfo.get_include_dir(), work))
    old = ffi.load_module(build("old", OLD, os.path.join(reference, "include"), work))
    boxes = [ours.make_box(v) for v in (1, 2, 1, 3, 2, 1)]
    counted = old.count_keys(boxes)
    assert counted == 3, f"the old headers' Map counts {counted} distinct keys, not 3"
    assert len(ffi.Map({b: 1 for b in boxes})) == 3  # and our headers' Map alike
    print("key hooks across header releases: 3 distinct keys, as the hooks say")


if __name__ == "__main__":
    main()
