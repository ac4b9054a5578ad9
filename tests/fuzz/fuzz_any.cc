/*
 * tests/fuzz/fuzz_any.cc - libFuzzer target for value conversion through TVMFFIAny.
 *
 * Each input is a list of steps. A step builds a value whose payload is never a wild pointer (POD
 * values with any bits, small strings, borrowed C strings and byte arrays owned here, and real
 * String, Bytes and Shape objects made from the input), converts it to an owned value
 * (TVMFFIAnyViewToOwnedAny and Any(AnyView)) and through every cast, and checks what must hold
 * (an int reads back as itself, a string as its bytes, ...); or it parses fuzz text as a dtype
 * and checks the round trip; or it sizes a tensor from a fuzzed shape and dtype and checks the
 * element count and byte size against arithmetic done here in 128 bits. Everything made is freed
 * (LeakSanitizer checks). Any violation aborts.
 */
#include <ffi/ffi.h>
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace {

#define FUZZ_CHECK(cond)                                                            \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                 \
    }                                                                               \
  } while (0)

/*! \brief Runs `fn`; an ffi::Error is a legitimate outcome (its kind is returned), others abort. */
template <typename F>
std::string Try(F fn) {
  try {
    fn();
  } catch (const ffi::Error& e) {
    return e.kind();
  }
  return "";
}

/*! \brief The value a step built, with what it owns and what its conversions must give. */
struct Built {
  TVMFFIAny raw{};
  std::string text;                     // Storage for a borrowed C string or byte array.
  TVMFFIByteArray bytes{};              // The borrowed byte array.
  TVMFFIObject* rvalue_slot = nullptr;  // The slot of an rvalue reference.
  ffi::Any owner;                       // Holds an object value while the step runs.
  std::vector<int64_t> dims;            // The extents of a Shape value.
  int kind = 0;
};

/*! \brief Casts `value` to everything and checks the answers that are known. */
template <typename Reader>
void CastAll(const Reader& value, const Built& b) {
  auto i64 = value.template try_cast<int64_t>();
  (void)value.template try_cast<int32_t>();
  (void)value.template try_cast<uint8_t>();
  auto f64 = value.template try_cast<double>();
  auto flag = value.template try_cast<bool>();
  auto str = value.template try_cast<ffi::String>();
  auto bytes = value.template try_cast<ffi::Bytes>();
  auto shape = value.template try_cast<ffi::Shape>();
  // A string names a dtype and is parsed: a bad name is the parser's ValueError (as in TVM-FFI).
  std::optional<DLDataType> dtype;
  std::string dtype_error = Try([&] { dtype = value.template try_cast<DLDataType>(); });
  int32_t t = value.type_index();
  bool is_text = t == kTVMFFISmallStr || t == kTVMFFIStr || t == kTVMFFIRawStr;
  FUZZ_CHECK(dtype_error.empty() || (dtype_error == "ValueError" && is_text));
  auto device = value.template try_cast<DLDevice>();
  auto opt_int = value.template try_cast<ffi::Optional<int64_t>>();
  auto opt_str = value.template try_cast<ffi::Optional<ffi::String>>();
  (void)value.template try_cast<ffi::Optional<ffi::Shape>>();
  (void)value.template try_cast<std::string>();
  (void)value.template try_cast<void*>();
  (void)value.template try_cast<ffi::ObjectRef>();
  (void)value.template as<int64_t>();
  (void)value.template as<double>();
  (void)value.template as<bool>();
  (void)value.template as<ffi::String>();
  (void)value.template as<ffi::Shape>();
  (void)value.template as<DLDataType>();
  (void)value.template as<ffi::Optional<ffi::String>>();
  (void)value.GetTypeName();
  std::string kind = Try([&] { (void)value.template cast<ffi::String>(); });
  FUZZ_CHECK(kind.empty() || kind == "TypeError");

  switch (b.raw.type_index) {
    case kTVMFFINone:
      FUZZ_CHECK(opt_int.has_value() && !opt_int->has_value());
      FUZZ_CHECK(opt_str.has_value() && !opt_str->has_value());
      break;
    case kTVMFFIInt:
      FUZZ_CHECK(i64.has_value() && *i64 == b.raw.v_int64);
      FUZZ_CHECK(f64.has_value());
      break;
    case kTVMFFIFloat:
      FUZZ_CHECK(f64.has_value());
      FUZZ_CHECK(std::memcmp(&*f64, &b.raw.v_float64, sizeof(double)) == 0);
      break;
    case kTVMFFIBool:
      FUZZ_CHECK(flag.has_value() && *flag == (b.raw.v_int64 != 0));
      break;
    case kTVMFFIDataType:
      FUZZ_CHECK(dtype.has_value() && *dtype == b.raw.v_dtype);
      break;
    case kTVMFFIDevice:
      FUZZ_CHECK(device.has_value() && device->device_type == b.raw.v_device.device_type &&
                 device->device_id == b.raw.v_device.device_id);
      break;
    case kTVMFFISmallStr:
    case kTVMFFIStr:
    case kTVMFFIRawStr:
      if (value.type_index() != kTVMFFINone) {
        FUZZ_CHECK(str.has_value() && str->view() == b.text);
      }
      break;
    case kTVMFFISmallBytes:
    case kTVMFFIBytes:
    case kTVMFFIByteArrayPtr:
      FUZZ_CHECK(bytes.has_value() && bytes->view() == b.text);
      break;
    case kTVMFFIShape:
      FUZZ_CHECK(shape.has_value() && shape->size() == b.dims.size());
      for (size_t i = 0; i < b.dims.size(); ++i) FUZZ_CHECK((*shape)[i] == b.dims[i]);
      break;
    default:
      break;
  }
}

