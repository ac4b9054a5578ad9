// The later C ABI entry points, called through the C ABI only: unsafe tensor views, the custom
// object allocator, big integers and system-library symbols, each with its invalid inputs.
#include <ffi/c_api.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace {

// The layouts the reference declares for these entry points.
static_assert(kTVMFFIBigInt == 78);
static_assert(sizeof(TVMFFIObjectAllocHeader) == 8);
static_assert(sizeof(TVMFFICustomAllocator) == 16);
static_assert(offsetof(TVMFFICustomAllocator, allocate) == 0);
static_assert(offsetof(TVMFFICustomAllocator, context) == 8);

/*! \brief The strong reference count of an object. */
uint64_t StrongCount(TVMFFIObjectHandle obj) {
  return static_cast<TVMFFIObject*>(obj)->combined_ref_count & 0xffffffffu;
}

/*! \brief Takes the raised error and returns its kind ("" when none was raised). */
std::string TakeErrorKind() {
  TVMFFIObjectHandle err = nullptr;
  TVMFFIErrorMoveFromRaised(&err);
  if (err == nullptr) return "";
  const TVMFFIByteArray& kind = TVMFFIErrorGetCellPtr(err)->kind;
  std::string out(kind.data, kind.size);
  TVMFFIObjectDecRef(err);
  return out;
}

/*! \brief A 2x3 float32 CPU tensor from the environment allocator, filled with 0..5. */
TVMFFIObjectHandle MakeBase() {
  int64_t shape[2] = {2, 3};
  DLTensor proto{};
  proto.ndim = 2;
  proto.shape = shape;
  proto.dtype = DLDataType{kDLFloat, 32, 1};
  proto.device = DLDevice{kDLCPU, 0};
  TVMFFIObjectHandle t = nullptr;
  EXPECT_EQ(TVMFFIEnvTensorAlloc(&proto, &t), 0);
  float* data = static_cast<float*>(TVMFFITensorGetDLTensorPtr(t)->data);
  for (int i = 0; i < 6; ++i) data[i] = static_cast<float>(i);
  return t;
}

// ---- TVMFFITensorCreateUnsafeView ----

TEST(UnsafeView, SharesDataAndKeepsTheBaseAlive) {
  TVMFFIObjectHandle base = MakeBase();
  DLTensor* b = TVMFFITensorGetDLTensorPtr(base);
  // Column 1 of the 2x3 tensor: shape {2}, stride 3, starting one element in.
  int64_t shape[1] = {2};
  int64_t strides[1] = {3};
  DLTensor proto = *b;
  proto.ndim = 1;
  proto.shape = shape;
  proto.strides = strides;
  proto.byte_offset = sizeof(float);
  TVMFFIObjectHandle view = nullptr;
  ASSERT_EQ(TVMFFITensorCreateUnsafeView(base, &proto, &view), 0);
  EXPECT_EQ(TVMFFIObjectGetTypeIndex(view), kTVMFFITensor);
  EXPECT_EQ(StrongCount(view), 1u);
  EXPECT_EQ(StrongCount(base), 2u);  // ours and the view's
  DLTensor* v = TVMFFITensorGetDLTensorPtr(view);
  EXPECT_EQ(v->data, b->data);
  EXPECT_EQ(v->byte_offset, sizeof(float));
  ASSERT_EQ(v->ndim, 1);
  EXPECT_EQ(v->shape[0], 2);
  EXPECT_EQ(v->strides[0], 3);
  // The view copied the arrays: changing the prototype's afterwards does not change it.
  shape[0] = 99;
  strides[0] = 99;
  EXPECT_EQ(v->shape[0], 2);
  EXPECT_EQ(v->strides[0], 3);
  // Writes through the view land in the base.
  float* first = reinterpret_cast<float*>(static_cast<char*>(v->data) + v->byte_offset);
  first[v->strides[0]] = 42.0f;
  EXPECT_EQ(static_cast<float*>(b->data)[4], 42.0f);
  // Dropping our reference leaves the base alive through the view (ASan checks the reads).
  ASSERT_EQ(TVMFFIObjectDecRef(base), 0);
  EXPECT_EQ(StrongCount(base), 1u);
  EXPECT_EQ(first[0], 1.0f);
  EXPECT_EQ(first[3], 42.0f);
  ASSERT_EQ(TVMFFIObjectDecRef(view), 0);
}

