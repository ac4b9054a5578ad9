// dtype strings as the reference spells them: short names, defaults, scalable vectors, custom
// types and the exact errors for malformed strings (the runtime's parser, reached through the
// header functions, the C entry points and Any conversion).
#include <ffi/container/array.h>
#include <ffi/ffi.h>
#include <gtest/gtest.h>
#include <tvm/ffi/tvm_compat.h>

#include <string>
#include <utility>
#include <vector>

#include "testing.h"

namespace {

using namespace ffi_testing;

DLDataType Parse(const std::string& s) { return ffi::DLDataTypeFromString(s); }
std::string ParseError(const std::string& s) {
  ffi::Error e = CatchError([&] { Parse(s); });
  EXPECT_EQ(e.kind(), "ValueError") << s;
  return e.message();
}

TEST(DTypeStrings, ShortNamesParseToTheLongOnes) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"i8", "int8"},
      {"i32", "int32"},
      {"u16", "uint16"},
      {"u1", "uint1"},
      {"f16", "float16"},
      {"f32x4", "float32x4"},
      {"bf16", "bfloat16"},
      {"bf16x2", "bfloat16x2"},
      {"f8_e3m4x2", "float8_e3m4x2"},
      {"f8_e4m3b11fnuz", "float8_e4m3b11fnuz"},
      {"f8_e4m3fnuzx2", "float8_e4m3fnuzx2"},
      {"fp8_e4m3", "float8_e4m3"},
      {"fp8_e5m2x4", "float8_e5m2x4"},
      {"f8_e8m0fnu", "float8_e8m0fnu"},
      {"f6_e2m3fn", "float6_e2m3fn"},
      {"fp6_e3m2fn", "float6_e3m2fn"},
      {"f4_e2m1fn", "float4_e2m1fn"},
      {"fp4_e2m1fn", "float4_e2m1fn"},
      {"f4_e2m1fnx2", "float4_e2m1fnx2"},
      {"f4_e2m1fn_x2", "float4_e2m1fnx2"},
      {"fp4_e2m1fn_x2", "float4_e2m1fnx2"},
      {"float4_e2m1fn_x2", "float4_e2m1fnx2"},
  };
  for (const auto& [alias, canonical] : cases) {
    DLDataType t = Parse(alias);
    EXPECT_EQ(t, Parse(canonical)) << alias;
    EXPECT_EQ(ffi::DLDataTypeToString(t), canonical) << alias;
    EXPECT_EQ(ffi::StringToDLDataType(ffi::String(alias)), t) << alias;
  }
  // Only these prefixes are short names; "fp" is one only before a narrow float's "8_"/"6_"/"4_".
  for (const char* bad : {"i", "u", "f", "bf", "b8", "fp16", "fp8", "c64", "h64"}) {
    EXPECT_EQ(ParseError(bad), "unknown dtype `" + std::string(bad) + "`");
  }
  // Errors name the spelled-out string.
  EXPECT_EQ(ParseError("i8x0"),
            "Invalid lanes specification in dtype 'int8x0'. Lanes must be a positive integer.");
  EXPECT_EQ(ParseError("f4_e2m1"), "unknown float4 type `float4_e2m1`");
}

TEST(DTypeStrings, FamiliesWithoutBitsTakeTheirDefault) {
  EXPECT_EQ(Parse("int"), (DLDataType{kDLInt, 32, 1}));
  EXPECT_EQ(Parse("uint"), (DLDataType{kDLUInt, 32, 1}));
  EXPECT_EQ(Parse("float"), (DLDataType{kDLFloat, 32, 1}));
  EXPECT_EQ(Parse("bfloat"), (DLDataType{kDLBfloat, 16, 1}));
  EXPECT_EQ(Parse("handle"), (DLDataType{kDLOpaqueHandle, 64, 1}));
  EXPECT_EQ(Parse("bool"), (DLDataType{kDLBool, 8, 1}));
  EXPECT_EQ(Parse("complex"), (DLDataType{kDLComplex, 64, 1}));
  // Other widths are taken as written, leading zeros allowed; a width of 0 is no type (it read
  // as the default width before, so "int0" was int32).
  EXPECT_EQ(ParseError("int0"), "Invalid bits in dtype 'int0': a width of 0 bits");
  EXPECT_EQ(ParseError("float00x4"), "Invalid bits in dtype 'float00x4': a width of 0 bits");
  EXPECT_EQ(Parse("bool1"), (DLDataType{kDLBool, 1, 1}));
  EXPECT_EQ(Parse("handle8x2"), (DLDataType{kDLOpaqueHandle, 8, 2}));
  EXPECT_EQ(Parse("int08x002"), (DLDataType{kDLInt, 8, 2}));
  EXPECT_EQ(Parse("intx4"), (DLDataType{kDLInt, 32, 4}));
}

