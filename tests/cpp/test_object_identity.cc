// Object identity helpers (object.h): ObjectPtrHash / ObjectPtrEqual for maps keyed by object,
// unique(), the compile-time relations is_object_subclass_v and object_ref_contains_v, and
// FFI_DECLARE_OBJECT_INFO_LOOKUP (a view of a type registered elsewhere).
#include <ffi/container/array.h>
#include <ffi/ffi.h>
#include <gtest/gtest.h>

#include <string>
#include <unordered_map>
#include <unordered_set>

#include "testing.h"

namespace {

using namespace ffi_testing;

using ffi::ObjectPtr;
using ffi::ObjectRef;

class NodeObj : public ffi::Object {
 public:
  explicit NodeObj(int v) : value(v) {}
  int value;
  FFI_DECLARE_OBJECT_INFO("test.identity.Node", NodeObj, ffi::Object);
};
class Node : public ObjectRef {
 public:
  explicit Node(int v) : ObjectRef(ffi::make_object<NodeObj>(v)) {}
  FFI_DEFINE_OBJECT_REF_METHODS(Node, ObjectRef, NodeObj);
};

TEST(ObjectPtrHash, KeysByIdentity) {
  Node a(1), b(1);
  std::unordered_map<ObjectRef, int, ffi::ObjectPtrHash, ffi::ObjectPtrEqual> seen;
  seen[a] = 1;
  seen[b] = 2;
  seen[a] += 10;
  EXPECT_EQ(seen.size(), 2u);  // equal values, different objects
  EXPECT_EQ(seen[a], 11);
  // An ObjectPtr to the same object hashes and compares the same way.
  ObjectPtr<NodeObj> pa = ObjectPtr<NodeObj>::Borrow(const_cast<NodeObj*>(a.get()));
  EXPECT_EQ(ffi::ObjectPtrHash()(pa), ffi::ObjectPtrHash()(a));
  std::unordered_set<ObjectPtr<NodeObj>, ffi::ObjectPtrHash, ffi::ObjectPtrEqual> ptrs{pa, pa};
  EXPECT_EQ(ptrs.size(), 1u);
  EXPECT_TRUE(ffi::ObjectPtrEqual()(ObjectRef(), ObjectRef()));
}

TEST(ObjectRef, Unique) {
  Node a(1);
  EXPECT_TRUE(a.unique());
  Node b = a;
  EXPECT_FALSE(a.unique());
  ffi::Array<int> arr({1});
  EXPECT_TRUE(arr.unique());
  EXPECT_FALSE(ObjectRef().unique());
}

TEST(ObjectRef, CompileTimeRelations) {
  static_assert(ffi::is_object_subclass_v<NodeObj>);
  static_assert(!ffi::is_object_subclass_v<Node>);
  static_assert(ffi::object_ref_contains_v<Node, NodeObj>);
  static_assert(ffi::object_ref_contains_v<ObjectRef, NodeObj>);
  static_assert(!ffi::object_ref_contains_v<Node, ffi::Object>);
  // An Array<int> also constrains its elements: not every ArrayObj is one.
  static_assert(!ffi::object_ref_contains_v<ffi::Array<int>, ffi::ArrayObj>);
}

// A C++ view of test.identity.Node declared without its definition, as a library that only reads
// objects another library registers would.
class NodeView : public ffi::Object {
 public:
  FFI_DECLARE_OBJECT_INFO_LOOKUP("test.identity.Node", 1);
};
class MissingView : public ffi::Object {
 public:
  FFI_DECLARE_OBJECT_INFO_LOOKUP("test.identity.NeverRegistered", 1);
};

TEST(DeclareObjectInfoLookup, FindsTheRegisteredType) {
  Node a(3);
  EXPECT_EQ(NodeView::RuntimeTypeIndex(), NodeObj::RuntimeTypeIndex());
  EXPECT_NE(a.as<NodeView>(), nullptr);
  EXPECT_EQ(ffi::Array<int>({1}).as<NodeView>(), nullptr);
  EXPECT_EQ(ffi::TypeKeyToIndex("test.identity.Node"), NodeObj::RuntimeTypeIndex());
}

TEST(DeclareObjectInfoLookup, AnUnknownKeyIsAKeyError) {
  EXPECT_EQ(ExpectError([] { MissingView::RuntimeTypeIndex(); }).kind(), "KeyError");
  EXPECT_EQ(ExpectError([] { ffi::TypeKeyToIndex("test.identity.NeverRegistered"); }).kind(),
            "KeyError");
}

}  // namespace