TEST(UnsafeView, NullStridesMeanCompact) {
  TVMFFIObjectHandle base = MakeBase();
  int64_t shape[3] = {3, 1, 2};
  DLTensor proto = *TVMFFITensorGetDLTensorPtr(base);
  proto.ndim = 3;
  proto.shape = shape;
  proto.strides = nullptr;
  TVMFFIObjectHandle view = nullptr;
  ASSERT_EQ(TVMFFITensorCreateUnsafeView(base, &proto, &view), 0);
  DLTensor* v = TVMFFITensorGetDLTensorPtr(view);
  ASSERT_NE(v->strides, nullptr);
  EXPECT_EQ(v->strides[0], 2);
  EXPECT_EQ(v->strides[1], 2);
  EXPECT_EQ(v->strides[2], 1);
  // A view of a view keeps the chain alive.
  TVMFFIObjectHandle view2 = nullptr;
  ASSERT_EQ(TVMFFITensorCreateUnsafeView(view, &proto, &view2), 0);
  EXPECT_EQ(StrongCount(view), 2u);
  TVMFFIObjectDecRef(base);
  TVMFFIObjectDecRef(view);
  EXPECT_EQ(static_cast<float*>(TVMFFITensorGetDLTensorPtr(view2)->data)[5], 5.0f);
  TVMFFIObjectDecRef(view2);
}

TEST(UnsafeView, RefusesInvalidInput) {
  TVMFFIObjectHandle base = MakeBase();
  DLTensor proto = *TVMFFITensorGetDLTensorPtr(base);
  TVMFFIObjectHandle view = reinterpret_cast<TVMFFIObjectHandle>(0x1);
  EXPECT_NE(TVMFFITensorCreateUnsafeView(base, nullptr, &view), 0);
  EXPECT_EQ(TakeErrorKind(), "ValueError");
  EXPECT_NE(TVMFFITensorCreateUnsafeView(base, &proto, nullptr), 0);
  EXPECT_EQ(TakeErrorKind(), "ValueError");
  EXPECT_NE(TVMFFITensorCreateUnsafeView(nullptr, &proto, &view), 0);
  EXPECT_EQ(TakeErrorKind(), "TypeError");
  // A source that is an object but not a tensor.
  TVMFFIAny str{};
  TVMFFIByteArray text{"a string long enough for an object", 34};
  ASSERT_EQ(TVMFFIStringFromByteArray(&text, &str), 0);
  ASSERT_EQ(str.type_index, kTVMFFIStr);
  EXPECT_NE(TVMFFITensorCreateUnsafeView(str.v_obj, &proto, &view), 0);
  EXPECT_EQ(TakeErrorKind(), "TypeError");
  TVMFFIObjectDecRef(str.v_obj);
  // Malformed prototypes.
  DLTensor bad = proto;
  bad.ndim = -1;
  EXPECT_NE(TVMFFITensorCreateUnsafeView(base, &bad, &view), 0);
  EXPECT_EQ(TakeErrorKind(), "ValueError");
  bad = proto;
  bad.shape = nullptr;
  EXPECT_NE(TVMFFITensorCreateUnsafeView(base, &bad, &view), 0);
  EXPECT_EQ(TakeErrorKind(), "ValueError");
  int64_t negative[2] = {2, -3};
  bad = proto;
  bad.shape = negative;
  EXPECT_NE(TVMFFITensorCreateUnsafeView(base, &bad, &view), 0);
  EXPECT_EQ(TakeErrorKind(), "ValueError");
  int64_t huge[2] = {INT64_MAX / 2, 4};
  bad = proto;
  bad.shape = huge;
  bad.strides = nullptr;
  EXPECT_NE(TVMFFITensorCreateUnsafeView(base, &bad, &view), 0);
  EXPECT_EQ(TakeErrorKind(), "OverflowError");
  int64_t wide_strides[2] = {INT64_MAX / 2, 1};
  bad = proto;
  bad.strides = wide_strides;
  EXPECT_NE(TVMFFITensorCreateUnsafeView(base, &bad, &view), 0);
  EXPECT_EQ(TakeErrorKind(), "OverflowError");
  // Nothing was written to `out` and the base is untouched.
  EXPECT_EQ(view, reinterpret_cast<TVMFFIObjectHandle>(0x1));
  EXPECT_EQ(StrongCount(base), 1u);
  TVMFFIObjectDecRef(base);
}

