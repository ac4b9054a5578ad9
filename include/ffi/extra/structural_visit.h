/*
 * ffi/extra/structural_visit.h - Structural visiting: a visitor object that walks the parts of a
 * value the way structural equality sees them, and the types a walk returns.
 *
 * A StructuralVisitorObj is the state of one traversal: a dispatch table (what happens at each
 * value) and the def region the traversal is in. Visit(v) dispatches through the table;
 * DefaultVisit(v) descends into v's parts: the type's `__s_visit__` hook when it registered one
 * (an opaque FStructuralVisitABI pointer or an ffi.Function), otherwise its reflected fields (those
 * not flagged SEqHashIgnore, each in the def region its flags ask for). Arrays and lists descend
 * into their elements, maps and dicts into their values (the runtime registers those hooks);
 * values without parts (None, numbers, strings, tensors, ...) have nothing to descend into.
 *
 * A visit result travels through the ABI as one raw value: None (go on), a VisitInterrupt (stop
 * the whole traversal, with a payload), or an Error (the traversal failed). The runtime's globals
 * build visitors from callbacks: ffi.StructuralWalk, ffi.StructuralVisit (docs/structural_walk.md).
 *
 * The object layouts and the dispatch table match the reference implementation's, so a hook
 * compiled against either header set works with a visitor made by either runtime.
 */
#ifndef FFI_EXTRA_STRUCTURAL_VISIT_H_
#define FFI_EXTRA_STRUCTURAL_VISIT_H_

#include <cstdint>
#include <exception>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>

#include "../any.h"
#include "../error.h"
#include "../expected.h"
#include "../function.h"
#include "../object.h"
#include "../optional.h"
#include "../reflection/accessor.h"
#include "../reflection/native_function.h"
#include "visit_error_context.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

/*! \brief Where a walk calls a part's callback: before or after walking its children. */
enum class WalkOrder : int32_t { kPreOrder = 0, kPostOrder = 1 };

/*! \brief The object behind VisitInterrupt (type index kTVMFFIVisitInterrupt). */
class VisitInterruptObj : public Object {
 public:
  /*! \brief What the traversal hands back to its caller (None when there is nothing to say). */
  Any value;

  VisitInterruptObj() = default;
  /*! \brief An interrupt carrying `value`. */
  explicit VisitInterruptObj(Any value) : value(std::move(value)) {}

  /// \cond Doxygen_Suppress
  static constexpr bool _type_final = true;
  FFI_DECLARE_STATIC_OBJECT_INFO("ffi.VisitInterrupt", VisitInterruptObj, Object,
                                 kTVMFFIVisitInterrupt);
  /// \endcond
};

/*! \brief The signal that stops a traversal, carrying a payload back to its caller; never null. */
class VisitInterrupt : public ObjectRef {
 public:
  /*! \brief An interrupt without a payload. */
  VisitInterrupt() : ObjectRef(make_object<VisitInterruptObj>()) {}
  /*! \brief An interrupt carrying `value`. */
  explicit VisitInterrupt(Any value)
      : ObjectRef(make_object<VisitInterruptObj>(std::move(value))) {}

  /// \cond Doxygen_Suppress
  FFI_DEFINE_NOTNULLABLE_OBJECT_REF_METHODS(VisitInterrupt, ObjectRef, VisitInterruptObj);
  /// \endcond
};

/*!
 * \brief What a walk callback returns: go on (Advance), go on without the value's parts (Skip, in
 * pre-order), or stop the whole walk with a payload (Interrupt). In an Any it is None or the code
 * 0 for Advance, the code 1 for Skip, and the VisitInterrupt for Interrupt: what the runtime's
 * ffi.StructuralWalk takes from callbacks of any language.
 */
class WalkResult {
 public:
  /*! \brief The code of Advance. */
  static constexpr int32_t kAdvance = 0;
  /*! \brief The code of Skip. */
  static constexpr int32_t kSkip = 1;