/*! \brief Fills `b` with a value built from the input. */
void BuildValue(FuzzedDataProvider& in, Built* b) {
  TVMFFIAny& v = b->raw;
  v.type_index = kTVMFFINone;
  v.zero_padding = 0;
  v.v_int64 = 0;
  b->kind = in.ConsumeIntegralInRange<int>(0, 12);
  switch (b->kind) {
    case 0:
      break;
    case 1:
      v.type_index = kTVMFFIInt;
      v.v_int64 = in.ConsumeIntegral<int64_t>();
      break;
    case 2:
      v.type_index = kTVMFFIBool;
      v.v_int64 = in.ConsumeIntegral<int64_t>();
      break;
    case 3:
      v.type_index = kTVMFFIFloat;
      v.v_int64 = in.ConsumeIntegral<int64_t>();  // Any bit pattern: NaNs, infinities.
      break;
    case 4:
      v.type_index = kTVMFFIDataType;
      v.v_dtype = DLDataType{in.ConsumeIntegral<uint8_t>(), in.ConsumeIntegral<uint8_t>(),
                             in.ConsumeIntegral<uint16_t>()};
      break;
    case 5:
      v.type_index = kTVMFFIDevice;
      v.v_device = DLDevice{static_cast<DLDeviceType>(in.ConsumeIntegral<int32_t>()),
                            in.ConsumeIntegral<int32_t>()};
      break;
    case 6:
    case 7: {
      // A small string or small bytes: the length may be malformed (above 7).
      v.type_index = b->kind == 6 ? kTVMFFISmallStr : kTVMFFISmallBytes;
      uint32_t len = in.ConsumeIntegralInRange<uint32_t>(0, 8);
      b->text = in.ConsumeBytesAsString(len);
      std::memcpy(v.v_bytes, b->text.data(), b->text.size());
      v.small_str_len = len > 7 ? len : static_cast<uint32_t>(b->text.size());
      if (len > 7) v.type_index = kTVMFFINone;  // Only ViewToOwned is given the malformed one.
      break;
    }
    case 8:
      v.type_index = kTVMFFIRawStr;
      b->text = in.ConsumeRandomLengthString(64);
      b->text = b->text.substr(0, std::strlen(b->text.c_str()));
      v.v_c_str = b->text.c_str();
      break;
    case 9:
      v.type_index = kTVMFFIByteArrayPtr;
      b->text = in.ConsumeRandomLengthString(64);
      b->bytes = TVMFFIByteArray{b->text.data(), b->text.size()};
      v.v_ptr = &b->bytes;
      break;
    case 10:
    case 11: {
      // A String or Bytes from the runtime: a small value up to 7 bytes, an object beyond.
      b->text = in.ConsumeRandomLengthString(64);
      TVMFFIByteArray arr{b->text.data(), b->text.size()};
      TVMFFIAny made{};
      int rc = b->kind == 10 ? TVMFFIStringFromByteArray(&arr, &made)
                             : TVMFFIBytesFromByteArray(&arr, &made);
      FUZZ_CHECK(rc == 0);
      b->owner = ffi::Any::FromRaw(made);
      v = made;
      break;
    }
    case 12: {
      size_t n = in.ConsumeIntegralInRange<size_t>(0, 16);
      for (size_t i = 0; i < n; ++i) b->dims.push_back(in.ConsumeIntegral<int64_t>());
      ffi::Shape shape(b->dims);
      b->owner = shape;
      v.type_index = kTVMFFIShape;
      v.v_obj = ffi::detail::ObjectUnsafe::HeaderOf(shape);
      if (in.ConsumeBool()) {
        // Passed as an rvalue reference the callee may move from: the slot holds a reference.
        b->rvalue_slot = ffi::detail::ObjectUnsafe::MoveToHeader(ffi::Shape(shape));
        v.type_index = kTVMFFIObjectRValueRef;
        v.v_ptr = &b->rvalue_slot;
      }
      break;
    }
  }
}

