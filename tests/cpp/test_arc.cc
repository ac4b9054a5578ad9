// Arc<T> (an owning object pointer that is never null) and how ObjectPtr<T> and Arc<T> travel in
// Any: round trips, None for a null ObjectPtr, None refused for an Arc, reference counts, and
// reflected fields holding them.
#include <ffi/arc.h>
#include <ffi/container/list.h>
#include <ffi/ffi.h>
#include <ffi/reflection/registry.h>
#include <gtest/gtest.h>

#include <type_traits>
#include <utility>

#include "testing.h"

namespace {

using namespace ffi_testing;
using ffi::Any;
using ffi::AnyView;
using ffi::Arc;
using ffi::ObjectPtr;
namespace refl = ffi::reflection;

class LeafObj : public ffi::Object {
 public:
  int64_t value;
  explicit LeafObj(int64_t value) : value(value) {}
  FFI_DECLARE_OBJECT_INFO("testing.arc.Leaf", LeafObj, ffi::Object);
};

class BranchObj : public LeafObj {
 public:
  explicit BranchObj(int64_t value) : LeafObj(value) {}
  FFI_DECLARE_OBJECT_INFO_FINAL("testing.arc.Branch", BranchObj, LeafObj);
};

class OtherObj : public ffi::Object {
 public:
  FFI_DECLARE_OBJECT_INFO_FINAL("testing.arc.Other", OtherObj, ffi::Object);
};

/*! \brief An object whose required child is an Arc and whose optional one an ObjectPtr. */
class HolderObj : public ffi::Object {
 public:
  Arc<LeafObj> required;
  ObjectPtr<LeafObj> optional;
  explicit HolderObj(ffi::UnsafeInit tag) : required(tag) {}
  explicit HolderObj(Arc<LeafObj> required) : required(std::move(required)) {}
  static constexpr bool _type_mutable = true;
  FFI_DECLARE_OBJECT_INFO_FINAL("testing.arc.Holder", HolderObj, ffi::Object);
};

FFI_STATIC_INIT_BLOCK() {
  refl::ObjectDef<HolderObj>()
      .def_rw("required", &HolderObj::required)
      .def_rw("optional", &HolderObj::optional);
}

static_assert(!std::is_default_constructible_v<Arc<LeafObj>>, "an Arc is never null");
static_assert(!std::is_constructible_v<Arc<LeafObj>, std::nullptr_t>, "an Arc is never null");
static_assert(!std::is_constructible_v<Arc<LeafObj>, ObjectPtr<LeafObj>>,
              "an ObjectPtr may be null: FromObjectPtr checks");
static_assert(std::is_convertible_v<Arc<BranchObj>, Arc<LeafObj>>, "upcasts convert");
static_assert(!std::is_convertible_v<Arc<LeafObj>, Arc<BranchObj>>, "downcasts do not");
static_assert(sizeof(Arc<LeafObj>) == sizeof(void*), "an Arc is one pointer, as ObjectPtr");

TEST(Arc, MakeArcOwnsOneReferenceAndConverts) {
  Arc<BranchObj> branch = ffi::make_arc<BranchObj>(3);
  EXPECT_EQ(branch->value, 3);
  EXPECT_EQ(branch.use_count(), 1u);
  Arc<LeafObj> leaf = branch;  // upcast copy
  EXPECT_EQ(branch.use_count(), 2u);
  ObjectPtr<LeafObj> plain = leaf;  // an Arc is an ObjectPtr
  EXPECT_EQ(plain.use_count(), 3u);
  Arc<LeafObj> moved = std::move(leaf);
  EXPECT_EQ(moved.use_count(), 3u);
  EXPECT_EQ(moved.get(), static_cast<LeafObj*>(branch.get()));
}

TEST(Arc, FromObjectPtrRefusesNull) {
  EXPECT_EQ(ExpectError([] { Arc<LeafObj>::FromObjectPtr(ObjectPtr<LeafObj>()); }).kind(),
            "ValueError");
  Arc<LeafObj> a = Arc<LeafObj>::FromObjectPtr(ffi::make_object<LeafObj>(5));
  EXPECT_EQ(a->value, 5);
  EXPECT_EQ(a.use_count(), 1u);
}

TEST(Arc, TravelsInAnyAndRefusesNone) {
  Arc<LeafObj> a = ffi::make_arc<LeafObj>(7);
  {
    Any held = a;
    EXPECT_EQ(a.use_count(), 2u);
    EXPECT_EQ(held.type_index(), LeafObj::RuntimeTypeIndex());
    Arc<LeafObj> back = held.cast<Arc<LeafObj>>();
    EXPECT_EQ(back.get(), a.get());
    EXPECT_EQ(a.use_count(), 3u);
    EXPECT_EQ(held.cast<ObjectPtr<LeafObj>>().get(), a.get());
  }
  EXPECT_EQ(a.use_count(), 1u);
  Any none;
  EXPECT_FALSE(none.try_cast<Arc<LeafObj>>().has_value());
  EXPECT_EQ(ExpectError([&] { none.cast<Arc<LeafObj>>(); }).kind(), "TypeError");
  Any other = ObjectPtr<OtherObj>(ffi::make_object<OtherObj>());
  EXPECT_FALSE(other.try_cast<Arc<LeafObj>>().has_value());
  Any branch = ffi::make_arc<BranchObj>(1);
  EXPECT_EQ(branch.cast<Arc<LeafObj>>()->value, 1);  // a subclass is a LeafObj
  EXPECT_FALSE(AnyView(a).as<Arc<BranchObj>>().has_value());
}

TEST(Arc, ObjectPtrIsNullableInAny) {
  Any none = ObjectPtr<LeafObj>();
  EXPECT_TRUE(none.is_none());
  EXPECT_EQ(none.cast<ObjectPtr<LeafObj>>(), nullptr);
  ObjectPtr<LeafObj> p = ffi::make_object<LeafObj>(2);
  Any moved = std::move(p);  // the reference moves into the Any
  EXPECT_EQ(p, nullptr);
  ObjectPtr<LeafObj> back = moved.cast<ObjectPtr<LeafObj>>();
  EXPECT_EQ(back.use_count(), 2u);
  EXPECT_EQ(ExpectError([] { Any(1).cast<ObjectPtr<LeafObj>>(); }).kind(), "TypeError");
}

TEST(Arc, ReflectedFieldsHoldArcAndObjectPtr) {
  ObjectPtr<HolderObj> holder = ffi::make_object<HolderObj>(ffi::make_arc<LeafObj>(1));
  ffi::ObjectRef ref(holder);
  refl::FieldGetter get_required("testing.arc.Holder", "required");
  refl::FieldSetter set_required("testing.arc.Holder", "required");
  refl::FieldSetter set_optional("testing.arc.Holder", "optional");
  EXPECT_EQ(get_required(ref).cast<Arc<LeafObj>>()->value, 1);
  set_required(ref, ffi::make_arc<LeafObj>(2));
  EXPECT_EQ(holder->required->value, 2);
  // None is refused for the Arc (the field keeps its value) and accepted for the ObjectPtr.
  EXPECT_EQ(ExpectError([&] { set_required(ref, AnyView()); }).kind(), "TypeError");
  EXPECT_EQ(holder->required->value, 2);
  set_optional(ref, ffi::make_arc<LeafObj>(3));
  EXPECT_EQ(holder->optional->value, 3);
  set_optional(ref, AnyView());
  EXPECT_EQ(holder->optional, nullptr);
}

TEST(Arc, OptionalOfAPointerIsOnePointer) {
  static_assert(sizeof(ffi::Optional<ObjectPtr<LeafObj>>) == sizeof(void*));
  static_assert(sizeof(ffi::Optional<Arc<LeafObj>>) == sizeof(void*));
  ffi::Optional<Arc<LeafObj>> none;
  EXPECT_FALSE(none.has_value());
  EXPECT_EQ(none.get(), nullptr);
  ffi::Optional<Arc<LeafObj>> some = ffi::make_arc<LeafObj>(5);
  EXPECT_EQ(some->value, 5);
  EXPECT_EQ(some.get()->value, 5);
  EXPECT_EQ(some.value()->value, 5);
  ffi::Optional<ObjectPtr<LeafObj>> ptr = ObjectPtr<LeafObj>(some.value());
  EXPECT_TRUE(ptr.same_as(ffi::Optional<ObjectPtr<LeafObj>>(ObjectPtr<LeafObj>(some.value()))));
  EXPECT_EQ(ptr.use_count(), 2u);
  ptr = nullptr;
  EXPECT_FALSE(ptr.has_value());
  // Through Any: None is nothing, an object is the pointer.
  EXPECT_TRUE(Any(none).is_none());
  EXPECT_EQ(Any(some).cast<ffi::Optional<Arc<LeafObj>>>()->value, 5);
  EXPECT_FALSE(Any().cast<ffi::Optional<ObjectPtr<LeafObj>>>().has_value());
}

}  // namespace

// An object holding pointers to its own type: the class is incomplete where its field's type is
// instantiated, so it says it is an object class ahead of its definition.
namespace arc_recursive {
struct TreeObj;
}  // namespace arc_recursive
template <>
inline constexpr bool tvm::ffi::is_object_subclass_v<arc_recursive::TreeObj> = true;
namespace arc_recursive {
struct TreeObj : public ffi::Object {
  ffi::List<Arc<TreeObj>> children;
  int value = 0;
  FFI_DECLARE_OBJECT_INFO_FINAL("test.arc.Tree", TreeObj, ffi::Object);
};

TEST(Arc, ContainersOfAnIncompleteObjectClass) {
  static_assert(ffi::detail::storage_enabled_v<Arc<TreeObj>>);
  Arc<TreeObj> root = ffi::make_arc<TreeObj>();
  Arc<TreeObj> leaf = ffi::make_arc<TreeObj>();
  leaf->value = 7;
  root->children.push_back(leaf);
  Any held = root;
  EXPECT_EQ(held.cast<Arc<TreeObj>>()->children[0]->value, 7);
}
}  // namespace arc_recursive