// ---- TVMFFIGetCustomAllocator / TVMFFISetCustomAllocator ----

/*! \brief The built-in allocator, saved before the test installs its own (which delegates to it).
 */
TVMFFICustomAllocator* saved_builtin = nullptr;

/*! \brief What the counting allocator saw. */
struct CountingContext {
  int calls = 0;
  int32_t last_type_index = -1;
};

void* CountingAllocate(size_t size, size_t alignment, int32_t type_index, void* context) {
  auto* ctx = static_cast<CountingContext*>(context);
  ++ctx->calls;
  ctx->last_type_index = type_index;
  return saved_builtin->allocate(size, alignment, type_index, saved_builtin->context);
}

TEST(CustomAllocator, BuiltinAllocatesWithHeader) {
  TVMFFICustomAllocator* builtin = TVMFFIGetCustomAllocator();
  ASSERT_NE(builtin, nullptr);
  ASSERT_NE(builtin->allocate, nullptr);
  for (size_t alignment : {size_t{1}, size_t{8}, size_t{16}, size_t{64}, size_t{256}}) {
    void* body = builtin->allocate(40, alignment, kTVMFFIObject, builtin->context);
    ASSERT_NE(body, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(body) % alignment, 0u);
    std::memset(body, 0xab, 40);  // the whole body is writable (ASan checks)
    auto* header = reinterpret_cast<TVMFFIObjectAllocHeader*>(body) - 1;
    ASSERT_NE(header->delete_space, nullptr);
    header->delete_space(body);  // frees the whole allocation (ASan reports a leak otherwise)
  }
  // Invalid requests fail with a raised error and NULL.
  EXPECT_EQ(builtin->allocate(8, 3, kTVMFFIObject, builtin->context), nullptr);
  EXPECT_EQ(TakeErrorKind(), "ValueError");
  EXPECT_EQ(builtin->allocate(SIZE_MAX - 8, 16, kTVMFFIObject, builtin->context), nullptr);
  EXPECT_EQ(TakeErrorKind(), "MemoryError");
}

TEST(CustomAllocator, SetGetRoundTripAndNullRestoresTheBuiltin) {
  TVMFFICustomAllocator* builtin = TVMFFIGetCustomAllocator();
  saved_builtin = builtin;
  CountingContext ctx;
  TVMFFICustomAllocator mine{CountingAllocate, &ctx};
  ASSERT_EQ(TVMFFISetCustomAllocator(&mine), 0);
  TVMFFICustomAllocator* got = TVMFFIGetCustomAllocator();
  EXPECT_EQ(got, &mine);
  // Whoever allocates through the installed allocator reaches ours, with our context.
  void* body = got->allocate(24, 8, kTVMFFIStr, got->context);
  ASSERT_NE(body, nullptr);
  EXPECT_EQ(ctx.calls, 1);
  EXPECT_EQ(ctx.last_type_index, kTVMFFIStr);
  (reinterpret_cast<TVMFFIObjectAllocHeader*>(body) - 1)->delete_space(body);
  // The runtime's own objects are not allocated through it (as in the reference runtime): making
  // strings, tensors and big integers leaves the count unchanged.
  TVMFFIAny str{};
  TVMFFIByteArray text{"a string long enough for an object", 34};
  ASSERT_EQ(TVMFFIStringFromByteArray(&text, &str), 0);
  TVMFFIObjectHandle tensor = MakeBase();
  int64_t words[2] = {0, 1};
  TVMFFIByteArray bytes{reinterpret_cast<const char*>(words), sizeof(words)};
  TVMFFIAny big{};
  ASSERT_EQ(TVMFFIBigIntFromByteArray(&bytes, &big), 0);
  EXPECT_EQ(ctx.calls, 1);
  TVMFFIObjectDecRef(str.v_obj);
  TVMFFIObjectDecRef(tensor);
  TVMFFIObjectDecRef(big.v_obj);
  // NULL restores the built-in allocator, the very same one.
  ASSERT_EQ(TVMFFISetCustomAllocator(nullptr), 0);
  EXPECT_EQ(TVMFFIGetCustomAllocator(), builtin);
}

