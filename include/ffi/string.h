/*
 * ffi/string.h - String and Bytes: immutable byte sequences shared by reference.
 *
 * Both are objects {TVMFFIObject, TVMFFIByteArray, bytes...} with the bytes stored right after the
 * object in the same allocation (and a NUL after them, so a String is also a C string). In a
 * TVMFFIAny a value of at most 7 bytes travels inline as kTVMFFISmallStr / kTVMFFISmallBytes.
 */
#ifndef FFI_STRING_H_
#define FFI_STRING_H_

#include <cstring>
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "detail/string_text.h"
#include "type_traits.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

/*! \brief The object behind String and Bytes: a byte array whose bytes follow the object. */
class BytesObjBase : public Object, public TVMFFIByteArray {};

/*! \brief The object behind String (type index kTVMFFIStr). */
class StringObj : public BytesObjBase {
 public:
  FFI_DECLARE_STATIC_OBJECT_INFO("ffi.String", StringObj, Object, kTVMFFIStr);
};

/*! \brief The object behind Bytes (type index kTVMFFIBytes). */
class BytesObj : public BytesObjBase {
 public:
  FFI_DECLARE_STATIC_OBJECT_INFO("ffi.Bytes", BytesObj, Object, kTVMFFIBytes);
};

namespace detail {
/*!
 * \brief The length of an inline (small) string or bytes value, at most 7: clamped, so that a
 * malformed length cannot read past the 8-byte buffer, and so that GCC knows the bound (at -O1 it
 * otherwise reports comparing with a longer literal as reading that many bytes from the buffer).
 */
inline size_t InlineLength(const TVMFFIAny& v) noexcept {
  constexpr size_t kMax = sizeof(v.v_bytes) - 1;
  return v.small_str_len < kMax ? v.small_str_len : kMax;
}

/*! \brief Allocates an object `T` (StringObj or BytesObj) holding a copy of `size` bytes. */
template <typename T>
ObjectPtr<T> MakeBytesObj(const char* data, size_t size) {
  ObjectPtr<T> obj = make_object_with_extra<T>(size + 1);
  char* dst = static_cast<char*>(ExtraStorage(obj.get()));
  if (size != 0) std::memcpy(dst, data, size);
  dst[size] = '\0';
  obj->data = dst;
  obj->size = size;
  return obj;
}

/*! \brief A String or Bytes object that took over a std::string's buffer instead of copying. */
template <typename T>
class MovedStdStringObj : public T {
 public:
  explicit MovedStdStringObj(std::string&& s) : owned_(std::move(s)) {
    this->data = owned_.data();
    this->size = owned_.size();
  }

 private:
  std::string owned_;
};

/*! \brief Stores `s` in `out` inline (when it fits in 7 bytes) or as a new object. */
template <typename Obj>
void BytesToAny(std::string_view s, int32_t small_index, TVMFFIAny* out) {
  if (s.size() <= 7) {
    out->type_index = small_index;
    out->small_str_len = static_cast<uint32_t>(s.size());
    out->v_int64 = 0;
    if (!s.empty()) std::memcpy(out->v_bytes, s.data(), s.size());
    return;
  }
  Obj* obj = MakeBytesObj<Obj>(s.data(), s.size()).release();
  out->type_index = Obj::RuntimeTypeIndex();
  out->zero_padding = 0;
  out->v_obj = ObjectUnsafe::Header(obj);
}

template <typename Ref, int32_t Small, int32_t Object, int32_t Borrowed>
struct BytesTraits;

/*!
 * \brief Shared body of String and Bytes: a TVMFFIAny holding the value exactly as an Any would,
 * so a String is 16 bytes and reads the same in an object compiled with either header set: up to
 * 7 bytes inline (`Small`, a NUL after them), longer ones as a reference to an `Obj` (which may
 * also hold a short value, e.g. one received from elsewhere). kTVMFFINone only marks an empty
 * Optional<String> (see BytesCellOptionalAccess); it reads as "".
 */
template <typename Obj, int32_t Small>
class BytesCell {
 public:
  /*! \brief Pointer to the first byte (NUL-terminated); valid while this value lives. */
  const char* data() const noexcept { return IsObject() ? Heap()->data : cell_.v_bytes; }
  /*! \brief Number of bytes. */
  size_t size() const noexcept { return IsObject() ? Heap()->size : InlineLength(cell_); }
  /*! \brief Whether there are no bytes. */
  bool empty() const noexcept { return size() == 0; }
  /*! \brief The bytes as a std::string_view. */
  std::string_view view() const noexcept {
    if (IsObject()) return std::string_view(Heap()->data, Heap()->size);
    return std::string_view(cell_.v_bytes, InlineLength(cell_));
  }
  /*! \brief A copy as std::string. */
  operator std::string() const { return std::string(data(), size()); }

