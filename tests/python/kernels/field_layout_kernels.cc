// An object with value-class fields (Optionals of numbers, devices, dtypes and Variants, a
// Tensor, String and Bytes, an Optional<String>, a nested Optional), made by one
// copy of this library and read inline, as its own class, by another: the copies are built with
// our headers and with the reference's (tests/python/objects/test_field_layout.py), so a read
// across them only works where both header sets lay the fields out alike. LAYOUT_PREFIX names the
// copy.
#include <tvm/ffi/any.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/container/variant.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/string.h>

#include <cstdint>
#include <utility>

namespace ffi = tvm::ffi;

namespace layout {

/*! \brief The fields under test, then one plain field whose offset depends on all of them. */
class HolderObj : public ffi::Object {
 public:
  ffi::Optional<int64_t> count;
  ffi::Optional<double> scale;
  ffi::Optional<int> small;
  ffi::Optional<bool> flag;
  ffi::Optional<float> ratio;
  ffi::Tensor tensor;
  ffi::String name;
  ffi::Optional<ffi::String> label;
  ffi::Bytes blob;
  ffi::Optional<ffi::Optional<int64_t>> nested;
  ffi::Optional<DLDevice> device;
  ffi::Optional<DLDataType> dtype;
  ffi::Optional<ffi::Variant<int64_t, ffi::String>> choice;
  int64_t after = 0;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL(LAYOUT_PREFIX ".Holder", HolderObj, ffi::Object);
};

ffi::ObjectRef MakeHolder(ffi::Optional<int64_t> count, ffi::Optional<double> scale,
                          ffi::Optional<int> small, ffi::Optional<bool> flag,
                          ffi::Optional<float> ratio, ffi::Tensor tensor, ffi::String name,
                          ffi::Optional<ffi::String> label, ffi::Bytes blob,
                          ffi::Optional<int64_t> nested, ffi::Optional<DLDevice> device,
                          ffi::Optional<DLDataType> dtype,
                          ffi::Optional<ffi::Variant<int64_t, ffi::String>> choice, int64_t after) {
  auto obj = ffi::make_object<HolderObj>();
  obj->count = count;
  obj->scale = scale;
  obj->small = small;
  obj->flag = flag;
  obj->ratio = ratio;
  obj->tensor = std::move(tensor);
  obj->name = name;
  obj->label = label;
  obj->blob = blob;
  obj->nested = nested;
  obj->device = device;
  obj->dtype = dtype;
  obj->choice = choice;
  obj->after = after;
  return ffi::ObjectRef(std::move(obj));
}

/*!
 * \brief Reads `holder` as this copy's HolderObj without checking its type (it may come from the
 * other copy): what C++ code reading another library's object inline does.
 */
ffi::Array<ffi::Any> ReadHolder(ffi::ObjectRef holder) {
  const auto* h = static_cast<const HolderObj*>(holder.get());
  ffi::Any count, scale, small, flag, ratio, label, nested, device, dtype, choice;
  if (h->count.has_value()) count = h->count.value();
  if (h->scale.has_value()) scale = h->scale.value();
  if (h->small.has_value()) small = h->small.value();
  if (h->flag.has_value()) flag = h->flag.value();
  if (h->ratio.has_value()) ratio = h->ratio.value();
  if (h->label.has_value()) label = h->label.value();
  if (h->nested.has_value()) nested = h->nested.value().value();
  if (h->device.has_value()) device = h->device.value();
  if (h->dtype.has_value()) dtype = h->dtype.value();
  if (h->choice.has_value()) choice = h->choice.value();
  // Each string is rebuilt from its bytes, so the read goes through this copy's String layout.
  ffi::String name(std::string(h->name.data(), h->name.size()));
  ffi::Bytes blob(h->blob.data(), h->blob.size());
  return ffi::Array<ffi::Any>{count, scale, small,  flag,   ratio, h->tensor, name,
                              label, blob,  nested, device, dtype, choice,    h->after};
}

}  // namespace layout

TVM_FFI_DLL_EXPORT_TYPED_FUNC(make_holder, layout::MakeHolder);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(read_holder, layout::ReadHolder);