  /*! \brief Go on, into the value's parts. */
  static WalkResult Advance() { return WalkResult(kAdvance); }
  /*! \brief Go on, but leave out the value's parts (pre-order only). */
  static WalkResult Skip() { return WalkResult(kSkip); }
  /*! \brief Stop the walk; the walk returns `signal`. */
  static WalkResult Interrupt(VisitInterrupt signal = VisitInterrupt()) {
    WalkResult out(kAdvance);
    out.interrupt_ = std::move(signal);
    return out;
  }

  /*! \brief Whether this is Advance. */
  bool is_advance() const { return !interrupt_.has_value() && code_ == kAdvance; }
  /*! \brief Whether this is Skip. */
  bool is_skip() const { return !interrupt_.has_value() && code_ == kSkip; }
  /*! \brief The interrupt, when this is Interrupt. */
  const Optional<VisitInterrupt>& interrupt() const { return interrupt_; }

 private:
  explicit WalkResult(int32_t code) : code_(code) {}
  int32_t code_;
  Optional<VisitInterrupt> interrupt_;
  friend struct TypeTraits<WalkResult>;
};

/*! \brief WalkResult: the code (Int) or the VisitInterrupt; None reads as Advance. */
template <>
struct TypeTraits<WalkResult> : TypeTraitsBase {
  static void CopyToAnyView(const WalkResult& v, TVMFFIAny* out) {
    if (v.interrupt_.has_value())
      return TypeTraits<VisitInterrupt>::CopyToAnyView(*v.interrupt_, out);
    TypeTraits<int64_t>::CopyToAnyView(v.code_, out);
  }
  static void MoveToAny(WalkResult v, TVMFFIAny* out) {
    if (v.interrupt_.has_value()) {
      return TypeTraits<VisitInterrupt>::MoveToAny(*std::move(v.interrupt_), out);
    }
    TypeTraits<int64_t>::CopyToAnyView(v.code_, out);
  }
  static bool CheckAnyStrict(const TVMFFIAny* src) {
    return src->type_index == kTVMFFINone || src->type_index == kTVMFFIVisitInterrupt ||
           (src->type_index == kTVMFFIInt &&
            (src->v_int64 == WalkResult::kAdvance || src->v_int64 == WalkResult::kSkip));
  }
  static detail::CastResult<WalkResult> TryCastFromAnyView(const TVMFFIAny* src) {
    if (!CheckAnyStrict(src)) return std::nullopt;
    if (src->type_index == kTVMFFIVisitInterrupt) {
      return WalkResult::Interrupt(*TypeTraits<VisitInterrupt>::TryCastFromAnyView(src));
    }
    if (src->type_index == kTVMFFINone) return WalkResult::Advance();
    return WalkResult(static_cast<int32_t>(src->v_int64));
  }
  static constexpr auto TypeStr() { return ConstString("WalkResult"); }
  static std::string TypeSchema() { return detail::SchemaOfKey("WalkResult"); }
};

class StructuralVisitorObj;

/*!
 * \brief A visit step through the ABI: visits `value` with `visitor` and returns None (go on), a
 * VisitInterrupt (stop) or an Error, as an owned raw value. Never throws.
 */
using FStructuralVisitABI = TVMFFIAny (*)(StructuralVisitorObj* visitor, AnyView value) noexcept;

/*! \brief A visitor's dispatch table (layout shared with the reference implementation). */
struct StructuralVisitorVTable {
  /*! \brief What the visitor does at each value it is asked to visit. */
  FStructuralVisitABI visit = nullptr;
};

/*!
 * \brief A type's own descent into its parts, as its `__s_visit__` attribute holds it: the native
 * form is an FStructuralVisitABI function (`FStructuralVisit::FromNative<&F>()` makes one from
 * `Optional<VisitInterrupt> F(StructuralVisitorObj*, AnyView)`), the packed form a Function
 * taking (visitor, value). The hook visits each part with `visitor->Visit(part)` and stops at the
 * first interrupt.
 */
using FStructuralVisit =
    reflection::NativeFunctionView<Optional<VisitInterrupt>(StructuralVisitorObj*, AnyView)>;

namespace type_attr {
/*! \brief A type's own descent into its parts (see FStructuralVisit). */
inline constexpr reflection::AttrKey<FStructuralVisit> kStructuralVisit{"__s_visit__"};
}  // namespace type_attr