  /*! \brief The object type holding values longer than 7 bytes. */
  using ContainerType = Obj;
  static constexpr bool _type_is_nullable = false;

  BytesCell(const BytesCell& other) noexcept : cell_(other.cell_) {
    if (IsObject()) ObjectUnsafe::IncRef(cell_.v_obj);
  }
  /*! \brief Takes over `other`'s value; `other` is left empty. */
  BytesCell(BytesCell&& other) noexcept : cell_(other.cell_) { other.SetSmall(Small); }
  BytesCell& operator=(const BytesCell& other) noexcept {
    BytesCell(other).swap(*this);
    return *this;
  }
  BytesCell& operator=(BytesCell&& other) noexcept {
    BytesCell(std::move(other)).swap(*this);
    return *this;
  }
  ~BytesCell() {
    if (IsObject()) ObjectUnsafe::DecRef(cell_.v_obj);
  }
  /*! \brief Exchanges the values of two strings. */
  void swap(BytesCell& other) noexcept { std::swap(cell_, other.cell_); }

 protected:
  /*! \brief A copy of `s`. */
  explicit BytesCell(std::string_view s) { BytesToAny<Obj>(s, Small, &cell_); }
  /*! \brief Takes over `s`'s buffer: an object holding the std::string, whatever its length. */
  explicit BytesCell(std::string&& s) {
    SetObject(make_object<MovedStdStringObj<Obj>>(std::move(s)).release());
  }
  /*! \brief Holds the object `p` (a null `p` is the empty value). */
  explicit BytesCell(ObjectPtr<Object> p) {
    if (p == nullptr) {
      SetSmall(Small);
    } else {
      SetObject(p.release());
    }
  }
  /*! \brief Whether the bytes live in an object. */
  bool IsObject() const noexcept { return cell_.type_index >= kTVMFFIStaticObjectBegin; }

  TVMFFIAny cell_;  // exactly what an Any holding this value holds

 private:
  template <typename>
  friend struct BytesCellOptionalAccess;
  template <typename, int32_t, int32_t, int32_t>
  friend struct BytesTraits;
  const TVMFFIByteArray* Heap() const noexcept { return TVMFFIBytesGetByteArrayPtr(cell_.v_obj); }
  void SetSmall(int32_t type_index) noexcept {
    cell_.type_index = type_index;
    cell_.small_str_len = 0;
    cell_.v_int64 = 0;
  }
  void SetObject(Object* obj) noexcept {
    cell_.v_obj = ObjectUnsafe::Header(obj);
    cell_.type_index = cell_.v_obj->type_index;
    cell_.zero_padding = 0;
  }
};
}  // namespace detail

/*! \brief An immutable, reference-counted string. Never null; default is "". */
class String : public detail::BytesCell<StringObj, kTVMFFISmallStr> {
 public:
  String() : BytesCell(std::string_view()) {}
  /*! \brief No string from a null pointer (use Optional<String> for "no string"). */
  String(std::nullptr_t) = delete;
  String(const char* s) : BytesCell(std::string_view(s)) {}
  String(const std::string& s) : BytesCell(std::string_view(s)) {}
  /*! \brief Takes over `s`'s buffer (no copy; an object even for a short string, as TVM-FFI). */
  String(std::string&& s) : BytesCell(std::move(s)) {}
  String(std::string_view s) : BytesCell(s) {}
  String(const char* s, size_t n) : BytesCell(std::string_view(s, n)) {}
  /*! \brief Wraps an existing string object (null: ""). */
  explicit String(ObjectPtr<Object> p) : BytesCell(std::move(p)) {}
  /*! \brief Copies `bytes` (TVM-FFI's byte-array view). */
  explicit String(TVMFFIByteArray bytes) : BytesCell(std::string_view(bytes.data, bytes.size)) {}
  /*! \brief The string as a C string. */
  const char* c_str() const { return data(); }
  /*! \brief Same as size(). */
  size_t length() const { return size(); }

