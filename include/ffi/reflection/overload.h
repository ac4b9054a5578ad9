/*
 * ffi/reflection/overload.h - object types whose methods and constructors are overloaded:
 *
 *   namespace refl = tvm::ffi::reflection;
 *   TVM_FFI_STATIC_INIT_BLOCK() {
 *     refl::OverloadObjectDef<BoxObj>()
 *         .def(refl::init<int64_t>())            // Box(7)
 *         .def(refl::init<String>())             // Box("seven")
 *         .def_ro("size", &BoxObj::size)
 *         .def("grow", refl::overload_cast<int64_t>(&BoxObj::Grow))
 *         .def("grow", refl::overload_cast<int64_t, int64_t>(&BoxObj::Grow))
 *         .def_static("parse", &ParseInt)
 *         .def_static("parse", &ParseText);
 *   }
 *
 * OverloadObjectDef takes what ObjectDef takes (fields, methods, static methods, constructors),
 * but a method name given again adds a signature instead of failing: the name's one reflected
 * Function tries the signatures in the order they were registered and calls the first one whose
 * argument count is the call's and whose arguments all convert (as a typed function's would). If
 * none fits, it raises a TypeError that says, for each signature, why it did not. Constructors
 * (`refl::init<...>`) overload the same way, under `__ffi_init__`.
 *
 * Each signature is still registered as its own method record (TVMFFITypeRegisterMethod, with its
 * type schema and doc), all holding the same Function, so that reflection metadata lists every
 * signature while a lookup by name (which finds the first record) gets the dispatching Function.
 * Fields cannot be overloaded.
 */
#ifndef FFI_REFLECTION_OVERLOAD_H_
#define FFI_REFLECTION_OVERLOAD_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include "../any.h"
#include "../error.h"
#include "../function.h"
#include "../type_traits.h"
#include "accessor.h"
#include "info_traits.h"
#include "registry.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {
namespace reflection {
namespace detail {

/*! \brief One signature of an overloaded function (see TypedOverload). */
class OverloadCandidate {
 public:
  OverloadCandidate() = default;
  OverloadCandidate(const OverloadCandidate&) = delete;
  OverloadCandidate& operator=(const OverloadCandidate&) = delete;
  virtual ~OverloadCandidate() = default;

  /*!
   * \brief Calls the function when the arguments fit (their count is its own and each converts)
   * and returns true; returns false without calling it otherwise. What the function throws
   * propagates.
   */
  virtual bool TryCall(const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) const = 0;
  /*! \brief Calls the function as a typed Function named `name` would, with its errors. */
  virtual void Call(const char* name, const TVMFFIAny* args, int32_t num_args,
                    TVMFFIAny* result) const = 0;
  /*! \brief Why the arguments do not fit, one line naming `name` and the signature. */
  virtual std::string Mismatch(const char* name, const TVMFFIAny* args, int32_t num_args) const = 0;

 private:
  friend class OverloadSet;
  /*! \brief The signature registered after this one (owned by the OverloadSet). */
  OverloadCandidate* next_ = nullptr;
};

/*!
 * \brief The candidate for a typed callable `F` (a lambda, a function pointer, a method wrapped by
 * WrapMethod): its arguments convert as ffi::Function::FromTyped converts them.
 */
template <typename F>
class TypedOverload final : public OverloadCandidate {
 public:
  explicit TypedOverload(F f) : f_(std::move(f)) {}

  bool TryCall(const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) const override {
    if (num_args != Info::kNumArgs) return false;
    return TryCallWith(args, result, kIndices);
  }
  void Call(const char* name, const TVMFFIAny* args, int32_t num_args,
            TVMFFIAny* result) const override {
    ffi::detail::CallTyped(f_, name, args, num_args, result);
  }
  std::string Mismatch(const char* name, const TVMFFIAny* args, int32_t num_args) const override {
    // The messages a typed Function's call gives, from the same functions (none calls `f_`).
    try {
      if (num_args != Info::kNumArgs) {
        ffi::detail::ThrowArgumentCountError(name, ffi::detail::SignatureText<Info>(),
                                             Info::kNumArgs, num_args);
      }
      CheckEach(name, args, kIndices);
    } catch (const Error& err) {
      return err.message();
    }
    return "The arguments fit";  // TryCall would have called it: not reached
  }

 private:
  using Info = ffi::detail::FunctionInfo<F>;
  using Args = typename Info::ArgTypes;
  using R = typename Info::RetType;
  static constexpr auto kIndices = std::make_index_sequence<Info::kNumArgs>{};

