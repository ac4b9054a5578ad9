/*
 * ffi/extra/structural_mutate.h - Structural mutation: a mutator object that rebuilds a value
 * part by part, copying only what changes.
 *
 * A StructuralMutatorObj is the state of one rewrite: a dispatch table (what happens at each
 * value), the def region the rewrite is in, and a variable remap (which free variables and DAG
 * nodes were already rewritten, and into what). Mutate(v) dispatches through the table;
 * DefaultMutate(v) rebuilds v from its mutated parts: the type's `__s_mutate__` hook when it
 * registered one, otherwise its reflected fields (those not flagged SEqHashIgnore, each in the def
 * region its flags ask for), copying the object (`__ffi_shallow_copy__`) only when a field
 * changes. Arrays, lists, maps and dicts rebuild from their elements (maps: their values); values
 * without parts come back unchanged.
 *
 * A mutation result travels through the ABI as one raw value: the replacement, the Unchanged
 * marker (type index kTVMFFIUnchanged: keep the original), or an Error. In-place mode
 * (InplaceMode::kAllow) lets a type's `__s_maybe_inplace_mutate__` hook change a value that
 * nothing else references instead of copying it.
 *
 * The object layouts and the dispatch table match the reference implementation's, so a hook
 * compiled against either header set works with a mutator made by either runtime. The runtime's
 * globals build mutators from callbacks: ffi.StructuralMap, ffi.StructuralMutate.
 */
#ifndef FFI_EXTRA_STRUCTURAL_MUTATE_H_
#define FFI_EXTRA_STRUCTURAL_MUTATE_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "../any.h"
#include "../error.h"
#include "../expected.h"
#include "../function.h"
#include "../object.h"
#include "../reflection/accessor.h"
#include "structural_visit.h"

