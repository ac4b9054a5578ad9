/*
 * ffi/reflection/info_traits.h - the extras a registration may carry after the name and the
 * callable or field: a doc string, Metadata{{"key", value}, ...}, default_value(v),
 * default_factory(f), field flags (repr(false), compare(false), hash(false), kw_only(true),
 * init(false), AttachFieldFlag::SEqHashIgnore()...), and the constructor marker init<Args...>.
 * Used through registry.h.
 */
#ifndef FFI_REFLECTION_INFO_TRAITS_H_
#define FFI_REFLECTION_INFO_TRAITS_H_

#include <initializer_list>
#include <string>
#include <type_traits>
#include <utility>

#include "../any.h"
#include "../function.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {
namespace reflection {

/*! \brief Base of the extras that change a field or method record. */
struct InfoTrait {};

/*!
 * \brief User metadata of a function, method or field, recorded in its metadata JSON next to
 * "type_schema": `refl::Metadata{{"bind", "x"}, {"arity", 2}}`. Values are int, bool or string
 * (TypeError otherwise).
 */
class Metadata : public InfoTrait {
 public:
  Metadata(std::initializer_list<std::pair<String, Any>> entries) {
    for (const auto& [key, value] : entries) {
      json_ += ',';
      json_ += ::tvm::ffi::detail::JSONString(key.view());
      json_ += ':';
      if (auto i = value.as<int64_t>()) {
        json_ += std::to_string(*i);
      } else if (auto b = value.as<bool>()) {
        json_ += *b ? "true" : "false";
      } else if (auto s = value.as<String>()) {
        json_ += ::tvm::ffi::detail::JSONString(s->view());
      } else {
        FFI_THROW(TypeError) << "Metadata can be only int, bool or string, but on key `"
                             << key.view() << "`, the type is " << value.GetTypeName();
      }
    }
  }
  /*! \brief The entries as JSON members, each preceded by a comma. */
  const std::string& json_members() const { return json_; }

 private:
  std::string json_;
};

/*! \brief A field's default value (used by reflection constructors when it is not given). */
class DefaultValue : public InfoTrait {
 public:
  explicit DefaultValue(Any value) : value_(std::move(value)) {}
  void Apply(TVMFFIFieldInfo* info) const {
    info->default_value_or_factory = *value_.raw();  // The runtime keeps its own copy.
    info->flags |= kTVMFFIFieldFlagBitMaskHasDefault;
  }

 private:
  Any value_;
};
/*! \brief The lower-case spelling of DefaultValue. */
class default_value : public DefaultValue {
  using DefaultValue::DefaultValue;
};

/*! \brief A function `() -> value` called for each default (fresh mutable defaults). */
class DefaultFactory : public InfoTrait {
 public:
  explicit DefaultFactory(Function factory) : factory_(std::move(factory)) {}
  void Apply(TVMFFIFieldInfo* info) const {
    TypeTraits<Function>::CopyToAnyView(factory_, &info->default_value_or_factory);
    info->flags |= kTVMFFIFieldFlagBitMaskHasDefault | kTVMFFIFieldFlagBitMaskDefaultFromFactory;
  }

 private:
  Function factory_;
};
/*! \brief The lower-case spelling of DefaultFactory. */
class default_factory : public DefaultFactory {
  using DefaultFactory::DefaultFactory;
};

/*! \brief Sets field flag bits. */
class AttachFieldFlag : public InfoTrait {
 public:
  explicit AttachFieldFlag(int32_t flag) : flag_(flag) {}
  static AttachFieldFlag SEqHashDefPattern() {
    return AttachFieldFlag(kTVMFFIFieldFlagBitMaskSEqHashDefPattern);
  }
  static AttachFieldFlag SEqHashDefSimple() {
    return AttachFieldFlag(kTVMFFIFieldFlagBitMaskSEqHashDefSimple);
  }
  static AttachFieldFlag SEqHashIgnore() {
    return AttachFieldFlag(kTVMFFIFieldFlagBitMaskSEqHashIgnore);
  }
  void Apply(TVMFFIFieldInfo* info) const { info->flags |= flag_; }

 private:
  int32_t flag_;
};

namespace detail {
/*! \brief A trait that sets `Bit` when its boolean is `SetWhen`. */
template <int64_t Bit, bool SetWhen>
class FlagTrait : public InfoTrait {
 public:
  explicit FlagTrait(bool value) : value_(value) {}
  void Apply(TVMFFIFieldInfo* info) const {
    if (value_ == SetWhen) info->flags |= Bit;
  }