TEST(DTypeStrings, ScalableVectorsStoreNegatedLanes) {
  EXPECT_EQ(Parse("int32xvscalex4"), (DLDataType{kDLInt, 32, static_cast<uint16_t>(-4)}));
  EXPECT_EQ(Parse("float16xvscalex8"), (DLDataType{kDLFloat, 16, static_cast<uint16_t>(-8)}));
  EXPECT_EQ(Parse("boolxvscalex2"), (DLDataType{kDLBool, 8, static_cast<uint16_t>(-2)}));
  EXPECT_EQ(ffi::DLDataTypeToString(Parse("int32xvscalex4")), "int32xvscalex4");
  EXPECT_EQ(ffi::DLDataTypeToString(DLDataType{kDLFloat, 16, 0x8000}), "float16xvscalex32768");
  // Lanes 0, 1 and -1 print no suffix at all.
  for (uint16_t lanes : {0, 1, 0xFFFF}) {
    EXPECT_EQ(ffi::DLDataTypeToString(DLDataType{kDLInt, 32, lanes}), "int32") << lanes;
  }
  // "xvscale" without a count is a plain scalar; narrow floats have no scalable form.
  EXPECT_EQ(Parse("int8xvscale"), (DLDataType{kDLInt, 8, 1}));
  EXPECT_EQ(ParseError("int8xvscale4"), "unknown dtype `int8xvscale4`");
  EXPECT_EQ(ParseError("float8_e4m3fnxvscalex2"),
            "Invalid lanes specification in dtype 'float8_e4m3fnxvscalex2'. Lanes must be a "
            "positive integer.");
}

TEST(DTypeStrings, MalformedStringsGiveTheReferenceMessages) {
  EXPECT_EQ(ParseError("x4"), "unknown dtype `x4`");
  EXPECT_EQ(ParseError("int8x2x2"), "unknown dtype `int8x2x2`");
  EXPECT_EQ(ParseError("int 8"), "unknown dtype `int 8`");
  EXPECT_EQ(ParseError("voidx2"), "unknown dtype `voidx2`");
  EXPECT_EQ(ParseError("int32x"),
            "Invalid lanes specification in dtype 'int32x'. Lanes must be a positive integer.");
  EXPECT_EQ(ParseError("int8xvscalex0"),
            "Invalid lanes specification in dtype 'int8xvscalex0'. Lanes must be a positive "
            "integer.");
  EXPECT_EQ(ParseError("int256"), "Bits value 256 is out of range for uint8_t in dtype 'int256'");
  EXPECT_EQ(ParseError("int8x65536"),
            "Lanes value 65536 is out of range in dtype 'int8x65536': a vector has at most 32767 "
            "lanes");
  // 16 bits read signed (negative lanes are scalable vectors): a fixed vector ends at 32767.
  EXPECT_EQ(Parse("int8x32767"), (DLDataType{kDLInt, 8, 32767}));
  EXPECT_EQ(ParseError("float32x32768"),
            "Lanes value 32768 is out of range in dtype 'float32x32768': a vector has at most "
            "32767 lanes");
  EXPECT_EQ(Parse("int8xvscalex32768"), (DLDataType{kDLInt, 8, 0x8000}));
  EXPECT_EQ(ParseError("int4294967296"),
            "Integer value in dtype string '4294967296' is out of range for uint32_t");
  EXPECT_EQ(ParseError("float8_e4m3fn_x2"), "unknown float8 type `float8_e4m3fn_x2`");
  EXPECT_EQ(ParseError("float6_e2m3fn16"), "unknown float6 type `float6_e2m3fn16`");
  EXPECT_EQ(ParseError("float4_e2m1fn_2"), "unknown dtype `float4_e2m1fn_2`");
  EXPECT_EQ(ParseError("custom"), "expected opening brace after 'custom' type incustom");
  EXPECT_EQ(ParseError("custom[a"), "expected closing brace after 'custom' type incustom[a");
}

