/*
 * ffi/const_string.h - ConstString<N>: text made at compile time. Type names (TypeStr) are
 * ConstStrings, so that the signature text of a typed function, built from them with `+`, is
 * constant data rather than code run (and compiled) in every kernel. A TypeStr written for
 * TVM-FFI returns a std::string instead; `+` with one gives a std::string, so signatures that
 * name such a type are made at run time (once) and everything else stays constant.
 */
#ifndef FFI_CONST_STRING_H_
#define FFI_CONST_STRING_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

/*!
 * \brief A string of `N` characters made at compile time. Type names (TypeStr) are ConstStrings, so
 * that the signature text of a typed function, built from them with `+`, is constant data rather
 * than code run (and compiled) in every kernel.
 */
template <size_t N>
struct ConstString {
  /*! \brief The characters, followed by a terminating NUL. */
  char data[N + 1] = {};

  constexpr ConstString() = default;
  /*! \brief From a string literal. */
  constexpr ConstString(const char (&literal)[N + 1]) {
    for (size_t i = 0; i != N; ++i) data[i] = literal[i];
  }
  /*! \brief From the `N` characters at `chars`. */
  static constexpr ConstString FromChars(const char* chars) {
    ConstString out;
    for (size_t i = 0; i != N; ++i) out.data[i] = chars[i];
    return out;
  }
  /*! \brief Number of characters. */
  static constexpr size_t size() { return N; }
  /*! \brief The characters as a C string. */
  constexpr const char* c_str() const { return data; }
  /*! \brief The characters as a string view. */
  constexpr std::string_view view() const { return std::string_view(data, N); }
  constexpr operator std::string_view() const { return view(); }
  /*! \brief Concatenation. */
  template <size_t M>
  constexpr ConstString<N + M> operator+(const ConstString<M>& other) const {
    ConstString<N + M> out;
    for (size_t i = 0; i != N; ++i) out.data[i] = data[i];
    for (size_t i = 0; i != M; ++i) out.data[N + i] = other.data[i];
    return out;
  }
  /*! \brief Concatenation with a string literal. */
  template <size_t M>
  constexpr ConstString<N + M - 1> operator+(const char (&literal)[M]) const {
    return *this + ConstString<M - 1>(literal);
  }
  /*! \brief Concatenation with run-time text (a TypeStr written for TVM-FFI). */
  friend std::string operator+(const ConstString& a, const std::string& b) {
    return std::string(a.view()) + b;
  }
  friend std::string operator+(const std::string& a, const ConstString& b) {
    return a + std::string(b.view());
  }
  friend constexpr bool operator==(const ConstString& a, std::string_view b) {
    return a.view() == b;
  }
  friend constexpr bool operator!=(const ConstString& a, std::string_view b) {
    return a.view() != b;
  }
};
template <size_t M>
ConstString(const char (&)[M]) -> ConstString<M - 1>;

namespace detail {
/*! \brief `I` in decimal. */
template <size_t I>
constexpr auto DecimalString() {
  if constexpr (I < 10) {
    ConstString<1> digit;
    digit.data[0] = static_cast<char>('0' + I);
    return digit;
  } else {
    return DecimalString<I / 10>() + DecimalString<I % 10>();
  }
}
}  // namespace detail

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_CONST_STRING_H_
