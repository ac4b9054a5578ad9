// Tensors through Any/AnyView and typed functions (seed 000): an owning Tensor converts to a view
// and back, a borrowed DLTensor* or TensorView only to a view; messages of mismatched arguments.
#include <ffi/ffi.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "testing.h"

namespace {

using namespace ffi_testing;

using ffi::Any;
using ffi::AnyView;
using ffi::Tensor;
using ffi::TensorView;

// ---------------------------------------------------------------------------------------------
// Any / AnyView (seed 000): owning -> view allowed, view -> owning refused
// ---------------------------------------------------------------------------------------------

TEST(TensorAny, DLTensorPointerConvertsToViewOnly) {
  float buf[6] = {1, 2, 3, 4, 5, 6};
  int64_t shape[] = {2, 3};
  DLTensor dl{buf, kCPU, 2, kF32, shape, nullptr, 0};
  AnyView v(&dl);
  EXPECT_EQ(v.type_index(), kTVMFFIDLTensorPtr);
  EXPECT_EQ(v.raw()->v_ptr, &dl);

  std::optional<TensorView> as_view = v.as<TensorView>();
  ASSERT_TRUE(as_view.has_value());
  EXPECT_EQ(as_view->data_ptr(), buf);
  EXPECT_EQ(Vec(as_view->shape()), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(Vec(as_view->strides()), (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(v.cast<TensorView>().numel(), 6);
  EXPECT_EQ(v.cast<DLTensor*>(), &dl);

  EXPECT_FALSE(v.as<Tensor>().has_value());
  EXPECT_FALSE(v.try_cast<Tensor>().has_value());
  ffi::Error e = CatchError([&] { AnyView(&dl).cast<Tensor>(); });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_EQ(e.message(), "Cannot convert from type `DLTensor*` to `Tensor`");
  // Optional<Tensor> does not accept a view either; None does.
  EXPECT_FALSE(v.try_cast<ffi::Optional<Tensor>>().has_value());
  EXPECT_FALSE(AnyView().cast<ffi::Optional<Tensor>>().has_value());

  // A borrowed DLTensor* cannot become an owned Any.
  EXPECT_EQ(CatchError([&] { Any owned(v); }).kind(), "TypeError");
}

TEST(TensorAny, TensorObjectConvertsToViewAndTensor) {
  Counters c;
  Tensor t = Tensor::FromNDAlloc(CountingAlloc{&c}, {2, 3}, kF32, kCPU);
  AnyView v(t);
  EXPECT_EQ(v.type_index(), kTVMFFITensor);
  EXPECT_EQ(v.GetTypeName(), "Tensor");
  EXPECT_EQ(t.use_count(), 1u);  // a view takes no reference

  std::optional<TensorView> view = v.as<TensorView>();
  ASSERT_TRUE(view.has_value());
  EXPECT_EQ(view->data_ptr(), t.data_ptr());
  EXPECT_EQ(Vec(view->shape()), (std::vector<int64_t>{2, 3}));
  // Through the ABI the DLTensor is read right after the 24-byte header.
  EXPECT_EQ(
      v.cast<DLTensor*>(),
      reinterpret_cast<DLTensor*>(reinterpret_cast<char*>(v.raw()->v_obj) + sizeof(TVMFFIObject)));

  {
    Tensor back = v.cast<Tensor>();
    EXPECT_TRUE(back.same_as(t));
    EXPECT_EQ(t.use_count(), 2u);
    std::optional<Tensor> strict = v.as<Tensor>();
    ASSERT_TRUE(strict.has_value());
    EXPECT_EQ(t.use_count(), 3u);
  }
  EXPECT_EQ(t.use_count(), 1u);

  {
    Any owned = t;
    EXPECT_EQ(owned.type_index(), kTVMFFITensor);
    EXPECT_EQ(t.use_count(), 2u);
    Any copy = owned;
    EXPECT_EQ(t.use_count(), 3u);
    EXPECT_TRUE(copy.cast<TensorView>().data_ptr() == t.data_ptr());
    owned.reset();
    EXPECT_EQ(t.use_count(), 2u);
  }
  EXPECT_EQ(t.use_count(), 1u);

  // An owned Any keeps the tensor alive on its own.
  Any holder = std::move(t);
  EXPECT_EQ(c.free, 0);
  holder = Any();
  EXPECT_EQ(c.free, 1);
}

TEST(TensorAny, TensorViewPassesAsBorrowedPointer) {
  Counters c;
  Tensor t = Tensor::FromNDAlloc(CountingAlloc{&c}, {3}, kF32, kCPU);
  TensorView view(t);
  AnyView v(view);
  EXPECT_EQ(v.type_index(), kTVMFFIDLTensorPtr);
  EXPECT_EQ(v.raw()->v_ptr, view.GetDLTensorPtr());
  EXPECT_EQ(v.cast<TensorView>().data_ptr(), t.data_ptr());
  // A view of an owning tensor is still only a view.
  EXPECT_FALSE(v.try_cast<Tensor>().has_value());
  EXPECT_EQ(t.use_count(), 1u);
}

TEST(TensorAny, NullTensorIsNone) {
  Tensor null;
  EXPECT_FALSE(null.defined());
  AnyView v(null);
  EXPECT_TRUE(v.is_none());
  EXPECT_FALSE(v.try_cast<TensorView>().has_value());
  // None is not a Tensor (a kernel taking Tensor could not use it); Optional<Tensor> takes None.
  EXPECT_FALSE(v.try_cast<Tensor>().has_value());
  std::optional<ffi::Optional<Tensor>> opt = v.try_cast<ffi::Optional<Tensor>>();
  ASSERT_TRUE(opt.has_value());
  EXPECT_FALSE(opt->has_value());
}

TEST(TensorAny, OtherValuesAreNotTensors) {
  EXPECT_FALSE(AnyView(1).try_cast<TensorView>().has_value());
  EXPECT_FALSE(AnyView(1).try_cast<Tensor>().has_value());
  ffi::Shape s{1, 2};
  EXPECT_FALSE(AnyView(s).try_cast<TensorView>().has_value());
  EXPECT_FALSE(AnyView(s).try_cast<Tensor>().has_value());
  ffi::Error e = CatchError([&] { AnyView(s).cast<TensorView>(); });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_EQ(e.message(), "Cannot convert from type `ffi.Shape` to `Tensor`");
}

// ---------------------------------------------------------------------------------------------
// Typed functions
// ---------------------------------------------------------------------------------------------

TEST(TensorFunction, ViewAndOptionalTensorArguments) {
  void* seen_data = nullptr;
  bool seen_optional = false;
  void* seen_optional_data = nullptr;
  ffi::Function f = ffi::Function::FromTyped(
      [&](TensorView x, ffi::Optional<Tensor> y) -> int64_t {
        seen_data = x.data_ptr();
        seen_optional = y.has_value();
        seen_optional_data = y.has_value() ? y.value().data_ptr() : nullptr;
        return x.numel();
      },
      "kernel");

  float buf[6] = {};
  int64_t shape[] = {2, 3};
  DLTensor dl{buf, kCPU, 2, kF32, shape, nullptr, 0};
  EXPECT_EQ(f(&dl, nullptr).cast<int64_t>(), 6);
  EXPECT_EQ(seen_data, buf);
  EXPECT_FALSE(seen_optional);

  Counters c;
  Tensor a = Tensor::FromNDAlloc(CountingAlloc{&c}, {4}, kF32, kCPU);
  Tensor b = Tensor::FromNDAlloc(CountingAlloc{&c}, {5}, kF32, kCPU);
  EXPECT_EQ(f(a, b).cast<int64_t>(), 4);
  EXPECT_EQ(seen_data, a.data_ptr());
  EXPECT_TRUE(seen_optional);
  EXPECT_EQ(seen_optional_data, b.data_ptr());
  // The call took no lasting reference.
  EXPECT_EQ(a.use_count(), 1u);
  EXPECT_EQ(b.use_count(), 1u);

  // A TensorView argument and a Tensor in the optional slot.
  TensorView va(a);
  EXPECT_EQ(f(va, b).cast<int64_t>(), 4);
  EXPECT_EQ(seen_data, a.data_ptr());
  EXPECT_EQ(c.free, 0);
}

TEST(TensorFunction, MismatchedArgumentMessages) {
  ffi::Function f = ffi::Function::FromTyped(
      [](TensorView x, ffi::Optional<Tensor>) -> int64_t { return x.numel(); }, "kernel");
  ffi::Error e = CatchError([&] { f(1, nullptr); });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_EQ(e.message(),
            "Mismatched type on argument #0 when calling: `kernel(0: Tensor, 1: Optional<Tensor>) "
            "-> int`. Expected `Tensor` but got `int`");

  // A borrowed DLTensor* is not an owning tensor, so it cannot fill Optional<Tensor>.
  float buf[2] = {};
  int64_t shape[] = {2};
  DLTensor dl{buf, kCPU, 1, kF32, shape, nullptr, 0};
  e = CatchError([&] { f(&dl, &dl); });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_EQ(e.message(),
            "Mismatched type on argument #1 when calling: `kernel(0: Tensor, 1: Optional<Tensor>) "
            "-> int`. Expected `Optional<Tensor>` but got `DLTensor*`");

  auto add_one = ffi::Function::FromTyped([](TensorView, TensorView) {}, "add_one");
  e = CatchError([&] { add_one(&dl, 3); });
  EXPECT_EQ(e.message(),
            "Mismatched type on argument #1 when calling: `add_one(0: Tensor, 1: Tensor) -> void`. "
            "Expected `Tensor` but got `int`");
  e = CatchError([&] { add_one(&dl); });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_NE(e.message().find("Expected 2 but got 1"), std::string::npos) << e.message();
}

TEST(TensorFunction, ReturnedTensorKeepsDataAlive) {
  Counters c;
  ffi::Function make = ffi::Function::FromTyped(
      [&c](int64_t n) { return Tensor::FromNDAlloc(CountingAlloc{&c}, {n}, kF32, kCPU); }, "make");
  Any result = make(8);
  EXPECT_EQ(result.type_index(), kTVMFFITensor);
  EXPECT_EQ(c.alloc, 1);
  EXPECT_EQ(c.free, 0);  // the function's own reference is gone, the result's remains
  Tensor t = result.cast<Tensor>();
  EXPECT_EQ(t.use_count(), 2u);
  result.reset();
  EXPECT_EQ(t.use_count(), 1u);
  EXPECT_EQ(c.free, 0);
  auto* p = static_cast<float*>(t.data_ptr());
  for (int i = 0; i < 8; ++i) p[i] = 1.0f;  // still valid memory
  EXPECT_EQ(t.size(0), 8);
  t = Tensor();
  EXPECT_EQ(c.free, 1);

  // Passing a tensor through a function that returns it: one extra reference, then none.
  ffi::Function identity = ffi::Function::FromTyped([](Tensor x) { return x; }, "identity");
  Tensor u = Tensor::FromNDAlloc(CountingAlloc{&c}, {2}, kF32, kCPU);
  {
    Any r = identity(u);
    EXPECT_EQ(u.use_count(), 2u);
    EXPECT_TRUE(r.cast<Tensor>().same_as(u));
  }
  EXPECT_EQ(u.use_count(), 1u);
  // Returning a view-derived value as a tensor is impossible: the function gets a DLTensor*.
  float buf[2] = {};
  int64_t shape[] = {2};
  DLTensor dl{buf, kCPU, 1, kF32, shape, nullptr, 0};
  EXPECT_EQ(CatchError([&] { identity(&dl); }).kind(), "TypeError");
}

}  // namespace