namespace detail {
/*! \brief A raw visit result (owned) as an Expected; a result of the wrong kind is a TypeError. */
inline Expected<Optional<VisitInterrupt>> VisitResultFromRaw(TVMFFIAny raw) noexcept {
  Any data = Any::FromRaw(raw);
  switch (data.type_index()) {
    case kTVMFFINone:
      return Optional<VisitInterrupt>();
    case kTVMFFIVisitInterrupt:
      return Optional<VisitInterrupt>(std::move(data).cast<VisitInterrupt>());
    case kTVMFFIError:
      return std::move(data).cast<Error>();
    default:
      return Error("TypeError", std::string("A structural visit step returned `") +
                                    data.GetTypeName() +
                                    "`; it returns None, a VisitInterrupt or an Error");
  }
}

/*! \brief An Expected visit result as an owned raw value. */
inline TVMFFIAny VisitResultToRaw(Expected<Optional<VisitInterrupt>> result) noexcept {
  return std::move(result).data().release();
}

/*! \brief Runs `body` (returning an Expected) with every exception it throws made an Error. */
template <typename T, typename F>
Expected<T> CatchAsExpected(F&& body) noexcept {
  try {
    return body();
  } catch (const Error& err) {
    return err;
  } catch (const std::exception& err) {
    return Error("InternalError", err.what());
  }
}

/*!
 * \brief What StructuralVisitorObj and StructuralMutatorObj share: a dispatch table of type
 * `VTable` (each has its own) and the def region of the walk, laid out as the reference
 * implementation's (the table pointer right after the object header, then the region).
 */
template <typename VTable>
class StructuralDispatchObj : public Object {
 public:
  /*! \brief The def region the walk is in (structural equality's definition regions). */
  TVMFFIDefRegionKind def_region_kind() const { return def_region_mode_; }

  /*!
   * \brief Runs `callback()` in def region `kind` and returns what it returns; the region is
   * restored afterwards, also when it throws. Inside a pattern region the pattern stays (a
   * pattern region covers everything under it).
   */
  template <typename Callback>
  auto WithDefRegionKind(TVMFFIDefRegionKind kind, Callback&& callback)
      -> decltype(std::forward<Callback>(callback)()) {
    struct Restore {
      TVMFFIDefRegionKind* slot;
      TVMFFIDefRegionKind saved;
      ~Restore() { *slot = saved; }
    } restore{&def_region_mode_, def_region_mode_};
    if (def_region_mode_ != kTVMFFIDefRegionKindPattern) def_region_mode_ = kind;
    return std::forward<Callback>(callback)();
  }

 protected:
  /*! \brief Dispatching through `vtable`, which must outlive this object. */
  explicit StructuralDispatchObj(const VTable* vtable) : vtable_(vtable) {}

  /*! \brief The dispatch table; never null. */
  const VTable* vtable_ = nullptr;
  /*! \brief The current def region (change it through WithDefRegionKind). */
  TVMFFIDefRegionKind def_region_mode_ = kTVMFFIDefRegionKindNone;
};
}  // namespace detail

/*!
 * \brief The state of one structural traversal: its dispatch table and its current def region.
 * Made by the runtime's traversals (and by engines deriving from it); hooks receive it.
 * One visitor serves one traversal at a time.
 */
class StructuralVisitorObj : public detail::StructuralDispatchObj<StructuralVisitorVTable> {
 public:
  /*! \brief Visits `value` through the dispatch table: nullopt to go on, or the interrupt that
   * stops the traversal. Throws the Error a step failed with. */
  Optional<VisitInterrupt> Visit(AnyView value) { return VisitExpected(value).value(); }

  /*! \brief Visit, with a failure returned as the Error instead of thrown. */
  Expected<Optional<VisitInterrupt>> VisitExpected(AnyView value) noexcept {
    return detail::VisitResultFromRaw((*vtable_->visit)(this, value));
  }

