// AnyView and Any holding plain values: None, bool, integers, floats, opaque pointers, devices,
// dtypes and borrowed DLTensor pointers; their strict and converting reads and their errors.
// Strings, objects and ownership: test_any.cc.
#include <ffi/ffi.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "testing.h"

namespace {

using namespace ffi_testing;

using ffi::Any;
using ffi::AnyView;

// ---------------------------------------------------------------------------------------------
// POD values
// ---------------------------------------------------------------------------------------------

TEST(AnyPod, NoneByDefault) {
  AnyView v;
  Any a;
  EXPECT_EQ(v.type_index(), kTVMFFINone);
  EXPECT_TRUE(v.is_none());
  EXPECT_EQ(a.type_index(), kTVMFFINone);
  EXPECT_TRUE(a.is_none());
  EXPECT_EQ(a.GetTypeName(), "None");
  EXPECT_EQ(a.raw()->v_int64, 0);
  Any n = nullptr;
  EXPECT_TRUE(n.is_none());
  EXPECT_TRUE(n.as<std::nullptr_t>().has_value());
  EXPECT_FALSE(Any(0).as<std::nullptr_t>().has_value());
}

TEST(AnyPod, Bool) {
  Any t = true;
  Any f = false;
  EXPECT_EQ(t.type_index(), kTVMFFIBool);
  EXPECT_EQ(t.raw()->v_int64, 1);
  EXPECT_EQ(f.raw()->v_int64, 0);
  EXPECT_EQ(t.as<bool>(), std::optional<bool>(true));
  EXPECT_EQ(f.as<bool>(), std::optional<bool>(false));
  EXPECT_EQ(t.GetTypeName(), "bool");
  // bool -> int is a conversion, not a strict match.
  EXPECT_FALSE(t.as<int>().has_value());
  EXPECT_EQ(t.try_cast<int>(), std::optional<int>(1));
  EXPECT_EQ(t.cast<int64_t>(), 1);
  EXPECT_EQ(f.try_cast<double>(), std::optional<double>(0.0));
  AnyView v = true;
  EXPECT_EQ(v.type_index(), kTVMFFIBool);
}

TEST(AnyPod, UnsignedPastInt64IsAnOverflowError) {
  // An Any holds an int64: a larger unsigned value would come back negative, so it is refused.
  uint64_t too_large = static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + 1;
  ffi::Error e = CatchError([&] { Any a = too_large; });
  EXPECT_EQ(e.kind(), "OverflowError");
  EXPECT_NE(e.message().find("is too large to fit in int64_t"), std::string::npos);
  AnyView view;
  EXPECT_EQ(CatchError([&] { view = std::numeric_limits<uint64_t>::max(); }).kind(),
            "OverflowError");
  EXPECT_EQ(view.type_index(), kTVMFFINone);  // left as it was
  auto echo = ffi::Function::FromTyped([](int64_t x) { return static_cast<uint64_t>(x); });
  EXPECT_EQ(CatchError([&] { echo(-1); }).kind(), "OverflowError");  // a result too
}

TEST(AnyPod, IntegerTypes) {
  Any i8 = int8_t{-5};
  Any u8 = uint8_t{250};
  Any i32 = int32_t{-70000};
  Any i64 = int64_t{1} << 40;
  Any u64 = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  Any sz = size_t{123};
  for (const Any* a : {&i8, &u8, &i32, &i64, &u64, &sz}) {
    EXPECT_EQ(a->type_index(), kTVMFFIInt);
    EXPECT_EQ(a->GetTypeName(), "int");
  }
  EXPECT_EQ(i8.raw()->v_int64, -5);
  EXPECT_EQ(u8.raw()->v_int64, 250);
  EXPECT_EQ(i32.as<int32_t>(), std::optional<int32_t>(-70000));
  EXPECT_EQ(i64.as<int64_t>(), std::optional<int64_t>(int64_t{1} << 40));
  EXPECT_EQ(u64.cast<uint64_t>(), static_cast<uint64_t>(std::numeric_limits<int64_t>::max()));
  EXPECT_EQ(sz.cast<size_t>(), 123u);
  EXPECT_EQ(i8.cast<int>(), -5);
  // int -> bool converts (non-zero is true); int -> double converts; neither is strict.
  EXPECT_FALSE(i32.as<bool>().has_value());
  EXPECT_EQ(i32.try_cast<bool>(), std::optional<bool>(true));
  EXPECT_EQ(Any(0).try_cast<bool>(), std::optional<bool>(false));
  EXPECT_FALSE(i32.as<double>().has_value());
  EXPECT_EQ(i32.try_cast<double>(), std::optional<double>(-70000.0));
  EXPECT_DOUBLE_EQ(i64.cast<double>(), 1099511627776.0);
  AnyView v = 17;
  EXPECT_EQ(v.type_index(), kTVMFFIInt);
  EXPECT_EQ(v.raw()->v_int64, 17);
}

TEST(AnyPod, Double) {
  Any d = 2.5;
  Any f = 1.25f;
  EXPECT_EQ(d.type_index(), kTVMFFIFloat);
  EXPECT_EQ(f.type_index(), kTVMFFIFloat);
  EXPECT_EQ(d.raw()->v_float64, 2.5);
  EXPECT_EQ(d.as<double>(), std::optional<double>(2.5));
  EXPECT_EQ(f.as<float>(), std::optional<float>(1.25f));
  EXPECT_EQ(d.GetTypeName(), "float");
  // double -> int is refused, even with try_cast.
  EXPECT_FALSE(d.as<int>().has_value());
  EXPECT_FALSE(d.try_cast<int>().has_value());
  EXPECT_FALSE(d.try_cast<bool>().has_value());
  ffi::Error e = CatchError([&] { d.cast<int>(); });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_EQ(e.message(), "Cannot convert from type `float` to `int`");
}

TEST(AnyPod, OpaquePointer) {
  int target = 0;
  void* p = &target;
  Any a = p;
  AnyView v = p;
  EXPECT_EQ(a.type_index(), kTVMFFIOpaquePtr);
  EXPECT_EQ(v.type_index(), kTVMFFIOpaquePtr);
  EXPECT_EQ(a.as<void*>(), std::optional<void*>(p));
  EXPECT_EQ(v.cast<void*>(), p);
  EXPECT_EQ(a.GetTypeName(), "void*");
  EXPECT_FALSE(a.try_cast<int64_t>().has_value());
  // A null pointer is still a pointer (as the reference stores it); None reads back as a null
  // pointer only through try_cast.
  Any null_ptr = static_cast<void*>(nullptr);
  EXPECT_EQ(null_ptr.type_index(), kTVMFFIOpaquePtr);
  EXPECT_FALSE(null_ptr.is_none());
  EXPECT_EQ(null_ptr.as<void*>(), std::optional<void*>(nullptr));
  std::optional<void*> from_none = Any().try_cast<void*>();
  ASSERT_TRUE(from_none.has_value());
  EXPECT_EQ(*from_none, nullptr);
  EXPECT_EQ(Any().cast<void*>(), nullptr);
  EXPECT_FALSE(Any(1).try_cast<void*>().has_value());
}

TEST(AnyPod, Device) {
  DLDevice dev{kDLCUDA, 3};
  Any a = dev;
  AnyView v = dev;
  EXPECT_EQ(a.type_index(), kTVMFFIDevice);
  EXPECT_EQ(v.type_index(), kTVMFFIDevice);
  DLDevice back = a.cast<DLDevice>();
  EXPECT_EQ(back.device_type, kDLCUDA);
  EXPECT_EQ(back.device_id, 3);
  EXPECT_EQ(a.raw()->v_device.device_id, 3);
  EXPECT_EQ(a.GetTypeName(), "Device");
  EXPECT_FALSE(a.try_cast<DLDataType>().has_value());
  EXPECT_FALSE(Any(1).try_cast<DLDevice>().has_value());
}

TEST(AnyPod, DataType) {
  DLDataType dt{kDLFloat, 16, 4};
  Any a = dt;
  EXPECT_EQ(a.type_index(), kTVMFFIDataType);
  std::optional<DLDataType> back = a.as<DLDataType>();
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->code, kDLFloat);
  EXPECT_EQ(back->bits, 16);
  EXPECT_EQ(back->lanes, 4);
  EXPECT_EQ(a.GetTypeName(), "DataType");
  EXPECT_FALSE(a.try_cast<DLDevice>().has_value());
  ffi::Error e = CatchError([&] { a.cast<int>(); });
  EXPECT_EQ(e.message(), "Cannot convert from type `DataType` to `int`");
}

