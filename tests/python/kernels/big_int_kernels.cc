// BigInt arithmetic in the reference's vocabulary (<tvm/ffi/big_int.h>), built with our headers
// and with the reference's by test_big_int.py, which checks every result against Python's ints.
#include <tvm/ffi/any.h>
#include <tvm/ffi/big_int.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

#include <cstdint>
#include <sstream>
#include <string>

namespace {
namespace ffi = tvm::ffi;
using ffi::BigInt;

// a <op> b for every binary operation BigInt has.
BigInt Binary(const ffi::String& op, const BigInt& a, const BigInt& b) {
  std::string name(op.data(), op.size());
  if (name == "add") return a + b;
  if (name == "sub") return a - b;
  if (name == "mul") return a * b;
  if (name == "div") return a / b;
  if (name == "mod") return a % b;
  if (name == "truncdiv") return truncdiv(a, b);
  if (name == "truncmod") return truncmod(a, b);
  if (name == "floordiv") return floordiv(a, b);
  if (name == "floormod") return floormod(a, b);
  if (name == "shl") return a << b;
  if (name == "shr") return a >> b;
  if (name == "and") return a & b;
  if (name == "or") return a | b;
  if (name == "xor") return a ^ b;
  if (name == "min") return min(a, b);
  if (name == "max") return max(a, b);
  if (name == "iadd") {
    BigInt c = a;
    c += b;
    return c;
  }
  if (name == "imul") {
    BigInt c = a;
    c *= b;
    return c;
  }
  TVM_FFI_THROW(ValueError) << "unknown operation " << name;
}

// a <op> b with an int64_t operand on the right ("r") or on the left ("l").
BigInt Mixed(const ffi::String& op, const BigInt& a, int64_t b, bool right) {
  std::string name(op.data(), op.size());
  if (name == "add") return right ? a + b : b + a;
  if (name == "sub") return right ? a - b : b - a;
  if (name == "mul") return right ? a * b : b * a;
  if (name == "floordiv") return right ? floordiv(a, b) : floordiv(b, a);
  if (name == "and") return right ? (a & b) : (b & a);
  TVM_FFI_THROW(ValueError) << "unknown operation " << name;
}

// The six comparisons of a and b, as bits: ==, !=, <, <=, >, >=.
int64_t Compare(const BigInt& a, const BigInt& b) {
  return (a == b) | (a != b) << 1 | (a < b) << 2 | (a <= b) << 3 | (a > b) << 4 | (a >= b) << 5;
}

BigInt Unary(const ffi::String& op, const BigInt& a) {
  std::string name(op.data(), op.size());
  if (name == "neg") return -a;
  if (name == "pos") return +a;
  if (name == "invert") return ~a;
  BigInt c = a;
  if (name == "preinc") return ++c;
  if (name == "predec") return --c;
  if (name == "postinc") {
    BigInt old = c++;
    return c - old;  // 1
  }
  TVM_FFI_THROW(ValueError) << "unknown operation " << name;
}

std::string ToText(const BigInt& a) {
  std::ostringstream os;
  os << a;
  return os.str();
}

// The value read from `text` by operator>>; None when it reads nothing.
ffi::Any FromText(const std::string& text) {
  std::istringstream is(text);
  BigInt value = 12345;
  if (!(is >> value)) return ffi::Any();
  return value;
}

double ToDouble(const BigInt& a) { return static_cast<double>(a); }
BigInt FromDouble(double d) { return BigInt(d); }
ffi::Any AsInt64(const BigInt& a) {
  if (auto v = a.as<int64_t>()) return *v;
  return ffi::Any();
}
ffi::Any AsUInt64Low(const BigInt& a) {  // the low 32 bits of an unsigned value that fits
  if (auto v = a.as<uint64_t>()) return static_cast<int64_t>(*v & 0xffffffffu);
  return ffi::Any();
}
int64_t ToInt64(const BigInt& a) { return static_cast<int64_t>(a); }
bool Truth(const BigInt& a) { return static_cast<bool>(a); }
int64_t HashOf(const BigInt& a) { return static_cast<int64_t>(a.hash()); }
BigInt FromUInt64Max() { return BigInt(~uint64_t{0}); }
// A BigInt passed through Any and back.
ffi::Any Echo(ffi::Any v) { return BigInt(v.cast<BigInt>()); }

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(binary, Binary);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(mixed, Mixed);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(compare, Compare);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(unary, Unary);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(to_text, ToText);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(from_text, FromText);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(to_double, ToDouble);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(from_double, FromDouble);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(as_int64, AsInt64);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(as_uint64_low, AsUInt64Low);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(to_int64, ToInt64);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(truth, Truth);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(hash_of, HashOf);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(from_uint64_max, FromUInt64Max);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(echo, Echo);