TEST(DTypeStrings, PrintingFollowsTheReference) {
  // A handle prints without bits or lanes; bool shows bits other than 8; narrow floats never.
  EXPECT_EQ(ffi::DLDataTypeToString(DLDataType{kDLOpaqueHandle, 32, 4}), "handle");
  EXPECT_EQ(ffi::DLDataTypeToString(DLDataType{kDLBool, 16, 1}), "bool16");
  EXPECT_EQ(ffi::DLDataTypeToString(DLDataType{kDLFloat8_e4m3fn, 16, 2}), "float8_e4m3fnx2");
  EXPECT_EQ(ffi::DLDataTypeToString(DLDataType{kDLInt, 0, 1}), "int0");
  for (uint8_t code : {uint8_t{18}, uint8_t{128}}) {
    ffi::Error e = CatchError([&] { ffi::DLDataTypeToString(DLDataType{code, 8, 1}); });
    EXPECT_EQ(e.kind(), "ValueError");
    EXPECT_EQ(e.message(), "DLDataType contains unknown type_code=" + std::to_string(code));
  }
}

TEST(DTypeStrings, ErrorMessagesWriteUnknownCodesByTheirFields) {
  // The message being built is kept: printing the dtype must not replace it with its own error.
  ffi::Error e = CatchError([] {
    FFI_THROW(TypeError) << "got " << DLDataType{kDLFloat, 32, 1} << " and "
                         << DLDataType{42, 8, 2};
  });
  EXPECT_EQ(e.kind(), "TypeError");
  EXPECT_EQ(e.message(), "got float32 and DataType(code=42, bits=8, lanes=2)");
  // Nothing is left raised by the failed printing.
  EXPECT_EQ(TakeRaised().kind(), "");
}

TEST(DTypeStrings, CustomTypesUseTheRegisteredNameFunctions) {
  EXPECT_EQ(ParseError("custom[posit]16"), "Function dtype.get_custom_type_code not found");
  ffi::Error e = CatchError([] { ffi::DLDataTypeToString(DLDataType{130, 16, 1}); });
  EXPECT_EQ(e.message(), "Function dtype.get_custom_type_name not found");

  std::vector<std::string> asked;
  ffi::Function::SetGlobal("dtype.get_custom_type_code",
                           ffi::Function::FromTyped([&](ffi::String name) -> int64_t {
                             asked.emplace_back(name.view());
                             return name == "posit" ? 130 : 131;
                           }));
  ffi::Function::SetGlobal("dtype.get_custom_type_name",
                           ffi::Function::FromTyped([](int64_t code) -> ffi::String {
                             return code == 130 ? "posit" : "other";
                           }));
  EXPECT_EQ(Parse("custom[posit]16x4"), (DLDataType{130, 16, 4}));
  EXPECT_EQ(Parse("custom[posit]"), (DLDataType{130, 32, 1}));
  EXPECT_EQ(Parse("custom[]xvscalex2"), (DLDataType{131, 32, static_cast<uint16_t>(-2)}));
  EXPECT_EQ(asked, (std::vector<std::string>{"posit", "posit", ""}));
  EXPECT_EQ(ParseError("custom[posit]]"), "unknown dtype `custom[posit]]`");
  // Custom types print their name and lanes, not their bits.
  EXPECT_EQ(ffi::DLDataTypeToString(DLDataType{130, 16, 4}), "custom[posit]x4");
  EXPECT_EQ(ffi::DLDataTypeToString(DLDataType{200, 8, 1}), "custom[other]");
  EXPECT_TRUE(ffi::Function::RemoveGlobal("dtype.get_custom_type_code"));
  EXPECT_TRUE(ffi::Function::RemoveGlobal("dtype.get_custom_type_name"));
}

/*!
 * \brief TVMFFIDataTypeToString on `t`: the text, or "<Kind: message>" of the error it returned
 * (its return value must be exactly 0 or -1, and nothing may stay raised after a success).
 */
