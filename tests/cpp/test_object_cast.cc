// User-defined object types in the runtime's type registry, IsInstance along the hierarchy, and
// the checked ways from one reference or pointer to another: ObjectRef::as, references through
// Any, GetRef and GetObjectPtr. Reference counting itself: test_object.cc.
#include <ffi/container/array.h>
#include <ffi/container/variant.h>
#include <ffi/ffi.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "testing.h"

namespace {

using namespace ffi_testing;

using ffi::make_object;
using ffi::Object;
using ffi::ObjectPtr;
using ffi::ObjectRef;

class CountedObj : public Object {
 public:
  explicit CountedObj(int v = 0) : value(v) {}
  int value;
  FFI_DECLARE_OBJECT_INFO("test.object.Counted", CountedObj, Object);
};

class DerivedObj : public CountedObj {
 public:
  explicit DerivedObj(int v = 0) : CountedObj(v) {}
  FFI_DECLARE_OBJECT_INFO("test.object.Derived", DerivedObj, CountedObj);
};

class LeafObj final : public DerivedObj {
 public:
  explicit LeafObj(int v = 0) : DerivedObj(v) {}
  FFI_DECLARE_OBJECT_INFO_FINAL("test.object.Leaf", LeafObj, DerivedObj);
};

class UnrelatedObj : public Object {
 public:
  FFI_DECLARE_OBJECT_INFO("test.object.Unrelated", UnrelatedObj, Object);
};

class CountedRef : public ObjectRef {
 public:
  FFI_DEFINE_OBJECT_REF_METHODS(CountedRef, ObjectRef, CountedObj);
};

/*!
 * \brief A reference written by hand as TVM-FFI code writes one: only the UnsafeInit constructor,
 * and a container type that does not describe what it holds (a Derived or an Unrelated object).
 */
class DerivedOrUnrelatedRef : public ObjectRef {
 public:
  DerivedOrUnrelatedRef() = default;
  explicit DerivedOrUnrelatedRef(ffi::UnsafeInit tag) : ObjectRef(tag) {}
  [[maybe_unused]] static constexpr bool _type_container_is_exact = false;
  using ContainerType = Object;
};
}  // namespace

// The library proves which objects its reference holds, so that GetRef may make one unchecked.
namespace tvm {
namespace ffi {
template <typename ObjectType>
inline constexpr bool object_ref_contains_v<DerivedOrUnrelatedRef, ObjectType> =
    std::is_base_of_v<DerivedObj, ObjectType> || std::is_base_of_v<UnrelatedObj, ObjectType>;
}  // namespace ffi
}  // namespace tvm

