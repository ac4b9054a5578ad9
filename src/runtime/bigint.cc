// Integers beyond int64_t (kTVMFFIBigInt): made from and viewed as 64-bit two's-complement words.
#include <ffi/any.h>
#include <ffi/object.h>

#include <cstring>
#include <vector>

namespace tvm {
namespace ffi {
namespace runtime {
namespace {

/*!
 * \brief The object behind kTVMFFIBigInt: the word count, then the words (least significant
 * first) in the same allocation. The reference lays it out so; kernels may read it inline.
 */
class BigIntObj : public Object {
 public:
  explicit BigIntObj(size_t size) : size(size) {}
  /*! \brief The number of 64-bit words that follow. */
  size_t size;
  FFI_DECLARE_STATIC_OBJECT_INFO("ffi.BigInt", BigIntObj, Object, kTVMFFIBigInt);
};
static_assert(sizeof(BigIntObj) == sizeof(TVMFFIObject) + sizeof(size_t),
              "the words start right after the word count");

const int64_t* Words(const BigIntObj* obj) {
  return static_cast<const int64_t*>(detail::ExtraStorage(obj));
}

/*!
 * \brief The length of the minimal form of `n` words: a top word that only repeats the sign of
 * the word below it is dropped. Never less than one word when n > 0.
 */
size_t MinimalSize(const int64_t* words, size_t n) {
  while (n > 1) {
    int64_t top = words[n - 1];
    bool below_negative = words[n - 2] < 0;
    if ((top == 0 && !below_negative) || (top == -1 && below_negative)) {
      --n;
    } else {
      break;
    }
  }
  return n;
}

}  // namespace
}  // namespace runtime
}  // namespace ffi
}  // namespace tvm

using namespace ffi::runtime;

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
  size_t n = input->size / sizeof(int64_t);
  // The input need not be aligned to 8; copy before reading words.
  std::vector<int64_t> words(n);
  if (n > 0) std::memcpy(words.data(), input->data, input->size);
  n = MinimalSize(words.data(), n);
  if (n <= 1) {
    // Whatever fits in int64_t is a plain integer, never an object: one value, one representation.
    out->type_index = kTVMFFIInt;
    out->v_int64 = n == 0 ? 0 : words[0];
    return 0;
  }
  ffi::ObjectPtr<BigIntObj> obj = ffi::make_object_with_extra<BigIntObj>(n * sizeof(int64_t), n);
  std::memcpy(ffi::detail::ExtraStorage(obj.get()), words.data(), n * sizeof(int64_t));
  out->type_index = kTVMFFIBigInt;
  out->v_obj = ffi::detail::ObjectUnsafe::Header(obj.release());
  FFI_SAFE_CALL_END();
}

TVMFFIByteArray TVMFFIBigIntGetContentByteArray(const TVMFFIAny* value) {
  if (value != nullptr && value->type_index == kTVMFFIInt) {
    return TVMFFIByteArray{reinterpret_cast<const char*>(&value->v_int64), sizeof(int64_t)};
  }
  if (value != nullptr && value->type_index == kTVMFFIBigInt && value->v_obj != nullptr) {
    const auto* obj =
        static_cast<const BigIntObj*>(ffi::detail::ObjectUnsafe::FromHeader(value->v_obj));
    return TVMFFIByteArray{reinterpret_cast<const char*>(Words(obj)), obj->size * sizeof(int64_t)};
  }
  // No status to return: the error is raised and the view is empty.
  TVMFFIErrorSetRaisedFromCStr("TypeError",
                               "TVMFFIBigIntGetContentByteArray: the value is not an integer");
  return TVMFFIByteArray{nullptr, 0};
}

}  // extern "C"