std::string CPrint(DLDataType t) {
  TVMFFIAny out{};
  out.type_index = kTVMFFINone;
  int rc = TVMFFIDataTypeToString(&t, &out);
  if (rc != 0) {
    EXPECT_EQ(rc, -1);
    EXPECT_EQ(out.type_index, kTVMFFINone);  // nothing written on failure
    ffi::Error e = TakeRaised();
    return "<" + std::string(e.kind()) + ": " + std::string(e.message()) + ">";
  }
  ffi::Any text = ffi::detail::AnyUnsafe::MoveTVMFFIAnyToAny(&out);
  EXPECT_EQ(TakeRaised().kind(), "");
  return std::string(text.cast<ffi::String>().view());
}

TEST(DTypeStrings, EveryTypeCodePrintsOrReturnsAValueError) {
  // All 256 codes, with assorted bits and lanes: the C entry point returns the text or -1 with a
  // ValueError, never throws through the C ABI or terminates. Codes 0..17 are DLPack's own.
  for (int code = 0; code < 256; ++code) {
    for (DLDataType t : {DLDataType{static_cast<uint8_t>(code), 8, 1},
                         DLDataType{static_cast<uint8_t>(code), 0, 0},
                         DLDataType{static_cast<uint8_t>(code), 255, 0xFFFF}}) {
      std::string text = CPrint(t);
      if (code <= kDLFloat4_e2m1fn) {
        EXPECT_NE(text.rfind("<", 0), 0u) << code << ": " << text;
      } else if (code < ffi::kDLExtCustomBegin) {
        EXPECT_EQ(text, "<ValueError: DLDataType contains unknown type_code=" +
                            std::to_string(code) + ">");
      } else {
        EXPECT_EQ(text, "<ValueError: Function dtype.get_custom_type_name not found>");
      }
    }
  }
}

TEST(DTypeStrings, UnknownCodesThroughTheHeaderAndTvmSpelling) {
  // The header function rethrows the returned error as an ordinary, catchable ffi::Error.
  for (uint8_t code : {uint8_t{18}, uint8_t{100}, uint8_t{128}, uint8_t{129}, uint8_t{255}}) {
    DLDataType t{code, 8, 1};
    ffi::Error e = CatchError([&] { ffi::DLDataTypeToString(t); });
    EXPECT_EQ(e.kind(), "ValueError") << int{code};
    e = CatchError([&] { ffi::DTypeAbbrev(t); });
    EXPECT_EQ(e.kind(), "ValueError") << int{code};
  }
  EXPECT_EQ(TakeRaised().kind(), "");
}

TEST(DTypeStrings, CustomNameFunctionErrorsAreReturned) {
  // A registered dtype.get_custom_type_name that throws, or gives no string: its error is what
  // TVMFFIDataTypeToString returns; an error message naming the dtype writes its fields instead.
  ffi::Function::SetGlobal("dtype.get_custom_type_name",
                           ffi::Function::FromTyped([](int64_t code) -> ffi::Any {
                             if (code == 130) FFI_THROW(KeyError) << "no custom type " << code;
                             if (code == 131) return int64_t{7};
                             return ffi::String("posit");
                           }));
  EXPECT_EQ(CPrint(DLDataType{132, 16, 2}), "custom[posit]x2");
  EXPECT_EQ(CPrint(DLDataType{130, 16, 1}), "<KeyError: no custom type 130>");
  EXPECT_EQ(CPrint(DLDataType{131, 16, 1}).rfind("<TypeError: ", 0), 0u);
  ffi::Error e = CatchError([] { FFI_THROW(RuntimeError) << "bad " << DLDataType{130, 16, 1}; });
  EXPECT_EQ(e.kind(), "RuntimeError");
  EXPECT_EQ(e.message(), "bad DataType(code=130, bits=16, lanes=1)");
  EXPECT_EQ(TakeRaised().kind(), "");
  EXPECT_TRUE(ffi::Function::RemoveGlobal("dtype.get_custom_type_name"));
}