  /*! \brief What find() and substr() use for "no position" / "to the end". */
  static constexpr size_t npos = static_cast<size_t>(-1);
  /*! \brief The byte at `pos`; std::out_of_range past the end (as std::string::at). */
  char at(size_t pos) const {
    if (pos >= size()) throw std::out_of_range("ffi::String::at: index out of bounds");
    return data()[pos];
  }
  /*!
   * \brief Byte-wise three-way comparison: negative, zero or positive as this string sorts
   * before, equal to or after `other`.
   */
  int compare(std::string_view other) const {
    int r = view().compare(other);
    return (r > 0) - (r < 0);
  }
  int compare(const String& other) const { return compare(other.view()); }
  int compare(const std::string& other) const { return compare(std::string_view(other)); }
  int compare(const char* other) const { return compare(std::string_view(other)); }
  int compare(const TVMFFIByteArray& other) const {
    return compare(std::string_view(other.data, other.size));
  }
  /*!
   * \brief The pieces between occurrences of `delim`: always size() + 1 - (number of delimiters)
   * pieces, empty ones included ("a,,b" gives "a", "", "b"; "" gives one empty piece). The views
   * point into this string.
   */
  detail::StringPieces Split(char delim) const { return detail::StringPieces(view(), delim); }
  /*! \brief Position of the first `needle` at or after `pos`, or npos. */
  size_t find(std::string_view needle, size_t pos = 0) const { return view().find(needle, pos); }
  size_t find(const String& needle, size_t pos = 0) const { return find(needle.view(), pos); }
  size_t find(const char* needle, size_t pos = 0) const {
    return find(std::string_view(needle), pos);
  }
  size_t find(const char* needle, size_t pos, size_t count) const {
    return find(std::string_view(needle, count), pos);
  }
  /*! \brief Up to `count` bytes from `pos`; std::out_of_range when `pos > size()`. */
  String substr(size_t pos = 0, size_t count = npos) const {
    if (pos > size()) throw std::out_of_range("ffi::String::substr: position out of bounds");
    return String(view().substr(pos, count));
  }
  /*! \brief Whether the string begins with `prefix`. */
  bool starts_with(std::string_view prefix) const {
    return view().substr(0, prefix.size()) == prefix;
  }
  bool starts_with(const String& prefix) const { return starts_with(prefix.view()); }
  bool starts_with(const char* prefix) const { return starts_with(std::string_view(prefix)); }
  bool starts_with(const char* prefix, size_t count) const {
    return starts_with(std::string_view(prefix, count));
  }
  /*! \brief Whether the string ends with `suffix`. */
  bool ends_with(std::string_view suffix) const {
    return size() >= suffix.size() && view().substr(size() - suffix.size()) == suffix;
  }
  bool ends_with(const String& suffix) const { return ends_with(suffix.view()); }
  bool ends_with(const char* suffix) const { return ends_with(std::string_view(suffix)); }
  bool ends_with(const char* suffix, size_t count) const {
    return ends_with(std::string_view(suffix, count));
  }