namespace tvm {
namespace ffi {
inline namespace ffi_v1 {

/*! \brief Whether a mutation may change a value in place (when nothing else references it). */
enum class InplaceMode : int32_t {
  /*! \brief Copy on write: the source is never changed. */
  kDisallow = 0,
  /*! \brief A uniquely referenced value may be changed in place. */
  kAllow = 1,
};

/*! \brief The result that keeps the original value; converts to the marker Any. */
struct Unchanged {
  /*! \brief The marker as an Any (type index kTVMFFIUnchanged). */
  operator Any() const noexcept {  // NOLINT(runtime/explicit)
    TVMFFIAny raw{};
    raw.type_index = kTVMFFIUnchanged;
    return Any::FromRaw(raw);
  }
  /*! \brief Whether `result` is the marker. */
  static bool In(const AnyView& result) noexcept { return result.type_index() == kTVMFFIUnchanged; }
};

class StructuralMutatorObj;

/*! \brief A mutation step through the ABI: the replacement, Unchanged or an Error, owned. */
using FStructuralMutateABI = TVMFFIAny (*)(StructuralMutatorObj* mutator, AnyView value) noexcept;
/*! \brief Reads the remap of `var`: its replacement (owned), None when it has none, or an Error. */
using FStructuralVarRemapGet = TVMFFIAny (*)(StructuralMutatorObj* mutator, AnyView var) noexcept;
/*! \brief Records the remap of `var`: None on success, or an Error. */
using FStructuralVarRemapSet = TVMFFIAny (*)(StructuralMutatorObj* mutator, AnyView var,
                                             AnyView mapped_value) noexcept;

/*! \brief A mutator's dispatch table (layout shared with the reference implementation). */
struct StructuralMutatorVTable {
  /*! \brief Mutates a value without changing it (copy on write). */
  FStructuralMutateABI mutate = nullptr;
  /*! \brief Mutates a uniquely referenced value, possibly in place. */
  FStructuralMutateABI maybe_inplace_mutate = nullptr;
  /*! \brief Reads the variable remap. */
  FStructuralVarRemapGet var_remap_get = nullptr;
  /*! \brief Writes the variable remap. */
  FStructuralVarRemapSet var_remap_set = nullptr;
};

namespace type_attr {
/*!
 * \brief A type's own rebuild from its mutated parts: an opaque FStructuralMutateABI pointer or an
 * ffi.Function called as (mutator, value) returning the replacement. It mutates each part with
 * `mutator->MutateExpected(part)` and returns Unchanged when no part changed; it never changes
 * its input.
 */
inline constexpr reflection::AttrKey<Any> kStructuralMutate{"__s_mutate__"};
/*! \brief As kStructuralMutate, for a value nothing else references: it may change the value in
 * place and return it. Optional; a type that has it also has kStructuralMutate. */
inline constexpr reflection::AttrKey<Any> kStructuralMaybeInplaceMutate{
    "__s_maybe_inplace_mutate__"};
}  // namespace type_attr

namespace detail {
/*! \brief Whether `a` and `b` are the same value: the same object, or equal plain values. */
inline bool SameValue(const AnyView& a, const AnyView& b) noexcept {
  const TVMFFIAny* x = a.raw();
  const TVMFFIAny* y = b.raw();
  return x->type_index == y->type_index && x->zero_padding == y->zero_padding &&
         x->v_int64 == y->v_int64;
}

/*! \brief Whether `v` is an object that nothing else references (so it may change in place). */
inline bool UniquelyOwned(const AnyView& v) noexcept {
  return v.type_index() >= kTVMFFIStaticObjectBegin &&
         ObjectUnsafe::FromHeader(static_cast<void*>(v.raw()->v_obj))->use_count() == 1;
}

/*! \brief A raw mutation result (owned) as an Expected (an Error becomes the error). */
inline Expected<Any> MutateResultFromRaw(TVMFFIAny raw) noexcept {
  Any data = Any::FromRaw(raw);
  if (data.type_index() == kTVMFFIError) return std::move(data).cast<Error>();
  return Expected<Any>(std::move(data));
}
}  // namespace detail

/*!
 * \brief The state of one structural rewrite: its dispatch table, its current def region and
 * (through the table) its variable remap. Made by the runtime's rewrites (and by engines deriving
 * from it); hooks receive it. One mutator serves one rewrite at a time.
 */
class StructuralMutatorObj : public detail::StructuralDispatchObj<StructuralMutatorVTable> {
 public:
  /*!
   * \brief Mutates `value` through the dispatch table: the replacement, or the Unchanged marker.
   * With InplaceMode::kAllow a value nothing else references may be changed in place; the mode
   * must hold along the whole path from the root.
   */
  Expected<Any> MutateExpected(AnyView value,
                               InplaceMode inplace_mode = InplaceMode::kDisallow) noexcept {
    FStructuralMutateABI step = inplace_mode == InplaceMode::kAllow && detail::UniquelyOwned(value)
                                    ? vtable_->maybe_inplace_mutate
                                    : vtable_->mutate;
    return detail::MutateResultFromRaw((*step)(this, value));
  }

  /*! \brief MutateExpected resolved: the new value (`value` itself when unchanged); throws the
   * Error a step failed with. */
  Any Mutate(AnyView value, InplaceMode inplace_mode = InplaceMode::kDisallow) {
    return Resolve(MutateExpected(value, inplace_mode).value(), value);
  }

  /*!
   * \brief Rebuilds `value` from its mutated parts without consulting the dispatch table for
   * `value` itself: its type's hook, else its reflected fields (with the variable remap for free
   * variables and DAG nodes). `inplace_mode` is the mode already established for `value`.
   */
  Expected<Any> DefaultMutateExpected(AnyView value,
                                      InplaceMode inplace_mode = InplaceMode::kDisallow) noexcept;

  /*! \brief DefaultMutateExpected resolved, as Mutate. */
  Any DefaultMutate(AnyView value, InplaceMode inplace_mode = InplaceMode::kDisallow) {
    return Resolve(DefaultMutateExpected(value, inplace_mode).value(), value);
  }

  /*! \brief The replacement recorded for `var` (an object), None when there is none; may be the
   * Unchanged marker (rewritten to itself). */
  Expected<Any> VarRemapGetExpected(AnyView var) noexcept {
    return detail::MutateResultFromRaw((*vtable_->var_remap_get)(this, var));
  }

  /*! \brief Records `mapped_value` as the replacement of `var` (an object). */
  Expected<void> VarRemapSetExpected(AnyView var, AnyView mapped_value) noexcept {
    Any out = Any::FromRaw((*vtable_->var_remap_set)(this, var, mapped_value));
    if (out.type_index() == kTVMFFIError) return std::move(out).cast<Error>();
    return Expected<void>();
  }

  /*! \brief A result with the Unchanged marker replaced by `original`. */
  static Any Resolve(Any result, AnyView original) {
    return Unchanged::In(result) ? Any(original) : result;
  }

  /// \cond Doxygen_Suppress
  static constexpr bool _type_mutable = true;
  FFI_DECLARE_OBJECT_INFO("ffi.StructuralMutator", StructuralMutatorObj, Object);
  /// \endcond

 protected:
  /*! \brief A mutator dispatching through `vtable`, which must outlive it. */
  explicit StructuralMutatorObj(const StructuralMutatorVTable* vtable)
      : StructuralDispatchObj(vtable) {}
};

/*! \brief Reference to a StructuralMutatorObj; never null. */
class StructuralMutator : public ObjectRef {
 public:
  /// \cond Doxygen_Suppress
  FFI_DEFINE_NOTNULLABLE_OBJECT_REF_METHODS(StructuralMutator, ObjectRef, StructuralMutatorObj);
  /// \endcond
};

namespace detail {
/*! \brief Calls a type's mutation hook (opaque pointer or Function) on `value`. */
inline Expected<Any> CallMutateHook(const AnyView& hook, StructuralMutatorObj* mutator,
                                    const AnyView& value, const char* name) {
  if (hook.type_index() == kTVMFFIOpaquePtr) {
    return MutateResultFromRaw(
        (*reinterpret_cast<FStructuralMutateABI>(hook.cast<void*>()))(mutator, value));
  }
  if (hook.type_index() == kTVMFFIFunction) {
    auto self =
        ObjectUnsafe::RefFromBorrowedHeader<StructuralMutator>(ObjectUnsafe::Header(mutator));
    return hook.cast<Function>().CallExpected<Any>(self, value);
  }
  return Error("TypeError", std::string("The ") + name +
                                " type attribute is an opaque hook pointer or an ffi.Function, "
                                "not `" +
                                hook.GetTypeName() + "`");
}

/*! \brief Rebuilds `value` from its mutated reflected fields (throws on failure). */
inline Any MutateReflectedFields(StructuralMutatorObj* mutator, const AnyView& value) {
  const Object* obj = ObjectUnsafe::FromHeader(static_cast<void*>(value.raw()->v_obj));
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(obj->type_index());
  if (info == nullptr) return Unchanged();
  // Mutate every field first; copy the object only when one changed.
  std::vector<std::pair<const TVMFFIFieldInfo*, Any>> changed;
  auto mutate_fields = [&]() {
    reflection::ForEachFieldInfo(info, [&](const TVMFFIFieldInfo* field) {
      if (field->flags & kTVMFFIFieldFlagBitMaskSEqHashIgnore) return;
      Any old_value = reflection::FieldGetter(field)(obj);
      TVMFFIDefRegionKind region = FieldDefRegion(field->flags);
      auto mutate = [&] { return mutator->MutateExpected(old_value).value(); };
      Any new_value = region == kTVMFFIDefRegionKindNone
                          ? mutate()
                          : mutator->WithDefRegionKind(region, mutate);
      if (!Unchanged::In(new_value) && !SameValue(new_value, old_value)) {
        changed.emplace_back(field, std::move(new_value));
      }
    });
  };
  if (mutator->def_region_kind() == kTVMFFIDefRegionKindSimple && IsFreeVarType(info)) {
    mutator->WithDefRegionKind(kTVMFFIDefRegionKindNone, mutate_fields);
  } else {
    mutate_fields();
  }
  if (changed.empty()) return Unchanged();
  std::string type_key(info->type_key.data, info->type_key.size);
  static const reflection::TypeAttrColumn copy_column(type_attr::kShallowCopy.name);
  AnyView copy = copy_column[obj->type_index()];
  if (copy.type_index() != kTVMFFIFunction) {
    FFI_THROW(TypeError) << "Cannot structurally mutate an object of type `" << type_key
                         << "`: the type has no __ffi_shallow_copy__ to copy it with";
  }
  Any out = copy.cast<Function>()(value);
  if (out.type_index() != obj->type_index() || SameValue(out, value)) {
    FFI_THROW(TypeError) << "The __ffi_shallow_copy__ of `" << type_key
                         << "` must return a new object of the same type";
  }
  Object* target = ObjectUnsafe::FromHeader(static_cast<void*>(out.raw()->v_obj));
  for (auto& [field, new_value] : changed) {
    void* addr = reinterpret_cast<char*>(target) + field->offset;
    if (field->setter == nullptr) {
      FFI_THROW(TypeError) << "Cannot structurally mutate field `"
                           << std::string_view(field->name.data, field->name.size) << "` of type `"
                           << type_key << "`: it has no setter";
    }
    FFI_CHECK_SAFE_CALL(reflection::CallFieldSetter(field, addr, new_value.raw()));
  }
  return out;
}
}  // namespace detail

inline Expected<Any> StructuralMutatorObj::DefaultMutateExpected(
    AnyView value, InplaceMode inplace_mode) noexcept {
  return detail::CatchAsExpected<Any>([&]() -> Expected<Any> {
    int32_t index = value.type_index();
    if (inplace_mode == InplaceMode::kAllow) {
      static const reflection::TypeAttrColumn inplace(
          type_attr::kStructuralMaybeInplaceMutate.name);
      AnyView hook = inplace[index];
      if (!hook.is_none()) {
        return detail::CallMutateHook(hook, this, value,
                                      type_attr::kStructuralMaybeInplaceMutate.name);
      }
    }
    static const reflection::TypeAttrColumn column(type_attr::kStructuralMutate.name);
    AnyView hook = column[index];
    if (!hook.is_none()) {
      return detail::CallMutateHook(hook, this, value, type_attr::kStructuralMutate.name);
    }
    if (index < kTVMFFIStaticObjectBegin) return Any(Unchanged());
    // Free variables and DAG nodes are rewritten once: later occurrences read the remap.
    const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(index);
    int32_t kind = info != nullptr && info->metadata != nullptr
                       ? info->metadata->structural_eq_hash_kind
                       : kTVMFFISEqHashKindUnsupported;
    bool free_var = kind == kTVMFFISEqHashKindFreeVar;
    bool dag_node = kind == kTVMFFISEqHashKindDAGNode;
    if (free_var || dag_node) {
      Any mapped = VarRemapGetExpected(value).value();
      if (!mapped.is_none()) return mapped;
      // A variable outside any def region is a use: not rewritten unless its definition was.
      if (free_var && def_region_mode_ == kTVMFFIDefRegionKindNone) return Any(Unchanged());
    }
    Any result = detail::MutateReflectedFields(this, value);
    if (dag_node ||
        (free_var && (def_region_mode_ == kTVMFFIDefRegionKindPattern || !Unchanged::In(result)))) {
      VarRemapSetExpected(value, result).value();
    }
    return result;
  });
}

}  // namespace ffi_v1
}  // namespace ffi
}  // namespace tvm

#endif  // FFI_EXTRA_STRUCTURAL_MUTATE_H_