TEST(DTypeStrings, RuntimeFunctionsPrintingUnknownCodesReturnValueErrors) {
  // The runtime's own callers of the printer (repr, JSON graph) give the error back as any
  // function's error, as the reference's do; the process goes on.
  DLDataType bad{18, 8, 1};
  for (const char* name : {"ffi.ReprPrint", "ffi.ToJSONGraph", "ffi.ToJSONGraphString"}) {
    ffi::Function f = ffi::Function::GetGlobalRequired(name);
    ffi::Error e = CatchError([&] {
      if (std::string_view(name) == "ffi.ReprPrint") {
        f(bad);
      } else {
        f(bad, nullptr);
      }
    });
    EXPECT_EQ(e.kind(), "ValueError") << name;
    EXPECT_EQ(e.message(), "DLDataType contains unknown type_code=18") << name;
  }
  ffi::Error e = CatchError([&] {
    ffi::Function::GetGlobalRequired("ffi.ReprPrint")(ffi::Array<ffi::Any>{1, bad});
  });
  EXPECT_EQ(e.kind(), "ValueError");
}

TEST(DTypeStrings, TensorsWithUnknownCodesImportAndFailOnlyWhenPrinted) {
  // As the reference: importing does not check the code (sizes need only bits and lanes).
  struct Holder {
    alignas(64) uint8_t data[64] = {};
    int64_t shape[1] = {4};
    int deleted = 0;
    DLManagedTensorVersioned managed{};
  } h;
  h.managed.version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  h.managed.manager_ctx = &h;
  h.managed.deleter = [](DLManagedTensorVersioned* self) {
    ++static_cast<Holder*>(self->manager_ctx)->deleted;
  };
  h.managed.dl_tensor = DLTensor{h.data, kCPU, 1, DLDataType{18, 8, 1}, h.shape, nullptr, 0};
  {
    ffi::Tensor t = ffi::Tensor::FromDLPackVersioned(&h.managed);
    EXPECT_EQ(t.dtype().code, 18);
    EXPECT_EQ(t.shape()[0], 4);
    EXPECT_EQ(ffi::GetDataSize(t.numel(), t.dtype()), 4u);
    ffi::Error e = CatchError([&] { ffi::Function::GetGlobalRequired("ffi.ReprPrint")(t); });
    EXPECT_EQ(e.kind(), "ValueError");
    EXPECT_EQ(e.message(), "DLDataType contains unknown type_code=18");
  }
  EXPECT_EQ(h.deleted, 1);
}

TEST(DTypeStrings, CFunctionReadsOnlyTheGivenBytes) {
  auto parse_prefix = [](const char* data, size_t size) {
    TVMFFIByteArray bytes{data, size};
    DLDataType out{};
    EXPECT_EQ(TVMFFIDataTypeFromString(&bytes, &out), 0) << std::string(data, size);
    return out;
  };
  EXPECT_EQ(parse_prefix("float16999888777", 7), (DLDataType{kDLFloat, 16, 1}));
  EXPECT_EQ(parse_prefix("int32x4extra", 5), (DLDataType{kDLInt, 32, 1}));
  EXPECT_EQ(parse_prefix("int32xvscalex4extra", 14),
            (DLDataType{kDLInt, 32, static_cast<uint16_t>(-4)}));
  EXPECT_EQ(parse_prefix("float16xvscalex8999", 16),
            (DLDataType{kDLFloat, 16, static_cast<uint16_t>(-8)}));
}

TEST(DTypeStrings, KindsAndAbbreviations) {
  EXPECT_TRUE(ffi::DTypeIsFloat(Parse("bfloat16")));
  EXPECT_TRUE(ffi::DTypeIsFloat(Parse("float4_e2m1fn")));
  EXPECT_FALSE(ffi::DTypeIsFloat(Parse("int8")));
  EXPECT_TRUE(ffi::DTypeIsInt(Parse("uint8")));
  EXPECT_FALSE(ffi::DTypeIsInt(Parse("bool")));
  EXPECT_TRUE(ffi::DTypeIsBool(Parse("boolx4")));
  const std::vector<std::pair<std::string, std::string>> abbrev = {
      {"int32", "i32"},
      {"uint8x4", "u8x4"},
      {"float16", "f16"},
      {"bfloat16", "bf16"},
      {"float8_e4m3fn", "f8_e4m3fn"},
      {"bool", "bool"},
      {"void", "void"},
      {"handle", "handle"},
      {"int32xvscalex4", "i32xvscalex4"},
  };
  for (const auto& [name, short_name] : abbrev) {
    EXPECT_EQ(ffi::DTypeAbbrev(Parse(name)), short_name) << name;
    EXPECT_EQ(Parse(short_name), Parse(name)) << name;
  }
}

}  // namespace