  // Hidden friends: found only when a String takes part, so they never make comparisons of
  // other string types ambiguous.
  /*! \brief Byte-wise comparison with strings, std::string, string views and C strings. */
  friend bool operator==(const String& a, const String& b) { return a.view() == b.view(); }
  friend bool operator==(const String& a, std::string_view b) { return a.view() == b; }
  friend bool operator==(const String& a, const std::string& b) { return a.view() == b; }
  friend bool operator==(const String& a, const char* b) { return a.view() == b; }
  friend bool operator!=(const String& a, const String& b) { return !(a == b); }
  friend bool operator!=(const String& a, std::string_view b) { return !(a == b); }
  friend bool operator!=(const String& a, const std::string& b) { return !(a == b); }
  friend bool operator!=(const String& a, const char* b) { return !(a == b); }
/*! \brief Byte-wise ordering against strings, std::string and C strings, on either side. */
#define FFI_DETAIL_STRING_ORDER(op)                                                            \
  friend bool operator op(const String& a, const String& b) { return a.compare(b) op 0; }      \
  friend bool operator op(const String& a, const std::string& b) { return a.compare(b) op 0; } \
  friend bool operator op(const String& a, const char* b) { return a.compare(b) op 0; }        \
  friend bool operator op(const std::string& a, const String& b) { return 0 op b.compare(a); } \
  friend bool operator op(const char* a, const String& b) { return 0 op b.compare(a); }
  FFI_DETAIL_STRING_ORDER(<)
  FFI_DETAIL_STRING_ORDER(>)
  FFI_DETAIL_STRING_ORDER(<=)
  FFI_DETAIL_STRING_ORDER(>=)
#undef FFI_DETAIL_STRING_ORDER
  /*! \brief Concatenation. */
  friend String operator+(const String& a, std::string_view b) {
    std::string s(a.view());
    s.append(b);
    return String(s);
  }
  friend String operator+(const String& a, const char* b) { return a + std::string_view(b); }
  friend String operator+(const String& a, const std::string& b) { return a + std::string_view(b); }
  friend String operator+(const String& a, const String& b) { return a + b.view(); }
  /*! \brief Prints the string's bytes. */
  template <typename Traits>
  friend std::basic_ostream<char, Traits>& operator<<(std::basic_ostream<char, Traits>& os,
                                                      const String& s) {
    return os << s.view();
  }
};

/*! \brief An immutable, reference-counted byte sequence. Never null; default is empty. */
class Bytes : public detail::BytesCell<BytesObj, kTVMFFISmallBytes> {
 public:
  Bytes() : BytesCell(std::string_view()) {}
  Bytes(const char* data, size_t n) : BytesCell(std::string_view(data, n)) {}
  /*! \brief Copies `bytes` (TVM-FFI's byte-array view). */
  Bytes(TVMFFIByteArray bytes) : BytesCell(std::string_view(bytes.data, bytes.size)) {}
  Bytes(const char* s) : BytesCell(std::string_view(s)) {}
  Bytes(const std::string& s) : BytesCell(std::string_view(s)) {}
  /*! \brief Takes over `s`'s buffer (no copy; an object even for a short value, as TVM-FFI). */
  Bytes(std::string&& s) : BytesCell(std::move(s)) {}
  Bytes(std::string_view s) : BytesCell(s) {}
  /*! \brief Wraps an existing bytes object (null: empty). */
  explicit Bytes(ObjectPtr<Object> p) : BytesCell(std::move(p)) {}
  /*!
   * \brief Three-way comparison of two byte ranges: negative, zero or positive as `lhs` sorts
   * before, equal to or after `rhs` (bytes compared as `char`).
   */
  static int memncmp(const char* lhs, const char* rhs, size_t lhs_count, size_t rhs_count) {
    for (size_t i = 0; i < lhs_count && i < rhs_count; ++i) {
      if (lhs[i] != rhs[i]) return lhs[i] < rhs[i] ? -1 : 1;
    }
    return lhs_count < rhs_count ? -1 : lhs_count > rhs_count ? 1 : 0;
  }
  /*! \brief Whether two byte ranges hold the same bytes. */
  static bool memequal(const void* lhs, const void* rhs, size_t lhs_count, size_t rhs_count) {
    return lhs_count == rhs_count && (lhs == rhs || std::memcmp(lhs, rhs, lhs_count) == 0);
  }
  /*! \brief Byte-wise comparison. */
  friend bool operator==(const Bytes& a, const Bytes& b) { return a.view() == b.view(); }
  friend bool operator!=(const Bytes& a, const Bytes& b) { return !(a == b); }
};

namespace detail {
/*! \brief How Optional<String> / Optional<Bytes> mark nothing in the cell: kTVMFFINone. */
template <typename T>
struct BytesCellOptionalAccess {
  static bool IsNone(const T& v) noexcept { return v.cell_.type_index == kTVMFFINone; }
  static void SetNone(T& v) noexcept {
    v = T();
    v.cell_.type_index = kTVMFFINone;
  }
  static T None() noexcept {
    T v;
    v.cell_.type_index = kTVMFFINone;
    return v;
  }
};
template <>
inline constexpr bool kCellOptional<String> = true;
template <>
inline constexpr bool kCellOptional<Bytes> = true;
template <>
struct CellOptionalAccess<String> : BytesCellOptionalAccess<String> {};
template <>
struct CellOptionalAccess<Bytes> : BytesCellOptionalAccess<Bytes> {};
}  // namespace detail

