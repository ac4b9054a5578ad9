// The object types of the testing library (python/ffi/testing binds them), registered under the
// type keys, field names, defaults and traits the reference package's `tvm_ffi.testing` module
// expects, so that tests written for it find the same types here. Each type exercises one part of
// reflection: field defaults and mutability, inheritance, auto-generated and explicit
// constructors, keyword-only and init(false) fields, comparison/hash traits and hooks, enums,
// structural visiting, and types the Python side never registers.
#include <ffi/container/array.h>
#include <ffi/container/map.h>
#include <ffi/enum.h>
#include <ffi/extra/dataclass.h>
#include <ffi/extra/structural_visit.h>
#include <ffi/ffi.h>
#include <ffi/reflection/enum_def.h>
#include <ffi/reflection/registry.h>

#include <cstdint>
#include <utility>

namespace tvm {
namespace ffi {
namespace testing {
namespace {

namespace refl = reflection;

// ---- Plain objects: a base with defaults and a method, a final derived type, a pair ----------

class TestObjectBase : public Object {
 public:
  int64_t v_i64;
  double v_f64;
  String v_str;
  int64_t AddI64(int64_t other) const { return v_i64 + other; }
  static constexpr bool _type_mutable = true;
  static constexpr uint32_t _type_child_slots = 1;
  FFI_DECLARE_OBJECT_INFO("testing.TestObjectBase", TestObjectBase, Object);
};

class TestObjectDerived : public TestObjectBase {
 public:
  Map<Any, Any> v_map;
  Array<Any> v_array;
  FFI_DECLARE_OBJECT_INFO_FINAL("testing.TestObjectDerived", TestObjectDerived, TestObjectBase);
};

// Arc (never null) and nullable ObjectPtr fields.
class TestObjectPtrHolder : public Object {
 public:
  Arc<TestObjectBase> value;
  ObjectPtr<TestObjectBase> optional_value;
  explicit TestObjectPtrHolder(UnsafeInit) : value(UnsafeInit{}) {}
  static constexpr bool _type_mutable = true;
  FFI_DECLARE_OBJECT_INFO("testing.TestObjectPtrHolder", TestObjectPtrHolder, Object);
};

class TestIntPairObj : public Object {
 public:
  int64_t a = 0;
  int64_t b = 0;
  TestIntPairObj() = default;  // a creator, for deserialization
  TestIntPairObj(int64_t a, int64_t b) : a(a), b(b) {}
  FFI_DECLARE_OBJECT_INFO_FINAL("testing.TestIntPair", TestIntPairObj, Object);
};

class TestIntPair : public ObjectRef {
 public:
  int64_t Sum() const { return get()->a + get()->b; }
  FFI_DEFINE_NOTNULLABLE_OBJECT_REF_METHODS(TestIntPair, ObjectRef, TestIntPairObj);
};

// Writable fields that the Python class freezes (@c_class(frozen=True)).
class TestFrozenCxxObj : public Object {
 public:
  int64_t value = 0;
  String tag;
  static constexpr bool _type_mutable = true;
  FFI_DECLARE_OBJECT_INFO_FINAL("testing.TestFrozenCxx", TestFrozenCxxObj, Object);
};

// Only an explicit constructor: the creator cannot default-construct it.
class TestNonCopyable : public Object {
 public:
  int64_t value;
  explicit TestNonCopyable(int64_t value) : value(value) {}
  TestNonCopyable(const TestNonCopyable&) = delete;
  TestNonCopyable& operator=(const TestNonCopyable&) = delete;
  FFI_DECLARE_OBJECT_INFO("testing.TestNonCopyable", TestNonCopyable, Object);
};

// Registered in C++ and never on the Python side: they arrive as the nearest registered class.
class TestUnregisteredBaseObject : public Object {
 public:
  int64_t v1;
  explicit TestUnregisteredBaseObject(int64_t v1) : v1(v1) {}
  int64_t GetV1PlusOne() const { return v1 + 1; }
  FFI_DECLARE_OBJECT_INFO("testing.TestUnregisteredBaseObject", TestUnregisteredBaseObject, Object);
};

class TestUnregisteredObject : public TestUnregisteredBaseObject {
 public:
  int64_t v2;
  TestUnregisteredObject(int64_t v1, int64_t v2) : TestUnregisteredBaseObject(v1), v2(v2) {}
  int64_t GetV2PlusTwo() const { return v2 + 2; }
  FFI_DECLARE_OBJECT_INFO("testing.TestUnregisteredObject", TestUnregisteredObject,
                          TestUnregisteredBaseObject);
};

// Any and ObjectRef fields, for deep copy's edge cases.
class TestDeepCopyEdgesObj : public Object {
 public:
  Any v_any;
  ObjectRef v_obj;
  static constexpr bool _type_mutable = true;
  FFI_DECLARE_OBJECT_INFO("testing.TestDeepCopyEdges", TestDeepCopyEdgesObj, Object);
};

// ---- Dataclass-style types (@c_class): a three-level hierarchy and layout oddities -------------

class TestCxxClassBase : public Object {
 public:
  int64_t v_i64 = 0;
  int32_t v_i32 = 0;
  static constexpr bool _type_mutable = true;
  FFI_DECLARE_OBJECT_INFO("testing.TestCxxClassBase", TestCxxClassBase, Object);
};

class TestCxxClassDerived : public TestCxxClassBase {
 public:
  double v_f64 = 0.0;
  float v_f32 = 0.0f;
  FFI_DECLARE_OBJECT_INFO("testing.TestCxxClassDerived", TestCxxClassDerived, TestCxxClassBase);
};

class TestCxxClassDerivedDerived : public TestCxxClassDerived {
 public:
  String v_str;
  bool v_bool = false;
  FFI_DECLARE_OBJECT_INFO("testing.TestCxxClassDerivedDerived", TestCxxClassDerivedDerived,
                          TestCxxClassDerived);
};

// A member between the reflected ones that reflection does not know about.
class TestCxxClassHiddenField : public Object {
 public:
  int64_t v_i64 = 0;
  int64_t hidden_i64 = 0;
  int32_t v_i32 = 0;
  static constexpr bool _type_mutable = true;
  FFI_DECLARE_OBJECT_INFO_FINAL("testing.TestCxxClassHiddenField", TestCxxClassHiddenField, Object);
};

// A vtable before the fields.
class TestCxxClassPolymorphic : public Object {
 public:
  int64_t v_i64 = 0;
  virtual ~TestCxxClassPolymorphic() = default;
  static constexpr bool _type_mutable = true;
  FFI_DECLARE_OBJECT_INFO_FINAL("testing.TestCxxClassPolymorphic", TestCxxClassPolymorphic, Object);
};

// ---- Enums -------------------------------------------------------------------------------------

class TestEnumVariantObj : public EnumObj {
 public:
  FFI_DECLARE_OBJECT_INFO_FINAL("testing.TestEnumVariant", TestEnumVariantObj, EnumObj);
};

class TestEnumVariant : public Enum {
 public:
  FFI_DEFINE_NOTNULLABLE_OBJECT_REF_METHODS(TestEnumVariant, Enum, TestEnumVariantObj);
};

// Entries are defined from Python (IntEnum/StrEnum subclasses with this type key).
class TestCxxIntEnumObj : public IntEnumObj {
 public:
  static constexpr bool _type_mutable = true;
  FFI_DECLARE_OBJECT_INFO_FINAL("testing.TestCxxIntEnum", TestCxxIntEnumObj, IntEnumObj);
};

class TestCxxIntEnum : public IntEnum {
 public:
  FFI_DEFINE_NOTNULLABLE_OBJECT_REF_METHODS(TestCxxIntEnum, IntEnum, TestCxxIntEnumObj);
};

class TestCxxStrEnumObj : public StrEnumObj {
 public:
  static constexpr bool _type_mutable = true;
  FFI_DECLARE_OBJECT_INFO_FINAL("testing.TestCxxStrEnum", TestCxxStrEnumObj, StrEnumObj);
};

class TestCxxStrEnum : public StrEnum {
 public:
  FFI_DEFINE_NOTNULLABLE_OBJECT_REF_METHODS(TestCxxStrEnum, StrEnum, TestCxxStrEnumObj);
};

class TestCxxEnumHolderObj : public Object {
 public:
  TestCxxIntEnum priority;
  TestCxxStrEnum opcode;
  explicit TestCxxEnumHolderObj(UnsafeInit) : priority(UnsafeInit{}), opcode(UnsafeInit{}) {}
  static constexpr bool _type_mutable = true;
  FFI_DECLARE_OBJECT_INFO("testing.TestCxxEnumHolder", TestCxxEnumHolderObj, Object);
};

// ---- Auto-generated constructors: which fields __ffi_init__ takes, and how ----------------------

/*! \brief Declares a mutable object type `Name` with int64 fields, registered as `testing.Key`. */
#define FFI_TESTING_INT_OBJECT(Name, Key, Parent, ...)      \
  class Name : public Parent {                              \
   public:                                                  \
    int64_t __VA_ARGS__;                                    \
    static constexpr bool _type_mutable = true;             \
    static constexpr uint32_t _type_child_slots = 1;        \
    FFI_DECLARE_OBJECT_INFO("testing." #Key, Name, Parent); \
  }

class TestCxxInitSubsetObj : public Object {
 public:
  int64_t required_field = 0;
  int64_t optional_field = -1;
  String note;
  static constexpr bool _type_mutable = true;
  FFI_DECLARE_OBJECT_INFO("testing.TestCxxInitSubset", TestCxxInitSubsetObj, Object);
};

FFI_TESTING_INT_OBJECT(TestCxxKwOnly, TestCxxKwOnly, Object, x = 0, y = 0, z = 0, w = 0);
FFI_TESTING_INT_OBJECT(TestCxxAutoInitObj, TestCxxAutoInit, Object, a = 0, b = 0, c = 0, d = 0);
FFI_TESTING_INT_OBJECT(TestCxxAutoInitSimpleObj, TestCxxAutoInitSimple, Object, x = 0, y = 0);
// z has no reflected default: an auto-init leaves the creator's value (1234).
FFI_TESTING_INT_OBJECT(TestCxxAutoInitAllInitOffObj, TestCxxAutoInitAllInitOff, Object, x = 7,
                       y = 0, z = 1234);
FFI_TESTING_INT_OBJECT(TestCxxAutoInitKwOnlyDefaultsObj, TestCxxAutoInitKwOnlyDefaults, Object,
                       p_required = 0, p_default = 0, k_required = 0, k_default = 0, hidden = 0);
FFI_TESTING_INT_OBJECT(TestCxxAutoInitParentObj, TestCxxAutoInitParent, Object, parent_required = 0,
                       parent_default = 0);
FFI_TESTING_INT_OBJECT(TestCxxAutoInitChildObj, TestCxxAutoInitChild, TestCxxAutoInitParentObj,
                       child_required = 0, child_kw_only = 0);
FFI_TESTING_INT_OBJECT(TestCxxNoAutoInitObj, TestCxxNoAutoInit, Object, x = 0, y = 0);
#undef FFI_TESTING_INT_OBJECT

// ---- Comparison and hashing: field traits and type hooks ----------------------------------------

/*! \brief A final object `testing.Key` with an int64 `key`, a string and (optionally) an int. */
template <typename Self>
class KeyedObject : public Object {
 public:
  int64_t key = 0;
  String label;
  int64_t extra = 0;
  KeyedObject() = default;
  KeyedObject(int64_t key, String label, int64_t extra = 0)
      : key(key), label(std::move(label)), extra(extra) {}
};

#define FFI_TESTING_KEYED_OBJECT(Name, Key)                       \
  class Name : public KeyedObject<Name> {                         \
   public:                                                        \
    using KeyedObject<Name>::KeyedObject;                         \
    FFI_DECLARE_OBJECT_INFO_FINAL("testing." #Key, Name, Object); \
  }

FFI_TESTING_KEYED_OBJECT(TestCompareObj, TestCompare);
FFI_TESTING_KEYED_OBJECT(TestHashObj, TestHash);
FFI_TESTING_KEYED_OBJECT(TestCustomHashObj, TestCustomHash);
FFI_TESTING_KEYED_OBJECT(TestCustomCompareObj, TestCustomCompare);
FFI_TESTING_KEYED_OBJECT(TestEqWithoutHashObj, TestEqWithoutHash);
#undef FFI_TESTING_KEYED_OBJECT

/*! \brief `key` alone decides equality, order and hash, through the callbacks the hooks get. */
template <typename T>
int64_t HashKey(const Object* self, const Function& hash) {
  int64_t key = static_cast<const T*>(self)->key;
  return hash(key).cast<int64_t>();
}
template <typename T>
bool EqKey(const Object* lhs, const Object* rhs, const Function& eq) {
  int64_t a = static_cast<const T*>(lhs)->key, b = static_cast<const T*>(rhs)->key;
  return eq(a, b).cast<bool>();
}
template <typename T>
int32_t CompareKey(const Object* lhs, const Object* rhs, const Function& compare) {
  int64_t a = static_cast<const T*>(lhs)->key, b = static_cast<const T*>(rhs)->key;
  return compare(a, b).cast<int32_t>();
}

// ---- Structural visiting: def regions from field flags and from a type's own visit hook --------

class TestVisitRegionsObj : public Object {
 public:
  int64_t simple = 1;
  int64_t pattern = 2;
  int64_t ordinary = 3;
  FFI_DECLARE_OBJECT_INFO_FINAL("testing.TestVisitRegions", TestVisitRegionsObj, Object);
};

class TestVisitHookObj : public Object {
 public:
  ObjectRef child;
  explicit TestVisitHookObj(ObjectRef child) : child(std::move(child)) {}
  FFI_DECLARE_OBJECT_INFO_FINAL("testing.TestVisitHook", TestVisitHookObj, Object);
};

/*! \brief Visits the child inside a simple def region, then the value 4 after the region ends. */
Optional<VisitInterrupt> VisitHook(StructuralVisitorObj* visitor, AnyView value) {
  const auto* self = value.as_or_throw<const TestVisitHookObj*>();
  Optional<VisitInterrupt> stop = visitor->WithDefRegionKind(
      kTVMFFIDefRegionKindSimple, [&] { return visitor->Visit(self->child); });
  if (stop.has_value()) return stop;
  return visitor->Visit(int64_t{4});
}

FFI_STATIC_INIT_BLOCK() {
  refl::ObjectDef<TestObjectBase>()
      .def_rw("v_i64", &TestObjectBase::v_i64, refl::default_value(10), "i64 field")
      .def_ro("v_f64", &TestObjectBase::v_f64, refl::default_value(10.0))
      .def_rw("v_str", &TestObjectBase::v_str, refl::default_value("hello"))
      .def("add_i64", &TestObjectBase::AddI64, "add_i64 method");
  refl::ObjectDef<TestObjectDerived>()
      .def_rw("v_map", &TestObjectDerived::v_map)
      .def_rw("v_array", &TestObjectDerived::v_array);
  refl::ObjectDef<TestObjectPtrHolder>()
      .def_rw("value", &TestObjectPtrHolder::value)
      .def_rw("optional_value", &TestObjectPtrHolder::optional_value, refl::default_value(nullptr));
  refl::ObjectDef<TestIntPairObj>()
      .def(refl::init<int64_t, int64_t>())
      .def_ro("a", &TestIntPairObj::a, "Field `a`")
      .def_ro("b", &TestIntPairObj::b, "Field `b`")
      .def("sum", &TestIntPair::Sum, "Method to compute sum of a and b");
  refl::ObjectDef<TestFrozenCxxObj>()
      .def_rw("value", &TestFrozenCxxObj::value)
      .def_rw("tag", &TestFrozenCxxObj::tag);
  refl::ObjectDef<TestNonCopyable>()
      .def(refl::init<int64_t>())
      .def_ro("value", &TestNonCopyable::value);
  refl::ObjectDef<TestUnregisteredBaseObject>()
      .def(refl::init<int64_t>(), "Constructor of TestUnregisteredBaseObject")
      .def_ro("v1", &TestUnregisteredBaseObject::v1)
      .def("get_v1_plus_one", &TestUnregisteredBaseObject::GetV1PlusOne,
           "Get (v1 + 1) from TestUnregisteredBaseObject");
  refl::ObjectDef<TestUnregisteredObject>()
      .def(refl::init<int64_t, int64_t>(), "Constructor of TestUnregisteredObject")
      .def_ro("v2", &TestUnregisteredObject::v2)
      .def("get_v2_plus_two", &TestUnregisteredObject::GetV2PlusTwo,
           "Get (v2 + 2) from TestUnregisteredObject");
  refl::ObjectDef<TestDeepCopyEdgesObj>()
      .def_rw("v_any", &TestDeepCopyEdgesObj::v_any)
      .def_rw("v_obj", &TestDeepCopyEdgesObj::v_obj);

  refl::ObjectDef<TestCxxClassBase>()
      .def_rw("v_i64", &TestCxxClassBase::v_i64, refl::repr(false))
      .def_rw("v_i32", &TestCxxClassBase::v_i32, refl::repr(false));
  refl::ObjectDef<TestCxxClassDerived>()
      .def_rw("v_f64", &TestCxxClassDerived::v_f64)
      .def_rw("v_f32", &TestCxxClassDerived::v_f32, refl::default_value(8.0f));
  refl::ObjectDef<TestCxxClassDerivedDerived>()
      .def_rw("v_str", &TestCxxClassDerivedDerived::v_str, refl::default_value(String("default")))
      .def_rw("v_bool", &TestCxxClassDerivedDerived::v_bool);
  refl::ObjectDef<TestCxxClassHiddenField>()
      .def_rw("v_i64", &TestCxxClassHiddenField::v_i64)
      .def_rw("v_i32", &TestCxxClassHiddenField::v_i32);
  refl::ObjectDef<TestCxxClassPolymorphic>().def_rw("v_i64", &TestCxxClassPolymorphic::v_i64);

  refl::ObjectDef<TestEnumVariantObj>(refl::init(false));
  refl::TypeAttrDef<TestEnumVariantObj>().def_convert<TestEnumVariant>();
  refl::EnumDef<TestEnumVariantObj>("Alpha").set_attr("code", int64_t{10});
  refl::EnumDef<TestEnumVariantObj>("Beta").set_attr("code", int64_t{20});
  refl::ObjectDef<TestCxxIntEnumObj>(refl::init(false)).def_convert<TestCxxIntEnum>();
  refl::ObjectDef<TestCxxStrEnumObj>(refl::init(false)).def_convert<TestCxxStrEnum>();
  refl::ObjectDef<TestCxxEnumHolderObj>()
      .def_rw("priority", &TestCxxEnumHolderObj::priority)
      .def_rw("opcode", &TestCxxEnumHolderObj::opcode);

  refl::ObjectDef<TestCxxInitSubsetObj>()
      .def_rw("required_field", &TestCxxInitSubsetObj::required_field)
      .def_rw("optional_field", &TestCxxInitSubsetObj::optional_field, refl::init(false),
              refl::default_value(int64_t{-1}))
      .def_rw("note", &TestCxxInitSubsetObj::note, refl::init(false),
              refl::default_value(String("default")));
  refl::ObjectDef<TestCxxKwOnly>()
      .def_rw("x", &TestCxxKwOnly::x, refl::kw_only(true))
      .def_rw("y", &TestCxxKwOnly::y, refl::kw_only(true))
      .def_rw("z", &TestCxxKwOnly::z, refl::kw_only(true))
      .def_rw("w", &TestCxxKwOnly::w, refl::kw_only(true), refl::default_value(int64_t{100}));
  refl::ObjectDef<TestCxxAutoInitObj>()
      .def_rw("a", &TestCxxAutoInitObj::a)
      .def_rw("b", &TestCxxAutoInitObj::b, refl::init(false), refl::default_value(int64_t{42}))
      .def_rw("c", &TestCxxAutoInitObj::c, refl::kw_only(true))
      .def_rw("d", &TestCxxAutoInitObj::d, refl::default_value(int64_t{99}));
  refl::ObjectDef<TestCxxAutoInitSimpleObj>()
      .def_rw("x", &TestCxxAutoInitSimpleObj::x)
      .def_rw("y", &TestCxxAutoInitSimpleObj::y);
  refl::ObjectDef<TestCxxAutoInitAllInitOffObj>()
      .def_rw("x", &TestCxxAutoInitAllInitOffObj::x, refl::init(false),
              refl::default_value(int64_t{7}))
      .def_rw("y", &TestCxxAutoInitAllInitOffObj::y, refl::init(false),
              refl::default_value(int64_t{9}))
      .def_rw("z", &TestCxxAutoInitAllInitOffObj::z, refl::init(false));
  refl::ObjectDef<TestCxxAutoInitKwOnlyDefaultsObj>()
      .def_rw("p_required", &TestCxxAutoInitKwOnlyDefaultsObj::p_required)
      .def_rw("p_default", &TestCxxAutoInitKwOnlyDefaultsObj::p_default,
              refl::default_value(int64_t{11}))
      .def_rw("k_required", &TestCxxAutoInitKwOnlyDefaultsObj::k_required, refl::kw_only(true))
      .def_rw("k_default", &TestCxxAutoInitKwOnlyDefaultsObj::k_default, refl::kw_only(true),
              refl::default_value(int64_t{22}))
      .def_rw("hidden", &TestCxxAutoInitKwOnlyDefaultsObj::hidden, refl::init(false),
              refl::default_value(int64_t{33}));
  refl::ObjectDef<TestCxxAutoInitParentObj>()
      .def_rw("parent_required", &TestCxxAutoInitParentObj::parent_required)
      .def_rw("parent_default", &TestCxxAutoInitParentObj::parent_default,
              refl::default_value(int64_t{5}));
  refl::ObjectDef<TestCxxAutoInitChildObj>()
      .def_rw("child_required", &TestCxxAutoInitChildObj::child_required)
      .def_rw("child_kw_only", &TestCxxAutoInitChildObj::child_kw_only, refl::kw_only(true));
  // init(false) on the class: fields and a creator, but no __ffi_init__.
  refl::ObjectDef<TestCxxNoAutoInitObj>(refl::init(false))
      .def_rw("x", &TestCxxNoAutoInitObj::x)
      .def_rw("y", &TestCxxNoAutoInitObj::y);

  refl::ObjectDef<TestCompareObj>()
      .def(refl::init<int64_t, String, int64_t>())
      .def_ro("key", &TestCompareObj::key)
      .def_ro("name", &TestCompareObj::label)
      .def_ro("ignored_field", &TestCompareObj::extra, refl::compare(false));
  refl::ObjectDef<TestHashObj>()
      .def(refl::init<int64_t, String, int64_t>())
      .def_ro("key", &TestHashObj::key)
      .def_ro("name", &TestHashObj::label)
      .def_ro("hash_ignored", &TestHashObj::extra, refl::hash(false));
  refl::ObjectDef<TestCustomHashObj>()
      .def(refl::init<int64_t, String>())
      .def_ro("key", &TestCustomHashObj::key)
      .def_ro("label", &TestCustomHashObj::label);
  refl::ObjectDef<TestCustomCompareObj>()
      .def(refl::init<int64_t, String>())
      .def_ro("key", &TestCustomCompareObj::key)
      .def_ro("label", &TestCustomCompareObj::label);
  refl::ObjectDef<TestEqWithoutHashObj>()
      .def(refl::init<int64_t, String>())
      .def_ro("key", &TestEqWithoutHashObj::key)
      .def_ro("label", &TestEqWithoutHashObj::label);
  // Hooks by hand: TestCustomHash hashes `key` only, TestCustomCompare also compares it only, and
  // TestEqWithoutHash has an equality hook but no hash hook.
  refl::TypeAttrDef<TestCustomHashObj>().def(type_attr::kHash.name, HashKey<TestCustomHashObj>);
  refl::TypeAttrDef<TestCustomCompareObj>()
      .def(type_attr::kHash.name, HashKey<TestCustomCompareObj>)
      .def(type_attr::kEq.name, EqKey<TestCustomCompareObj>)
      .def(type_attr::kCompare.name, CompareKey<TestCustomCompareObj>);
  refl::TypeAttrDef<TestEqWithoutHashObj>().def(type_attr::kEq.name, EqKey<TestEqWithoutHashObj>);

  refl::ObjectDef<TestVisitRegionsObj>()
      .def_ro("simple", &TestVisitRegionsObj::simple, refl::AttachFieldFlag::SEqHashDefSimple())
      .def_ro("pattern", &TestVisitRegionsObj::pattern, refl::AttachFieldFlag::SEqHashDefPattern())
      .def_ro("ordinary", &TestVisitRegionsObj::ordinary);
  refl::ObjectDef<TestVisitHookObj>().def_ro("child", &TestVisitHookObj::child);
  refl::EnsureTypeAttrColumn(type_attr::kStructuralVisit);
  refl::TypeAttrDef<TestVisitHookObj>().attr(type_attr::kStructuralVisit,
                                             FStructuralVisit::FromNative<&VisitHook>());

  refl::GlobalDef()
      .def_method("testing.TestIntPairSum", &TestIntPair::Sum, "Get sum of the pair")
      .def("testing.make_unregistered_object",
           [] { return ObjectRef(make_object<TestUnregisteredObject>(41, 42)); })
      .def("testing.enum_variant_get",
           [](const String& name) -> Enum {
             return EnumObj::_GetByStrIndex<TestEnumVariantObj>(name);
           })
      .def("testing.make_visit_region_graph", [](bool with_hook) -> Any {
        ObjectRef regions(make_object<TestVisitRegionsObj>());
        if (with_hook) return ObjectRef(make_object<TestVisitHookObj>(regions));
        return regions;
      });
}

}  // namespace
}  // namespace testing
}  // namespace ffi
}  // namespace tvm
