// The standard global functions behind classes defined in Python whose instances are runtime
// objects (the reference package's `py_class` dataclasses). The Python side lays the fields out
// itself and asks the runtime for the pieces native code would otherwise provide:
//
//   ffi.MakeFieldGetter(field_type_index) -> the address of a C field getter for a field stored
//     natively as that type (int64, double, bool byte, pointer, DLDataType, DLDevice, a 16-byte
//     Any (type index -1) or an object pointer (any object type index));
//   ffi.MakeFieldSetter(field_type_index, converter, convert_fn) -> a setter Function taking
//     (field address, value): the value goes through `convert_fn(converter, value, &out)` (the
//     Python side's type conversion, 0 or -1 with the error raised) and is stored natively;
//   ffi._PyClassRegisterTypeAttrColumns(type_index, total_size) -> registers `__ffi_new__` (a
//     zeroed object of that size whose deleter releases the object and Any fields) and
//     `__ffi_shallow_copy__` (a byte copy holding new references), then asks ffi._RegisterFFIInit,
//     when registered, for the keyword constructor.
#include <ffi/any.h>
#include <ffi/c_api.h>
#include <ffi/dtype.h>
#include <ffi/function.h>
#include <ffi/reflection/accessor.h>
#include <ffi/reflection/registry.h>

#include <cstdlib>
#include <cstring>