// ---- TVMFFIBigIntFromByteArray / TVMFFIBigIntGetContentByteArray ----

/*! \brief Makes an integer from `words` and returns the words it reads back as. */
std::vector<int64_t> RoundTrip(const std::vector<int64_t>& words, int32_t* type_index) {
  TVMFFIByteArray in{reinterpret_cast<const char*>(words.data()), words.size() * sizeof(int64_t)};
  TVMFFIAny value{};
  EXPECT_EQ(TVMFFIBigIntFromByteArray(&in, &value), 0);
  *type_index = value.type_index;
  TVMFFIByteArray content = TVMFFIBigIntGetContentByteArray(&value);
  EXPECT_EQ(content.size % sizeof(int64_t), 0u);
  std::vector<int64_t> out(content.size / sizeof(int64_t));
  if (!out.empty()) std::memcpy(out.data(), content.data, content.size);
  if (value.type_index >= kTVMFFIStaticObjectBegin) {
    EXPECT_EQ(value.type_index, kTVMFFIBigInt);
    EXPECT_EQ(StrongCount(value.v_obj), 1u);
    TVMFFIObjectDecRef(value.v_obj);
  }
  return out;
}

TEST(BigInt, WordsRoundTripMinimally) {
  int32_t tindex = 0;
  // Empty is zero, as a plain int.
  EXPECT_EQ(RoundTrip({}, &tindex), std::vector<int64_t>({0}));
  EXPECT_EQ(tindex, kTVMFFIInt);
  EXPECT_EQ(RoundTrip({-7}, &tindex), std::vector<int64_t>({-7}));
  EXPECT_EQ(tindex, kTVMFFIInt);
  // Redundant sign words are dropped, and what then fits in int64_t is a plain int.
  EXPECT_EQ(RoundTrip({5, 0, 0}, &tindex), std::vector<int64_t>({5}));
  EXPECT_EQ(tindex, kTVMFFIInt);
  EXPECT_EQ(RoundTrip({-5, -1}, &tindex), std::vector<int64_t>({-5}));
  EXPECT_EQ(tindex, kTVMFFIInt);
  EXPECT_EQ(RoundTrip({INT64_MIN, -1, -1}, &tindex), std::vector<int64_t>({INT64_MIN}));
  EXPECT_EQ(tindex, kTVMFFIInt);
  // 2^64 needs two words; 2^63 needs a zero sign guard; -2^64 - 1 needs a -1 guard.
  EXPECT_EQ(RoundTrip({0, 1}, &tindex), std::vector<int64_t>({0, 1}));
  EXPECT_EQ(tindex, kTVMFFIBigInt);
  EXPECT_EQ(RoundTrip({INT64_MIN, 0, 0}, &tindex), std::vector<int64_t>({INT64_MIN, 0}));
  EXPECT_EQ(tindex, kTVMFFIBigInt);
  EXPECT_EQ(RoundTrip({INT64_MAX, -1}, &tindex), std::vector<int64_t>({INT64_MAX, -1}));
  EXPECT_EQ(tindex, kTVMFFIBigInt);
  EXPECT_EQ(RoundTrip({1, 2, 3, -4, -1, -1}, &tindex), std::vector<int64_t>({1, 2, 3, -4}));
  EXPECT_EQ(tindex, kTVMFFIBigInt);
  std::vector<int64_t> many(100, 0x1234);
  EXPECT_EQ(RoundTrip(many, &tindex), many);
  EXPECT_EQ(tindex, kTVMFFIBigInt);
}

