// Reflection of the C ABI: fields, methods and metadata per type (exposed through the type's
// TVMFFITypeInfo) and type attribute columns.
#include <ffi/any.h>
#include <ffi/error.h>

#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "loading.h"
#include "reflection_table.h"

namespace tvm {
namespace ffi {
namespace runtime {
namespace {

/*!
 * \brief An append-only array whose published buffers stay valid for the life of the process: a
 * reader may hold `data()` (a TypeInfo's `fields`, a column's `data`) while it grows, so a full
 * buffer is retired, not freed.
 */
template <typename T>
class GrowOnlyArray {
 public:
  const T* data() const { return data_; }
  T* mutable_data() { return data_; }
  int32_t size() const { return size_; }

  /*! \brief Grows to `n` elements, the new ones copies of `fill`. */
  void Resize(int32_t n, const T& fill) {
    if (n <= size_) return;
    if (n > capacity_) {
      int32_t capacity = capacity_ == 0 ? 4 : capacity_;
      while (capacity < n) capacity *= 2;
      std::unique_ptr<T[]> buffer(new T[capacity]);
      if (size_ != 0) std::memcpy(buffer.get(), data_, sizeof(T) * size_);  // T is a C record.
      data_ = buffer.get();
      buffers_.push_back(std::move(buffer));
      capacity_ = capacity;
    }
    for (int32_t i = size_; i < n; ++i) data_[i] = fill;
    size_ = n;
  }
  void PushBack(const T& value) { Resize(size_ + 1, value); }

  /*!
   * \brief Sets element `i` to `value` in a fresh buffer (the current one is retired), so that a
   * reader of the old buffer never sees the element half written.
   */
  void ReplaceInCopy(int32_t i, const T& value) {
    std::unique_ptr<T[]> buffer(new T[capacity_]);
    std::memcpy(buffer.get(), data_, sizeof(T) * size_);
    buffer[i] = value;
    data_ = buffer.get();
    buffers_.push_back(std::move(buffer));
  }

 private:
  T* data_ = nullptr;
  int32_t size_ = 0;
  int32_t capacity_ = 0;
  std::vector<std::unique_ptr<T[]>> buffers_;
};

/*!
 * \brief Points `*data` and `*size` (a TypeInfo's records, a column's values) at `array`: the
 * buffer first, then the size, each stored with release. Readers take neither lock: one that reads
 * the new size (acquire, or in order on x86) reads a buffer that holds that many elements; one that
 * reads the old size may read the new buffer, which holds the old elements too.
 */
template <typename T, typename Data, typename Size>
void Publish(Data** data, Size* size, const GrowOnlyArray<T>& array) {
  __atomic_store_n(data, const_cast<Data*>(array.data()), __ATOMIC_RELEASE);
  __atomic_store_n(size, static_cast<Size>(array.size()), __ATOMIC_RELEASE);
}

/*! \brief What a type registered beyond its TypeInfo; the info's pointers point in here. */
struct TypeReflection {
  GrowOnlyArray<TVMFFIFieldInfo> fields;
  GrowOnlyArray<TVMFFIMethodInfo> methods;
  /*! \brief Every metadata ever set (a replaced one may still be read). */
  std::deque<TVMFFITypeMetadata> metadata;
};

/*! \brief A type attribute column and the storage of its values. */
struct AttrColumn {
  TVMFFITypeAttrColumn abi{nullptr, 0, 0};
  GrowOnlyArray<TVMFFIAny> values;
};

/*!
 * \brief All reflection records. Registration is rare (static initializers) and takes the lock;
 * readers go through TypeInfo and column pointers, which stay valid. Never destroyed, and nothing
 * registered is released: types live as long as the process.
 */
class ReflectionTable {
 public:
  static ReflectionTable* Global() {
    static ReflectionTable* table = new ReflectionTable();
    return table;
  }

  void RegisterField(int32_t type_index, const TVMFFIFieldInfo& in) {
    std::lock_guard<std::mutex> lock(mutex_);
    TVMFFITypeInfo* info = CheckedType(type_index, "TVMFFITypeRegisterField");
    std::string_view name = CheckedName(in.name, "TVMFFITypeRegisterField", "field");
    for (int32_t i = 0; i < info->num_fields; ++i) {
      if (detail::ByteView(info->fields[i].name) == name) {
        FFI_THROW(ValueError) << "Type `" << detail::ByteView(info->type_key)
                              << "` already has a field `" << name << "`";
      }
    }
    TVMFFIFieldInfo field = in;
    field.name = Keep(name);
    field.doc = Keep(CheckedText(in.doc, "TVMFFITypeRegisterField", "doc"));
    field.metadata = Keep(CheckedText(in.metadata, "TVMFFITypeRegisterField", "metadata"));
    field.default_value_or_factory = TVMFFIAny{};
    if (in.flags & kTVMFFIFieldFlagBitMaskHasDefault) {
      detail::ViewToOwned(in.default_value_or_factory, &field.default_value_or_factory);
    }
    if ((in.flags & kTVMFFIFieldFlagBitSetterIsFunctionObj) && in.setter != nullptr) {
      TVMFFIObjectIncRef(in.setter);
    }
    TypeReflection& refl = types_[type_index];
    refl.fields.PushBack(field);
    Publish(&info->fields, &info->num_fields, refl.fields);
  }