TEST(AnyPod, DLTensorPointerIsAView) {
  float data[4] = {1, 2, 3, 4};
  int64_t shape[1] = {4};
  DLTensor t{};
  t.data = data;
  t.device = DLDevice{kDLCPU, 0};
  t.ndim = 1;
  t.dtype = DLDataType{kDLFloat, 32, 1};
  t.shape = shape;
  DLTensor* ptr = &t;
  AnyView v = ptr;
  EXPECT_EQ(v.type_index(), kTVMFFIDLTensorPtr);
  EXPECT_EQ(v.raw()->v_ptr, ptr);
  EXPECT_EQ(v.as<DLTensor*>(), std::optional<DLTensor*>(ptr));
  EXPECT_EQ(v.GetTypeName(), "DLTensor*");
  EXPECT_FALSE(v.try_cast<void*>().has_value());
  AnyView null_view = static_cast<DLTensor*>(nullptr);
  EXPECT_TRUE(null_view.is_none());

  // A borrowed tensor cannot become an owned value.
  ffi::Error e = CatchError([&] { Any owned{AnyView(ptr)}; });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_NE(e.message().find("DLTensor*"), std::string::npos) << e.message();
  // Nor through the C API.
  TVMFFIAny out{};
  out.type_index = kTVMFFINone;
  EXPECT_NE(TVMFFIAnyViewToOwnedAny(v.raw(), &out), 0);
  TVMFFIObjectHandle err = nullptr;
  TVMFFIErrorMoveFromRaised(&err);
  ASSERT_NE(err, nullptr);
  TVMFFIErrorCell* cell = TVMFFIErrorGetCellPtr(err);
  EXPECT_EQ(std::string(cell->kind.data, cell->kind.size), "TypeError");
  TVMFFIObjectDecRef(err);
}

}  // namespace