TEST(BigInt, LayoutIsWordCountThenWords) {
  int64_t words[3] = {1, 2, 3};
  TVMFFIByteArray in{reinterpret_cast<const char*>(words), sizeof(words)};
  TVMFFIAny value{};
  ASSERT_EQ(TVMFFIBigIntFromByteArray(&in, &value), 0);
  ASSERT_EQ(value.type_index, kTVMFFIBigInt);
  EXPECT_EQ(value.v_obj->type_index, kTVMFFIBigInt);
  const char* body = reinterpret_cast<const char*>(value.v_obj) + sizeof(TVMFFIObject);
  size_t count = 0;
  std::memcpy(&count, body, sizeof(count));
  EXPECT_EQ(count, 3u);
  TVMFFIByteArray content = TVMFFIBigIntGetContentByteArray(&value);
  EXPECT_EQ(content.data, body + sizeof(size_t));
  TVMFFIObjectDecRef(value.v_obj);
}

TEST(BigInt, RefusesInvalidInput) {
  int64_t word = 1;
  TVMFFIByteArray odd{reinterpret_cast<const char*>(&word), 5};
  TVMFFIAny out{};
  out.type_index = kTVMFFIFloat;
  EXPECT_NE(TVMFFIBigIntFromByteArray(&odd, &out), 0);
  EXPECT_EQ(TakeErrorKind(), "ValueError");
  EXPECT_EQ(out.type_index, kTVMFFINone);  // no half-made value
  EXPECT_NE(TVMFFIBigIntFromByteArray(nullptr, &out), 0);
  EXPECT_EQ(TakeErrorKind(), "ValueError");
  TVMFFIByteArray ok{reinterpret_cast<const char*>(&word), 8};
  EXPECT_NE(TVMFFIBigIntFromByteArray(&ok, nullptr), 0);
  EXPECT_EQ(TakeErrorKind(), "ValueError");
  TVMFFIByteArray null_data{nullptr, 16};
  EXPECT_NE(TVMFFIBigIntFromByteArray(&null_data, &out), 0);
  EXPECT_EQ(TakeErrorKind(), "ValueError");
  // Viewing anything but an integer gives an empty view and a TypeError.
  TVMFFIByteArray none = TVMFFIBigIntGetContentByteArray(nullptr);
  EXPECT_EQ(none.data, nullptr);
  EXPECT_EQ(none.size, 0u);
  EXPECT_EQ(TakeErrorKind(), "TypeError");
  TVMFFIAny f{};
  f.type_index = kTVMFFIFloat;
  f.v_float64 = 1.5;
  EXPECT_EQ(TVMFFIBigIntGetContentByteArray(&f).size, 0u);
  EXPECT_EQ(TakeErrorKind(), "TypeError");
}

// ---- TVMFFIEnvModRegisterSystemLibSymbol and ffi.SystemLib, through the C API ----

int AddOne(void*, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  if (num_args != 1 || args[0].type_index != kTVMFFIInt) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "add_one takes one int");
    return -1;
  }
  result->type_index = kTVMFFIInt;
  result->v_int64 = args[0].v_int64 + 1;
  return 0;
}

int Times2(void*, const TVMFFIAny* args, int32_t, TVMFFIAny* result) {
  result->type_index = kTVMFFIInt;
  result->v_int64 = args[0].v_int64 * 2;
  return 0;
}

