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
#include <utility>

#include "../any.h"
#include "../error.h"
#include "../expected.h"
#include "../function.h"
#include "../object.h"
#include "../optional.h"
#include "../reflection/accessor.h"
#include "../reflection/native_function.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

/*! \brief Where a walk calls a part's callback: before or after walking its children. */
enum class WalkOrder : int32_t { kPreOrder = 0, kPostOrder = 1 };

/*! \brief What a walk callback returns to go on, or to leave out the part's children. */
enum class WalkResult : int32_t { kAdvance = 0, kSkip = 1 };

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
 * \brief Runs `callback()` with `*region` set to `kind` and restored afterwards (also when it
 * throws), for visitors and mutators alike: inside a pattern region the pattern stays (a pattern
 * region covers everything under it).
 */
template <typename Callback>
auto RunInDefRegion(TVMFFIDefRegionKind* region, TVMFFIDefRegionKind kind, Callback&& callback)
    -> decltype(std::forward<Callback>(callback)()) {
  struct Restore {
    TVMFFIDefRegionKind* slot;
    TVMFFIDefRegionKind saved;
    ~Restore() { *slot = saved; }
  } restore{region, *region};
  if (*region != kTVMFFIDefRegionKindPattern) *region = kind;
  return std::forward<Callback>(callback)();
}
}  // namespace detail

/*!
 * \brief The state of one structural traversal: its dispatch table and its current def region.
 * Made by the runtime's traversals (and by engines deriving from it); hooks receive it.
 * One visitor serves one traversal at a time.
 */
class StructuralVisitorObj : public Object {
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

  /*! \brief The def region the traversal is in (structural equality's definition regions). */
  TVMFFIDefRegionKind def_region_kind() const { return def_region_mode_; }

  /*!
   * \brief Runs `callback()` in def region `kind` and returns what it returns; the region is
   * restored afterwards, also when it throws. Inside a pattern region the pattern stays (a
   * pattern region covers everything under it).
   */
  template <typename Callback>
  auto WithDefRegionKind(TVMFFIDefRegionKind kind, Callback&& callback)
      -> decltype(std::forward<Callback>(callback)()) {
    return detail::RunInDefRegion(&def_region_mode_, kind, std::forward<Callback>(callback));
  }

  /// \cond Doxygen_Suppress
  static constexpr bool _type_mutable = true;
  FFI_DECLARE_OBJECT_INFO("ffi.StructuralVisitor", StructuralVisitorObj, Object);
  /// \endcond

 protected:
  /*! \brief A visitor dispatching through `vtable`, which must outlive it. */
  explicit StructuralVisitorObj(const StructuralVisitorVTable* vtable) : vtable_(vtable) {}

  /*! \brief The dispatch table; never null. */
  const StructuralVisitorVTable* vtable_ = nullptr;
  /*! \brief The current def region (change it through WithDefRegionKind). */
  TVMFFIDefRegionKind def_region_mode_ = kTVMFFIDefRegionKindNone;
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
