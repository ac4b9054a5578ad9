// DLDataType and DLDevice: comparison, printing, parsing (C++ and the C entry points), and the
// errors for strings that name no dtype or device.
#include <ffi/ffi.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "testing.h"

namespace {

using namespace ffi_testing;

template <typename T>
std::string Print(const T& v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

// ---------------------------------------------------------------------------------------------
// DLDataType
// ---------------------------------------------------------------------------------------------

TEST(DType, EqualityComparesCodeBitsAndLanes) {
  DLDataType f32{kDLFloat, 32, 1};
  EXPECT_TRUE(f32 == (DLDataType{kDLFloat, 32, 1}));
  EXPECT_FALSE(f32 != (DLDataType{kDLFloat, 32, 1}));
  EXPECT_TRUE(f32 != (DLDataType{kDLInt, 32, 1}));    // code differs
  EXPECT_TRUE(f32 != (DLDataType{kDLFloat, 16, 1}));  // bits differ
  EXPECT_TRUE(f32 != (DLDataType{kDLFloat, 32, 4}));  // lanes differ
  EXPECT_FALSE(f32 == (DLDataType{kDLFloat, 32, 4}));
}

struct DTypeCase {
  DLDataType dtype;
  const char* text;
};

const std::vector<DTypeCase>& Cases() {
  static const std::vector<DTypeCase> cases = {
      {{kDLFloat, 32, 1}, "float32"},
      {{kDLFloat, 16, 1}, "float16"},
      {{kDLFloat, 64, 1}, "float64"},
      {{kDLInt, 8, 1}, "int8"},
      {{kDLInt, 16, 1}, "int16"},
      {{kDLInt, 32, 1}, "int32"},
      {{kDLInt, 64, 1}, "int64"},
      {{kDLUInt, 8, 1}, "uint8"},
      {{kDLUInt, 16, 1}, "uint16"},
      {{kDLUInt, 32, 1}, "uint32"},
      {{kDLUInt, 64, 1}, "uint64"},
      {{kDLBfloat, 16, 1}, "bfloat16"},
      {{kDLBool, 8, 1}, "bool"},
      {{kDLOpaqueHandle, 64, 1}, "handle"},
      {{kDLFloat8_e3m4, 8, 1}, "float8_e3m4"},
      {{kDLFloat8_e4m3, 8, 1}, "float8_e4m3"},
      {{kDLFloat8_e4m3b11fnuz, 8, 1}, "float8_e4m3b11fnuz"},
      {{kDLFloat8_e4m3fn, 8, 1}, "float8_e4m3fn"},
      {{kDLFloat8_e4m3fnuz, 8, 1}, "float8_e4m3fnuz"},
      {{kDLFloat8_e5m2, 8, 1}, "float8_e5m2"},
      {{kDLFloat8_e5m2fnuz, 8, 1}, "float8_e5m2fnuz"},
      {{kDLFloat8_e8m0fnu, 8, 1}, "float8_e8m0fnu"},
      {{kDLFloat6_e2m3fn, 6, 1}, "float6_e2m3fn"},
      {{kDLFloat6_e3m2fn, 6, 1}, "float6_e3m2fn"},
      {{kDLFloat4_e2m1fn, 4, 1}, "float4_e2m1fn"},
      {{kDLFloat, 32, 4}, "float32x4"},
      {{kDLInt, 8, 16}, "int8x16"},
      {{kDLFloat8_e4m3fn, 8, 2}, "float8_e4m3fnx2"},
      {{kDLFloat4_e2m1fn, 4, 8}, "float4_e2m1fnx8"},
  };
  return cases;
}

TEST(DType, PrintsAndParsesEveryKnownSpelling) {
  for (const DTypeCase& c : Cases()) {
    EXPECT_EQ(Print(c.dtype), c.text);
    EXPECT_EQ(ffi::DLDataTypeToString(c.dtype), c.text);
    DLDataType parsed = ffi::DLDataTypeFromString(c.text);
    EXPECT_EQ(parsed, c.dtype) << c.text;
  }
}

TEST(DType, VoidAndVectorBool) {
  // The void type prints as nothing, as the reference prints it; "void" and "" both parse to it.
  EXPECT_EQ(ffi::DLDataTypeToString(DLDataType{kDLOpaqueHandle, 0, 0}), "");
  EXPECT_EQ(ffi::DLDataTypeFromString("void"), (DLDataType{kDLOpaqueHandle, 0, 0}));
  EXPECT_EQ(ffi::DLDataTypeFromString(""), (DLDataType{kDLOpaqueHandle, 0, 0}));
  EXPECT_EQ(ffi::DLDataTypeToString(DLDataType{kDLBool, 8, 4}), "boolx4");
  EXPECT_EQ(ffi::DLDataTypeFromString("boolx4"), (DLDataType{kDLBool, 8, 4}));
  EXPECT_EQ(ffi::DLDataTypeFromString("float32x1"), (DLDataType{kDLFloat, 32, 1}));
}

TEST(DType, NarrowFloatCodesRoundTrip) {
  // Every narrow float code of DLPack 1.x, 7 through 17, has a name that parses back.
  int seen = 0;
  for (uint8_t code = kDLFloat8_e3m4; code <= kDLFloat4_e2m1fn; ++code) {
    uint8_t bits = code >= kDLFloat4_e2m1fn ? 4 : code >= kDLFloat6_e2m3fn ? 6 : 8;
    for (uint16_t lanes : {1, 4}) {
      DLDataType t{code, bits, lanes};
      std::string s = ffi::DLDataTypeToString(t);
      EXPECT_EQ(s.rfind("float" + std::to_string(bits) + "_", 0), 0u) << s;
      EXPECT_EQ(s.find("unknown"), std::string::npos) << s;
      EXPECT_EQ(ffi::DLDataTypeFromString(s), t) << s;
    }
    ++seen;
  }
  EXPECT_EQ(seen, 11);
}

TEST(DType, IntegerAndFloatWidthsRoundTrip) {
  for (int bits : {8, 16, 32, 64}) {
    for (uint8_t code : {uint8_t{kDLInt}, uint8_t{kDLUInt}}) {
      DLDataType t{code, static_cast<uint8_t>(bits), 1};
      EXPECT_EQ(ffi::DLDataTypeFromString(ffi::DLDataTypeToString(t)), t);
    }
  }
  for (int bits : {16, 32, 64}) {
    DLDataType t{kDLFloat, static_cast<uint8_t>(bits), 1};
    EXPECT_EQ(ffi::DLDataTypeFromString(ffi::DLDataTypeToString(t)), t);
  }
  // Unusual widths are still spelled with their bit count.
  EXPECT_EQ(ffi::DLDataTypeFromString("int4"), (DLDataType{kDLInt, 4, 1}));
  EXPECT_EQ(ffi::DLDataTypeFromString("uint1"), (DLDataType{kDLUInt, 1, 1}));
  EXPECT_EQ(ffi::DLDataTypeToString(DLDataType{kDLUInt, 1, 1}), "uint1");
}

TEST(DType, ComplexRoundTrips) {
  // The printer spells complex types "complex<bits>"; the parser must read that back (the 'x' in
  // "complex" is not a lane suffix).
  for (int bits : {64, 128}) {
    DLDataType t{kDLComplex, static_cast<uint8_t>(bits), 1};
    std::string s = ffi::DLDataTypeToString(t);
    EXPECT_EQ(s, "complex" + std::to_string(bits));
    try {
      EXPECT_EQ(ffi::DLDataTypeFromString(s), t) << s;
    } catch (const ffi::Error& e) {
      ADD_FAILURE() << s << ": " << e.kind() << ": " << e.message();
    }
    TVMFFIByteArray arr{s.data(), s.size()};
    DLDataType out{};
    EXPECT_EQ(TVMFFIDataTypeFromString(&arr, &out), 0) << s;
    TakeRaised();
  }
  // With a lane suffix the last 'x' is the suffix.
  EXPECT_EQ(ffi::DLDataTypeFromString("complex64x2"), (DLDataType{kDLComplex, 64, 2}));
}

TEST(DType, PyTorchSpellingOfPackedFloat4) {
  // torch.float4_e2m1fn_x2: "_x<lanes>", accepted for this type only; printed canonically.
  EXPECT_EQ(ffi::DLDataTypeFromString("float4_e2m1fn_x2"), (DLDataType{kDLFloat4_e2m1fn, 4, 2}));
  EXPECT_EQ(ffi::DLDataTypeToString(ffi::DLDataTypeFromString("float4_e2m1fn_x2")),
            "float4_e2m1fnx2");
  // One '_' before the lanes (or the end) is allowed, no more, and only for this type.
  EXPECT_EQ(ffi::DLDataTypeFromString("float4_e2m1fn_"), (DLDataType{kDLFloat4_e2m1fn, 4, 1}));
  for (const char* bad : {"float8_e4m3fn_x2", "float4_e2m1fn_x", "float4_e2m1fn__x2", "int8_x2"}) {
    EXPECT_EQ(CatchError([&] { ffi::DLDataTypeFromString(bad); }).kind(), "ValueError") << bad;
  }
}

TEST(DType, BadStringsAreValueErrorsNamingTheString) {
  for (const char* bad : {"floatx", "cuda", "int8x", "float32x0", "int256", "Float32", "float32 ",
                          "uint-8", "x4", "int8x65536", "voidx2"}) {
    ffi::Error e = CatchError([&] { ffi::DLDataTypeFromString(bad); });
    EXPECT_EQ(e.kind(), "ValueError") << "'" << bad << "'";
    EXPECT_NE(e.message().find(bad), std::string::npos) << e.message();
  }
}

TEST(DType, CFunctionsParseAndPrint) {
  for (const DTypeCase& c : Cases()) {
    std::string text = c.text;
    TVMFFIByteArray arr{text.data(), text.size()};
    DLDataType out{};
    ASSERT_EQ(TVMFFIDataTypeFromString(&arr, &out), 0) << text;
    EXPECT_EQ(out, c.dtype) << text;

    TVMFFIAny printed{};
    ASSERT_EQ(TVMFFIDataTypeToString(&c.dtype, &printed), 0) << text;
    // Short names come back as small strings, longer ones as String objects.
    EXPECT_EQ(printed.type_index, text.size() <= 7 ? kTVMFFISmallStr : kTVMFFIStr) << text;
    ffi::Any owned = ffi::Any::FromRaw(printed);
    EXPECT_EQ(owned.cast<std::string>(), text);
  }
  // The byte array need not be NUL-terminated: only `size` bytes are read.
  const char buf[] = "int16garbage";
  TVMFFIByteArray prefix{buf, 5};
  DLDataType out{};
  ASSERT_EQ(TVMFFIDataTypeFromString(&prefix, &out), 0);
  EXPECT_EQ(out, (DLDataType{kDLInt, 16, 1}));
}

TEST(DType, CFunctionReportsBadStrings) {
  for (const char* bad : {"cuda", "Float32", "int8 ", "x4"}) {
    std::string text = bad;
    TVMFFIByteArray arr{text.data(), text.size()};
    DLDataType out{kDLFloat, 32, 1};
    EXPECT_EQ(TVMFFIDataTypeFromString(&arr, &out), -1) << text;
    ffi::Error e = TakeRaised();
    EXPECT_EQ(e.kind(), "ValueError") << text;
    EXPECT_NE(e.message().find("`" + text + "`"), std::string::npos) << e.message();
  }
  // A successful call leaves no error behind.
  std::string ok = "float32";
  TVMFFIByteArray arr{ok.data(), ok.size()};
  DLDataType out{};
  EXPECT_EQ(TVMFFIDataTypeFromString(&arr, &out), 0);
  EXPECT_EQ(TakeRaised().kind(), "");
}

TEST(DType, ThroughAny) {
  DLDataType t{kDLBfloat, 16, 1};
  ffi::AnyView v(t);
  EXPECT_EQ(v.type_index(), kTVMFFIDataType);
  EXPECT_EQ(v.cast<DLDataType>(), t);
  EXPECT_FALSE(ffi::AnyView(1).try_cast<DLDataType>().has_value());
  // A string names a dtype: it converts by parsing, and a bad one is the parser's ValueError.
  EXPECT_EQ(ffi::AnyView("float32").cast<DLDataType>(), (DLDataType{kDLFloat, 32, 1}));
  EXPECT_EQ(ffi::Any(ffi::String("bfloat16x2")).cast<DLDataType>(), (DLDataType{kDLBfloat, 16, 2}));
  EXPECT_EQ(CatchError([] { ffi::AnyView("float33x").cast<DLDataType>(); }).kind(), "ValueError");
  ffi::Error e = CatchError([] { ffi::AnyView().cast<DLDataType>(); });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_EQ(e.message(), "Cannot convert from type `None` to `DataType`");
}

// ---------------------------------------------------------------------------------------------
// DLDevice
// ---------------------------------------------------------------------------------------------

TEST(Device, EqualityComparesTypeAndId) {
  DLDevice cuda1{kDLCUDA, 1};
  EXPECT_TRUE(cuda1 == (DLDevice{kDLCUDA, 1}));
  EXPECT_FALSE(cuda1 != (DLDevice{kDLCUDA, 1}));
  EXPECT_TRUE(cuda1 != (DLDevice{kDLCUDA, 0}));
  EXPECT_TRUE(cuda1 != (DLDevice{kDLROCM, 1}));
  EXPECT_FALSE(cuda1 == (DLDevice{kDLCUDAHost, 1}));
}

TEST(Device, Printing) {
  EXPECT_EQ(Print(DLDevice{kDLCPU, 0}), "cpu");
  EXPECT_EQ(Print(DLDevice{kDLCPU, 2}), "cpu:2");
  EXPECT_EQ(Print(DLDevice{kDLCUDA, 0}), "cuda:0");
  EXPECT_EQ(Print(DLDevice{kDLCUDA, 1}), "cuda:1");
  EXPECT_EQ(Print(DLDevice{kDLROCM, 0}), "rocm:0");
  EXPECT_EQ(Print(DLDevice{kDLCUDAHost, 3}), "cuda_host:3");
  EXPECT_EQ(ffi::DLDeviceToString(DLDevice{kDLMetal, 7}), "metal:7");
  EXPECT_EQ(ffi::DLDeviceTypeToString(kDLVulkan), "vulkan");
}

TEST(Device, Parsing) {
  EXPECT_EQ(ffi::DLDeviceFromString("cpu"), (DLDevice{kDLCPU, 0}));
  EXPECT_EQ(ffi::DLDeviceFromString("cuda"), (DLDevice{kDLCUDA, 0}));
  EXPECT_EQ(ffi::DLDeviceFromString("cuda:3"), (DLDevice{kDLCUDA, 3}));
  EXPECT_EQ(ffi::DLDeviceFromString("cuda:12"), (DLDevice{kDLCUDA, 12}));
  EXPECT_EQ(ffi::DLDeviceFromString("rocm:0"), (DLDevice{kDLROCM, 0}));
  EXPECT_EQ(ffi::DLDeviceFromString("cpu:1"), (DLDevice{kDLCPU, 1}));
  // "cuda" is not mistaken for "cuda_host" or the other way round.
  EXPECT_EQ(ffi::DLDeviceFromString("cuda_host:1"), (DLDevice{kDLCUDAHost, 1}));
  // The reference's aliases, large ordinals, and a description after a space.
  EXPECT_EQ(ffi::DLDeviceFromString("mps"), (DLDevice{kDLMetal, 0}));
  EXPECT_EQ(ffi::DLDeviceFromString("wgpu:1"), (DLDevice{kDLWebGPU, 1}));
  EXPECT_EQ(ffi::DLDeviceFromString("cuda:2147483647"), (DLDevice{kDLCUDA, 2147483647}));
  EXPECT_EQ(ffi::DLDeviceFromString("cuda:2 (NVIDIA H100)"), (DLDevice{kDLCUDA, 2}));
  EXPECT_EQ(ffi::DLDeviceToString(DLDevice{kDLMetal, 0}), "metal:0");
}

TEST(Device, EveryKnownTypeRoundTrips) {
  for (int type :
       {kDLCPU, kDLCUDA, kDLCUDAHost, kDLOpenCL, kDLVulkan, kDLMetal, kDLVPI, kDLROCM, kDLROCMHost,
        kDLExtDev, kDLCUDAManaged, kDLOneAPI, kDLWebGPU, kDLHexagon, kDLMAIA, kDLTrn}) {
    for (int32_t id : {0, 1, 5}) {
      DLDevice d{static_cast<DLDeviceType>(type), id};
      std::string s = ffi::DLDeviceToString(d);
      EXPECT_EQ(s.find("device_type"), std::string::npos) << s;
      EXPECT_EQ(ffi::DLDeviceFromString(s), d) << s;
    }
  }
}

TEST(Device, BadStringsAreValueErrors) {
  for (const char* bad : {"gpu:1", "cuda:x", "gpu", "", "cuda:-1", "CUDA:0", "cuda:1:2", ":0",
                          "cuda:1x", "cuda:2147483648", " cuda"}) {
    ffi::Error e = CatchError([&] { ffi::DLDeviceFromString(bad); });
    EXPECT_EQ(e.kind(), "ValueError") << "'" << bad << "'";
    EXPECT_NE(e.message().find("`" + std::string(bad) + "`"), std::string::npos) << e.message();
  }
}

TEST(Device, EmptyOrdinalIsRejected) {
  // "cuda:" names no device ordinal; it must not be read as cuda:0.
  try {
    DLDevice d = ffi::DLDeviceFromString("cuda:");
    ADD_FAILURE() << "\"cuda:\" parsed as " << d;
  } catch (const ffi::Error& e) {
    EXPECT_EQ(e.kind(), "ValueError");
  }
}

TEST(Device, ThroughAny) {
  DLDevice d{kDLCUDA, 2};
  ffi::Any a = d;
  EXPECT_EQ(a.type_index(), kTVMFFIDevice);
  EXPECT_EQ(a.cast<DLDevice>(), d);
  EXPECT_FALSE(ffi::AnyView(2).try_cast<DLDevice>().has_value());
  // Strings naming a device convert, as the reference's do (small, object and C strings).
  EXPECT_EQ(ffi::AnyView("cuda:3").cast<DLDevice>(), (DLDevice{kDLCUDA, 3}));
  EXPECT_EQ(ffi::Any(ffi::String("opencl:12")).cast<DLDevice>(), (DLDevice{kDLOpenCL, 12}));
  EXPECT_EQ(ffi::Any(ffi::String("cpu")).cast<DLDevice>(), (DLDevice{kDLCPU, 0}));
  EXPECT_FALSE(ffi::AnyView("gpu:0").try_cast<DLDevice>().has_value());
  auto f = ffi::Function::FromTyped([](DLDevice d) { return d.device_id; });
  EXPECT_EQ(f("rocm:4").cast<int32_t>(), 4);
  EXPECT_EQ(CatchError([&] { f("nowhere"); }).kind(), "TypeError");
}

}  // namespace
