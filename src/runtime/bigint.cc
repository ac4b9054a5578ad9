// Integers beyond int64_t (kTVMFFIBigInt): made from and viewed as 64-bit two's-complement words,
// and found by value as map keys.
#include <ffi/any.h>
#include <ffi/big_int.h>
#include <ffi/extra/dataclass.h>
#include <ffi/object.h>
#include <ffi/reflection/registry.h>

#include <cstring>
#include <vector>

using ffi::detail::BigIntObj;

extern "C" {

int TVMFFIBigIntFromByteArray(const TVMFFIByteArray* input, TVMFFIAny* out) {
  FFI_SAFE_CALL_BEGIN();
  if (input == nullptr || out == nullptr) {
    FFI_THROW(ValueError) << "TVMFFIBigIntFromByteArray: " << (input ? "out" : "input")
                          << " is NULL";
  }
  *out = TVMFFIAny{};
  if (input->size % sizeof(int64_t) != 0) {
    FFI_THROW(ValueError) << "TVMFFIBigIntFromByteArray: " << input->size
                          << " bytes is not a whole number of 64-bit words";
  }
  if (input->data == nullptr && input->size != 0) {
    FFI_THROW(ValueError) << "TVMFFIBigIntFromByteArray: data is NULL";
  }
  // The input need not be aligned to 8; copy before reading words.
  std::vector<int64_t> words(input->size / sizeof(int64_t));
  if (input->size != 0) std::memcpy(words.data(), input->data, input->size);
  // Whatever fits in int64_t is a plain integer, never an object: one value, one representation.
  *out = ffi::Any(ffi::BigInt::FromWords(words.data(), words.size())).release();
  FFI_SAFE_CALL_END();
}

TVMFFIByteArray TVMFFIBigIntGetContentByteArray(const TVMFFIAny* value) {
  if (value != nullptr && value->type_index == kTVMFFIInt) {
    return TVMFFIByteArray{reinterpret_cast<const char*>(&value->v_int64), sizeof(int64_t)};
  }
  if (value != nullptr && value->type_index == kTVMFFIBigInt && value->v_obj != nullptr) {
    const auto* obj =
        static_cast<const BigIntObj*>(ffi::detail::ObjectUnsafe::FromHeader(value->v_obj));
    return TVMFFIByteArray{reinterpret_cast<const char*>(obj->words()),
                           obj->size * sizeof(int64_t)};
  }
  // No status to return: the error is raised and the view is empty.
  TVMFFIErrorSetRaisedFromCStr("TypeError",
                               "TVMFFIBigIntGetContentByteArray: the value is not an integer");
  return TVMFFIByteArray{nullptr, 0};
}

}  // extern "C"

namespace tvm {
namespace ffi {
namespace runtime {
namespace {

// Two BigInt objects of one value are one map key (two ints of one value already are: the value
// is inline). Content equality, order and hash (ffi.Recursive*) by value, as the reference
// registers them: the hash is the words' (what RecursiveHash then gives a BigInt, bit for bit).
FFI_STATIC_INIT_BLOCK() {
  reflection::TypeAttrDef<BigIntObj>()
      .def("__any_hash__",
           Function::FromTyped([](const BigInt& v) { return static_cast<int64_t>(v.hash()); }))
      .def("__any_equal__",
           Function::FromTyped([](const BigInt& a, const BigInt& b) { return a == b; }))
      .def(type_attr::kEq.name, Function::FromTyped([](const BigInt& a, const BigInt& b,
                                                       const Function&) { return a == b; }))
      .def(type_attr::kCompare.name,
           Function::FromTyped([](const BigInt& a, const BigInt& b, const Function&) {
             return a < b ? -1 : (b < a ? 1 : 0);
           }))
      .def(type_attr::kHash.name, Function::FromTyped([](const BigInt& v, const Function&) {
             return static_cast<int64_t>(v.hash());
           }));
}

}  // namespace
}  // namespace runtime
}  // namespace ffi
}  // namespace tvm