  /*! \brief Converts every argument; calls `f_` when all converted. */
  template <size_t... I>
  bool TryCallWith([[maybe_unused]] const TVMFFIAny* args, [[maybe_unused]] TVMFFIAny* result,
                   std::index_sequence<I...>) const {
    // Each converted value is made in place and moved into the call once, as CallTyped does.
    [[maybe_unused]] ffi::detail::ConvertedArgs<std::index_sequence<I...>,
                                                std::tuple_element_t<I, Args>...>
        converted{{TypeTraits<std::tuple_element_t<I, Args>>::TryCastFromAnyView(&args[I])}...};
    if (!(true && ... && ffi::detail::ConvertedAt<I>(converted).has_value())) return false;
    if constexpr (std::is_void_v<R>) {
      f_(*std::move(ffi::detail::ConvertedAt<I>(converted))...);
    } else {
      *result = Any(f_(*std::move(ffi::detail::ConvertedAt<I>(converted))...)).release();
    }
    return true;
  }
  /*! \brief Throws the TypeError a typed call gives for the first argument that does not convert.
   */
  template <size_t... I>
  static void CheckEach([[maybe_unused]] const char* name, [[maybe_unused]] const TVMFFIAny* args,
                        std::index_sequence<I...>) {
    using ffi::detail::CheckConverted;
    (CheckConverted<Info, std::tuple_element_t<I, Args>>(
         TypeTraits<std::tuple_element_t<I, Args>>::TryCastFromAnyView(&args[I]).has_value(), args,
         I, name),
     ...);
  }

  F f_;
};

/*!
 * \brief The signatures registered under one name, in registration order, and the dispatch
 * between them. Signatures are added while the type is registered (static initialization), before
 * calls; calls only read.
 */
class OverloadSet {
 public:
  explicit OverloadSet(std::string name) : name_(std::move(name)) {}
  OverloadSet(const OverloadSet&) = delete;
  OverloadSet& operator=(const OverloadSet&) = delete;
  ~OverloadSet() {
    while (first_ != nullptr) {
      OverloadCandidate* next = first_->next_;
      delete first_;
      first_ = next;
    }
  }

  /*! \brief Appends a signature; the set owns it. */
  void Add(OverloadCandidate* candidate) {
    if (last_ == nullptr) {
      first_ = candidate;
    } else {
      last_->next_ = candidate;
    }
    last_ = candidate;
  }

  /*!
   * \brief Calls the first signature that fits; a TypeError listing every signature's mismatch
   * when none does. With a single signature, the call checks and fails as a typed Function's.
   */
  void Dispatch(const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) const {
    if (first_ == last_) {
      first_->Call(name_.c_str(), args, num_args, result);
      return;
    }
    for (const OverloadCandidate* c = first_; c != nullptr; c = c->next_) {
      if (c->TryCall(args, num_args, result)) return;
    }
    ThrowNoMatch(args, num_args);
  }

 private:
  [[noreturn]] void ThrowNoMatch(const TVMFFIAny* args, int32_t num_args) const {
    std::string lines;
    int index = 0;
    for (const OverloadCandidate* c = first_; c != nullptr; c = c->next_, ++index) {
      lines += "\nOverload #" + std::to_string(index) + ": " +
               c->Mismatch(name_.c_str(), args, num_args);
    }
    FFI_THROW(TypeError) << "No matching overload found when calling: `" << name_ << "` with "
                         << num_args << " arguments:" << lines;
  }

  std::string name_;
  OverloadCandidate* first_ = nullptr;
  OverloadCandidate* last_ = nullptr;
};

/*! \brief The callable inside an overloaded Function: owns its OverloadSet (movable only). */
class OverloadedBody {
 public:
  explicit OverloadedBody(OverloadSet* set) : set_(set) {}
  OverloadedBody(OverloadedBody&& other) noexcept : set_(other.set_) { other.set_ = nullptr; }
  OverloadedBody(const OverloadedBody&) = delete;
  OverloadedBody& operator=(const OverloadedBody&) = delete;
  OverloadedBody& operator=(OverloadedBody&&) = delete;
  ~OverloadedBody() { delete set_; }

  /*! \brief The packed call (Function::FromPacked's raw form). */
  void operator()(const AnyView* args, int32_t num_args, Any* result) const {
    set_->Dispatch(reinterpret_cast<const TVMFFIAny*>(args), num_args,
                   reinterpret_cast<TVMFFIAny*>(result));
  }