void ValueStep(FuzzedDataProvider& in) {
  Built b;
  BuildValue(in, &b);
  bool malformed_small = b.kind >= 6 && b.kind <= 7 && b.raw.small_str_len > 7;
  if (malformed_small) {
    TVMFFIAny bad = b.raw;
    bad.type_index = b.kind == 6 ? kTVMFFISmallStr : kTVMFFISmallBytes;
    TVMFFIAny out{};
    FUZZ_CHECK(TVMFFIAnyViewToOwnedAny(&bad, &out) != 0);
    TVMFFIObjectHandle err = nullptr;
    TVMFFIErrorMoveFromRaised(&err);
    FUZZ_CHECK(err != nullptr);
    TVMFFIObjectDecRef(err);
    return;
  }
  ffi::AnyView view = ffi::AnyView::FromRaw(b.raw);
  if (b.raw.type_index != kTVMFFIObjectRValueRef) CastAll(view, b);
  TVMFFIAny owned{};
  FUZZ_CHECK(TVMFFIAnyViewToOwnedAny(&b.raw, &owned) == 0);
  ffi::Any any = ffi::Any::FromRaw(owned);
  if (b.raw.type_index == kTVMFFIObjectRValueRef) {
    // The reference moved into `any`; the slot is empty now.
    FUZZ_CHECK(b.rvalue_slot == nullptr && any.type_index() == kTVMFFIShape);
    b.raw = owned;
  }
  CastAll(any, b);
  ffi::Any copy(view.type_index() == kTVMFFIObjectRValueRef ? ffi::AnyView(any) : view);
  CastAll(copy, b);
  if (b.rvalue_slot != nullptr) TVMFFIObjectDecRef(b.rvalue_slot);
}

void DTypeStep(FuzzedDataProvider& in) {
  std::string text = in.ConsumeRandomLengthString(32);
  TVMFFIByteArray arr{text.data(), text.size()};
  DLDataType dtype{};
  if (TVMFFIDataTypeFromString(&arr, &dtype) != 0) {
    TVMFFIObjectHandle err = nullptr;
    TVMFFIErrorMoveFromRaised(&err);
    FUZZ_CHECK(err != nullptr);
    FUZZ_CHECK(
        ffi::Error(ffi::ObjectPtr<ffi::Object>::Steal(ffi::detail::ObjectUnsafe::FromHeader(err)))
            .kind() == "ValueError");
    dtype = DLDataType{in.ConsumeIntegral<uint8_t>(), in.ConsumeIntegral<uint8_t>(),
                       in.ConsumeIntegral<uint16_t>()};
  } else if (dtype.code != kDLOpaqueHandle && dtype.lanes != 0xFFFF) {
    // What parses prints as text that parses back to the same dtype (printing, as the
    // reference's, drops a handle's bits and lanes and a lane count of -1).
    std::string printed = ffi::DLDataTypeToString(dtype);
    FUZZ_CHECK(ffi::DLDataTypeFromString(printed) == dtype);
  }
  TVMFFIAny str{};
  if (TVMFFIDataTypeToString(&dtype, &str) != 0) {
    // Only type codes that name no dtype fail to print, and custom codes (those name theirs
    // through a registered dtype.get_custom_type_name, which this process lacks).
    TVMFFIObjectHandle err = nullptr;
    TVMFFIErrorMoveFromRaised(&err);
    ffi::Error e(ffi::ObjectPtr<ffi::Object>::Steal(ffi::detail::ObjectUnsafe::FromHeader(err)));
    bool custom = dtype.code >= ffi::kDLExtCustomBegin &&
                  e.message().find("dtype.get_custom_type_name") != std::string::npos;
    FUZZ_CHECK(e.kind() == "ValueError" &&
               (custom || e.message().find("type_code") != std::string::npos));
    return;
  }
  ffi::Any owned = ffi::Any::FromRaw(str);
  FUZZ_CHECK(owned.try_cast<std::string>().value() == ffi::DLDataTypeToString(dtype));
}

/*! \brief An allocator that allocates nothing: the sizes are what is under test. */
struct NoAlloc {
  void AllocData(DLTensor* t) { t->data = nullptr; }
  void FreeData(DLTensor*) {}
};