  /*!
   * \brief Descends into the parts of `value` (its type's `__s_visit__` hook, else its reflected
   * fields), visiting each through the dispatch table; the dispatch table is not consulted for
   * `value` itself. Throws the Error a step failed with.
   */
  Optional<VisitInterrupt> DefaultVisit(AnyView value) {
    return DefaultVisitExpected(value).value();
  }

  /*! \brief DefaultVisit, with a failure returned as the Error instead of thrown. */
  Expected<Optional<VisitInterrupt>> DefaultVisitExpected(AnyView value) noexcept;

  /// \cond Doxygen_Suppress
  static constexpr bool _type_mutable = true;
  FFI_DECLARE_OBJECT_INFO("ffi.StructuralVisitor", StructuralVisitorObj, Object);
  /// \endcond

 protected:
  /*! \brief A visitor dispatching through `vtable`, which must outlive it. */
  explicit StructuralVisitorObj(const StructuralVisitorVTable* vtable)
      : StructuralDispatchObj(vtable) {}
};

/*! \brief Reference to a StructuralVisitorObj; never null. */
class StructuralVisitor : public ObjectRef {
 public:
  /// \cond Doxygen_Suppress
  FFI_DEFINE_NOTNULLABLE_OBJECT_REF_METHODS(StructuralVisitor, ObjectRef, StructuralVisitorObj);
  /// \endcond
};

namespace detail {
/*! \brief Whether a visit result stops the caller: an interrupt, or (for an Expected) an Error. */
inline bool VisitStops(const Optional<VisitInterrupt>& result) { return result.has_value(); }
template <typename T>
bool VisitStops(const Expected<T>& result) {
  return result.type_index() == kTVMFFIError || result.type_index() == kTVMFFIVisitInterrupt;
}

/*! \brief The def region a field's flags ask its value to be visited in (None: no change). */
inline TVMFFIDefRegionKind FieldDefRegion(int64_t flags) {
  if (flags & kTVMFFIFieldFlagBitMaskSEqHashDefSimple) return kTVMFFIDefRegionKindSimple;
  if (flags & kTVMFFIFieldFlagBitMaskSEqHashDefPattern) return kTVMFFIDefRegionKindPattern;
  return kTVMFFIDefRegionKindNone;
}

/*! \brief Whether objects of `info`'s type are free variables (their fields are uses even in a
 * simple def region, where the variable itself is defined). */
inline bool IsFreeVarType(const TVMFFITypeInfo* info) {
  return info->metadata != nullptr &&
         info->metadata->structural_eq_hash_kind == kTVMFFISEqHashKindFreeVar;
}

/*! \brief Visits the reflected fields of `obj` in order (inherited first), skipping those flagged
 * SEqHashIgnore; stops at the first interrupt. Throws on failure. */
inline Optional<VisitInterrupt> VisitReflectedFields(StructuralVisitorObj* visitor,
                                                     const Object* obj) {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(obj->type_index());
  if (info == nullptr) return std::nullopt;
  auto visit_fields = [&]() {
    Optional<VisitInterrupt> found;
    reflection::ForEachFieldInfoWithEarlyStop(info, [&](const TVMFFIFieldInfo* field) {
      if (field->flags & kTVMFFIFieldFlagBitMaskSEqHashIgnore) return false;
      Any value = reflection::FieldGetter(field)(obj);
      TVMFFIDefRegionKind region = FieldDefRegion(field->flags);
      found = region == kTVMFFIDefRegionKindNone
                  ? visitor->Visit(value)
                  : visitor->WithDefRegionKind(region, [&] { return visitor->Visit(value); });
      return found.has_value();
    });
    return found;
  };
  if (visitor->def_region_kind() == kTVMFFIDefRegionKindSimple && IsFreeVarType(info)) {
    return visitor->WithDefRegionKind(kTVMFFIDefRegionKindNone, visit_fields);
  }
  return visit_fields();
}
}  // namespace detail