namespace {

// ---------------------------------------------------------------------------------------------
// User-defined types
// ---------------------------------------------------------------------------------------------

TEST(ObjectCast, UserTypesGetStableDynamicIndices) {
  int32_t counted = CountedObj::RuntimeTypeIndex();
  int32_t derived = DerivedObj::RuntimeTypeIndex();
  int32_t leaf = LeafObj::RuntimeTypeIndex();
  EXPECT_GE(counted, kTVMFFIDynObjectBegin);
  EXPECT_GE(derived, kTVMFFIDynObjectBegin);
  EXPECT_GE(leaf, kTVMFFIDynObjectBegin);
  EXPECT_NE(counted, derived);
  EXPECT_NE(derived, leaf);
  EXPECT_NE(counted, leaf);
  EXPECT_EQ(CountedObj::RuntimeTypeIndex(), counted);
  EXPECT_EQ(DerivedObj::RuntimeTypeIndex(), derived);
  EXPECT_EQ(LeafObj::RuntimeTypeIndex(), leaf);
  EXPECT_EQ(Object::RuntimeTypeIndex(), kTVMFFIObject);
  // The registry agrees, and re-registering the same key hands back the same index.
  int32_t looked_up = -1;
  TVMFFIByteArray key = Bytes("test.object.Derived");
  ASSERT_EQ(TVMFFITypeKeyToIndex(&key, &looked_up), 0);
  EXPECT_EQ(looked_up, derived);
  EXPECT_EQ(TVMFFITypeGetOrAllocIndex(&key, -1, 2, 0, 1, counted), derived);
  EXPECT_EQ(TVMFFITypeGetOrAllocIndex(&key, -1, 2, 0, 1, -2), derived);
}

TEST(ObjectCast, GetTypeKey) {
  EXPECT_EQ(make_object<CountedObj>()->GetTypeKey(), "test.object.Counted");
  EXPECT_EQ(make_object<DerivedObj>()->GetTypeKey(), "test.object.Derived");
  EXPECT_EQ(make_object<LeafObj>()->GetTypeKey(), "test.object.Leaf");
  ObjectPtr<Object> as_base = make_object<LeafObj>();
  EXPECT_EQ(as_base->GetTypeKey(), "test.object.Leaf");
  EXPECT_EQ(HeapObject(ffi::String("long enough for an object"))->GetTypeKey(), "ffi.String");
}

TEST(ObjectCast, IsInstanceFollowsTheHierarchy) {
  ObjectPtr<CountedObj> counted = make_object<CountedObj>();
  ObjectPtr<DerivedObj> derived = make_object<DerivedObj>();
  ObjectPtr<LeafObj> leaf = make_object<LeafObj>();
  ObjectPtr<UnrelatedObj> unrelated = make_object<UnrelatedObj>();

  EXPECT_TRUE(counted->IsInstance<Object>());
  EXPECT_TRUE(counted->IsInstance<CountedObj>());
  EXPECT_FALSE(counted->IsInstance<DerivedObj>());
  EXPECT_FALSE(counted->IsInstance<LeafObj>());
  EXPECT_FALSE(counted->IsInstance<UnrelatedObj>());

  EXPECT_TRUE(derived->IsInstance<Object>());
  EXPECT_TRUE(derived->IsInstance<CountedObj>());
  EXPECT_TRUE(derived->IsInstance<DerivedObj>());
  EXPECT_FALSE(derived->IsInstance<LeafObj>());
  EXPECT_FALSE(derived->IsInstance<UnrelatedObj>());

  EXPECT_TRUE(leaf->IsInstance<Object>());
  EXPECT_TRUE(leaf->IsInstance<CountedObj>());
  EXPECT_TRUE(leaf->IsInstance<DerivedObj>());
  EXPECT_TRUE(leaf->IsInstance<LeafObj>());
  EXPECT_FALSE(leaf->IsInstance<UnrelatedObj>());
  EXPECT_FALSE(leaf->IsInstance<ffi::StringObj>());

  EXPECT_TRUE(unrelated->IsInstance<Object>());
  EXPECT_TRUE(unrelated->IsInstance<UnrelatedObj>());
  EXPECT_FALSE(unrelated->IsInstance<CountedObj>());
  EXPECT_FALSE(unrelated->IsInstance<LeafObj>());

  // Built-in kinds: siblings are not instances of each other.
  ffi::String str("hello world, long enough");
  const Object* s = HeapObject(str);
  ASSERT_NE(s, nullptr);
  EXPECT_TRUE(s->IsInstance<ffi::StringObj>());
  EXPECT_FALSE(s->IsInstance<ffi::BytesObj>());
  EXPECT_FALSE(s->IsInstance<ffi::ErrorObj>());
  EXPECT_FALSE(s->IsInstance<CountedObj>());
}

TEST(ObjectCast, ObjectRefAs) {
  CountedRef ref(make_object<DerivedObj>(3));
  ASSERT_NE(ref.as<CountedObj>(), nullptr);
  EXPECT_EQ(ref.as<CountedObj>()->value, 3);
  EXPECT_EQ(ref->value, 3);
  EXPECT_EQ(static_cast<const Object*>(ref.as<DerivedObj>()), ref.get());
  EXPECT_NE(ref.as<Object>(), nullptr);
  EXPECT_EQ(ref.as<LeafObj>(), nullptr);
  EXPECT_EQ(ref.as<UnrelatedObj>(), nullptr);
  EXPECT_EQ(ref.as<ffi::StringObj>(), nullptr);
  EXPECT_EQ(ref.type_index(), DerivedObj::RuntimeTypeIndex());

  CountedRef null_ref;
  EXPECT_FALSE(null_ref.defined());
  EXPECT_EQ(null_ref.as<Object>(), nullptr);
  EXPECT_EQ(null_ref.as<CountedObj>(), nullptr);
  EXPECT_EQ(null_ref.type_index(), kTVMFFINone);
  EXPECT_EQ(null_ref.use_count(), 0u);
}

TEST(ObjectCast, ObjectRefThroughAnyChecksTheType) {
  CountedRef ref(make_object<LeafObj>(8));
  ffi::Any any = ref;
  EXPECT_EQ(any.type_index(), LeafObj::RuntimeTypeIndex());
  EXPECT_EQ(ref.use_count(), 2u);
  std::optional<CountedRef> back = any.as<CountedRef>();
  ASSERT_TRUE(back.has_value());
  EXPECT_TRUE(back->same_as(ref));
  EXPECT_EQ(ref.use_count(), 3u);
  ffi::Any unrelated = ObjectRef(make_object<UnrelatedObj>());
  EXPECT_FALSE(unrelated.as<CountedRef>().has_value());
  EXPECT_TRUE(unrelated.as<ObjectRef>().has_value());
}

// ---------------------------------------------------------------------------------------------
// From pointers back to references, and checked downcasts
// ---------------------------------------------------------------------------------------------

TEST(ObjectCast, GetRefAndGetObjectPtrShareTheObject) {
  CountedRef ref(make_object<LeafObj>(5));
  const CountedObj* raw = ref.get();
  CountedRef back = ffi::GetRef<CountedRef>(raw);
  EXPECT_TRUE(back.same_as(ref));
  EXPECT_EQ(ref.use_count(), 2u);
  ObjectRef base = ffi::GetRef<ObjectRef>(static_cast<const LeafObj*>(raw));
  EXPECT_EQ(ref.use_count(), 3u);
  ObjectPtr<CountedObj> ptr = ffi::GetObjectPtr<CountedObj>(const_cast<CountedObj*>(raw));
  EXPECT_EQ(ptr.get(), raw);
  EXPECT_EQ(ref.use_count(), 4u);
  EXPECT_FALSE(ffi::GetRef<CountedRef>(static_cast<const CountedObj*>(nullptr)).defined());
  EXPECT_FALSE(ffi::GetRef<std::optional<CountedRef>>(static_cast<const CountedObj*>(nullptr)));
  EXPECT_TRUE(ffi::GetRef<std::optional<CountedRef>>(raw)->same_as(ref));
  EXPECT_FALSE(ffi::GetRef<ffi::Optional<CountedRef>>(static_cast<const CountedObj*>(nullptr)));
  EXPECT_TRUE(ffi::GetRef<ffi::Optional<CountedRef>>(raw).value().same_as(ref));
}

TEST(ObjectCast, ObjectPointersViewObjectsButNeverNone) {
  CountedRef ref(make_object<DerivedObj>(4));
  ffi::Any held = ref;
  EXPECT_EQ(held.cast<const CountedObj*>(), ref.get());
  EXPECT_EQ(held.as<const DerivedObj*>().value(), ref.get());
  // A null pointer is stored as None, but None is no object to view: a function taking a
  // `const CountedObj*` would dereference it.
  ffi::Any none = static_cast<const CountedObj*>(nullptr);
  EXPECT_TRUE(none.is_none());
  EXPECT_FALSE(none.try_cast<const CountedObj*>().has_value());
  EXPECT_THROW(none.cast<const CountedObj*>(), ffi::Error);
  EXPECT_FALSE(ffi::Any(ObjectRef(make_object<UnrelatedObj>())).as<const CountedObj*>());
}

TEST(ObjectCast, GetRefBuildsReferencesThatOnlyHaveTheUnsafeInitConstructor) {
  static_assert(!ffi::object_ref_contains_v<DerivedOrUnrelatedRef, CountedObj>);
  static_assert(ffi::object_ref_contains_v<DerivedOrUnrelatedRef, LeafObj>);
  static_assert(!ffi::Array<CountedRef>::_type_container_is_exact);
  static_assert(!ffi::Variant<CountedRef, int>::_type_container_is_exact);
  CountedRef derived(make_object<DerivedObj>(2));
  DerivedOrUnrelatedRef a =
      ffi::GetRef<DerivedOrUnrelatedRef>(static_cast<const DerivedObj*>(derived.get()));
  EXPECT_TRUE(a.same_as(derived));
  EXPECT_EQ(derived.use_count(), 2u);
  ObjectPtr<UnrelatedObj> unrelated = make_object<UnrelatedObj>();
  DerivedOrUnrelatedRef b = ffi::GetRef<DerivedOrUnrelatedRef>(unrelated.get());
  EXPECT_EQ(b.get(), unrelated.get());
  EXPECT_FALSE(
      ffi::GetRef<DerivedOrUnrelatedRef>(static_cast<const UnrelatedObj*>(nullptr)).defined());
}

TEST(ObjectCast, ObjectRefAsAReferenceClassChecksTheObject) {
  ObjectRef any_ref = CountedRef(make_object<DerivedObj>(3));
  std::optional<CountedRef> counted = any_ref.as<CountedRef>();
  ASSERT_TRUE(counted.has_value());
  EXPECT_EQ((*counted)->value, 3);
  EXPECT_TRUE(counted->same_as(any_ref));
  EXPECT_EQ(any_ref.as_or_throw<CountedRef>()->value, 3);
  ObjectRef unrelated(make_object<UnrelatedObj>());
  EXPECT_FALSE(unrelated.as<CountedRef>().has_value());
  ffi::Error e = CatchError([&] { unrelated.as_or_throw<CountedRef>(); });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_NE(e.message().find("test.object.Unrelated"), std::string::npos) << e.message();
  // A null reference is a null reference of a nullable class.
  std::optional<CountedRef> null_ref = ObjectRef().as<CountedRef>();
  ASSERT_TRUE(null_ref.has_value());
  EXPECT_FALSE(null_ref->defined());
  // Containers check their elements, as a typed read of an Any does.
  ObjectRef ints = ffi::Array<ffi::Any>{1, 2};
  EXPECT_TRUE(ints.as<ffi::Array<int>>().has_value());
  EXPECT_FALSE(ints.as<ffi::Array<ffi::String>>().has_value());
  // Object types still give a pointer.
  EXPECT_EQ(any_ref.as<DerivedObj>()->value, 3);
  EXPECT_EQ(any_ref.as<LeafObj>(), nullptr);
}

}  // namespace