void SizeStep(FuzzedDataProvider& in) {
  std::vector<int64_t> dims(in.ConsumeIntegralInRange<size_t>(0, 8));
  for (int64_t& d : dims) {
    d = in.ConsumeBool() ? in.ConsumeIntegralInRange<int64_t>(-1, 4)
                         : (in.ConsumeBool() ? int64_t{1} << in.ConsumeIntegralInRange<int>(0, 62)
                                             : in.ConsumeIntegral<int64_t>());
  }
  DLDataType dtype{in.ConsumeIntegral<uint8_t>(), in.ConsumeIntegral<uint8_t>(),
                   in.ConsumeIntegral<uint16_t>()};
  // The answer in 128-bit arithmetic, exact up to the point where 64 bits no longer hold it.
  bool negative = false, zero = false;
  unsigned __int128 numel = 1;
  for (int64_t d : dims) {
    if (d < 0) negative = true;
    if (d == 0) zero = true;
    // Past INT64_MAX the count stays as it is: it overflows either way, and the next product
    // (at most 2^63 * 2^63) still fits in 128 bits.
    if (d > 0 && numel <= static_cast<unsigned __int128>(INT64_MAX)) {
      numel *= static_cast<uint64_t>(d);
    }
  }
  if (zero) numel = 0;
  unsigned __int128 bits = numel * dtype.bits * dtype.lanes;
  bool count_overflows = numel > static_cast<unsigned __int128>(INT64_MAX);
  bool bytes_overflow = count_overflows || bits + 7 > static_cast<unsigned __int128>(UINT64_MAX);
  std::string expected = negative ? "ValueError" : (bytes_overflow ? "OverflowError" : "");

  ffi::ShapeView view(dims);
  int64_t product = -1;
  std::string kind = Try([&] { product = view.Product(); });
  FUZZ_CHECK(kind == (negative ? "ValueError" : (count_overflows ? "OverflowError" : "")));
  if (kind.empty()) FUZZ_CHECK(static_cast<unsigned __int128>(product) == numel);

  DLTensor t{nullptr, DLDevice{kDLCPU, 0}, static_cast<int32_t>(dims.size()),
             dtype,   dims.data(),         nullptr,
             0};
  size_t size = 0;
  kind = Try([&] { size = ffi::GetDataSize(t); });
  FUZZ_CHECK(kind == expected);
  if (kind.empty()) FUZZ_CHECK(size == static_cast<uint64_t>((bits + 7) / 8));

  kind = Try([&] { (void)ffi::Tensor::FromNDAlloc(NoAlloc{}, view, dtype, DLDevice{kDLCPU, 0}); });
  FUZZ_CHECK(kind == expected || (expected.empty() && kind == "OverflowError" && zero));

  // The environment's CPU allocator really allocates: only sizes it can give, or ones it must
  // refuse before allocating anything.
  bool small = !negative && !bytes_overflow && (bits + 7) / 8 <= (1u << 20);
  if (small || !expected.empty()) {
    TVMFFIObjectHandle out = nullptr;
    int rc = TVMFFIEnvTensorAlloc(&t, &out);
    if (rc == 0) {
      bool is_void = dtype.code == kDLOpaqueHandle && dtype.bits == 0 && dtype.lanes == 0;
      FUZZ_CHECK(out != nullptr && (dtype.lanes != 0 || is_void));
      TVMFFIObjectDecRef(out);
    } else {
      TVMFFIObjectHandle err = nullptr;
      TVMFFIErrorMoveFromRaised(&err);
      FUZZ_CHECK(err != nullptr);
      ffi::Error e(ffi::ObjectPtr<ffi::Object>::Steal(ffi::detail::ObjectUnsafe::FromHeader(err)));
      // Zero lanes (not void) is refused by the allocator alone, before the sizes; compact strides
      // of a tensor with a zero extent may overflow where the sizes do not.
      bool ok = e.kind() == expected || (dtype.lanes == 0 && e.kind() == "ValueError") ||
                (expected.empty() && zero && e.kind() == "OverflowError");
      if (!ok) std::fprintf(stderr, "TVMFFIEnvTensorAlloc: %s\n", e.what());
      FUZZ_CHECK(ok);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  try {
    for (int step = 0; step < 8 && in.remaining_bytes() > 0; ++step) {
      switch (in.ConsumeIntegralInRange<int>(0, 3)) {
        case 0:
          DTypeStep(in);
          break;
        case 1:
          SizeStep(in);
          break;
        default:
          ValueStep(in);
          break;
      }
    }
  } catch (const ffi::Error& e) {
    std::fprintf(stderr, "unexpected error: %s\n", e.what());
    std::abort();
  }
  return 0;
}