inline Expected<Optional<VisitInterrupt>> StructuralVisitorObj::DefaultVisitExpected(
    AnyView value) noexcept {
  return detail::CatchAsExpected<Optional<VisitInterrupt>>(
      [&]() -> Expected<Optional<VisitInterrupt>> {
        static const reflection::TypeAttrColumn column(type_attr::kStructuralVisit.name);
        AnyView hook = column[value.type_index()];
        switch (hook.type_index()) {
          case kTVMFFIOpaquePtr:
            return detail::VisitResultFromRaw(
                (*reinterpret_cast<FStructuralVisitABI>(hook.cast<void*>()))(this, value));
          case kTVMFFIFunction: {
            auto self = detail::ObjectUnsafe::RefFromBorrowedHeader<StructuralVisitor>(
                detail::ObjectUnsafe::Header(this));
            Expected<Any> out = hook.cast<Function>().CallExpected<Any>(self, value);
            if (out.is_err()) return out.error();
            return detail::VisitResultFromRaw(std::move(out).data().release());
          }
          case kTVMFFINone:
            break;
          default:
            return Error("TypeError",
                         "The __s_visit__ type attribute is an opaque hook pointer or an "
                         "ffi.Function, not `" +
                             std::string(hook.GetTypeName()) + "`");
        }
        if (value.type_index() < kTVMFFIStaticObjectBegin) return Optional<VisitInterrupt>();
        return detail::VisitReflectedFields(
            this, detail::ObjectUnsafe::FromHeader(static_cast<void*>(value.raw()->v_obj)));
      });
}

namespace detail {
/*!
 * \brief The visitor of StructuralWalk: at each value (None aside) the first callback whose value
 * parameter the value is stored as (`AnyView` and `Any` take every value) runs before or after the
 * value's parts are walked. Every occurrence of a shared part is walked; the walk keeps no state.
 */
template <WalkOrder kOrder, typename... Callbacks>
class StructuralWalkObj : public StructuralVisitorObj {
 public:
  explicit StructuralWalkObj(Callbacks... callbacks)
      : StructuralVisitorObj(&kTable), callbacks_(std::move(callbacks)...) {}

 private:
  static TVMFFIAny Dispatch(StructuralVisitorObj* self, AnyView value) noexcept {
    TVMFFIAny result = VisitResultToRaw(static_cast<StructuralWalkObj*>(self)->Step(value));
    // An error leaving a value names it in the error's visit context (innermost first).
    if (FFI_UNLIKELY(result.type_index == kTVMFFIError)) UpdateVisitErrorContext(result, value);
    return result;
  }

  Expected<Optional<VisitInterrupt>> Step(AnyView value) noexcept {
    if (value.type_index() == kTVMFFINone) return Optional<VisitInterrupt>();
    if constexpr (kOrder == WalkOrder::kPreOrder) {
      Expected<WalkResult> action = Select(value);
      if (action.is_err()) return action.error();
      const WalkResult& result = action.value();
      if (result.interrupt().has_value()) return result.interrupt();
      if (result.is_skip()) return Optional<VisitInterrupt>();
      return DefaultVisitExpected(value);
    } else {
      Expected<Optional<VisitInterrupt>> parts = DefaultVisitExpected(value);
      if (VisitStops(parts)) return parts;
      Expected<WalkResult> action = Select(value);
      if (action.is_err()) return action.error();
      return action.value().interrupt();
    }
  }

  /*! \brief The first matching callback's result; Advance when none matches. */
  Expected<WalkResult> Select(AnyView value) noexcept {
    Expected<WalkResult> out = WalkResult::Advance();
    SelectFrom(value, &out, std::index_sequence_for<Callbacks...>{});
    return out;
  }
  template <size_t... I>
  void SelectFrom(AnyView value, Expected<WalkResult>* out, std::index_sequence<I...>) noexcept {
    (void)(TryCallback(std::get<I>(callbacks_), value, out) || ...);
  }

  template <typename F>
  bool TryCallback(F& callback, AnyView value, Expected<WalkResult>* out) noexcept {
    using Info = FunctionInfo<F>;
    static_assert(Info::kNumArgs == 1 || Info::kNumArgs == 2,
                  "a StructuralWalk callback takes (value) or (value, TVMFFIDefRegionKind)");
    using Value = std::tuple_element_t<0, typename Info::ArgTypes>;
    if constexpr (std::is_same_v<Value, AnyView>) {
      *out = Invoke(callback, value);
      return true;
    } else if constexpr (std::is_same_v<Value, Any>) {
      *out = Invoke(callback, Any(value));
      return true;
    } else {
      std::optional<Value> matched = value.as<Value>();
      if (!matched.has_value()) return false;
      *out = Invoke(callback, *std::move(matched));
      return true;
    }
  }

