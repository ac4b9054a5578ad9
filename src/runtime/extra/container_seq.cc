// The standard global functions that build and inspect Array and List objects, under TVM-FFI's
// names and with its behaviour, so that a host of either implementation (its Python package
// included) can make and read sequences through this runtime.
#include <ffi/container/array.h>
#include <ffi/container/list.h>
#include <ffi/function.h>
#include <ffi/reflection/registry.h>

#include <cstring>

namespace tvm {
namespace ffi {
namespace runtime {
namespace {

/*!
 * \brief A parameter that is exactly an Array object: ffi.ArrayGetItem and friends refuse a List
 * (TypeError) where Array<Any> would copy it.
 */
class ArrayRef : public ObjectRef {
 public:
  FFI_DEFINE_NOTNULLABLE_OBJECT_REF_METHODS(ArrayRef, ObjectRef, ArrayObj);
};
/*! \brief A parameter that is exactly a List object. */
class ListRef : public ObjectRef {
 public:
  FFI_DEFINE_NOTNULLABLE_OBJECT_REF_METHODS(ListRef, ObjectRef, ListObj);
};

/*!
 * \brief Equality used by ArrayContains/ListContains, as TVM-FFI's: the same 16 bytes (same
 * object, or same POD value and type), or two strings (bytes) with the same characters, whichever
 * way each is stored.
 */
bool AnyEqual(const Any& a, const Any& b) {
  if (std::memcmp(a.raw(), b.raw(), sizeof(TVMFFIAny)) == 0) return true;
  // A string is stored inline when short (kTVMFFISmallStr) or as an object; either way it is
  // compared by its characters (likewise bytes).
  auto is_str = [](int32_t t) { return t == kTVMFFIStr || t == kTVMFFISmallStr; };
  auto is_bytes = [](int32_t t) { return t == kTVMFFIBytes || t == kTVMFFISmallBytes; };
  if (is_str(a.type_index()) && is_str(b.type_index())) {
    return a.cast<String>() == b.cast<String>();
  }
  if (is_bytes(a.type_index()) && is_bytes(b.type_index())) {
    return a.cast<Bytes>() == b.cast<Bytes>();
  }
  return false;
}

bool SeqContains(const SeqBaseObj* seq, const Any& value) {
  for (const Any& v : *seq) {
    if (AnyEqual(v, value)) return true;
  }
  return false;
}

FFI_STATIC_INIT_BLOCK() {
  reflection::GlobalDef()
      .def_packed("ffi.Array",
                  [](PackedArgs args, Any* result) {
                    Array<Any> out;
                    out.reserve(args.size());
                    for (const AnyView& v : args) out.push_back(Any(v));
                    *result = std::move(out);
                  })
      .def("ffi.ArrayGetItem", [](const ArrayRef& a, int64_t i) { return a->at(i); })
      .def("ffi.ArraySize", [](const ArrayRef& a) { return static_cast<int64_t>(a->size()); })
      .def("ffi.ArrayContains",
           [](const ArrayRef& a, const Any& value) { return SeqContains(a.get(), value); })
      .def_packed("ffi.List",
                  [](PackedArgs args, Any* result) {
                    List<Any> out;
                    out.reserve(args.size());
                    for (const AnyView& v : args) out.push_back(Any(v));
                    *result = std::move(out);
                  })
      .def("ffi.ListGetItem", [](const ListRef& l, int64_t i) { return l->at(i); })
      .def("ffi.ListSize", [](const ListRef& l) { return static_cast<int64_t>(l->size()); })
      .def("ffi.ListContains",
           [](const ListRef& l, const Any& value) { return SeqContains(l.get(), value); })
      .def("ffi.ListAppend", [](List<Any> l, Any value) { l.push_back(value); })
      .def("ffi.ListSetItem", [](List<Any> l, int64_t i, Any value) { l.Set(i, value); })
      .def("ffi.ListInsert",
           [](List<Any> l, int64_t i, Any value) { l.insert(l.begin() + i, value); })
      .def("ffi.ListPop",
           [](List<Any> l, int64_t i) {
             Any out = l.GetListObj()->at(i);
             l.erase(l.begin() + i);
             return out;
           })
      .def("ffi.ListErase", [](List<Any> l, int64_t i) { l.GetListObj()->erase(i); })
      .def("ffi.ListEraseRange",
           [](List<Any> l, int64_t first, int64_t last) { l.GetListObj()->erase(first, last); })
      .def("ffi.ListClear", [](List<Any> l) { l.clear(); })
      .def("ffi.ListReverse", [](List<Any> l) { l.GetListObj()->Reverse(); })
      .def("ffi.ListReserve", [](List<Any> l, int64_t n) { l.reserve(n); })
      .def("ffi.ListReplaceSlice", [](List<Any> l, int64_t first, int64_t last, List<Any> values) {
        // `values` may be `l` itself: take its values before changing anything.
        Array<Any> items(values.begin(), values.end());
        int64_t size = static_cast<int64_t>(l.size());
        // As TVM-FFI: an empty range is checked as an insertion point, others as a range.
        if (first == last && (first < 0 || first > size)) {
          FFI_THROW(IndexError) << "Index " << first << " out of bounds [0, " << size << "]";
        }
        l.GetListObj()->erase(first, last);
        l.insert(l.begin() + first, items.begin(), items.end());
      });
}

}  // namespace
}  // namespace runtime
}  // namespace ffi
}  // namespace tvm
