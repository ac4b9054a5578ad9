// <ffi/extra/dataclass.h>: DeepCopy, ReprPrint, the recursive comparisons and hash, printing
// values with operator<<, and the type attributes through which a type takes them over.
#include <ffi/container/array.h>
#include <ffi/container/map.h>
#include <ffi/container/variant.h>
#include <ffi/extra/dataclass.h>
#include <ffi/ffi.h>
#include <ffi/reflection/registry.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "testing.h"

namespace {

using namespace ffi_testing;
using ffi::Any;
using ffi::Array;
namespace refl = ffi::reflection;

class CellObj : public ffi::Object {
 public:
  int64_t value = 0;
  Any next;
  CellObj() = default;
  CellObj(int64_t value, Any next) : value(value), next(std::move(next)) {}
  static constexpr bool _type_mutable = true;
  FFI_DECLARE_OBJECT_INFO_FINAL("testing.dataclass.Cell", CellObj, ffi::Object);
};

/*! \brief Compared through its own __ffi_eq__ / __ffi_compare__ / __ffi_hash__ / __ffi_repr__:
 * by `key` alone. */
class KeyedObj : public ffi::Object {
 public:
  int64_t key = 0;
  int64_t noise = 0;
  KeyedObj(int64_t key, int64_t noise) : key(key), noise(noise) {}
  FFI_DECLARE_OBJECT_INFO_FINAL("testing.dataclass.Keyed", KeyedObj, ffi::Object);
};

FFI_STATIC_INIT_BLOCK() {
  refl::ObjectDef<CellObj>().def_rw("value", &CellObj::value).def_rw("next", &CellObj::next);
  refl::ObjectDef<KeyedObj>().def_ro("key", &KeyedObj::key).def_ro("noise", &KeyedObj::noise);
  using Eq = ffi::TypedFunction<bool(ffi::AnyView, ffi::AnyView)>;
  using Cmp = ffi::TypedFunction<int32_t(ffi::AnyView, ffi::AnyView)>;
  refl::TypeAttrDef<KeyedObj>()
      .def(ffi::type_attr::kEq.name,
           [](const KeyedObj* a, const KeyedObj* b, const Eq&) { return a->key == b->key; })
      .def(ffi::type_attr::kCompare.name,
           [](const KeyedObj* a, const KeyedObj* b, const Cmp&) {
             return static_cast<int32_t>(a->key < b->key ? -1 : a->key > b->key ? 1 : 0);
           })
      .def(ffi::type_attr::kHash.name,
           [](const KeyedObj* a, const ffi::TypedFunction<int64_t(ffi::AnyView)>&) {
             return a->key;
           })
      .def(ffi::type_attr::kRepr.name,
           [](const KeyedObj* a, const ffi::TypedFunction<ffi::String(ffi::AnyView)>&) {
             return ffi::String("Keyed#" + std::to_string(a->key));
           });
}

ffi::ObjectRef Cell(int64_t value, Any next = Any()) {
  return ffi::ObjectRef(ffi::make_object<CellObj>(value, std::move(next)));
}

ffi::ObjectRef Keyed(int64_t key, int64_t noise) {
  return ffi::ObjectRef(ffi::make_object<KeyedObj>(key, noise));
}

TEST(Dataclass, DeepCopyCopiesWhatIsReachableAndKeepsSharing) {
  ffi::ObjectRef shared = Cell(1);
  Array<Any> original{Cell(2, shared), shared};
  Array<Any> copy = ffi::DeepCopy(original).cast<Array<Any>>();
  EXPECT_FALSE(copy.same_as(original));
  auto first = copy[0].cast<ffi::ObjectRef>();
  EXPECT_FALSE(first.same_as(original[0].cast<ffi::ObjectRef>()));
  EXPECT_EQ(first.as<CellObj>()->value, 2);
  // The shared cell is copied once: both places point at the same copy.
  EXPECT_TRUE(
      first.as<CellObj>()->next.cast<ffi::ObjectRef>().same_as(copy[1].cast<ffi::ObjectRef>()));
  EXPECT_FALSE(copy[1].cast<ffi::ObjectRef>().same_as(shared));
}

TEST(Dataclass, ReprPrintAndStreams) {
  EXPECT_EQ(std::string(ffi::ReprPrint(Any(Array<int64_t>{1, 2}))), "(1, 2)");
  EXPECT_EQ(std::string(ffi::ReprPrint(Any(ffi::String("s")))), "\"s\"");
  EXPECT_EQ(std::string(ffi::ReprPrint(Any(Keyed(4, 0)))), "Keyed#4");  // the type's own
  std::ostringstream os;
  os << Any(1) << ' ' << Keyed(7, 0) << ' ' << ffi::Optional<int64_t>() << ' '
     << ffi::Variant<int64_t, ffi::String>(ffi::String("v"));
  EXPECT_EQ(os.str(), "1 Keyed#7 None \"v\"");
}

TEST(Dataclass, RecursiveComparisonsAndHash) {
  EXPECT_TRUE(ffi::RecursiveEq(Cell(1, Cell(2)), Cell(1, Cell(2))));
  EXPECT_FALSE(ffi::RecursiveEq(Cell(1, Cell(2)), Cell(1, Cell(3))));
  EXPECT_EQ(ffi::RecursiveHash(Cell(1, Cell(2))), ffi::RecursiveHash(Cell(1, Cell(2))));
  EXPECT_TRUE(ffi::RecursiveLt(Array<int64_t>{1, 2}, Array<int64_t>{1, 3}));
  EXPECT_TRUE(ffi::RecursiveLe(Array<int64_t>{1, 2}, Array<int64_t>{1, 2}));
  EXPECT_TRUE(ffi::RecursiveGt(Array<int64_t>{2}, Array<int64_t>{1, 9}));
  EXPECT_TRUE(ffi::RecursiveGe(Array<int64_t>{2}, Array<int64_t>{2}));
  // A type's own hooks decide: `noise` is ignored.
  EXPECT_TRUE(ffi::RecursiveEq(Keyed(1, 5), Keyed(1, 6)));
  EXPECT_TRUE(ffi::RecursiveLt(Keyed(1, 9), Keyed(2, 0)));
  EXPECT_EQ(ffi::RecursiveHash(Keyed(3, 1)), ffi::RecursiveHash(Keyed(3, 2)));
}

TEST(Dataclass, TypeAttributeKeysHaveTheStandardNames) {
  EXPECT_STREQ(ffi::type_attr::kRepr.name, "__ffi_repr__");
  EXPECT_STREQ(ffi::type_attr::kHash.name, "__ffi_hash__");
  EXPECT_STREQ(ffi::type_attr::kEq.name, "__ffi_eq__");
  EXPECT_STREQ(ffi::type_attr::kCompare.name, "__ffi_compare__");
}

}  // namespace