  void RenameField(int32_t type_index, std::string_view from, std::string_view to) {
    std::lock_guard<std::mutex> lock(mutex_);
    TVMFFITypeInfo* info = CheckedType(type_index, "RenameField");
    int32_t at = -1;
    for (int32_t i = 0; i < info->num_fields; ++i) {
      std::string_view name = detail::ByteView(info->fields[i].name);
      if (name == to) return;
      if (name == from) at = i;
    }
    if (at < 0) {
      FFI_THROW(KeyError) << "Type `" << detail::ByteView(info->type_key) << "` has no field `"
                          << from << "`";
    }
    TypeReflection& refl = types_[type_index];
    TVMFFIFieldInfo renamed = refl.fields.data()[at];
    renamed.name = Keep(to);
    refl.fields.ReplaceInCopy(at, renamed);
    __atomic_store_n(&info->fields, refl.fields.data(), __ATOMIC_RELEASE);
  }

  void RegisterMethod(int32_t type_index, const TVMFFIMethodInfo& in) {
    std::lock_guard<std::mutex> lock(mutex_);
    TVMFFITypeInfo* info = CheckedType(type_index, "TVMFFITypeRegisterMethod");
    std::string_view name = CheckedName(in.name, "TVMFFITypeRegisterMethod", "method");
    if (in.method.type_index != kTVMFFIFunction) {
      FFI_THROW(TypeError) << "TVMFFITypeRegisterMethod: method `" << name
                           << "` must be a Function, got type index " << in.method.type_index;
    }
    // A name may have several records only when they hold the same Function: the signatures of
    // an overloaded method, which dispatches among them (reflection/overload.h). A lookup by
    // name finds the first record, and with it that Function.
    for (int32_t i = 0; i < info->num_methods; ++i) {
      if (detail::ByteView(info->methods[i].name) == name &&
          info->methods[i].method.v_obj != in.method.v_obj) {
        FFI_THROW(ValueError) << "Type `" << detail::ByteView(info->type_key)
                              << "` already has a method `" << name << "`";
      }
    }
    TVMFFIMethodInfo method = in;
    method.name = Keep(name);
    method.doc = Keep(CheckedText(in.doc, "TVMFFITypeRegisterMethod", "doc"));
    method.metadata = Keep(CheckedText(in.metadata, "TVMFFITypeRegisterMethod", "metadata"));
    method.method = TVMFFIAny{};
    detail::ViewToOwned(in.method, &method.method);
    TypeReflection& refl = types_[type_index];
    refl.methods.PushBack(method);
    Publish(&info->methods, &info->num_methods, refl.methods);
  }

  void RegisterMetadata(int32_t type_index, const TVMFFITypeMetadata& in) {
    std::lock_guard<std::mutex> lock(mutex_);
    TVMFFITypeInfo* info = CheckedType(type_index, "TVMFFITypeRegisterMetadata");
    TVMFFITypeMetadata metadata = in;
    metadata.doc = Keep(CheckedText(in.doc, "TVMFFITypeRegisterMetadata", "doc"));
    TypeReflection& refl = types_[type_index];
    refl.metadata.push_back(metadata);
    info->metadata = &refl.metadata.back();
  }

  void RegisterAttr(int32_t type_index, std::string_view name, const TVMFFIAny& value) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (type_index != kTVMFFINone) CheckedType(type_index, "TVMFFITypeRegisterAttr");
    std::unique_ptr<AttrColumn>& column = columns_[std::string(name)];
    if (column == nullptr) column = std::make_unique<AttrColumn>();
    if (type_index == kTVMFFINone) return;  // Only makes sure the column exists.
    if (type_index < column->values.size() &&
        column->values.data()[type_index].type_index != kTVMFFINone) {
      FFI_THROW(ValueError) << "Type `" << detail::ByteView(TVMFFIGetTypeInfo(type_index)->type_key)
                            << "` already has attribute `" << name << "`";
    }
    TVMFFIAny owned{};
    detail::ViewToOwned(value, &owned);
    if (type_index < column->values.size()) {
      // A slot readers may be reading (as None): set in a fresh buffer, never half written.
      column->values.ReplaceInCopy(type_index, owned);
    } else {
      column->values.Resize(type_index + 1, TVMFFIAny{});  // slots no reader sees yet
      column->values.mutable_data()[type_index] = owned;
    }
    Publish(&column->abi.data, &column->abi.size, column->values);
  }

  const TVMFFITypeAttrColumn* GetColumn(std::string_view name) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = columns_.find(std::string(name));
    return it == columns_.end() ? nullptr : &it->second->abi;
  }