namespace tvm {
namespace ffi {
namespace runtime {
namespace {

constexpr int32_t kAnyField = -1;  // field_static_type_index of a 16-byte Any field

template <typename T>
T& At(void* field) {
  return *static_cast<T*>(field);
}

int GetInt(void* f, TVMFFIAny* r) {
  r->type_index = kTVMFFIInt;
  r->v_int64 = At<int64_t>(f);
  return 0;
}
int GetFloat(void* f, TVMFFIAny* r) {
  r->type_index = kTVMFFIFloat;
  r->v_float64 = At<double>(f);
  return 0;
}
int GetBool(void* f, TVMFFIAny* r) {
  r->type_index = kTVMFFIBool;
  r->v_int64 = At<uint8_t>(f) != 0;
  return 0;
}
int GetPtr(void* f, TVMFFIAny* r) {
  r->type_index = At<void*>(f) == nullptr ? kTVMFFINone : kTVMFFIOpaquePtr;
  r->v_ptr = At<void*>(f);
  return 0;
}
int GetDataType(void* f, TVMFFIAny* r) {
  r->type_index = kTVMFFIDataType;
  r->v_int64 = 0;
  r->v_dtype = At<DLDataType>(f);
  return 0;
}
int GetDevice(void* f, TVMFFIAny* r) {
  r->type_index = kTVMFFIDevice;
  r->v_int64 = 0;
  r->v_device = At<DLDevice>(f);
  return 0;
}
int GetAny(void* f, TVMFFIAny* r) { return TVMFFIAnyViewToOwnedAny(&At<TVMFFIAny>(f), r); }
int GetObject(void* f, TVMFFIAny* r) {
  TVMFFIObject* obj = At<TVMFFIObject*>(f);
  r->zero_padding = 0;
  if (obj == nullptr) {
    r->type_index = kTVMFFINone;
    r->v_int64 = 0;
    return 0;
  }
  TVMFFIObjectIncRef(obj);
  r->type_index = obj->type_index;
  r->v_obj = obj;
  return 0;
}

TVMFFIFieldGetter GetterFor(int32_t type_index) {
  switch (type_index) {
    case kTVMFFIInt:
      return GetInt;
    case kTVMFFIFloat:
      return GetFloat;
    case kTVMFFIBool:
      return GetBool;
    case kTVMFFIOpaquePtr:
      return GetPtr;
    case kTVMFFIDataType:
      return GetDataType;
    case kTVMFFIDevice:
      return GetDevice;
    case kAnyField:
      return GetAny;
    default:
      if (type_index >= kTVMFFIStaticObjectBegin) return GetObject;
      FFI_THROW(TypeError) << "No native field layout for type index " << type_index;
  }
}

/*! \brief Stores the owned value `v` (consumed) into a field of native type `type_index`. */
void Store(int32_t type_index, void* field, Any v) {
  switch (type_index) {
    case kTVMFFIInt:
      At<int64_t>(field) = v.cast<int64_t>();
      return;
    case kTVMFFIFloat:
      At<double>(field) = v.cast<double>();
      return;
    case kTVMFFIBool:
      At<uint8_t>(field) = v.cast<bool>() ? 1 : 0;
      return;
    case kTVMFFIOpaquePtr:
      At<void*>(field) = v.cast<void*>();
      return;
    case kTVMFFIDataType:
      At<DLDataType>(field) = v.cast<DLDataType>();
      return;
    case kTVMFFIDevice:
      At<DLDevice>(field) = v.cast<DLDevice>();
      return;
    case kAnyField: {
      Any old = Any::FromRaw(At<TVMFFIAny>(field));  // released at scope end
      At<TVMFFIAny>(field) = v.release();
      return;
    }
    default: {
      if (!v.is_none() && v.type_index() < kTVMFFIStaticObjectBegin) {
        FFI_THROW(TypeError) << "Expected an object for the field, got type index "
                             << v.type_index();
      }
      TVMFFIObject* old = At<TVMFFIObject*>(field);
      TVMFFIAny raw = v.release();  // The field takes over the reference.
      At<TVMFFIObject*>(field) = raw.type_index == kTVMFFINone ? nullptr : raw.v_obj;
      if (old != nullptr) TVMFFIObjectDecRef(old);
    }
  }
}

using ConvertFn = int (*)(void* converter, const TVMFFIAny* value, TVMFFIAny* result);

Function MakeSetter(int32_t type_index, int64_t converter, int64_t convert_fn) {
  GetterFor(type_index);  // Refuses layouts it cannot store, now rather than at the first set.
  return Function::FromPacked([=](PackedArgs args, Any*) {
    void* field = args[0].cast<void*>();
    TVMFFIAny converted{};
    if (convert_fn != 0) {
      FFI_CHECK_SAFE_CALL(reinterpret_cast<ConvertFn>(convert_fn)(
          reinterpret_cast<void*>(converter), args[1].raw(), &converted));
    } else {
      converted = Any(args[1]).release();
    }
    Store(type_index, field, Any::FromRaw(converted));
  });
}

/*!
 * \brief Each field of the object's type holding a reference (inherited first), as (address, is an
 * Any). A field reflected twice under two names (the `value` alias of an enum's index) is visited
 * once.
 */
template <typename F>
void ForEachOwningField(const TVMFFIObject* obj, F&& visit) {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(obj->type_index);
  reflection::ForEachFieldInfo(info, [&](const TVMFFIFieldInfo* f) {
    const TVMFFIFieldInfo* first = nullptr;  // the first field at f's offset (no allocation here)
    reflection::ForEachFieldInfoWithEarlyStop(info, [&](const TVMFFIFieldInfo* g) {
      if (g->offset != f->offset) return false;
      first = g;
      return true;
    });
    if (first != f) return;
    char* addr = reinterpret_cast<char*>(const_cast<TVMFFIObject*>(obj)) + f->offset;
    if (f->field_static_type_index == kAnyField) {
      visit(addr, true);
    } else if (f->field_static_type_index >= kTVMFFIStaticObjectBegin) {
      visit(addr, false);
    }
  });
}

void PyObjectDeleter(void* self, int flags) {
  auto* obj = static_cast<TVMFFIObject*>(self);
  if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong) {
    ForEachOwningField(obj, [](char* addr, bool is_any) {
      if (is_any) {
        Any::FromRaw(At<TVMFFIAny>(addr));
        At<TVMFFIAny>(addr) = TVMFFIAny{};
      } else if (TVMFFIObject* field = At<TVMFFIObject*>(addr)) {
        At<TVMFFIObject*>(addr) = nullptr;
        TVMFFIObjectDecRef(field);
      }
    });
  }
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) std::free(self);
}

TVMFFIObject* Allocate(int32_t type_index, int64_t total_size) {
  auto* obj = static_cast<TVMFFIObject*>(std::calloc(1, static_cast<size_t>(total_size)));
  if (obj == nullptr) FFI_THROW(RuntimeError) << "Out of memory allocating " << total_size;
  obj->combined_ref_count = 1 | (uint64_t{1} << 32);  // one strong, one weak (held by strong)
  obj->type_index = type_index;
  obj->deleter = PyObjectDeleter;
  return obj;
}

/*! \brief An owned Any holding `obj` (whose one strong reference it takes over). */
Any Adopt(TVMFFIObject* obj) {
  TVMFFIAny raw{};
  raw.type_index = obj->type_index;
  raw.v_obj = obj;
  return Any::FromRaw(raw);
}

void RegisterColumns(int32_t type_index, int64_t total_size) {
  if (total_size < static_cast<int64_t>(sizeof(TVMFFIObject))) {
    FFI_THROW(ValueError) << "Object size " << total_size << " is smaller than its header";
  }
  Function make = Function::FromTyped([=]() { return Adopt(Allocate(type_index, total_size)); });
  Function copy = Function::FromTyped([=](AnyView src) {
    const TVMFFIObject* from = src.raw()->v_obj;
    TVMFFIObject* obj = Allocate(type_index, total_size);
    std::memcpy(reinterpret_cast<char*>(obj) + sizeof(TVMFFIObject),
                reinterpret_cast<const char*>(from) + sizeof(TVMFFIObject),
                static_cast<size_t>(total_size) - sizeof(TVMFFIObject));
    ForEachOwningField(obj, [](char* addr, bool is_any) {  // The copy holds its own references.
      if (is_any) {
        TVMFFIAny& v = At<TVMFFIAny>(addr);
        if (v.type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectIncRef(v.v_obj);
      } else if (TVMFFIObject* field = At<TVMFFIObject*>(addr)) {
        TVMFFIObjectIncRef(field);
      }
    });
    return Adopt(obj);
  });
  for (auto [name, fn] : {std::pair<const char*, Function*>{"__ffi_new__", &make},
                          std::pair<const char*, Function*>{"__ffi_shallow_copy__", &copy}}) {
    TVMFFIByteArray key{name, std::strlen(name)};
    AnyView value(*fn);
    FFI_CHECK_SAFE_CALL(TVMFFITypeRegisterAttr(type_index, &key, value.raw()));
  }
  if (Optional<Function> init = Function::GetGlobal("ffi._RegisterFFIInit")) (*init)(type_index);
}

FFI_STATIC_INIT_BLOCK() {
  reflection::GlobalDef()
      .def(
          "ffi.MakeFieldGetter",
          [](int32_t type_index) { return reinterpret_cast<int64_t>(GetterFor(type_index)); },
          "The address of a C getter for a field stored natively as the given type.")
      .def("ffi.MakeFieldSetter", MakeSetter,
           "A setter Function (field address, value) converting through a C callback.")
      .def("ffi._PyClassRegisterTypeAttrColumns", RegisterColumns,
           "Registers __ffi_new__ and __ffi_shallow_copy__ for a type whose fields Python laid "
           "out.");
}

}  // namespace
}  // namespace runtime
}  // namespace ffi
}  // namespace tvm