  template <typename F, typename V>
  Expected<WalkResult> Invoke(F& callback, V&& value) noexcept {
    using Info = FunctionInfo<F>;
    try {
      if constexpr (Info::kNumArgs == 1) {
        return Finish(callback, std::forward<V>(value));
      } else {
        return Finish(callback, std::forward<V>(value), def_region_kind());
      }
    } catch (const Error& err) {
      return err;
    } catch (const std::exception& err) {
      return Error("InternalError", err.what());
    }
  }
  /*! \brief Calls the callback; one returning void goes on. */
  template <typename F, typename... A>
  static Expected<WalkResult> Finish(F& callback, A&&... args) {
    if constexpr (std::is_void_v<decltype(callback(std::forward<A>(args)...))>) {
      callback(std::forward<A>(args)...);
      return WalkResult::Advance();
    } else {
      return callback(std::forward<A>(args)...);
    }
  }

  static constexpr StructuralVisitorVTable kTable{&StructuralWalkObj::Dispatch};
  std::tuple<Callbacks...> callbacks_;
};
}  // namespace detail

/*!
 * \brief Walks `root` and its parts (as structural equality sees them), calling at each value
 * the first of `callbacks` that takes it: a callback's first parameter says which values (an
 * object class pointer `const MyObj*`, a reference class, `int64_t`, `String`..., by how the value
 * is stored; `AnyView`/`Any` for all), and an optional second parameter receives the def region
 * kind. Callbacks return `Expected<WalkResult>`, `WalkResult` or nothing (go on); in pre-order
 * (callback before parts) Skip leaves out the value's parts. Returns the interrupt a callback
 * stopped the walk with, or nothing; a callback's Error is returned, with the values it left
 * recorded in its VisitErrorContext (extra/visit_error_context.h).
 *
 *     auto found = StructuralWalkExpected<WalkOrder::kPreOrder>(
 *         root, [](const VarObj* var) -> Expected<WalkResult> {
 *           return WalkResult::Interrupt(VisitInterrupt(GetRef<Var>(var)));
 *         });
 */
template <WalkOrder kOrder, typename... Callbacks>
Expected<Optional<VisitInterrupt>> StructuralWalkExpected(AnyView root,
                                                          Callbacks&&... callbacks) noexcept {
  static_assert(sizeof...(Callbacks) != 0, "StructuralWalk needs at least one callback");
  return detail::CatchAsExpected<Optional<VisitInterrupt>>([&]() {
    using Walker = detail::StructuralWalkObj<kOrder, std::decay_t<Callbacks>...>;
    ObjectPtr<Walker> walker = make_object<Walker>(std::forward<Callbacks>(callbacks)...);
    return walker->VisitExpected(root);
  });
}

/*! \brief StructuralWalkExpected, throwing the Error a callback or a step failed with. */
template <WalkOrder kOrder, typename... Callbacks>
Optional<VisitInterrupt> StructuralWalk(AnyView root, Callbacks&&... callbacks) {
  return StructuralWalkExpected<kOrder>(root, std::forward<Callbacks>(callbacks)...).value();
}

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

/*!
 * \brief In a hook: returns `Result` (an Optional<VisitInterrupt> or an Expected of one) from the
 * enclosing function when it stops the traversal, so a hook is one line per part:
 *   FFI_S_VISIT_MAYBE_EARLY_RETURN(visitor->VisitExpected(self->lhs));
 */
#define FFI_S_VISIT_MAYBE_EARLY_RETURN(Result)               \
  do {                                                       \
    auto&& ffi_visit_result_ = (Result);                     \
    if (::tvm::ffi::detail::VisitStops(ffi_visit_result_)) { \
      return std::move(ffi_visit_result_);                   \
    }                                                        \
  } while (0)

#endif  // FFI_EXTRA_STRUCTURAL_VISIT_H_
