/*
 * The standard global functions on Map and Dict, under the names and with the meaning the
 * reference runtime gives them, so hosts of either implementation (its Python package among them)
 * can build and inspect tables on this runtime:
 *
 *   ffi.Map(k0, v0, k1, v1, ...) -> Map          ffi.Dict(k0, v0, ...) -> Dict
 *   ffi.MapSize(map) -> int                      ffi.DictSize(dict) -> int
 *   ffi.MapGetItem(map, key) -> value            ffi.DictGetItem(dict, key)   (KeyError if absent)
 *   ffi.MapGetItemOrMissing(map, key)            ffi.DictGetItemOrMissing(dict, key)
 *       the value, or the "missing" object that ffi.GetInvalidObject returns
 *   ffi.MapCount(map, key) -> 0 or 1             ffi.DictCount(dict, key)
 *   ffi.MapForwardIterFunctor(map) -> f          ffi.DictForwardIterFunctor(dict)
 *       f(0) the current key, f(1) its value, f(other) steps on and says whether an entry is left
 *   ffi.DictSetItem(dict, key, value)  ffi.DictErase(dict, key)  ffi.DictClear(dict)
 *
 * The readers take exactly a Map (or exactly a Dict); the Dict writers take any map-like value
 * the way a Dict<Any, Any> parameter does, so a Map given to them is copied into a new Dict first.
 */
#include <ffi/container/dict.h>
#include <ffi/container/map.h>
#include <ffi/function.h>
#include <ffi/reflection/registry.h>

#include <cstdint>
#include <string>
#include <utility>

namespace tvm {
namespace ffi {
namespace runtime {

/*! \brief A table argument that must be exactly a Map (`Index` kTVMFFIMap) or a Dict. */
template <int32_t Index>
struct ExactTable {
  ObjectRef ref;
  MapBaseObj* operator->() const {
    return static_cast<MapBaseObj*>(const_cast<Object*>(ref.get()));
  }
};

}  // namespace runtime

template <int32_t Index>
struct TypeTraits<runtime::ExactTable<Index>> {
  static constexpr bool enabled = true;
  static bool CheckAnyStrict(const TVMFFIAny* src) { return src->type_index == Index; }
  static Optional<runtime::ExactTable<Index>> TryCastFromAnyView(const TVMFFIAny* src) {
    if (src->type_index != Index) return std::nullopt;
    return runtime::ExactTable<Index>{
        detail::ObjectUnsafe::RefFromBorrowedHeader<ObjectRef>(src->v_obj)};
  }
  static constexpr auto TypeStr() {
    if constexpr (Index == kTVMFFIMap) {
      return ConstString("Map");
    } else {
      return ConstString("Dict");
    }
  }
};

namespace runtime {
namespace {

using MapArg = ExactTable<kTVMFFIMap>;
using DictArg = ExactTable<kTVMFFIDict>;

/*!
 * \brief The process-wide "missing" marker: a plain Object, returned where a value is absent
 * (ffi.GetInvalidObject; the GetItemOrMissing functions).
 */
const ObjectRef& MissingObject() {
  static const ObjectRef* missing = new ObjectRef(make_object<Object>());
  return *missing;
}

/*! \brief A table from (key, value, key, value, ...) arguments, later keys overwriting. */
template <typename Table>
void BuildFromPairs(PackedArgs args, Any* result) {
  // The reference reports an odd count as a failed internal check; so does this.
  FFI_ICHECK_EQ(args.size() % 2, 0)
      << "expected key, value pairs, got " << args.size() << " arguments";
  Table table;
  for (int32_t i = 0; i < args.size(); i += 2) table.Set(Any(args[i]), Any(args[i + 1]));
  *result = std::move(table);
}

/*! \brief The value of `key`, or the missing marker. */
template <typename Arg>
Any GetOrMissing(const Arg& table, const Any& key) {
  MapBaseObj::iterator it = table->find(key);
  if (it == table->end()) return Any(MissingObject());
  return it->second;
}

/*!
 * \brief The iteration functor: walks the table in its iteration order. It holds the table, so
 * the walk stays valid for as long as the functor lives.
 */
template <typename Arg>
class IterFunctor {
 public:
  explicit IterFunctor(Arg table) : table_(std::move(table)), it_(table_->begin()) {}
  /*! \brief 0: the current key; 1: its value; else: steps on, false past the last entry. */
  Any operator()(int64_t command) const {
    if (it_ == table_->end()) {
      FFI_THROW(IndexError) << "The map iterator is past the last entry";
    }
    if (command == 0) return it_->first;
    if (command == 1) return it_->second;
    ++it_;
    return it_ != table_->end();
  }

 private:
  Arg table_;
  mutable MapBaseObj::iterator it_;
};

/*!
 * \brief Makes sure the type-attribute columns of custom key hashing exist from the start: AnyHash
 * and AnyEqual look each one up once per library and keep what they found, so a column created
 * only later (when a type first registers a hook) would go unseen.
 */
void EnsureKeyHookColumns() {
  for (const char* name : {"__any_hash__", "__any_equal__"}) {
    TVMFFIByteArray key{name, std::char_traits<char>::length(name)};
    TVMFFIAny none;
    detail::SetNone(&none);
    if (int rc = TVMFFITypeRegisterAttr(kTVMFFINone, &key, &none)) detail::ThrowRaised(rc);
  }
}

FFI_STATIC_INIT_BLOCK() {
  EnsureKeyHookColumns();
  reflection::GlobalDef()
      .def("ffi.GetInvalidObject", []() { return MissingObject(); })
      .def_packed("ffi.Map", BuildFromPairs<Map<Any, Any>>)
      .def("ffi.MapSize", [](MapArg m) { return static_cast<int64_t>(m->size()); })
      .def("ffi.MapGetItem", [](MapArg m, Any key) -> Any { return m->at(key); })
      .def("ffi.MapCount", [](MapArg m, Any key) { return static_cast<int64_t>(m->count(key)); })
      .def("ffi.MapGetItemOrMissing", [](MapArg m, Any key) { return GetOrMissing(m, key); })
      .def("ffi.MapForwardIterFunctor",
           [](MapArg m) { return Function::FromTyped(IterFunctor<MapArg>(m)); })
      .def_packed("ffi.Dict", BuildFromPairs<Dict<Any, Any>>)
      .def("ffi.DictSize", [](DictArg d) { return static_cast<int64_t>(d->size()); })
      .def("ffi.DictGetItem", [](DictArg d, Any key) -> Any { return d->at(key); })
      .def("ffi.DictCount", [](DictArg d, Any key) { return static_cast<int64_t>(d->count(key)); })
      .def("ffi.DictGetItemOrMissing", [](DictArg d, Any key) { return GetOrMissing(d, key); })
      .def("ffi.DictForwardIterFunctor",
           [](DictArg d) { return Function::FromTyped(IterFunctor<DictArg>(d)); })
      .def("ffi.DictSetItem", [](Dict<Any, Any> d, Any key, Any value) { d.Set(key, value); })
      .def("ffi.DictErase", [](Dict<Any, Any> d, Any key) { d.erase(key); })
      .def("ffi.DictClear", [](Dict<Any, Any> d) { d.clear(); });
}

}  // namespace
}  // namespace runtime
}  // namespace ffi
}  // namespace tvm