namespace detail {
/*! \brief The bytes of a string-like or bytes-like value, if it is one of `indices`. */
inline Optional<std::string_view> BytesView(const TVMFFIAny* src, int32_t small, int32_t object,
                                            int32_t borrowed) {
  int32_t t = src->type_index;
  if (t == small) return std::string_view(src->v_bytes, InlineLength(*src));
  if (t == object) {
    return ByteView(*TVMFFIBytesGetByteArrayPtr(src->v_obj));
  }
  if (t == borrowed) {
    if (t == kTVMFFIRawStr) {
      if (src->v_c_str == nullptr) return std::nullopt;  // a null C string is no string
      return std::string_view(src->v_c_str);
    }
    return ByteView(*static_cast<const TVMFFIByteArray*>(src->v_ptr));
  }
  return std::nullopt;
}

/*! \brief Traits shared by String and Bytes: the value's cell is what an Any holds. */
template <typename Ref, int32_t Small, int32_t Large, int32_t Borrowed>
struct BytesTraits : TypeTraitsBase {
  static void CopyToAnyView(const Ref& v, TVMFFIAny* out) { *out = CellOf(v); }
  static void MoveToAny(Ref v, TVMFFIAny* out) {
    *out = CellOf(v);
    new (&CellOf(v)) TVMFFIAny{};  // `v` gave its reference away; its destructor sees None
  }
  static bool CheckAnyStrict(const TVMFFIAny* src) {
    return src->type_index == Small || src->type_index == Large;
  }
  static detail::CastResult<Ref> TryCastFromAnyView(const TVMFFIAny* src) {
    if (src->type_index == Large) {
      return Ref(ObjectPtr<Object>::Borrow(ObjectUnsafe::FromHeader(src->v_obj)));
    }
    if (auto s = BytesView(src, Small, Large, Borrowed)) return Ref(*s);
    return std::nullopt;
  }
  /*! \brief {"type":"ffi.String"} / {"type":"ffi.Bytes"}. */
  static std::string TypeSchema() { return SchemaOfKey(Ref::ContainerType::_type_key); }

 private:
  static TVMFFIAny& CellOf(const Ref& v) {
    using Cell = BytesCell<typename Ref::ContainerType, Small>;
    return const_cast<Cell&>(static_cast<const Cell&>(v)).cell_;
  }
};
}  // namespace detail

/*! \brief String: kTVMFFISmallStr or kTVMFFIStr; a borrowed C string converts. */
template <>
struct TypeTraits<String>
    : detail::BytesTraits<String, kTVMFFISmallStr, kTVMFFIStr, kTVMFFIRawStr> {
  static constexpr auto TypeStr() { return ConstString("str"); }
};

/*! \brief Bytes: kTVMFFISmallBytes or kTVMFFIBytes; a borrowed byte array converts. */
template <>
struct TypeTraits<Bytes>
    : detail::BytesTraits<Bytes, kTVMFFISmallBytes, kTVMFFIBytes, kTVMFFIByteArrayPtr> {
  static constexpr auto TypeStr() { return ConstString("bytes"); }
};

/*!
 * \brief const char*: viewed as a borrowed kTVMFFIRawStr, owned as a String; null is None. Write
 * only: nothing converts back to a pointer whose memory nobody would own.
 */
template <>
struct TypeTraits<const char*> : TypeTraitsBase {
  static void CopyToAnyView(const char* const& v, TVMFFIAny* out) {
    if (v == nullptr) return detail::SetNone(out);
    out->type_index = kTVMFFIRawStr;
    out->zero_padding = 0;
    out->v_int64 = 0;
    out->v_c_str = v;
  }
  static void MoveToAny(const char* v, TVMFFIAny* out) {
    if (v == nullptr) return detail::SetNone(out);
    detail::BytesToAny<StringObj>(v, kTVMFFISmallStr, out);
  }
  static constexpr auto TypeStr() { return ConstString("str"); }
  static std::string TypeSchema() { return detail::SchemaOfKey("const char*"); }
};
/*!
 * \brief TVMFFIByteArray*: viewed as a borrowed kTVMFFIByteArrayPtr (the bytes must outlive the
 * view), owned as a Bytes copy; converts back only from a borrowed byte-array pointer.
 */