/*! \brief Calls the global function `name` with `args`; returns the result. */
TVMFFIAny CallGlobal(const std::string& name, std::vector<TVMFFIAny> args) {
  TVMFFIByteArray gname{name.data(), name.size()};
  TVMFFIObjectHandle fn = nullptr;
  EXPECT_EQ(TVMFFIFunctionGetGlobal(&gname, &fn), 0);
  TVMFFIAny result{};
  if (fn == nullptr) return result;
  EXPECT_EQ(TVMFFIFunctionCall(fn, args.data(), static_cast<int32_t>(args.size()), &result), 0);
  TVMFFIObjectDecRef(fn);
  return result;
}

/*!
 * \brief ffi.ModuleGetFunction(ffi.SystemLib(prefix), name): the Function handle, or NULL for
 * None.
 */
TVMFFIObjectHandle LookUp(const char* prefix, const char* name) {
  TVMFFIAny arg{};
  arg.type_index = kTVMFFIRawStr;
  arg.v_c_str = prefix;
  TVMFFIAny mod = CallGlobal("ffi.SystemLib", {arg});
  EXPECT_EQ(mod.type_index, kTVMFFIModule);
  if (mod.type_index != kTVMFFIModule) return nullptr;
  TVMFFIAny args[3]{};
  args[0] = mod;
  args[1].type_index = kTVMFFIRawStr;
  args[1].v_c_str = name;
  args[2].type_index = kTVMFFIBool;
  TVMFFIAny result = CallGlobal("ffi.ModuleGetFunction", {args[0], args[1], args[2]});
  TVMFFIObjectDecRef(mod.v_obj);
  if (result.type_index == kTVMFFINone) return nullptr;
  EXPECT_EQ(result.type_index, kTVMFFIFunction);
  return result.v_obj;
}

int64_t CallInt(TVMFFIObjectHandle fn, int64_t x) {
  TVMFFIAny arg{};
  arg.type_index = kTVMFFIInt;
  arg.v_int64 = x;
  TVMFFIAny result{};
  EXPECT_EQ(TVMFFIFunctionCall(fn, &arg, 1, &result), 0);
  EXPECT_EQ(result.type_index, kTVMFFIInt);
  return result.v_int64;
}

TEST(SystemLib, RegisterAndLookUpWithPrefixFallback) {
  ASSERT_EQ(TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi_abi_extra.add_one",
                                                reinterpret_cast<void*>(AddOne)),
            0);
  ASSERT_EQ(TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi_abi_extra_plain",
                                                reinterpret_cast<void*>(Times2)),
            0);
  TVMFFIObjectHandle f = LookUp("abi_extra.", "add_one");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(CallInt(f, 10), 11);
  TVMFFIObjectDecRef(f);
  // Without the prefix it is found by its full name; a prefixed miss falls back to the bare name.
  f = LookUp("", "abi_extra.add_one");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(CallInt(f, 1), 2);
  TVMFFIObjectDecRef(f);
  f = LookUp("other.", "abi_extra_plain");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(CallInt(f, 21), 42);
  TVMFFIObjectDecRef(f);
  EXPECT_EQ(LookUp("abi_extra.", "missing"), nullptr);
  // Registering a name again replaces the address.
  ASSERT_EQ(TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi_abi_extra.add_one",
                                                reinterpret_cast<void*>(Times2)),
            0);
  f = LookUp("abi_extra.", "add_one");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(CallInt(f, 10), 20);
  TVMFFIObjectDecRef(f);
}

TEST(SystemLib, RefusesNull) {
  EXPECT_NE(TVMFFIEnvModRegisterSystemLibSymbol(nullptr, reinterpret_cast<void*>(AddOne)), 0);
  EXPECT_EQ(TakeErrorKind(), "ValueError");
  EXPECT_NE(TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi_abi_extra.null", nullptr), 0);
  EXPECT_EQ(TakeErrorKind(), "ValueError");
  EXPECT_EQ(LookUp("abi_extra.", "null"), nullptr);
}

}  // namespace
