// The object types structural comparison works with, registered for reflection with the fields
// and methods TVM-FFI gives them: ffi.reflection.AccessStep and ffi.reflection.AccessPath (the
// paths of a mismatch; the reference's Python package calls the `_root`, `_attr`, ... methods),
// and ffi.StructuralKey (the globals ffi.StructuralKey / ffi.StructuralKeyEqual, and the
// `__any_hash__` / `__any_equal__` attributes that make maps find keys by structure).
#include <ffi/extra/structural_key.h>
#include <ffi/function.h>
#include <ffi/reflection/access_path.h>
#include <ffi/reflection/registry.h>

#include <string>

#include "structural.h"

namespace tvm {
namespace ffi {
namespace runtime {
namespace {

namespace refl = ::tvm::ffi::reflection;
using refl::AccessPath;
using refl::AccessPathObj;
using refl::AccessStep;
using refl::AccessStepObj;

/*! \brief A new key for `value`, hashed here (the header's constructor would call back into the
 * runtime through the global). */
StructuralKey MakeKey(Any value) {
  ObjectPtr<StructuralKeyObj> key = make_object<StructuralKeyObj>();
  key->hash_i64 = static_cast<int64_t>(structural::StructuralHash(value, false, false));
  key->key = std::move(value);
  return StructuralKey(std::move(key));
}

bool KeysEqual(const StructuralKey& a, const StructuralKey& b) {
  if (a.same_as(b)) return true;
  return a->hash_i64 == b->hash_i64 && structural::StructuralEqual(a->key, b->key, false, false);
}

FFI_STATIC_INIT_BLOCK() {
  refl::ObjectDef<AccessStepObj>("One step of an access path: its kind (AccessKind) and key.")
      .def_ro("kind", &AccessStepObj::kind, "The AccessKind: attr, array item, map item, ...")
      .def_ro("key", &AccessStepObj::key, "The field name, index or map key.");
  refl::ObjectDef<AccessPathObj>("The steps from a root value to a part of it.")
      .def_ro("parent", &AccessPathObj::parent, "The path without its last step (None: root).")
      .def_ro("step", &AccessPathObj::step, "The last step (None for the root).")
      .def_ro("depth", &AccessPathObj::depth, "The number of steps.")
      .def_static("_root", &AccessPath::Root, "The empty path.")
      .def(
          "_extend", [](const AccessPath& p, AccessStep s) { return p->Extend(std::move(s)); },
          "This path followed by a step.")
      .def(
          "_attr", [](const AccessPath& p, String name) { return p->Attr(std::move(name)); },
          "This path followed by a field.")
      .def(
          "_attr_missing",
          [](const AccessPath& p, String name) { return p->AttrMissing(std::move(name)); },
          "This path followed by a missing field.")
      .def(
          "_array_item", [](const AccessPath& p, int64_t i) { return p->ArrayItem(i); },
          "This path followed by an element.")
      .def(
          "_array_item_missing",
          [](const AccessPath& p, int64_t i) { return p->ArrayItemMissing(i); },
          "This path followed by a missing element.")
      .def(
          "_map_item", [](const AccessPath& p, Any key) { return p->MapItem(std::move(key)); },
          "This path followed by a map value.")
      .def(
          "_map_item_missing",
          [](const AccessPath& p, Any key) { return p->MapItemMissing(std::move(key)); },
          "This path followed by a missing map value.")
      .def(
          "_is_prefix_of",
          [](const AccessPath& p, const AccessPath& o) { return p->IsPrefixOf(o); },
          "Whether the other path starts with this one.")
      .def(
          "_to_steps", [](const AccessPath& p) { return p->ToSteps(); }, "The steps from the root.")
      .def(
          "_path_equal", [](const AccessPath& p, const AccessPath& o) { return p->PathEqual(o); },
          "Whether the paths have the same steps.");

  refl::ObjectDef<StructuralKeyObj>("A value that maps find by structure, with its hash.")
      .def_ro("key", &StructuralKeyObj::key, "The value.")
      .def_ro("hash_i64", &StructuralKeyObj::hash_i64, "Its structural hash, as int64.");
  // ReprPrint of a path: "<root>.config.layers[0]["name"][<missing:"weights">]", as the
  // reference prints it (keys through ReprPrint, so strings are double-quoted).
  refl::TypeAttrDef<AccessPathObj>().def(
      "__ffi_repr__", Function::FromTyped([](const AccessPath& path, const Function& repr) {
        std::string out = "<root>";
        for (const AccessStep& step : path->ToSteps()) {
          auto key = [&] { return std::string(repr(step->key).cast<String>().view()); };
          switch (step->kind) {
            case refl::AccessKind::kAttr:
              out += "." + std::string(step->key.cast<String>().view());
              break;
            case refl::AccessKind::kArrayItem:
            case refl::AccessKind::kMapItem:
              out += "[" + key() + "]";
              break;
            default:  // the missing kinds
              out += "[<missing:" + key() + ">]";
              break;
          }
        }
        return String(out);
      }));
  refl::TypeAttrDef<StructuralKeyObj>()
      .def("__any_hash__", Function::FromTyped([](const StructuralKey& key) {
             return static_cast<int64_t>(key->hash_i64);
           }))
      .def("__any_equal__", Function::FromTyped(&KeysEqual));
  refl::GlobalDef()
      .def("ffi.StructuralKey", &MakeKey, "StructuralKey(value): a key hashed by structure.")
      .def("ffi.StructuralKeyEqual", &KeysEqual,
           "StructuralKeyEqual(a, b): whether two keys hold structurally equal values.");
}

}  // namespace
}  // namespace runtime
}  // namespace ffi
}  // namespace tvm