template <>
struct TypeTraits<TVMFFIByteArray*> : TypeTraitsBase {
  static bool CheckAnyStrict(const TVMFFIAny* src) {
    return src->type_index == kTVMFFIByteArrayPtr;
  }
  static void CopyToAnyView(TVMFFIByteArray* const& v, TVMFFIAny* out) {
    if (v == nullptr) return detail::SetNone(out);
    out->type_index = kTVMFFIByteArrayPtr;
    out->zero_padding = 0;
    out->v_int64 = 0;
    out->v_ptr = v;
  }
  static void MoveToAny(TVMFFIByteArray* v, TVMFFIAny* out) {
    if (v == nullptr) return detail::SetNone(out);
    detail::BytesToAny<BytesObj>(std::string_view(v->data, v->size), kTVMFFISmallBytes, out);
  }
  static detail::CastResult<TVMFFIByteArray*> TryCastFromAnyView(const TVMFFIAny* src) {
    if (src->type_index != kTVMFFIByteArrayPtr) return std::nullopt;
    return static_cast<TVMFFIByteArray*>(src->v_ptr);
  }
  static constexpr auto TypeStr() { return ConstString("TVMFFIByteArray*"); }
  static std::string TypeSchema() { return detail::SchemaOfKey("TVMFFIByteArray*"); }
};
/*! \brief String literals and char arrays behave as const char*. */
template <size_t N>
struct TypeTraits<char[N]> : TypeTraits<const char*> {
  static void CopyToAnyView(const char (&v)[N], TVMFFIAny* out) {
    TypeTraits<const char*>::CopyToAnyView(v, out);
  }
};

/*! \brief The bytes a TVMFFIByteArray points to, as a std::string_view (TVM-FFI's name). */
inline std::string_view ToStringView(TVMFFIByteArray bytes) {
  return std::string_view(bytes.data, bytes.size);
}

/*! \brief `value` as a JSON string literal (quoted and escaped). */
inline String EscapeStringJSON(const String& value) {
  return String(detail::JSONString(value.view()));
}

/*!
 * \brief `value` as a Python string literal in double quotes, printable in any terminal: C
 * escapes for quotes, backslashes and \\n \\t \\r, `\\xNN` for other control bytes and for
 * bytes that are not valid UTF-8, and `\\uNNNN` / `\\UNNNNNNNN` for non-ASCII characters.
 */
inline String EscapedStringPy(const String& value) {
  return String(detail::PyString(value.view()));
}

/*!
 * \brief std::string: viewed as a borrowed C string, owned as a String; converts back from any
 * string value.
 */
template <>
struct TypeTraits<std::string> : TypeTraitsBase {
  static void CopyToAnyView(const std::string& v, TVMFFIAny* out) {
    TypeTraits<const char*>::CopyToAnyView(v.c_str(), out);
  }
  static void MoveToAny(const std::string& v, TVMFFIAny* out) {
    detail::BytesToAny<StringObj>(v, kTVMFFISmallStr, out);
  }
  static bool CheckAnyStrict(const TVMFFIAny* src) {
    return TypeTraits<String>::CheckAnyStrict(src);
  }
  static detail::CastResult<std::string> TryCastFromAnyView(const TVMFFIAny* src) {
    // Bytes convert too: a std::string holds any bytes.
    if (auto s = detail::BytesView(src, kTVMFFISmallStr, kTVMFFIStr, kTVMFFIRawStr)) {
      return std::string(*s);
    }
    if (auto b = detail::BytesView(src, kTVMFFISmallBytes, kTVMFFIBytes, kTVMFFIByteArrayPtr)) {
      return std::string(*b);
    }
    return std::nullopt;
  }
  static constexpr auto TypeStr() { return ConstString("str"); }
  static std::string TypeSchema() { return detail::SchemaOfKey("std::string"); }
};

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

/*! \brief Strings and bytes hash by content, as std::string does (for unordered containers). */
template <>
struct std::hash<::tvm::ffi::String> {
  size_t operator()(const ::tvm::ffi::String& s) const noexcept {
    return std::hash<std::string_view>()(s.view());
  }
};
template <>
struct std::hash<::tvm::ffi::Bytes> {
  size_t operator()(const ::tvm::ffi::Bytes& b) const noexcept {
    return std::hash<std::string_view>()(b.view());
  }
};

#endif  // FFI_STRING_H_