 private:
  OverloadSet* set_;
};

/*! \brief A method name of an OverloadObjectDef: its Function and where to add signatures. */
struct OverloadedMethod {
  std::string name;
  bool is_static;
  Function function;
  /*! \brief Owned by `function`, which this record keeps alive. */
  OverloadSet* set;
  OverloadedMethod* next;
};

}  // namespace detail

/*!
 * \brief Registers the reflection of object type `Class` as ObjectDef does, with overloaded
 * methods, static methods and constructors: each `def`, `def_static` or `def(init<...>)` of a
 * name already defined adds a signature to it (see the top of this file). A name cannot be both a
 * static and an instance method (ValueError).
 */
template <typename Class>
class OverloadObjectDef : private ObjectDef<Class> {
 public:
  /*! \brief Registers the type's metadata; extras as for ObjectDef (a doc string, init(false)). */
  template <typename... Extra>
  explicit OverloadObjectDef(Extra&&... extra) : Base(std::forward<Extra>(extra)...) {}
  OverloadObjectDef(const OverloadObjectDef&) = delete;
  OverloadObjectDef& operator=(const OverloadObjectDef&) = delete;
  /*!
   * \brief Drops the records of the names (their Functions live on in the registry); ObjectDef's
   * destructor then registers the standard type attributes.
   */
  ~OverloadObjectDef() noexcept(false) {
    while (methods_ != nullptr) {
      detail::OverloadedMethod* next = methods_->next;
      delete methods_;
      methods_ = next;
    }
  }

  /*! \brief A read-only field, as ObjectDef::def_ro (fields are not overloaded). */
  template <typename T, typename FieldClass, typename... Extra>
  OverloadObjectDef& def_ro(const char* name, T FieldClass::*field, Extra&&... extra) {
    Base::def_ro(name, field, std::forward<Extra>(extra)...);
    return *this;
  }
  /*! \brief A writable field, as ObjectDef::def_rw. */
  template <typename T, typename FieldClass, typename... Extra>
  OverloadObjectDef& def_rw(const char* name, T FieldClass::*field, Extra&&... extra) {
    Base::def_rw(name, field, std::forward<Extra>(extra)...);
    return *this;
  }
  /*! \brief A method, or one more signature of method `name`. */
  template <typename F, typename... Extra>
  OverloadObjectDef& def(const char* name, F&& f, Extra&&... extra) {
    AddSignature(name, false, std::forward<F>(f), std::forward<Extra>(extra)...);
    return *this;
  }
  /*! \brief A static method, or one more signature of static method `name`. */
  template <typename F, typename... Extra>
  OverloadObjectDef& def_static(const char* name, F&& f, Extra&&... extra) {
    AddSignature(name, true, std::forward<F>(f), std::forward<Extra>(extra)...);
    return *this;
  }
  /*!
   * \brief A constructor `Class(Args...)`, or one more: the static method `__ffi_init__`, which
   * the type attribute of that name holds too (the one Function, so it sees later signatures).
   */
  template <typename... Args, typename... Extra>
  OverloadObjectDef& def(init<Args...>, Extra&&... extra) {
    Base::set_has_init();
    bool first = Find(type_attr::kInit.name) == nullptr;
    detail::OverloadedMethod* method =
        AddSignature(type_attr::kInit.name, true, &init<Args...>::template Make<Class>,
                     std::forward<Extra>(extra)...);
    if (first) {
      detail::RegisterTypeAttr(Base::type_index(), type_attr::kInit.name,
                               AnyView(method->function));
    }
    return *this;
  }

 private:
  using Base = ObjectDef<Class>;

  /*! \brief The method record of `name`, or nullptr when it has no signature yet. */
  detail::OverloadedMethod* Find(const char* name) const {
    for (detail::OverloadedMethod* m = methods_; m != nullptr; m = m->next) {
      if (m->name == name) return m;
    }
    return nullptr;
  }

  /*! \brief Adds `f` as a signature of `name` and registers its method record. */
  template <typename F, typename... Extra>
  detail::OverloadedMethod* AddSignature(const char* name, bool is_static, F&& f,
                                         Extra&&... extra) {
    auto wrapped = detail::WrapMethod(std::forward<F>(f));
    using W = std::decay_t<decltype(wrapped)>;
    detail::OverloadedMethod* method = Find(name);
    if (method == nullptr) {
      auto* set = new detail::OverloadSet(std::string(Base::type_key()) + "." + name);
      Function function = Function::FromPacked(detail::OverloadedBody(set));
      method = new detail::OverloadedMethod{name, is_static, std::move(function), set, methods_};
      methods_ = method;
    } else if (method->is_static != is_static) {
      FFI_THROW(ValueError) << "OverloadObjectDef: `" << Base::type_key() << "." << name
                            << "` cannot be both a static and an instance method";
    }
    method->set->Add(new detail::TypedOverload<W>(std::move(wrapped)));
    Base::PublishMethod(name, is_static, method->function, ffi::detail::CallableSchema<W>::Get(),
                        std::forward<Extra>(extra)...);
    return method;
  }

  /*! \brief The names defined so far, newest first (owned). */
  detail::OverloadedMethod* methods_ = nullptr;
};

}  // namespace reflection
}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_REFLECTION_OVERLOAD_H_