 private:
  /*!
   * \brief The registered type's info, writable: the records are the runtime's own (object.cc
   * allocates them mutable), and this table is the only writer of their reflection pointers.
   */
  static TVMFFITypeInfo* CheckedType(int32_t type_index, const char* fn) {
    const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(type_index);
    if (info == nullptr)
      FFI_THROW(KeyError) << fn << ": type index " << type_index << " is unknown";
    return const_cast<TVMFFITypeInfo*>(info);
  }
  static std::string_view CheckedText(const TVMFFIByteArray& a, const char* fn, const char* what) {
    if (a.data == nullptr && a.size != 0) {
      FFI_THROW(ValueError) << fn << ": the " << what << " has NULL data and size " << a.size;
    }
    return detail::ByteView(a);
  }
  static std::string_view CheckedName(const TVMFFIByteArray& a, const char* fn, const char* what) {
    std::string_view name = CheckedText(a, fn, "name");
    if (name.empty()) FFI_THROW(ValueError) << fn << ": the " << what << " name is empty";
    return name;
  }
  /*! \brief A copy of `text` that lives as long as the process (a deque never moves elements). */
  TVMFFIByteArray Keep(std::string_view text) {
    const std::string& kept = strings_.emplace_back(text);
    return TVMFFIByteArray{kept.data(), kept.size()};
  }

  std::mutex mutex_;
  std::unordered_map<int32_t, TypeReflection> types_;
  std::unordered_map<std::string, std::unique_ptr<AttrColumn>> columns_;
  std::deque<std::string> strings_;
};

/*! \brief Runs a registration; inside the loader a failure is recorded for it (see loading.h). */
template <typename F>
void Register(F&& register_fn) {
  try {
    register_fn();
  } catch (const Error& e) {
    if (!RegistrationFailureScope::Record(e)) throw;
  }
}

}  // namespace

void RenameTypeField(int32_t type_index, std::string_view from, std::string_view to) {
  ReflectionTable::Global()->RenameField(type_index, from, to);
}

}  // namespace runtime
}  // namespace ffi
}  // namespace tvm

using ffi::runtime::ReflectionTable;
using ffi::runtime::Register;

extern "C" {

int TVMFFITypeRegisterField(int32_t type_index, const TVMFFIFieldInfo* info) {
  FFI_SAFE_CALL_BEGIN();
  Register([&] {
    if (info == nullptr) FFI_THROW(ValueError) << "TVMFFITypeRegisterField: the info is NULL";
    ReflectionTable::Global()->RegisterField(type_index, *info);
  });
  FFI_SAFE_CALL_END();
}

int TVMFFITypeRegisterMethod(int32_t type_index, const TVMFFIMethodInfo* info) {
  FFI_SAFE_CALL_BEGIN();
  Register([&] {
    if (info == nullptr) FFI_THROW(ValueError) << "TVMFFITypeRegisterMethod: the info is NULL";
    ReflectionTable::Global()->RegisterMethod(type_index, *info);
  });
  FFI_SAFE_CALL_END();
}

int TVMFFITypeRegisterMetadata(int32_t type_index, const TVMFFITypeMetadata* metadata) {
  FFI_SAFE_CALL_BEGIN();
  Register([&] {
    if (metadata == nullptr) {
      FFI_THROW(ValueError) << "TVMFFITypeRegisterMetadata: the metadata is NULL";
    }
    ReflectionTable::Global()->RegisterMetadata(type_index, *metadata);
  });
  FFI_SAFE_CALL_END();
}

int TVMFFITypeRegisterAttr(int32_t type_index, const TVMFFIByteArray* attr_name,
                           const TVMFFIAny* attr_value) {
  FFI_SAFE_CALL_BEGIN();
  Register([&] {
    if (attr_name == nullptr || (attr_name->data == nullptr && attr_name->size != 0)) {
      FFI_THROW(ValueError) << "TVMFFITypeRegisterAttr: the attribute name is NULL";
    }
    if (attr_value == nullptr) FFI_THROW(ValueError) << "TVMFFITypeRegisterAttr: the value is NULL";
    std::string_view name = ffi::detail::ByteView(*attr_name);
    ffi::Any stored = ffi::runtime::KeyHookToStore(type_index, name, *attr_value);
    ReflectionTable::Global()->RegisterAttr(type_index, name, *stored.raw());
  });
  FFI_SAFE_CALL_END();
}

const TVMFFITypeAttrColumn* TVMFFIGetTypeAttrColumn(const TVMFFIByteArray* attr_name) {
  // No error channel: a NULL name names no column.
  if (attr_name == nullptr || (attr_name->data == nullptr && attr_name->size != 0)) return nullptr;
  try {
    return ReflectionTable::Global()->GetColumn(ffi::detail::ByteView(*attr_name));
  } catch (...) {
    return nullptr;  // Only allocation can fail here.
  }
}

}  // extern "C"