 private:
  bool value_;
};
}  // namespace detail

/*! \brief `repr(false)`: leave the field out of printed representations. */
class repr : public detail::FlagTrait<kTVMFFIFieldFlagBitMaskReprOff, false> {
  using FlagTrait::FlagTrait;
};
/*! \brief `compare(false)`: leave the field out of recursive comparison. */
class compare : public detail::FlagTrait<kTVMFFIFieldFlagBitMaskCompareOff, false> {
  using FlagTrait::FlagTrait;
};
/*! \brief `hash(false)`: leave the field out of recursive hashing. */
class hash : public detail::FlagTrait<kTVMFFIFieldFlagBitMaskHashOff, false> {
  using FlagTrait::FlagTrait;
};
/*! \brief `kw_only(true)`: the generated constructor takes the field by keyword only. */
class kw_only : public detail::FlagTrait<kTVMFFIFieldFlagBitMaskKwOnly, true> {
  using FlagTrait::FlagTrait;
};

/*!
 * \brief `init<Args...>()` passed to ObjectDef::def registers the constructor `Class(Args...)`.
 * `init(false)` (no arguments) on a field leaves it out of the generated constructor.
 */
template <typename... Args>
struct init {
  constexpr init() noexcept = default;
  /*! \brief Makes a `Class` from the arguments. */
  template <typename Class>
  static ObjectRef Make(Args... args) {
    return ObjectRef(make_object<Class>(std::forward<Args>(args)...));
  }
};
template <>
struct init<> : InfoTrait {
  constexpr init() noexcept = default;
  explicit init(bool include) : include_(include) {}
  void Apply(TVMFFIFieldInfo* info) const {
    if (!include_) info->flags |= kTVMFFIFieldFlagBitMaskInitOff;
  }
  template <typename Class>
  static ObjectRef Make() {
    return ObjectRef(make_object<Class>());
  }
  /*! \brief Whether the field (or, given to ObjectDef, the generated constructor) is kept. */
  bool included() const { return include_; }

 private:
  bool include_ = true;
};
init(bool)->init<>;

namespace detail {
/*! \brief Whether extra `E` is a trait that applies to records of type `Info`. */
template <typename E, typename Info, typename = void>
struct AppliesTo : std::false_type {};
template <typename E, typename Info>
struct AppliesTo<E, Info,
                 std::void_t<decltype(std::declval<const E&>().Apply(std::declval<Info*>()))>>
    : std::true_type {};

/*!
 * \brief Fills a TVMFFIMethodInfo or TVMFFIFieldInfo from a name, a type schema and extras; the
 * strings it points at live in the builder until the record is registered (the runtime copies).
 */
template <typename Info>
class InfoBuilder {
 public:
  InfoBuilder(const char* name, const std::string& type_schema) : info{} {
    info.name = TVMFFIByteArray{name, std::char_traits<char>::length(name)};
    members_ = "\"type_schema\":" + ::tvm::ffi::detail::JSONString(type_schema);
  }
  /*! \brief Applies one extra: a doc string, Metadata, or a trait for this record. */
  template <typename E>
  void Apply(const E& extra) {
    if constexpr (std::is_convertible_v<const E&, const char*>) {
      const char* doc = extra;
      info.doc = TVMFFIByteArray{doc, std::char_traits<char>::length(doc)};
    } else if constexpr (std::is_base_of_v<Metadata, E>) {
      members_ += extra.json_members();
    } else if constexpr (AppliesTo<E, Info>::value) {
      extra.Apply(&info);
    }
  }
  /*! \brief Adds `"key": value, ...` members to the metadata JSON. */
  void AddMembers(const std::string& members) {
    members_ += ',';
    members_ += members;
  }
  /*! \brief Sets the metadata JSON (and, for methods, the function). */
  void Finish() {
    json_ = "{" + members_ + "}";
    info.metadata = TVMFFIByteArray{json_.data(), json_.size()};
  }
  void Finish(AnyView method) {
    Finish();
    info.method = *method.raw();
  }

  /*! \brief The record to register. */
  Info info;

 private:
  std::string members_;
  std::string json_;
};
}  // namespace detail

/*! \brief Builds a TVMFFIMethodInfo (see detail::InfoBuilder). */
using MethodInfoBuilder = detail::InfoBuilder<TVMFFIMethodInfo>;
/*! \brief Builds a TVMFFIFieldInfo (see detail::InfoBuilder). */
using FieldInfoBuilder = detail::InfoBuilder<TVMFFIFieldInfo>;

}  // namespace reflection
}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_REFLECTION_INFO_TRAITS_H_
